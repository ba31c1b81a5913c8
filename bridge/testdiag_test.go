package bridge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/ahptest"
	"github.com/ahpls-dev/ahpls/tools"
)

// testdiagFixture is one framework's project with one failing test.
type testdiagFixture struct {
	name string
	// need skips visibly when the toolchain is missing and may adjust the
	// environment the server (and so the tool) runs with.
	need    func(t *testing.T)
	dir     string            // the project, relative to the workspace
	files   map[string]string // relative to dir
	offered string            // how ahpls_run_tests lists the project
	file    string            // the failing test's file, relative to dir
	line    int               // 1-based line of the failure
	test    string            // the failing test's name as reported
	message string            // part of the assertion message
	broken  string            // the failing expression in file ...
	fixed   string            // ... and what makes it pass
}

var testdiagFixtures = []testdiagFixture{{
	name: "go",
	need: func(t *testing.T) {
		if _, err := exec.LookPath("go"); err != nil {
			t.Skip("SKIP: no go toolchain on PATH: ", err)
		}
	},
	dir: "sum",
	files: map[string]string{
		"go.mod": "module example.com/sum\n\ngo 1.21\n",
		"sum_test.go": `package sum

import "testing"

func TestSum(t *testing.T) {
	if 1+1 != 3 {
		t.Errorf("1+1 is not 3")
	}
}
`,
	},
	offered: "go in sum", file: "sum_test.go", line: 7, test: "TestSum", message: "1+1 is not 3",
	broken: "1+1 != 3", fixed: "1+1 != 2",
}, {
	name: "node",
	need: func(t *testing.T) {
		out, err := exec.Command("node", "--test", "--test-reporter=tap", "--help").CombinedOutput()
		if err != nil {
			t.Skipf("SKIP: node with --test is not on PATH (%v): %s", err, out)
		}
	},
	dir: "web",
	files: map[string]string{
		"package.json": `{"name": "calc", "private": true, "scripts": {"test": "node --test"}}` + "\n",
		"test/calc.test.js": `'use strict';
const test = require('node:test');
const assert = require('node:assert');

test('adds', () => {
  assert.strictEqual(1 + 2, 3);
});

test('doubles', () => {
  assert.strictEqual(2 * 2, 5, 'two doubled is five');
});
`,
	},
	offered: "node in web", file: "test/calc.test.js", line: 10, test: "doubles", message: "two doubled is five",
	broken: "2 * 2, 5", fixed: "2 * 2, 4",
}, {
	name: "pytest",
	need: func(t *testing.T) {
		// Debian's python3-pytest (.ci/run installs it); a python3 earlier
		// on PATH (pyenv, venv) may lack pytest, so /usr/bin goes first.
		if out, err := exec.Command("/usr/bin/python3", "-c", "import pytest").CombinedOutput(); err != nil {
			t.Skipf("SKIP: /usr/bin/python3 cannot import pytest (%v): %s (install python3-pytest)", err, out)
		}
		t.Setenv("PATH", "/usr/bin"+string(os.PathListSeparator)+os.Getenv("PATH"))
	},
	dir: "py",
	files: map[string]string{
		"pytest.ini": "[pytest]\n",
		"test_calc.py": `def mul(a, b):
    return a * b


def test_mul_small():
    assert mul(2, 3) == 6


def test_mul():
    assert mul(2, 2) == 5, "two times two"
`,
	},
	offered: "pytest in py", file: "test_calc.py", line: 10, test: "test_calc.py::test_mul", message: "two times two",
	broken: "== 5", fixed: "== 4",
}}

// TestFailingTestsInTheEditor is #20's "must show" through the editor, for
// each framework: the agent's call of ahpls_run_tests on a project with one
// failing test returns the test's name, file:line and assertion message and
// puts a diagnostic with source "ahpls tests" at that line; once the test is
// fixed, a re-run clears it.
func TestFailingTestsInTheEditor(t *testing.T) {
	for _, fx := range testdiagFixtures {
		t.Run(fx.name, func(t *testing.T) {
			fx.need(t)
			testFailingTestsInTheEditor(t, fx)
		})
	}
}

func testFailingTestsInTheEditor(t *testing.T, fx testdiagFixture) {
	h := newHosted(t, map[string]any{"trustWorkspaceTools": true})
	ctx := context.Background()
	proj := filepath.Join(h.ws, fx.dir)
	var marker string
	for rel, text := range fx.files {
		p := filepath.Join(proj, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		if rel != fx.file && !strings.Contains(rel, "/") {
			marker = p // go.mod, package.json, pytest.ini
		}
	}
	testFile := filepath.Join(proj, filepath.FromSlash(fx.file))
	failing, err := os.ReadFile(testFile)
	require.NoError(t, err)
	require.Contains(t, string(failing), fx.broken)

	var clientID string
	h.wait("connected", func() bool {
		st, err := h.ed.HostStatus(ctx)
		clientID = st.ClientID
		return err == nil && st.State == "connected" && clientID != ""
	})
	// The project appeared after the link started: the editor's
	// file-watcher event (server → bridge → link) makes the runner detect it.
	require.NoError(t, h.ed.Notify(ctx, "workspace/didChangeWatchedFiles", map[string]any{
		"changes": []map[string]any{{"uri": "file://" + filepath.ToSlash(marker), "type": 1}},
	}))
	h.wait("ahpls_run_tests offered for the new project", func() bool {
		var ok bool
		_ = h.host.Wait(ctx, func(v *ahptest.View) bool {
			ok = strings.Contains(mustJSON(v.ActiveClient(h.session, clientID)), fx.offered)
			return true
		})
		return ok
	})
	chat, err := h.host.CreateChat(h.session, "", "tests")
	require.NoError(t, err)

	run := func(id string) map[string]any {
		turn, err := h.host.StartTurn(chat, "run the tests")
		require.NoError(t, err)
		tc, err := h.host.StartClientToolCall(chat, turn, ahptest.ClientToolCall{
			ToolCallID: id, ToolName: "ahpls_run_tests", DisplayName: "tests", ClientID: clientID, Input: mustJSON(map[string]string{"path": fx.dir}),
		})
		require.NoError(t, err)
		var final map[string]any
		wctx, cancel := context.WithTimeout(ctx, waitLimit)
		defer cancel()
		require.NoError(t, h.host.Wait(wctx, func(v *ahptest.View) bool {
			call := v.ToolCall(chat, tc)
			if s, _ := call["status"].(string); s == "completed" || s == "cancelled" {
				final = call
			}
			return final != nil
		}))
		_ = h.host.CompleteTurn(chat, turn)
		return final
	}

	res := run("tc-fail")
	assert.Equal(t, false, res["success"], "the failing run: %v", res)
	// What the agent reads: the test, where it failed and why.
	text := mustJSON(res)
	where := fmt.Sprintf("%s/%s:%d", fx.dir, fx.file, fx.line)
	assert.Contains(t, text, "FAIL "+fx.test, "the failing test named: %s", text)
	assert.Contains(t, text, where, "its file and line: %s", text)
	assert.Contains(t, text, fx.message, "the assertion message: %s", text)

	h.wait("a test diagnostic at "+where, func() bool {
		p, ok := h.ed.Diagnostics(testFile)
		if !ok {
			return false
		}
		for _, d := range p.Diagnostics {
			if d.Source == tools.TestDiagnosticsSource && d.Range.Start.Line == fx.line-1 && strings.Contains(d.Message, fx.test) && strings.Contains(d.Message, fx.message) {
				return true
			}
		}
		return false
	})

	require.NoError(t, os.WriteFile(testFile, []byte(strings.Replace(string(failing), fx.broken, fx.fixed, 1)), 0o644))
	res = run("tc-pass")
	assert.Equal(t, true, res["success"], "the passing run: %v", res)
	cleared := func() bool {
		p, ok := h.ed.Diagnostics(testFile)
		if !ok {
			return false
		}
		for _, d := range p.Diagnostics {
			if d.Source == tools.TestDiagnosticsSource {
				return false
			}
		}
		return true
	}
	h.wait("the test diagnostic cleared", cleared)

	// Failing again, then the host setting removed: the stopped link's
	// failures leave the editor with it.
	require.NoError(t, os.WriteFile(testFile, failing, 0o644))
	res = run("tc-fail-again")
	assert.Equal(t, false, res["success"])
	h.wait("the diagnostic back", func() bool { return !cleared() })
	require.NoError(t, h.ed.Configure(ctx, map[string]any{"host": ""}))
	h.wait("cleared when the link stops", cleared)
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

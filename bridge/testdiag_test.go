package bridge_test

import (
	"context"
	"encoding/json"
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

const failingTest = `package sum

import "testing"

func TestSum(t *testing.T) {
	if 1+1 != 3 {
		t.Errorf("1+1 is not 3")
	}
}
`

// TestFailingTestsInTheEditor is #20's editor half: the agent's call of
// ahpls_run_tests on a Go module with one failing test puts a diagnostic
// with source "ahpls tests" at the failing line; once the test is fixed, a
// re-run clears it.
func TestFailingTestsInTheEditor(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go toolchain on PATH: ", err)
	}
	h := newHosted(t, map[string]any{"trustWorkspaceTools": true})
	ctx := context.Background()
	mod := filepath.Join(h.ws, "sum")
	require.NoError(t, os.MkdirAll(mod, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module example.com/sum\n\ngo 1.21\n"), 0o644))
	testFile := filepath.Join(mod, "sum_test.go")
	require.NoError(t, os.WriteFile(testFile, []byte(failingTest), 0o644))

	var clientID string
	h.wait("connected", func() bool {
		st, err := h.ed.HostStatus(ctx)
		clientID = st.ClientID
		return err == nil && st.State == "connected" && clientID != ""
	})
	// The module appeared after the link started: the editor's file-watcher
	// event (server → bridge → link) makes the runner detect it.
	require.NoError(t, h.ed.Notify(ctx, "workspace/didChangeWatchedFiles", map[string]any{
		"changes": []map[string]any{{"uri": "file://" + filepath.ToSlash(filepath.Join(mod, "go.mod")), "type": 1}},
	}))
	h.wait("ahpls_run_tests offered for the new module", func() bool {
		var ok bool
		_ = h.host.Wait(ctx, func(v *ahptest.View) bool {
			ok = strings.Contains(mustJSON(v.ActiveClient(h.session, clientID)), `go in sum`)
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
			ToolCallID: id, ToolName: "ahpls_run_tests", DisplayName: "tests", ClientID: clientID, Input: `{"path":"sum"}`,
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
	h.wait("a test diagnostic at the failing line", func() bool {
		p, ok := h.ed.Diagnostics(testFile)
		if !ok {
			return false
		}
		for _, d := range p.Diagnostics {
			if d.Source == tools.TestDiagnosticsSource && d.Range.Start.Line == 6 && strings.Contains(d.Message, "TestSum") && strings.Contains(d.Message, "1+1 is not 3") {
				return true
			}
		}
		return false
	})

	require.NoError(t, os.WriteFile(testFile, []byte(strings.Replace(failingTest, "1+1 != 3", "1+1 != 2", 1)), 0o644))
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
	require.NoError(t, os.WriteFile(testFile, []byte(failingTest), 0o644))
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

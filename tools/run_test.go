//go:build unix

// These tests run POSIX programs (sh, true) as tools.

package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The whole point of argv templates: what the model sends is data. Every
// hostile string arrives as one literal argument, and nothing it "says"
// happens: no file is created, no glob is expanded.
func TestInjectionStringsArriveAsLiteralArguments(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "a.txt"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "b.txt"), nil, 0o644))
	r := newTestRegistry(t, root, config(echoTool,
		// A fixed shell script that only ever sees the value as "$1".
		`{"name":"shprint","inputSchema":{"type":"object","properties":{"value":{"type":"string"}}},
		  "command":{"argv":["sh","-c","printf '%s' \"$1\"","sh","--","{value}"]}}`))
	hostile := []string{
		"; rm -rf /",
		"$(touch pwned)",
		"`touch pwned`",
		"x\ntouch pwned",
		"--flag=value",
		"-rf",
		"*",
		"*.txt",
		"a b  c",
		`"quoted" 'single' \back`,
		"| touch pwned",
		"> pwned",
		"&& touch pwned &",
		"${HOME}",
		"~",
		"",
		"ünïcødé ☃",
	}
	for _, v := range hostile {
		t.Run(strconv.Quote(v), func(t *testing.T) {
			got, _ := runArgs(t, r, "ahpls_echo", map[string]any{"value": v})
			assert.Equal(t, []string{"--", v}, got)

			res := r.Run(context.Background(), "ahpls_shprint", mustJSON(t, map[string]any{"value": v}), nil)
			require.True(t, res.Success, "%+v", res)
			// sh sees "--" as $1 because of the fixed template; the value is $2.
			assert.Equal(t, "--", res.Output)
		})
	}
	// Array inputs: one argument per element, each literal.
	got, _ := runArgs(t, r, "ahpls_echo", map[string]any{"value": "v", "more": []string{"$(touch pwned)", "*", "two words"}})
	assert.Equal(t, []string{"--", "v", "$(touch pwned)", "*", "two words"}, got)
	// Absent optional inputs emit nothing.
	got, _ = runArgs(t, r, "ahpls_echo", map[string]any{})
	assert.Equal(t, []string{"--"}, got)

	for _, dir := range []string{root, os.TempDir()} {
		_, err := os.Stat(filepath.Join(dir, "pwned"))
		assert.True(t, os.IsNotExist(err), "a hostile input created %s/pwned", dir)
	}
}

func TestShellTemplateSeesValueOnlyAsPositionalParameter(t *testing.T) {
	root := t.TempDir()
	r := newTestRegistry(t, root, config(
		`{"name":"shprint","inputSchema":{"type":"object","properties":{"value":{"type":"string"}}},
		  "command":{"argv":["sh","-c","printf '%s' \"$1\"","sh","{value}"]}}`))
	for _, v := range []string{"$(touch pwned)", "`touch pwned`", "x; touch pwned", "*"} {
		res := r.Run(context.Background(), "ahpls_shprint", mustJSON(t, map[string]any{"value": v}), nil)
		require.True(t, res.Success, "%+v", res)
		assert.Equal(t, v, res.Output, "printf must print the value verbatim")
	}
	_, err := os.Stat(filepath.Join(root, "pwned"))
	assert.True(t, os.IsNotExist(err))
}

func TestLeadingDashValuesAreRefusedBeforeDoubleDash(t *testing.T) {
	root := t.TempDir()
	r := newTestRegistry(t, root, config(
		`{"name":"nodd","inputSchema":{"type":"object","properties":{"value":{"type":"string"}}},
		  "command":{"argv":["ahplshelper","args","{value}"]}}`,
		`{"name":"allowed","inputSchema":{"type":"object","properties":{"value":{"type":"string"}}},
		  "command":{"argv":["ahplshelper","args","{value}"],"allowLeadingDash":true}}`))
	res := r.Run(context.Background(), "ahpls_nodd", []byte(`{"value":"--exec=touch pwned"}`), nil)
	assert.False(t, res.Success)
	assert.Equal(t, CodeInvalidInput, res.ErrorCode)
	assert.Contains(t, res.ErrorMessage, "starts with '-'")
	assert.Empty(t, res.Output, "nothing ran")

	got, _ := runArgs(t, r, "ahpls_allowed", map[string]any{"value": "--exec=x"})
	assert.Equal(t, []string{"--exec=x"}, got)
}

func TestInputValidation(t *testing.T) {
	root := t.TempDir()
	r := newTestRegistry(t, root, config(`{"name":"v","inputSchema":{"type":"object","required":["n"],"additionalProperties":false,
		"properties":{"n":{"type":"integer","minimum":1,"maximum":9},"s":{"type":"string","pattern":"^[a-z]+$","minLength":2,"maxLength":4},
		"e":{"enum":["x","y"]},"b":{"type":"boolean"},"a":{"type":"array","items":{"type":"number"}}}},
		"command":{"argv":["ahplshelper","args","{n}","{s}","{e}","{b}","{a}"]}}`))
	cases := []struct {
		input string
		ok    bool
		want  []string
	}{
		{`{"n":3}`, true, []string{"3"}},
		{`{"n":3,"s":"abc","e":"y","b":false,"a":[1.5,2]}`, true, []string{"3", "abc", "y", "false", "1.5", "2"}},
		{``, false, nil},         // absent ⇒ {} ⇒ "n" missing
		{`{"n":0}`, false, nil},  // minimum
		{`{"n":10}`, false, nil}, // maximum
		{`{"n":1.5}`, false, nil},
		{`{"n":"3"}`, false, nil},
		{`{"n":3,"s":"A"}`, false, nil},
		{`{"n":3,"s":"abcde"}`, false, nil},
		{`{"n":3,"e":"z"}`, false, nil},
		{`{"n":3,"x":1}`, false, nil}, // additionalProperties:false
		{`{"n":3,"a":["1"]}`, false, nil},
		{`[1]`, false, nil},
		{`"str"`, false, nil},
		{`null`, false, nil},
		{`{"n":3`, false, nil},
		{`{"n":3,"n":4}`, false, nil}, // duplicate keys are ambiguous
	}
	for _, c := range cases {
		t.Run(c.input, func(t *testing.T) {
			res := r.Run(context.Background(), "ahpls_v", []byte(c.input), nil)
			if !c.ok {
				assert.False(t, res.Success)
				assert.Equal(t, CodeInvalidInput, res.ErrorCode, "%+v", res)
				assert.NotEmpty(t, res.ErrorMessage)
				return
			}
			require.True(t, res.Success, "%+v", res)
			var got []string
			require.NoError(t, json.Unmarshal([]byte(res.Output), &got))
			assert.Equal(t, c.want, got)
		})
	}
	// Absent input is {} for a tool without required inputs.
	r2 := newTestRegistry(t, root, config(`{"name":"noin","command":{"argv":["ahplshelper","args","fixed"]}}`))
	res := r2.Run(context.Background(), "ahpls_noin", nil, nil)
	require.True(t, res.Success, "%+v", res)
	assert.Equal(t, "[\"fixed\"]\n", res.Output)
}

func TestExitCodeDecidesSuccess(t *testing.T) {
	root := t.TempDir()
	r := newTestRegistry(t, root, config(`{"name":"exit","title":"Exit helper","inputSchema":{"type":"object","properties":{"code":{"type":"integer"}}},
		"command":{"argv":["ahplshelper","exit","{code}"]}}`))
	res := r.Run(context.Background(), "ahpls_exit", []byte(`{"code":0}`), nil)
	assert.True(t, res.Success)
	assert.Equal(t, 0, res.ExitCode)
	assert.Equal(t, "Ran Exit helper", res.PastTenseMessage)
	assert.Contains(t, res.Output, "to stdout")
	assert.Contains(t, res.Output, "to stderr", "stderr is part of the output")

	res = r.Run(context.Background(), "ahpls_exit", []byte(`{"code":3}`), nil)
	assert.False(t, res.Success)
	assert.Equal(t, 3, res.ExitCode)
	assert.Equal(t, CodeExitStatus, res.ErrorCode)
	assert.Equal(t, "Exit helper failed with exit code 3", res.PastTenseMessage)
	w := res.Wire()
	assert.False(t, w.Success)
	require.NotNil(t, w.Error)
	assert.Equal(t, CodeExitStatus, w.Error.Code)
	require.Len(t, w.Content, 1)
	assert.Equal(t, res.Output, w.Content[0].Text)
}

func TestEnvironmentIsAllowListed(t *testing.T) {
	root := t.TempDir()
	r := newTestRegistry(t, root, config(
		`{"name":"env","command":{"argv":["ahplshelper","env"],"env":{"EXTRA":"1"},"inheritEnv":["GOPATH"]}}`,
		`{"name":"env2","command":{"argv":["ahplshelper","env"],"inheritEnv":["AHPLS_TEST_SECRET"]}}`))
	res := r.Run(context.Background(), "ahpls_env", nil, nil)
	require.True(t, res.Success, "%+v", res)
	assert.NotContains(t, res.Output, "hunter2", "a secret of ahpls's environment leaked")
	assert.Contains(t, res.Output, "EXTRA=1\n")
	assert.Contains(t, res.Output, "GOPATH=")
	assert.Contains(t, res.Output, "HOME=")
	assert.NotContains(t, res.Output, "GOCACHE=", "not allow-listed, not inherited")

	res = r.Run(context.Background(), "ahpls_env2", nil, nil)
	require.True(t, res.Success, "%+v", res)
	assert.Contains(t, res.Output, "AHPLS_TEST_SECRET=hunter2\n", "named in inheritEnv")
}

// A tool must not run outside the workspace, however its working directory
// or program is spelled, and also when the disk changes after loading.
func TestToolCannotRunOutsideWorkspace(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "ws")
	outside := filepath.Join(base, "outside")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "sub"), 0o755))
	require.NoError(t, os.MkdirAll(outside, 0o755))
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "escape")))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "prog"), []byte("#!/bin/sh\ntouch pwned\n"), 0o755))

	// Refused when the config is read: nothing is registered.
	for _, cwd := range []string{"..", "../outside", outside, "escape", "sub/../../outside", "~"} {
		t.Run("config cwd "+cwd, func(t *testing.T) {
			r, err := NewRegistry(Options{Root: root, Trusted: true, Environ: testEnviron()})
			require.NoError(t, err)
			probs := r.SetWorkspaceConfig([]byte(config(`{"name":"t","command":{"argv":["ahplshelper","touch","marker"],"cwd":` + strconv.Quote(cwd) + `}}`)))
			require.NotEmpty(t, probs)
			assert.Equal(t, SeverityError, probs[0].Severity)
			assert.Contains(t, probs[0].Message, "cwd")
			res := r.Run(context.Background(), "ahpls_t", nil, nil)
			assert.Equal(t, CodeUnknownTool, res.ErrorCode)
		})
	}
	for _, prog := range []string{"../outside/prog", "/bin/true", "escape/prog"} {
		t.Run("config argv0 "+prog, func(t *testing.T) {
			r, err := NewRegistry(Options{Root: root, Trusted: true, Environ: testEnviron()})
			require.NoError(t, err)
			probs := r.SetWorkspaceConfig([]byte(config(`{"name":"t","command":{"argv":[` + strconv.Quote(prog) + `]}}`)))
			if prog == "escape/prog" {
				// Lexically fine; refused at run time (see below).
				require.Empty(t, probs)
				res := r.Run(context.Background(), "ahpls_t", nil, nil)
				assert.Equal(t, CodeOutside, res.ErrorCode, "%+v", res)
				assert.NotContains(t, fmt.Sprintf("%+v", res), base, "the host learns workspace-relative names only, never a link's target")
				return
			}
			require.NotEmpty(t, probs)
			assert.Contains(t, probs[0].Message, "argv[0]")
		})
	}

	// Refused at run time: sub was a real directory when loaded, then became
	// a symlink to the outside.
	r := newTestRegistry(t, root, config(`{"name":"t","command":{"argv":["ahplshelper","touch","marker"],"cwd":"sub"}}`))
	res := r.Run(context.Background(), "ahpls_t", nil, nil)
	require.True(t, res.Success, "%+v", res)
	require.FileExists(t, filepath.Join(root, "sub", "marker"))
	require.NoError(t, os.RemoveAll(filepath.Join(root, "sub")))
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "sub")))
	res = r.Run(context.Background(), "ahpls_t", nil, nil)
	assert.False(t, res.Success)
	assert.Equal(t, CodeOutside, res.ErrorCode, "%+v", res)
	assert.NotContains(t, fmt.Sprintf("%+v", res), base, "the host learns workspace-relative names only, never a link's target")
	assert.NoFileExists(t, filepath.Join(outside, "marker"), "the tool ran outside the workspace")

	// A workspace-relative program inside the workspace is fine.
	script := filepath.Join(root, "bin", "hello")
	require.NoError(t, os.MkdirAll(filepath.Dir(script), 0o755))
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\necho hello \"$@\"\n"), 0o755))
	r = newTestRegistry(t, root, config(`{"name":"h","command":{"argv":["./bin/hello","x"]}}`))
	res = r.Run(context.Background(), "ahpls_h", nil, nil)
	require.True(t, res.Success, "%+v", res)
	assert.Equal(t, "hello x\n", res.Output)
}

func TestWorkingDirectoryIsResolvedInsideWorkspace(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "a", "b"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(root, "a"), filepath.Join(root, "link")))
	r := newTestRegistry(t, root, config(`{"name":"pwd","command":{"argv":["ahplshelper","pwd"],"cwd":"link/b"}}`))
	res := r.Run(context.Background(), "ahpls_pwd", nil, nil)
	require.True(t, res.Success, "%+v", res)
	real, err := filepath.EvalSymlinks(filepath.Join(root, "a", "b"))
	require.NoError(t, err)
	assert.Equal(t, real+"\n", res.Output, "runs in the symlink-free directory")
}

// go test on a real fixture module: success and failure come from the exit
// code, and output is streamed through the progress callback.
func TestGoTestTool(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go module")
	}
	root, err := filepath.Abs("testdata/gofixture")
	require.NoError(t, err)
	r := newTestRegistry(t, root, config(`{"name":"go_test","title":"Go tests",
		"description":"Runs go test in the workspace.",
		"inputSchema":{"type":"object","properties":{"run":{"type":"string"},"packages":{"type":"array","items":{"type":"string","pattern":"^\\./"}}}},
		"annotations":{"readOnlyHint":true,"openWorldHint":false},
		"command":{"argv":["go","test","-count=1","-v",["-run","{run}"],"{packages}"],
			"env":{"GOPROXY":"off","GOTOOLCHAIN":"local","GOFLAGS":"-mod=mod"},
			"inheritEnv":["GOCACHE","GOPATH","GOMODCACHE"],"timeoutSeconds":300}}`))

	var mu sync.Mutex
	var updates []Progress
	record := func(p Progress) {
		mu.Lock()
		updates = append(updates, p)
		mu.Unlock()
	}
	res := r.Run(context.Background(), "ahpls_go_test", []byte(`{"run":"^TestAdd$","packages":["./..."]}`), record)
	require.True(t, res.Success, "%+v", res)
	assert.Equal(t, 0, res.ExitCode)
	assert.Contains(t, res.Output, "--- PASS: TestAdd")
	assert.NotContains(t, res.Output, "TestBroken")
	mu.Lock()
	require.NotEmpty(t, updates, "no progress callback")
	last := updates[len(updates)-1]
	mu.Unlock()
	assert.Equal(t, res.Output, last.Output, "the last update carries all output")
	assert.Equal(t, res.TotalBytes, last.TotalBytes)

	updates = nil
	res = r.Run(context.Background(), "ahpls_go_test", []byte(`{}`), record)
	assert.False(t, res.Success)
	assert.Equal(t, 1, res.ExitCode)
	assert.Equal(t, CodeExitStatus, res.ErrorCode)
	assert.Contains(t, res.Output, "--- FAIL: TestBroken")
	assert.Contains(t, res.Output, "deliberately wrong expectation")
	assert.Equal(t, "Go tests failed with exit code 1", res.PastTenseMessage)
	assert.NotEmpty(t, updates)

	tools, _ := r.Resolve(nil)
	require.Len(t, tools, 2, "go_test and the detected test runner")
	require.Equal(t, "ahpls_go_test", tools[0].Name)
	b, err := json.Marshal(tools[0])
	require.NoError(t, err)
	assert.JSONEq(t, `{"name":"ahpls_go_test","title":"Go tests","description":"Runs go test in the workspace.",
		"inputSchema":{"type":"object","properties":{"run":{"type":"string"},"packages":{"type":"array","items":{"type":"string","pattern":"^\\./"}}}},
		"annotations":{"readOnlyHint":true,"openWorldHint":false}}`, string(b))
}

func TestProgressIsStreamedWhileRunning(t *testing.T) {
	root := t.TempDir()
	r := newTestRegistry(t, root, config(`{"name":"slow","command":{"argv":["ahplshelper","slow","5"]}}`))
	var updates []Progress
	res := r.Run(context.Background(), "ahpls_slow", nil, func(p Progress) { updates = append(updates, p) })
	require.True(t, res.Success, "%+v", res)
	require.GreaterOrEqual(t, len(updates), 2, "output arrived over ~750ms; expected several coalesced updates")
	assert.Equal(t, res.Output, updates[len(updates)-1].Output)
	for i := 1; i < len(updates); i++ {
		prev, cur := updates[i-1], updates[i]
		assert.True(t, strings.HasPrefix(cur.Output, prev.Output), "updates grow monotonically")
		// An update brings new output, or only a new step (elapsed time).
		assert.Equal(t, cur.Output != prev.Output, cur.OutputChanged, "OutputChanged says whether the output changed")
		assert.True(t, cur.OutputChanged || cur.Step != prev.Step, "no update without new output or a new step")
	}
}

func TestOutputIsBoundedWithHeadAndTail(t *testing.T) {
	root := t.TempDir()
	r := newTestRegistry(t, root, config(`{"name":"spew","inputSchema":{"type":"object","properties":{"n":{"type":"integer"}}},
		"command":{"argv":["ahplshelper","spew","{n}"],"maxOutputBytes":4096}}`))
	const n = 20_000_000 // whole 100-byte lines
	res := r.Run(context.Background(), "ahpls_spew", []byte(`{"n":`+strconv.Itoa(n)+`}`), nil)
	require.True(t, res.Success, "%+v", res)
	assert.Equal(t, int64(n), res.TotalBytes)
	assert.Equal(t, int64(n-4096), res.CutBytes)
	assert.Contains(t, res.Output, "[... "+strconv.Itoa(n-4096)+" bytes of output cut ...]")
	assert.Less(t, len(res.Output), 4096+100)
	assert.True(t, strings.HasPrefix(res.Output, strings.Repeat("a", 99)+"\n"))
	assert.True(t, strings.HasSuffix(res.Output, strings.Repeat("a", 99)+"\n"))

	// Under the limit nothing is cut and there is no marker.
	res = r.Run(context.Background(), "ahpls_spew", []byte(`{"n":4096}`), nil)
	require.True(t, res.Success)
	assert.Zero(t, res.CutBytes)
	assert.Len(t, res.Output, 4096)
}

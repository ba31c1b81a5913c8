package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"
)

// buildBinary builds ./cmd/ahpls once per test run.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "ahpls")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Run(), "go build")
	return bin
}

// procRWC is the editor's side of the child's stdio.
type procRWC struct {
	io.Reader
	io.WriteCloser
}

// The real binary over real pipes: initialize → didOpen → diagnostics →
// shutdown → exit, and the process ends with code 0.
func TestBinaryOverStdio(t *testing.T) {
	bin := buildBinary(t)
	root := t.TempDir()
	cmd := exec.Command(bin) // no arguments: serve over stdio
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	var mu sync.Mutex
	got := make(chan json.RawMessage, 64)
	var statuses []string
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(procRWC{stdout, stdin}))
	conn.Go(context.Background(), func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		mu.Lock()
		defer mu.Unlock()
		switch req.Method() {
		case "textDocument/publishDiagnostics":
			got <- append(json.RawMessage(nil), req.Params()...)
		case "ahpls/hostStatus":
			statuses = append(statuses, string(req.Params()))
		}
		return nil, nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	var init map[string]any
	_, err = conn.Call(ctx, "initialize", json.RawMessage(fmt.Sprintf(
		`{"processId":null,"rootUri":%q,"capabilities":{},"workspaceFolders":[{"uri":%q,"name":"ws"}]}`, uri.File(root), uri.File(root))), &init)
	require.NoError(t, err)
	require.NoError(t, conn.Notify(ctx, "initialized", json.RawMessage(`{}`)))

	u := uri.File(filepath.Join(root, ".github", "skills", "demo", "SKILL.md"))
	open, _ := json.Marshal(map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "markdown", "version": 4, "text": "---\nname: demo\x00\n---\n"}})
	require.NoError(t, conn.Notify(ctx, "textDocument/didOpen", json.RawMessage(open)))

	for {
		select {
		case p := <-got:
			var pub struct {
				URI         string `json:"uri"`
				Version     int    `json:"version"`
				Diagnostics []struct {
					Code  string `json:"code"`
					Range struct {
						Start struct {
							Line      int `json:"line"`
							Character int `json:"character"`
						} `json:"start"`
					} `json:"range"`
				} `json:"diagnostics"`
			}
			require.NoError(t, json.Unmarshal(p, &pub))
			if pub.URI != string(u) || pub.Version != 4 {
				continue
			}
			require.NotEmpty(t, pub.Diagnostics)
			assert.Equal(t, "file/encoding", pub.Diagnostics[0].Code)
			assert.Equal(t, 1, pub.Diagnostics[0].Range.Start.Line)
			assert.Equal(t, len("name: demo"), pub.Diagnostics[0].Range.Start.Character)
		case <-ctx.Done():
			t.Fatalf("no diagnostics; stderr:\n%s", stderr.String())
		}
		break
	}

	_, err = conn.Call(ctx, "shutdown", nil, nil)
	require.NoError(t, err)
	require.NoError(t, conn.Notify(ctx, "exit", nil))
	err = cmd.Wait()
	require.NoError(t, err, "exit code 0 after shutdown; stderr:\n%s", stderr.String())
	assert.Equal(t, 0, cmd.ProcessState.ExitCode())
	assert.NotContains(t, stderr.String(), "panic")
	// Without a host configured the status still reaches the editor (#18).
	mu.Lock()
	assert.Equal(t, []string{`{"state":"disconnected","message":"no agent host configured (ahpls.host)"}`}, statuses)
	mu.Unlock()
	// INFO lines (initialize, the scan count, settings) went to the editor
	// as window/logMessage; stderr is for warnings and errors only (#18).
	assert.Empty(t, stderr.String(), "a session without problems writes nothing to stderr")
}

// Without shutdown the process exits with 1 when the editor goes away.
func TestBinaryExitWithoutShutdown(t *testing.T) {
	bin := buildBinary(t)
	cmd := exec.Command(bin, "serve")
	cmd.Stdin = strings.NewReader("")
	require.Error(t, cmd.Run())
	assert.Equal(t, 1, cmd.ProcessState.ExitCode())
}

func TestRunSubcommands(t *testing.T) {
	var out, errb bytes.Buffer
	assert.Equal(t, 0, run([]string{"version"}, io.NopCloser(strings.NewReader("")), nopWriteCloser{&out}, &errb))
	assert.True(t, strings.HasPrefix(out.String(), "ahpls "))
	out.Reset()
	assert.Equal(t, 2, run([]string{"frobnicate"}, io.NopCloser(strings.NewReader("")), nopWriteCloser{&out}, &errb))
	assert.Contains(t, errb.String(), "unknown command")
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func TestRunRulesAndMCPDispatch(t *testing.T) {
	var out, errb bytes.Buffer
	assert.Equal(t, 0, run([]string{"rules", "--format", "json"}, io.NopCloser(strings.NewReader("")), nopWriteCloser{&out}, &errb))
	assert.Contains(t, out.String(), `"id": "skill/name-dir"`)
	// Without ahpls-mcp next to the test binary or on PATH, `ahpls mcp`
	// says how to get it (the e2e tests in cmd/ahpls-mcp run the real one).
	t.Setenv("PATH", t.TempDir())
	errb.Reset()
	assert.Equal(t, 2, run([]string{"mcp"}, io.NopCloser(strings.NewReader("")), nopWriteCloser{&out}, &errb))
	assert.Contains(t, errb.String(), "needs the ahpls-mcp binary")
}

// TestMCPSDKStaysOutOfAhpls: the MCP SDK's package init (encoding/gob,
// the SDK) would run at every start of every subcommand; it lives in
// ahpls-mcp only, which `ahpls mcp` execs (issue #33). jsonschema-go alone
// is linked, since #30: package tools validates tool inputs with it and
// ahpschema the demo host's frames; its init is one small reflection pass
// (~300 allocations, ~85 kB), far from the meta-schema compilation of the
// library it replaced.
func TestMCPSDKStaysOutOfAhpls(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	require.NoError(t, err)
	for _, dep := range strings.Fields(string(out)) {
		assert.False(t, strings.HasPrefix(dep, "github.com/modelcontextprotocol/") ||
			dep == "github.com/ahpls-dev/ahpls/mcpserver" || dep == "encoding/gob", "cmd/ahpls imports %s", dep)
	}
}

// TestNoMetaSchemaCompilationAtStart: santhosh-tekuri/jsonschema compiles
// its meta-schemas in its package init, ~15 ms CPU and 1.7 MB at every
// start of every subcommand (issue #30); neither package tools nor
// package ahpschema may bring it in.
func TestNoMetaSchemaCompilationAtStart(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	require.NoError(t, err)
	for _, dep := range strings.Fields(string(out)) {
		assert.False(t, strings.HasPrefix(dep, "github.com/santhosh-tekuri/"), "cmd/ahpls imports %s", dep)
	}
}

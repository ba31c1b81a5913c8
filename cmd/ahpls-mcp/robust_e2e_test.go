package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rawSession is `ahpls mcp` over real pipes, spoken to line by line (the
// SDK's client would not send what these tests send).
type rawSession struct {
	t     *testing.T
	stdin io.WriteCloser
	out   *bufio.Scanner
}

func startRaw(t *testing.T, root string) *rawSession {
	t.Helper()
	cmd := exec.Command(ahplsBinary(t), "mcp")
	cmd.Dir = root
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("stderr of ahpls mcp:\n%s", stderr.String())
		}
	})
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	return &rawSession{t: t, stdin: stdin, out: sc}
}

func (s *rawSession) send(line string) {
	s.t.Helper()
	_, err := io.WriteString(s.stdin, line+"\n")
	require.NoError(s.t, err)
}

// reply is the next line the server writes, decoded.
func (s *rawSession) reply() map[string]any {
	s.t.Helper()
	got := make(chan bool, 1)
	go func() { got <- s.out.Scan() }()
	select {
	case ok := <-got:
		require.True(s.t, ok, "the server closed its output: %v", s.out.Err())
	case <-time.After(30 * time.Second):
		s.t.Fatal("no reply within 30 s")
	}
	var m map[string]any
	require.NoError(s.t, json.Unmarshal(s.out.Bytes(), &m), s.out.Text())
	return m
}

func (s *rawSession) initialize() {
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	r := s.reply()
	require.Contains(s.t, r, "result", r)
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// TestMalformedMessagesAreAnsweredAndTheSessionGoesOn: each kind of bad
// line issue 39 names gets a JSON-RPC error reply (-32700 for what is not
// JSON, -32600 for what is not a request, id null when the id cannot be
// read), and tools/list still answers afterwards.
func TestMalformedMessagesAreAnsweredAndTheSessionGoesOn(t *testing.T) {
	root, _ := workspace(t)
	s := startRaw(t, root)
	s.initialize()
	deep := strings.Repeat("[", 10000) + strings.Repeat("]", 10000)
	huge := `{"jsonrpc":"2.0","id":99,"method":"tools/list","params":{"pad":"` + strings.Repeat("A", 16<<20) + `"}}`
	for _, c := range []struct {
		name, line string
		code       float64
		id         any
	}{
		{"parse error", `{"jsonrpc":"2.0","id":3,"method":`, -32700, nil},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":4,"method":"tools/list"}`, -32600, 4.0},
		{"jsonrpc 1.0 without id", `{"jsonrpc":"1.0","method":"tools/list"}`, -32600, nil},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`, -32600, nil},
		{"empty batch", `[]`, -32600, nil},
		{"10,000-deep JSON", deep, -32600, nil},
		{"a bare number", `42`, -32600, nil},
		{"16 MB frame", huge, -32600, nil},
	} {
		done := make(chan struct{})
		go func() { s.send(c.line); close(done) }() // 16 MB: the server reads while we write
		r := s.reply()
		<-done
		require.Contains(t, r, "error", "%s: %v", c.name, r)
		assert.Equal(t, c.code, r["error"].(map[string]any)["code"], c.name)
		assert.Equal(t, c.id, r["id"], "%s: the id", c.name)
		assert.Contains(t, r, "id", c.name)
	}
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	r := s.reply()
	require.Contains(t, r, "result", r)
	assert.EqualValues(t, 2, r["id"])
	tools := r["result"].(map[string]any)["tools"].([]any)
	assert.Len(t, tools, 4)
}

// TestListArgumentsTakeAString: paths as one string, targets as a
// comma-separated string; the text spells reactions in words; a path
// named twice is checked once.
func TestListArgumentsTakeAString(t *testing.T) {
	root, _ := workspace(t)
	cs := connect(t, root)
	var one, twice checkOut
	res := call(t, cs, "check", map[string]any{"paths": ".github/skills/pdf/SKILL.md", "targets": "vscode-agent-host, claude-code"})
	structured(t, res, &one)
	require.NotZero(t, one.Total)
	for _, f := range one.Findings {
		assert.Equal(t, ".github/skills/pdf/SKILL.md", f.Path)
	}
	assert.Contains(t, text(res), "the VS Code agent host loads it but silently drops part of it", "reactions in words for the model")
	assert.Contains(t, text(res), "what Copilot CLI does is unknown (not verified)", "'?' in words")
	for _, code := range []string{"lose?", "rej", " ign", ": ?", "skip", "vscode-agent-host:"} {
		assert.NotContains(t, text(res), code, "no reaction codes in the text the model reads")
	}

	structured(t, call(t, cs, "check", map[string]any{"paths": []string{".github/skills/pdf/SKILL.md", "./.github/skills/pdf/SKILL.md"},
		"targets": []string{"vscode-agent-host,claude-code"}}), &twice)
	assert.Equal(t, one.Total, twice.Total, "a path named twice is checked once")

	res = call(t, cs, "list_customizations", map[string]any{"targets": "claude-code,vscode"})
	assert.False(t, res.IsError, text(res))
	res = call(t, cs, "fix", map[string]any{"paths": ".github/skills/pdf/SKILL.md", "dryRun": true})
	assert.False(t, res.IsError, text(res))
	assert.Contains(t, text(res), "would fix")
}

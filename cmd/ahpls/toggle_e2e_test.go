package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/ahptest"
)

// lspDiag is the part of an LSP diagnostic the test reads.
type lspDiag struct {
	Code     string `json:"code"`
	Severity int    `json:"severity"`
	Message  string `json:"message"`
	Range    struct {
		Start struct{ Line, Character int } `json:"start"`
	} `json:"range"`
}

// diagBoard keeps the latest publishDiagnostics per URI and wakes waiters.
type diagBoard struct {
	mu      sync.Mutex
	latest  map[string][]lspDiag
	history []string
	changed chan struct{}
}

func newDiagBoard() *diagBoard {
	return &diagBoard{latest: map[string][]lspDiag{}, changed: make(chan struct{})}
}

func (b *diagBoard) publish(raw json.RawMessage) {
	var p struct {
		URI         string    `json:"uri"`
		Diagnostics []lspDiag `json:"diagnostics"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.latest[p.URI] = p.Diagnostics
	b.history = append(b.history, fmt.Sprintf("%s %+v", filepath.Base(p.URI), p.Diagnostics))
	close(b.changed)
	b.changed = make(chan struct{})
}

// wait blocks until the latest diagnostics of u satisfy cond.
func (b *diagBoard) wait(ctx context.Context, t *testing.T, what string, u uri.URI, cond func([]lspDiag) bool) []lspDiag {
	t.Helper()
	for {
		b.mu.Lock()
		ds, ch := b.latest[string(u)], b.changed
		b.mu.Unlock()
		if cond(ds) {
			return ds
		}
		select {
		case <-ch:
		case <-ctx.Done():
			b.mu.Lock()
			hist := strings.Join(b.history, "\n  ")
			b.mu.Unlock()
			t.Fatalf("timed out waiting for %s; publications:\n  %s", what, hist)
		}
	}
}

func withCode(ds []lspDiag, code string) []lspDiag {
	var out []lspDiag
	for _, d := range ds {
		if d.Code == code {
			out = append(out, d)
		}
	}
	return out
}

// TestToggleFileFromEditor drives the real binary over stdio with the
// in-repo AHP host: the editor disables a skill for the session by its
// file URI, the host's state for that skill changes, and the file gets a
// hint saying it is disabled for this session; enabling it again removes
// the hint. The untrusted workspace's command tool is marked on its
// config.
func TestToggleFileFromEditor(t *testing.T) {
	bin := buildBinary(t)
	hw := newHostedWorkspace(t, "toggle")
	host, ws, session := hw.host, hw.ws, hw.session
	// A command tool of the workspace's own (the example workspace needs
	// none: its tests run with the built-in runner).
	require.NoError(t, os.MkdirAll(filepath.Join(ws, ".ahpls"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, ".ahpls", "tools.json"), []byte(`{"version":1,"tools":[{"name":"vet","description":"Runs go vet in the calc module.","command":{"argv":["go","vet","./..."],"cwd":"calc"}}]}`), 0o644))
	cmd, rwc, stderr := hw.startServer(t, bin)

	board := newDiagBoard()
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(rwc))
	conn.Go(context.Background(), func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		switch req.Method() {
		case "textDocument/publishDiagnostics":
			board.publish(json.RawMessage(req.Params()))
		case "workspace/configuration":
			return []any{map[string]any{}}, nil
		}
		return nil, nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	init := fmt.Sprintf(`{"processId":null,"rootUri":%q,"capabilities":{"workspace":{"configuration":true}},"workspaceFolders":[{"uri":%q,"name":"ws"}]}`, uri.File(ws), uri.File(ws))
	_, err := conn.Call(ctx, "initialize", json.RawMessage(init), nil)
	require.NoError(t, err)
	require.NoError(t, conn.Notify(ctx, "initialized", json.RawMessage(`{}`)))

	// Wait for the host to load our plugin and list the skill.
	var clientID, leafID string
	require.NoError(t, host.Wait(ctx, func(v *ahptest.View) bool {
		cs, _ := v.State(session)["customizations"].([]any)
		for _, c := range cs {
			m, _ := c.(map[string]any)
			id, _ := m["clientId"].(string)
			load, _ := m["load"].(map[string]any)
			if id == "" || load["kind"] != "loaded" {
				continue
			}
			ch, _ := m["children"].([]any)
			for _, x := range ch {
				leaf, _ := x.(map[string]any)
				if u, _ := leaf["uri"].(string); strings.HasSuffix(u, "/release-notes/SKILL.md") {
					clientID, leafID = id, leaf["id"].(string)
					return true
				}
			}
		}
		return false
	}), "the host loaded our plugin; stderr:\n%s", stderr.String())
	leaf := func(v *ahptest.View) map[string]any {
		cs, _ := v.State(session)["customizations"].([]any)
		for _, c := range cs {
			m, _ := c.(map[string]any)
			if m["clientId"] != clientID {
				continue
			}
			ch, _ := m["children"].([]any)
			for _, x := range ch {
				if l, _ := x.(map[string]any); l["id"] == leafID {
					return l
				}
			}
		}
		return nil
	}
	// sessionOff: the host says the leaf is off for this session.
	sessionOff := func(l map[string]any) bool {
		if l["enabled"] == false {
			return true
		}
		list, _ := l["enablement"].([]any)
		for _, e := range list {
			if d, _ := e.(map[string]any); d["kind"] == "session" && d["enabled"] == false {
				return true
			}
		}
		return false
	}

	skill := uri.File(filepath.Join(ws, ".github/skills/release-notes/SKILL.md"))
	toggle := func(enabled bool) []map[string]any {
		t.Helper()
		arg, _ := json.Marshal(map[string]any{"uri": skill, "scope": "session", "enabled": enabled})
		var rows []map[string]any
		_, err := conn.Call(ctx, "workspace/executeCommand", json.RawMessage(fmt.Sprintf(`{"command":"ahpls.toggleCustomization","arguments":[%s]}`, arg)), &rows)
		require.NoError(t, err)
		return rows
	}

	// The server's mirror of the session follows the host's: wait until it
	// lists the skill too (before that, "toggle this file" is refused
	// rather than switching off the skill's whole plugin).
	listed := func() bool {
		var all map[string][]map[string]any
		_, err := conn.Call(ctx, "workspace/executeCommand", json.RawMessage(`{"command":"ahpls.listCustomizations","arguments":[]}`), &all)
		require.NoError(t, err)
		for _, r := range all[session] {
			if r["id"] == leafID {
				return true
			}
		}
		return false
	}
	for !listed() {
		select {
		case <-ctx.Done():
			t.Fatal("the server never listed the skill")
		case <-time.After(20 * time.Millisecond):
		}
	}

	defer func() {
		if t.Failed() {
			st, _ := host.State(session)
			b, _ := json.Marshal(st["customizations"])
			t.Logf("host customizations: %s\nleaf %s\nstderr:\n%s", b, leafID, stderr.String())
		}
	}()
	rows := toggle(false)
	off, pluginOn := false, false
	for _, r := range rows {
		switch {
		case r["id"] == leafID:
			off = r["on"] == false
		case r["type"] == "plugin":
			pluginOn = r["on"] == true
		}
	}
	assert.True(t, off, "the answer lists the skill as off: %v", rows)
	assert.True(t, pluginOn, "only the skill, not its plugin: %v", rows)
	require.NoError(t, host.Wait(ctx, func(v *ahptest.View) bool { l := leaf(v); return l != nil && sessionOff(l) }), "the host's state changed")
	ds := board.wait(ctx, t, "the enablement hint on the skill", skill, func(ds []lspDiag) bool { return len(withCode(ds, "enablement/state")) == 1 })
	hint := withCode(ds, "enablement/state")[0]
	assert.Equal(t, 4, hint.Severity, "a hint")
	assert.Equal(t, "Disabled for this session", hint.Message)
	assert.Equal(t, 0, hint.Range.Start.Line, "on the first line")

	toggle(true)
	require.NoError(t, host.Wait(ctx, func(v *ahptest.View) bool { l := leaf(v); return l != nil && !sessionOff(l) }), "the host's state changed back")
	board.wait(ctx, t, "the hint cleared", skill, func(ds []lspDiag) bool { return len(withCode(ds, "enablement/state")) == 0 })

	// Bad arguments say what the command takes.
	_, err = conn.Call(ctx, "workspace/executeCommand", json.RawMessage(`{"command":"ahpls.toggleCustomization","arguments":[{"scope":"session"}]}`), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"uri": "<file URI>"`)

	// The workspace is not trusted: its command tool is not registered,
	// and its config says so.
	cfg := uri.File(filepath.Join(ws, ".ahpls/tools.json"))
	ds = board.wait(ctx, t, "the untrusted tool warning", cfg, func(ds []lspDiag) bool { return len(withCode(ds, "tools/untrusted")) == 1 })
	assert.Equal(t, 2, withCode(ds, "tools/untrusted")[0].Severity, "a warning")

	_, err = conn.Call(ctx, "shutdown", nil, nil)
	require.NoError(t, err)
	require.NoError(t, conn.Notify(ctx, "exit", nil))
	require.NoError(t, cmd.Wait(), "stderr:\n%s", stderr.String())
	assert.Empty(t, hw.Violations(), "every AHP frame schema-valid")
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/ahptest"
)

// TestBinaryWithAgentHost drives the real binary over stdio, as an editor
// does, with the in-repo AHP host on loopback: the server connects, joins
// the workspace's session, publishes the workspace, the host loads it, an
// agent tool call runs with work-done progress in the editor, and an
// unsaved edit that breaks a skill republishes without it.
func TestBinaryWithAgentHost(t *testing.T) {
	bin := buildBinary(t)
	hw := newHostedWorkspace(t, "e2e")
	host, ws, session := hw.host, hw.ws, hw.session
	chat, err := host.CreateChat(session, "", "chat")
	require.NoError(t, err)
	cmd, rwc, stderr := hw.startServer(t, bin)

	var mu sync.Mutex
	var statuses []string
	progress := map[string]int{}
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(rwc))
	conn.Go(context.Background(), func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		mu.Lock()
		defer mu.Unlock()
		switch req.Method() {
		case "ahpls/hostStatus":
			var st struct{ State string }
			_ = json.Unmarshal(req.Params(), &st)
			statuses = append(statuses, st.State)
		case "$/progress":
			var p struct {
				Value struct{ Kind string } `json:"value"`
			}
			_ = json.Unmarshal(req.Params(), &p)
			progress[p.Value.Kind]++
		case "workspace/configuration":
			return []any{map[string]any{"trustWorkspaceTools": true}}, nil
		}
		return nil, nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	init := fmt.Sprintf(`{"processId":null,"rootUri":%q,"capabilities":{"window":{"workDoneProgress":true},"workspace":{"configuration":true}},
		"initializationOptions":{"trustWorkspaceTools":true},"workspaceFolders":[{"uri":%q,"name":"ws"}]}`, uri.File(ws), uri.File(ws))
	_, err = conn.Call(ctx, "initialize", json.RawMessage(init), nil)
	require.NoError(t, err)
	require.NoError(t, conn.Notify(ctx, "initialized", json.RawMessage(`{}`)))

	var clientID string
	require.NoError(t, host.Wait(ctx, func(v *ahptest.View) bool {
		// (The condition runs under the host's lock: read the view only.)
		acs, _ := v.State(session)["activeClients"].([]any)
		for _, a := range acs {
			e, _ := a.(map[string]any)
			if cs, _ := e["customizations"].([]any); len(cs) > 0 {
				clientID, _ = e["clientId"].(string)
				return true
			}
		}
		return false
	}), "the server joined and published; stderr:\n%s", stderr.String())

	loaded := func(v *ahptest.View) (nonce string, children int, ok bool) {
		cs, _ := v.State(session)["customizations"].([]any)
		for _, c := range cs {
			m, _ := c.(map[string]any)
			if m["clientId"] != clientID {
				continue
			}
			load, _ := m["load"].(map[string]any)
			ch, _ := m["children"].([]any)
			n, _ := m["nonce"].(string)
			return n, len(ch), load["kind"] == "loaded"
		}
		return "", 0, false
	}
	var before int
	require.NoError(t, host.Wait(ctx, func(v *ahptest.View) bool { _, n, ok := loaded(v); before = n; return ok }))
	assert.Equal(t, 6, before, "3 skills, 1 agent, 1 hook, 1 MCP server")

	var status map[string]any
	_, err = conn.Call(ctx, "workspace/executeCommand", json.RawMessage(`{"command":"ahpls.showHostConnection","arguments":[]}`), &status)
	require.NoError(t, err)
	assert.Equal(t, "connected", status["state"])
	assert.Equal(t, clientID, status["clientId"])

	// The agent calls the workspace's test runner.
	turn, err := host.StartTurn(chat, "run the tests")
	require.NoError(t, err)
	id, err := host.StartClientToolCall(chat, turn, ahptest.ClientToolCall{ToolName: "ahpls_run_tests", DisplayName: "calc tests", ClientID: clientID, Input: `{"pattern":"TestAdd"}`})
	require.NoError(t, err)
	var call map[string]any
	require.NoError(t, host.Wait(ctx, func(v *ahptest.View) bool { call = v.ToolCall(chat, id); return call["status"] == "completed" }))
	assert.Equal(t, true, call["success"], call)
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return progress["begin"] == 1 && progress["end"] == 1 }, 10*time.Second, 20*time.Millisecond,
		"the running tool showed as work-done progress")

	// An unsaved edit breaks a skill (no description: the Agent Skills
	// client guide skips it): it is republished without it.
	skill := uri.File(filepath.Join(ws, ".github/skills/release-notes/SKILL.md"))
	open, _ := json.Marshal(map[string]any{"textDocument": map[string]any{"uri": skill, "languageId": "markdown", "version": 1, "text": "---\nname: release-notes\n---\n"}})
	require.NoError(t, conn.Notify(ctx, "textDocument/didOpen", json.RawMessage(open)))
	require.NoError(t, host.Wait(ctx, func(v *ahptest.View) bool { _, n, ok := loaded(v); return ok && n == before-1 }), "republished without the broken skill")

	_, err = conn.Call(ctx, "shutdown", nil, nil)
	require.NoError(t, err)
	require.NoError(t, conn.Notify(ctx, "exit", nil))
	require.NoError(t, cmd.Wait(), "stderr:\n%s", stderr.String())
	mu.Lock()
	assert.Contains(t, statuses, "connected")
	mu.Unlock()
	assert.Empty(t, hw.Violations(), "every AHP frame schema-valid")
}

package ahptest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/ahpclient"
	"github.com/ahpls-dev/ahpls/ahptest"
)

const folder = "file:///work/proj"

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func newHost(t *testing.T, opts ahptest.Options) *ahptest.Host {
	t.Helper()
	if opts.OnViolation == nil {
		opts.OnViolation = func(err error) { t.Errorf("AHP violation: %v", err) }
	}
	opts.Logger = quiet()
	h := ahptest.New(opts)
	_, err := h.Start()
	require.NoError(t, err)
	t.Cleanup(func() { h.Close() })
	return h
}

func wait(t *testing.T, h *ahptest.Host, what string, cond func(v *ahptest.View) bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	require.NoError(t, h.Wait(ctx, cond), what)
}

// toolRunner is the smallest honest client-side executor: it runs each
// running call owned by this client once, streams one content update and
// completes it.
func toolRunner(c *ahpclient.Client, chat string, hold <-chan struct{}) {
	var mu sync.Mutex
	started := map[string]bool{}
	c.OnEvent(func(e ahpclient.Event) {
		if e.Kind != ahpclient.EventStateChanged || e.Channel != chat {
			return
		}
		turn, _ := e.State["activeTurn"].(map[string]any)
		parts, _ := turn["responseParts"].([]any)
		for _, p := range parts {
			tc, _ := p.(map[string]any)["toolCall"].(map[string]any)
			contrib, _ := tc["contributor"].(map[string]any)
			id, _ := tc["toolCallId"].(string)
			if tc["status"] != "running" || contrib["clientId"] != c.ClientID() {
				continue
			}
			mu.Lock()
			dup := started[id]
			started[id] = true
			mu.Unlock()
			if dup {
				continue
			}
			turnID := turn["id"]
			go func() {
				_, _ = c.Dispatch(chat, map[string]any{"type": "chat/toolCallContentChanged", "turnId": turnID, "toolCallId": id,
					"content": []any{map[string]any{"type": "text", "text": "working on " + fmt.Sprint(tc["toolInput"])}}})
				if hold != nil {
					<-hold
				}
				_, _ = c.Dispatch(chat, map[string]any{"type": "chat/toolCallComplete", "turnId": turnID, "toolCallId": id,
					"result": map[string]any{"success": true, "pastTenseMessage": "Did it", "content": []any{map[string]any{"type": "text", "text": "done"}}}})
			}()
		}
	})
}

func startClient(t *testing.T, h *ahptest.Host, mod func(*ahpclient.Options)) (*ahpclient.Client, context.CancelFunc) {
	t.Helper()
	opts := ahpclient.Options{URL: h.URL(), StateDir: t.TempDir(), WorkspaceKey: folder, Logger: quiet(), Auto: true, Folders: []string{folder},
		Backoff: ahpclient.Backoff{Initial: 5 * time.Millisecond, Max: 20 * time.Millisecond}}
	if mod != nil {
		mod(&opts)
	}
	c, err := ahpclient.New(opts)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = c.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); c.Close(); <-done })
	return c, cancel
}

func setup(t *testing.T, opts ahptest.Options, hold <-chan struct{}) (*ahptest.Host, *ahpclient.Client, context.CancelFunc, string, string) {
	h := newHost(t, opts)
	s := h.CreateSession(ahptest.SessionSpec{WorkingDirectories: []string{folder}})
	chat, err := h.CreateChat(s, "", "")
	require.NoError(t, err)
	c, cancel := startClient(t, h, nil)
	toolRunner(c, chat, hold)
	require.NoError(t, c.SetActiveClient(map[string]any{"tools": []any{map[string]any{"name": "ahpls_echo"}}}))
	wait(t, h, "client active and following the chat", func(v *ahptest.View) bool {
		return v.ActiveClient(s, c.ClientID()) != nil && v.Subscribed(c.ClientID(), chat)
	})
	return h, c, cancel, s, chat
}

func TestScriptedClientToolCall(t *testing.T) {
	hold := make(chan struct{})
	h, c, _, s, chat := setup(t, ahptest.Options{}, hold)
	turn, err := h.StartTurn(chat, "please echo")
	require.NoError(t, err)
	tc, err := h.StartClientToolCall(chat, turn, ahptest.ClientToolCall{ToolName: "ahpls_echo", ClientID: c.ClientID(), Input: `{"x":1}`})
	require.NoError(t, err)

	st, _ := h.State(s)
	in, _ := st["inputNeeded"].([]any)
	require.Len(t, in, 1)
	entry := in[0].(map[string]any)
	assert.Equal(t, "toolClientExecution", entry["kind"])
	assert.Equal(t, c.ClientID(), entry["clientId"])

	wait(t, h, "streamed content", func(v *ahptest.View) bool {
		call := v.ToolCall(chat, tc)
		return call != nil && strings.Contains(fmt.Sprint(call["content"]), `working on {"x":1}`)
	})
	close(hold)
	wait(t, h, "completed by the owner", func(v *ahptest.View) bool {
		call := v.ToolCall(chat, tc)
		return call != nil && call["status"] == "completed"
	})
	call, _ := h.ToolCall(chat, tc)
	assert.Equal(t, true, call["success"])
	wait(t, h, "inputNeeded entry removed", func(v *ahptest.View) bool { return v.State(s)["inputNeeded"] == nil })
	require.NoError(t, h.CompleteTurn(chat, turn))
}

func TestReferencedToolInput(t *testing.T) {
	h, c, _, _, chat := setup(t, ahptest.Options{}, nil)
	turn, err := h.StartTurn(chat, "go")
	require.NoError(t, err)
	ref := "ahp-session:/s1/tool-inputs/tc-ref"
	_, err = h.StartClientToolCall(chat, turn, ahptest.ClientToolCall{ToolCallID: "tc-ref", ToolName: "ahpls_echo", ClientID: c.ClientID(), Input: `{"big":true}`, InputRef: ref})
	require.NoError(t, err)
	data, ct, err := c.ResourceRead(context.Background(), ref, "utf-8")
	require.NoError(t, err)
	assert.Equal(t, `{"big":true}`, string(data))
	assert.Equal(t, "application/json", ct)
}

func TestGracePeriodFailsRunningCalls(t *testing.T) {
	hold := make(chan struct{}) // never released: the client dies mid-call
	h, c, cancel, s, chat := setup(t, ahptest.Options{GracePeriod: 50 * time.Millisecond}, hold)
	id := c.ClientID()
	turn, err := h.StartTurn(chat, "go")
	require.NoError(t, err)
	tc, err := h.StartClientToolCall(chat, turn, ahptest.ClientToolCall{ToolName: "ahpls_echo", ClientID: id, Input: `{}`})
	require.NoError(t, err)
	wait(t, h, "client started", func(v *ahptest.View) bool { return v.ToolCall(chat, tc)["content"] != nil })
	cancel()
	c.Close()
	wait(t, h, "call failed and client removed after the grace period", func(v *ahptest.View) bool {
		call := v.ToolCall(chat, tc)
		return call["status"] == "completed" && call["success"] == false && v.ActiveClient(s, id) == nil
	})
	call, _ := h.ToolCall(chat, tc)
	assert.Contains(t, fmt.Sprint(call["error"]), "disconnected")
	st, _ := h.State(s)
	assert.Nil(t, st["inputNeeded"])
	close(hold)
}

func TestUnsubscribeEndsActiveRole(t *testing.T) {
	h := newHost(t, ahptest.Options{})
	s := h.CreateSession(ahptest.SessionSpec{WorkingDirectories: []string{"file:///x"}})
	c, _ := startClient(t, h, func(o *ahpclient.Options) { o.Auto = false; o.Sessions = []string{s} })
	require.NoError(t, c.SetActiveClient(map[string]any{"tools": []any{}}))
	wait(t, h, "active", func(v *ahptest.View) bool { return v.ActiveClient(s, c.ClientID()) != nil })
	c.Leave(s)
	wait(t, h, "removed on unsubscribe", func(v *ahptest.View) bool { return v.ActiveClient(s, c.ClientID()) == nil })
}

// rawClient speaks AHP by hand, to send what ahpclient never would.
type rawClient struct {
	t  *testing.T
	ws *websocket.Conn
	id int
}

func dialRaw(t *testing.T, h *ahptest.Host) *rawClient {
	ws, _, err := websocket.Dial(context.Background(), h.URL(), nil)
	require.NoError(t, err)
	t.Cleanup(func() { ws.CloseNow() })
	return &rawClient{t: t, ws: ws}
}

func (r *rawClient) send(s string) {
	require.NoError(r.t, r.ws.Write(context.Background(), websocket.MessageText, []byte(s)))
}

func (r *rawClient) read() map[string]any {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, b, err := r.ws.Read(ctx)
	require.NoError(r.t, err)
	var m map[string]any
	require.NoError(r.t, json.Unmarshal(b, &m))
	return m
}

// readUntil skips frames until one matches.
func (r *rawClient) readUntil(f func(map[string]any) bool) map[string]any {
	for {
		if m := r.read(); f(m) {
			return m
		}
	}
}

func (r *rawClient) call(method, params string) map[string]any {
	r.id++
	r.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, r.id, method, params))
	id := float64(r.id)
	return r.readUntil(func(m map[string]any) bool { return m["id"] == id })
}

func TestHostValidationRejects(t *testing.T) {
	h := newHost(t, ahptest.Options{})
	s := h.CreateSession(ahptest.SessionSpec{WorkingDirectories: []string{folder}})
	chat, err := h.CreateChat(s, "", "")
	require.NoError(t, err)
	turn, err := h.StartTurn(chat, "go")
	require.NoError(t, err)
	_, err = h.StartClientToolCall(chat, turn, ahptest.ClientToolCall{ToolCallID: "tc-r", ToolName: "t", ClientID: "raw-1", Input: "{}"})
	require.NoError(t, err)
	r := dialRaw(t, h)
	res := r.call("initialize", `{"channel":"ahp-root://","protocolVersions":["0.8.0"],"clientId":"raw-1"}`)
	require.NotNil(t, res["result"])
	r.call("subscribe", fmt.Sprintf(`{"channel":%q}`, s))
	r.call("subscribe", fmt.Sprintf(`{"channel":%q}`, chat))

	cases := []struct {
		name, channel, action, reason string
	}{
		{"host-only action", s, `{"type":"session/ready"}`, "not client-dispatchable"},
		{"wrong channel kind", s, `{"type":"chat/draftChanged","draft":{"text":"x","origin":{"kind":"user"}}}`, "does not apply"},
		{"other client's entry", s, `{"type":"session/activeClientSet","activeClient":{"clientId":"someone","tools":[]}}`, "sender's clientId"},
		{"remove another client", s, `{"type":"session/activeClientRemoved","clientId":"someone"}`, "only remove itself"},
		{"confirm a running call", chat, `{"type":"chat/toolCallConfirmed","turnId":"` + turn + `","toolCallId":"tc-r","approved":true,"confirmed":"user-action"}`, "not pending-confirmation"},
		{"cancel a turn that is not active", chat, `{"type":"chat/turnCancelled","turnId":"turn-none","duration":1}`, "no active turn"},
		{"directory outside the session", chat, `{"type":"chat/workingDirectorySet","directory":"file:///elsewhere"}`, "outside"},
		{"assistant turn", chat, `{"type":"chat/turnStarted","turnId":"t9","startedAt":"2026-08-01T09:00:00.000Z","message":{"text":"x","origin":{"kind":"agent"}}}`, "user messages"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			seq := 100 + i
			r.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"dispatchAction","params":{"channel":%q,"clientSeq":%d,"action":%s}}`, c.channel, seq, c.action))
			env := r.readUntil(func(m map[string]any) bool {
				p, _ := m["params"].(map[string]any)
				o, _ := p["origin"].(map[string]any)
				return m["method"] == "action" && o["clientSeq"] == float64(seq)
			})["params"].(map[string]any)
			assert.Contains(t, env["rejectionReason"], c.reason)
		})
	}
	// An owner's completion passes.
	r.send(`{"jsonrpc":"2.0","method":"dispatchAction","params":{"channel":"` + chat + `","clientSeq":200,"action":{"type":"chat/toolCallComplete","turnId":"` + turn + `","toolCallId":"tc-r","result":{"success":true,"pastTenseMessage":"ok"}}}}`)
	env := r.readUntil(func(m map[string]any) bool {
		p, _ := m["params"].(map[string]any)
		o, _ := p["origin"].(map[string]any)
		return o["clientSeq"] == float64(200)
	})["params"].(map[string]any)
	assert.Nil(t, env["rejectionReason"])
	call, _ := h.ToolCall(chat, "tc-r")
	assert.Equal(t, "completed", call["status"])
}

func TestHostReportsViolations(t *testing.T) {
	var mu sync.Mutex
	var got []string
	h := newHost(t, ahptest.Options{OnViolation: func(err error) {
		mu.Lock()
		got = append(got, err.Error())
		mu.Unlock()
	}})
	r := dialRaw(t, h)
	r.call("initialize", `{"channel":"ahp-root://","protocolVersions":["0.8.0"],"clientId":"raw-2"}`)
	r.send(`{"jsonrpc":"2.0","method":"dispatchAction","params":{"channel":"ahp-root://","clientSeq":1,"action":{"type":"root/nope"}}}`)
	r.send(`{"jsonrpc":"2.0","id":"seven","method":"ping","params":{"channel":"ahp-root://"}}`)
	res := r.call("listSessions", `{"channel":"ahp-root://","cursor":"bogus"}`)
	assert.EqualValues(t, -32602, res["error"].(map[string]any)["code"])
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, got, 2)
	assert.Contains(t, got[0], "unknown action type")
	assert.Contains(t, got[1], "integer")
}

func TestPingBeforeInitialize(t *testing.T) {
	h := newHost(t, ahptest.Options{})
	r := dialRaw(t, h)
	res := r.call("ping", `{"channel":"ahp-root://"}`)
	_, has := res["result"]
	assert.True(t, has)
	assert.Nil(t, res["result"])
}

func TestClientCreatesSessionAndChat(t *testing.T) {
	h := newHost(t, ahptest.Options{})
	c, _ := startClient(t, h, nil)
	require.NoError(t, c.WaitConnected(context.Background()))
	id := c.ClientID()
	s := "ahp-session:/made-by-client"
	_, err := c.Call(context.Background(), "createSession", map[string]any{"channel": s, "provider": "ahptest",
		"workingDirectories": []string{folder}, "activeClient": map[string]any{"clientId": id, "tools": []any{}}})
	require.NoError(t, err)
	_, err = c.Call(context.Background(), "createChat", map[string]any{"channel": s, "chat": "ahp-chat:/made"})
	require.NoError(t, err)
	wait(t, h, "auto-joined with its chat", func(v *ahptest.View) bool {
		return v.Subscribed(id, s) && v.Subscribed(id, "ahp-chat:/made") && v.ActiveClient(s, id) != nil
	})
	_, err = c.Call(context.Background(), "createSession", map[string]any{"channel": s})
	var re *ahpclient.RPCError
	require.ErrorAs(t, err, &re)
	assert.EqualValues(t, ahpclient.CodeSessionAlreadyExists, re.Code)
	_, err = c.Call(context.Background(), "subscribe", map[string]any{"channel": "ahp-session:/nope"})
	require.ErrorAs(t, err, &re)
	assert.EqualValues(t, ahpclient.CodeSessionNotFound, re.Code)
}

package toolexec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/ahpclient"
	"github.com/ahpls-dev/ahpls/ahpclient/reduce"
	"github.com/ahpls-dev/ahpls/ahpclient/wire"
	"github.com/ahpls-dev/ahpls/tools"
)

func TestBoundTail(t *testing.T) {
	cases := []struct {
		name, in string
		limit    int
		want     string
	}{
		{"under the limit", "abc", 10, "abc"},
		{"at the limit", "abcd", 4, "abcd"},
		{"over: tail kept", "0123456789", 4, "[... 6 earlier bytes not shown ...]\n6789"},
		{"never splits a rune", "aé€z", 4, "[... 3 earlier bytes not shown ...]\n€z"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := boundTail(c.in, c.limit)
			assert.Equal(t, c.want, got)
			assert.True(t, utf8.ValidString(got))
		})
	}
}

func TestSummaryLine(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", ""},
		{"one\ntwo\n\n", "two"},
		{"  padded  \r\n", "padded"},
		{strings.Repeat("é", 100), strings.Repeat("é", 60) + "…"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, summaryLine(c.in), "%q", c.in)
	}
}

func TestWireResult(t *testing.T) {
	info := CallInfo{ToolName: "ahpls_x"}
	cases := []struct {
		name string
		in   tools.Result
		want string
	}{
		{"success with output", tools.Result{Success: true, PastTenseMessage: "Ran X", Output: "hi\n"},
			`{"success":true,"pastTenseMessage":"Ran X","content":[{"type":"text","text":"hi\n"}]}`},
		{"failure keeps code and message", tools.Result{PastTenseMessage: "X failed with exit code 1", ErrorCode: tools.CodeExitStatus, ErrorMessage: "X failed with exit code 1", Output: "boom"},
			`{"success":false,"pastTenseMessage":"X failed with exit code 1","content":[{"type":"text","text":"boom"}],"error":{"message":"X failed with exit code 1","code":"exit_status"}}`},
		{"empty messages get a fallback", tools.Result{},
			`{"success":false,"pastTenseMessage":"ahpls_x failed","error":{"message":"ahpls_x failed"}}`},
		{"structured object kept", tools.Result{Success: true, PastTenseMessage: "ok", Structured: map[string]int{"count": 2}},
			`{"success":true,"pastTenseMessage":"ok","structuredContent":{"count":2}}`},
		{"structured non-object dropped", tools.Result{Success: true, PastTenseMessage: "ok", Structured: []int{1}},
			`{"success":true,"pastTenseMessage":"ok"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := json.Marshal(wireResult(c.in, info))
			require.NoError(t, err)
			assert.JSONEq(t, c.want, string(b))
		})
	}
}

func decode(t testing.TB, s string) map[string]any {
	v, err := reduce.Decode([]byte(s))
	require.NoError(t, err)
	m, _ := v.(map[string]any)
	return m
}

func TestViewOf(t *testing.T) {
	chat := decode(t, `{"activeTurn":{"id":"t1","responseParts":[
		{"kind":"markdown","id":"m","content":"hi"},
		{"kind":"toolCall","toolCall":{"status":"running","toolCallId":"a","toolName":"x","displayName":"X","contributor":{"kind":"client","clientId":"me"}}},
		{"kind":"toolCall","toolCall":{"status":"pending-confirmation","toolCallId":"b","toolName":"y","displayName":"Y"}},
		{"kind":"toolCall","toolCall":{"status":"running"}},
		{"kind":"toolCall"}]}}`)
	session := decode(t, `{"chats":[{"resource":"c1"}],"inputNeeded":[
		{"kind":"toolClientExecution","id":"c1#a","chat":"c1","turnId":"t1","clientId":"me","toolCall":{"status":"running","toolCallId":"a","toolName":"x","displayName":"X","contributor":{"kind":"client","clientId":"me"}}},
		{"kind":"toolClientExecution","id":"c1#o","chat":"c1","turnId":"t1","clientId":"other","toolCall":{"status":"running","toolCallId":"o","toolName":"x","displayName":"X"}},
		{"kind":"chatInput","id":"q","chat":"c1","request":{}}]}`)
	cases := []struct {
		name          string
		chat, session map[string]any
		chatURI       string
		known         bool
		want          map[string]string
	}{
		{"chat state", chat, nil, "c1", true, map[string]string{"a": "running", "b": "pending-confirmation"}},
		{"chat state wins over the session", chat, session, "c1", true, map[string]string{"a": "running", "b": "pending-confirmation"}},
		{"inputNeeded of an unfollowed chat, ours only", nil, session, "c1", true, map[string]string{"a": "running"}},
		{"chat not in the session is gone", nil, session, "c2", true, map[string]string{}},
		{"nothing known", nil, nil, "c1", false, nil},
		{"no active turn", decode(t, `{"turns":[]}`), nil, "c1", true, map[string]string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, ok := viewOf(c.chat, c.session, c.chatURI, "me")
			require.Equal(t, c.known, ok)
			if !ok {
				return
			}
			got := map[string]string{}
			for _, cv := range v.calls {
				got[cv.key.ToolCallID] = cv.state
				assert.Equal(t, "t1", cv.key.TurnID)
				assert.Equal(t, cv.state, v.status(cv.key))
			}
			assert.Equal(t, c.want, got)
		})
	}
	v, _ := viewOf(chat, nil, "c1", "me")
	assert.True(t, v.calls[0].ours("me"))
	assert.False(t, v.calls[0].ours("other"))
	assert.False(t, v.calls[1].ours("me"), "no contributor: a host tool")
}

// fakeHost is an in-memory Host for the one path the test host cannot
// reach: a chat this client does not follow, known only through the
// session's inputNeeded entries (docs/ahp.md §4.6). Dispatches are recorded
// and reported as delivered.
type fakeHost struct {
	mu        sync.Mutex
	states    map[string]map[string]any
	listeners []func(ahpclient.Event)
	sent      []map[string]any
}

func (f *fakeHost) ClientID() string        { return "me" }
func (f *fakeHost) ProtocolVersion() string { return "1.0.0" }

func (f *fakeHost) Dispatch(channel string, action any) (*ahpclient.Dispatched, error) {
	b, err := json.Marshal(action)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	m["_channel"] = channel
	f.mu.Lock()
	f.sent = append(f.sent, m)
	f.mu.Unlock()
	return nil, nil
}

func (f *fakeHost) OnEvent(fn func(ahpclient.Event)) func() {
	f.mu.Lock()
	f.listeners = append(f.listeners, fn)
	f.mu.Unlock()
	return func() {}
}

func (f *fakeHost) State(uri string) (map[string]any, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	st, ok := f.states[uri]
	return st, ok
}

func (f *fakeHost) Sessions() map[string]wire.SessionSummary {
	return map[string]wire.SessionSummary{"s": {Resource: "s"}}
}

func (f *fakeHost) ResourceReadLimited(ctx context.Context, uri, enc string, _ int) ([]byte, string, error) {
	return nil, "", errors.New("no resources here")
}

func (f *fakeHost) setSession(t *testing.T, s string) {
	st := decode(t, s)
	f.mu.Lock()
	f.states["s"] = st
	ls := slices.Clone(f.listeners)
	f.mu.Unlock()
	for _, l := range ls {
		l(ahpclient.Event{Kind: ahpclient.EventStateChanged, Channel: "s", ChannelKind: reduce.Session, State: st})
	}
}

func (f *fakeHost) dispatched() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]any(nil), f.sent...)
}

func execEntry(id, tool, input string) string {
	return `{"kind":"toolClientExecution","id":"c1#` + id + `","chat":"c1","turnId":"t1","clientId":"me","toolCall":{"status":"running","toolCallId":"` + id +
		`","toolName":"ahpls_` + tool + `","displayName":"` + tool + `","contributor":{"kind":"client","clientId":"me"},"confirmed":"not-needed","invocationMessage":"go","toolInput":` + strconv.Quote(input) + `}}`
}

func TestUnfollowedChatRunsFromInputNeeded(t *testing.T) {
	reg, _ := newRegistry(t)
	gate := filepath.Join(t.TempDir(), "gate")
	f := &fakeHost{states: map[string]map[string]any{}}
	obs := &recorder{}
	x := New(Options{Client: f, Observer: obs, Logger: quiet(), Tools: func(string) Runner { return reg }})
	f.setSession(t, `{"chats":[{"resource":"c1"}],"inputNeeded":[`+execEntry("g", "gate", `{"path":`+strconv.Quote(gate)+`}`)+`,`+execEntry("h", "hang", "")+`]}`)
	x.Start() // seeds from the current state
	defer x.Stop()
	waitFor(t, "both started", func() bool {
		obs.mu.Lock()
		defer obs.mu.Unlock()
		return obs.calls["g"] != nil && obs.calls["h"] != nil
	})
	// The host resolves the hang call (the entry goes): its run is killed.
	f.setSession(t, `{"chats":[{"resource":"c1"}],"inputNeeded":[`+execEntry("g", "gate", `{"path":`+strconv.Quote(gate)+`}`)+`]}`)
	waitFor(t, "hang cancelled", func() bool { r, ok := obs.result("h"); return ok && r.Cancelled })
	require.NoError(t, os.WriteFile(gate, nil, 0o644))
	waitFor(t, "gate finished", func() bool { _, ok := obs.result("g"); return ok })

	sent := f.dispatched()
	var completes []map[string]any
	for _, a := range sent {
		if a["type"] == "chat/toolCallComplete" {
			completes = append(completes, a)
		}
		assert.Equal(t, "c1", a["_channel"])
		assert.NotEqual(t, "h", a["toolCallId"], "nothing for the cancelled call")
	}
	require.Len(t, completes, 1)
	assert.Equal(t, "g", completes[0]["toolCallId"])
	res, _ := completes[0]["result"].(map[string]any)
	assert.Equal(t, true, res["success"])

	// The chat disappears from the session: nothing new starts for it.
	f.setSession(t, `{"chats":[],"inputNeeded":[`+execEntry("z", "argv", "{}")+`]}`)
	x.mu.Lock()
	_, started := x.runs[callKey{"c1", "t1", "z"}]
	x.mu.Unlock()
	assert.False(t, started)
}

// Bad state from a host must never panic the executor's readers.
func FuzzViewOf(f *testing.F) {
	f.Add([]byte(`{"activeTurn":{"id":"t","responseParts":[{"kind":"toolCall","toolCall":{"status":"running","toolCallId":"a","contributor":{"kind":"client","clientId":"me"},"toolInput":{"uri":"x"},"invocationMessage":{"markdown":"m"}}}]}}`))
	f.Add([]byte(`{"chats":[{"resource":"c1"}],"inputNeeded":[{"kind":"toolClientExecution","chat":"c1","clientId":"me","toolCall":{"toolCallId":"a","status":"running","toolInput":"{}"}}]}`))
	f.Add([]byte(`{"activeTurn":{"responseParts":[{"kind":"toolCall","toolCall":{"toolCallId":7}}, null, 3]},"chats":7,"inputNeeded":[null,{"toolCall":[]}]}`))
	x := New(Options{Client: &fakeHost{states: map[string]map[string]any{}}, Logger: quiet()})
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := reduce.Decode(bytes.Clone(data))
		if err != nil {
			return
		}
		m, _ := v.(map[string]any)
		for _, pair := range [][2]map[string]any{{m, nil}, {nil, m}} {
			view, ok := viewOf(pair[0], pair[1], "c1", "me")
			if !ok {
				continue
			}
			for _, c := range view.calls {
				_ = c.ours("me")
				_ = callInfo("s", c)
				_, _ = x.readInput(context.Background(), c.tc["toolInput"])
			}
		}
	})
}

// BenchmarkChatEvent is the executor's cost per chat state change (it runs
// on the client's event goroutine) for an active turn holding 50 tool calls,
// 49 finished and one of ours running.
func BenchmarkChatEvent(b *testing.B) {
	var parts []string
	for i := range 49 {
		parts = append(parts, `{"kind":"toolCall","toolCall":{"status":"completed","toolCallId":"c`+strconv.Itoa(i)+
			`","toolName":"x","displayName":"X","contributor":{"kind":"client","clientId":"me"},"success":true,"pastTenseMessage":"ok"}}`)
	}
	parts = append(parts, `{"kind":"toolCall","toolCall":{"status":"running","toolCallId":"r","toolName":"ahpls_hang","displayName":"X","contributor":{"kind":"client","clientId":"me"},"confirmed":"not-needed","invocationMessage":"go"}}`)
	chat := decode(b, `{"activeTurn":{"id":"t1","responseParts":[`+strings.Join(parts, ",")+`]}}`)
	f := &fakeHost{states: map[string]map[string]any{"c1": chat, "s": decode(b, `{"chats":[{"resource":"c1"}]}`)}}
	x := New(Options{Client: f, Logger: quiet(), Tools: func(string) Runner { return blockRunner{} }})
	x.Start()
	defer x.Stop()
	ev := ahpclient.Event{Kind: ahpclient.EventStateChanged, Channel: "c1", ChannelKind: reduce.Chat, State: chat}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		x.onEvent(ev)
	}
}

// blockRunner knows every tool and runs until cancelled.
type blockRunner struct{}

func (blockRunner) Lookup(string) (*tools.Definition, bool) { return nil, true }

func (blockRunner) Run(ctx context.Context, _ string, _ []byte, _ tools.ProgressFunc) tools.Result {
	<-ctx.Done()
	return tools.Result{Cancelled: true}
}

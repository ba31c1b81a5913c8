package ahpclient_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/ahpclient"
	"github.com/ahpls-dev/ahpls/ahpclient/wire"
	"github.com/ahpls-dev/ahpls/ahptest"
)

// sentFrames records what the client sends, for checking the offer.
type sentFrames struct {
	mu     sync.Mutex
	frames []string
}

func (s *sentFrames) trace(d ahpclient.FrameDirection, b []byte) {
	if d == ahpclient.Sent {
		s.mu.Lock()
		s.frames = append(s.frames, string(b))
		s.mu.Unlock()
	}
}

// offer is protocolVersions of the first initialize the client sent.
func (s *sentFrames) offer(t *testing.T) []string {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.frames {
		var m struct {
			Method string `json:"method"`
			Params struct {
				ProtocolVersions []string `json:"protocolVersions"`
			} `json:"params"`
		}
		if json.Unmarshal([]byte(f), &m) == nil && m.Method == "initialize" {
			return m.Params.ProtocolVersions
		}
	}
	t.Fatal("no initialize sent")
	return nil
}

// The negotiation table: what ahpls offers, what each kind of host picks,
// which dialect the client then speaks (and reduces with), and what the
// user is told when there is no common version.
func TestNegotiationTable(t *testing.T) {
	assert.Equal(t, []string{"1.1.0", "1.0.0", "0.10.0", "0.9.0", "0.8.0", "0.7.0", "0.6.0", "0.5.2", "0.5.1"}, ahpclient.DefaultProtocolVersions,
		"1.x first, then the 0.8.x list")

	cases := []struct {
		name    string
		host    []string
		version string
		v1      bool
		// lifecycle after session/creationFailed in the client's mirror:
		// the 1.x reducers spell it "failed".
		lifecycle string
	}{
		{name: "host 1.1", host: []string{"1.1.0", "1.0.0", "0.10.0", "0.9.0"}, version: "1.1.0", v1: true, lifecycle: "failed"},
		// A 1.0 host picks 1.1.0 from the offer: caret-compatible with its ^1.0.0.
		{name: "host 1.x only", host: []string{"1.0.0", "0.9.0"}, version: "1.1.0", v1: true, lifecycle: "failed"},
		{name: "host 0.10 only", host: []string{"0.10.0"}, version: "0.10.0", v1: true, lifecycle: "failed"},
		{name: "host 0.9 only", host: []string{"0.9.0"}, version: "0.9.0", v1: true, lifecycle: "failed"},
		{name: "host 0.8 only", host: []string{"0.8.0", "0.7.0"}, version: "0.8.0", lifecycle: "creationFailed"},
		{name: "host offering both", host: []string{"1.0.0", "0.9.0", "0.8.0"}, version: "1.1.0", v1: true, lifecycle: "failed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHost(t, ahptest.Options{ProtocolVersions: tc.host})
			var sent sentFrames
			r, s, _ := joined(t, h, func(o *ahpclient.Options) { o.Trace = sent.trace })
			assert.Equal(t, ahpclient.DefaultProtocolVersions, sent.offer(t))

			assert.True(t, r.client.Connected())
			assert.Equal(t, tc.version, r.client.ProtocolVersion())
			assert.Equal(t, tc.version, h.ProtocolVersion(r.client.ClientID()), "host and client agree")
			d := r.client.Dialect()
			require.NotNil(t, d)
			assert.Equal(t, tc.version, d.Version())
			wantReason := tc.version + " unknown"
			if tc.v1 {
				assert.IsType(t, wire.V1{}, d)
				assert.Equal(t, wire.EnablementScoped, d.Enablement(), "1.x always speaks enablement lists")
				wantReason = tc.version + " scoped"
			} else {
				assert.IsType(t, wire.V08{}, d)
				assert.Equal(t, wire.EnablementUnknown, d.Enablement(), "nothing observed yet")
			}
			r.waitEvent("dialect announced as "+wantReason, func(e ahpclient.Event) bool {
				return e.Kind == ahpclient.EventDialectChanged && e.Reason == wantReason
			})

			// The mirror reduces in the negotiated dialect.
			_, err := h.Emit(s, map[string]any{"type": "session/creationFailed", "error": map[string]any{"errorType": "backend", "message": "no model"}})
			require.NoError(t, err)
			r.waitFor("creationFailed mirrored", func() bool {
				st, _ := r.client.Confirmed(s)
				return st["creationError"] != nil
			})
			st, _ := r.client.Confirmed(s)
			assert.Equal(t, tc.lifecycle, st["lifecycle"])
		})
	}
}

// A host refusing everything ahpls offers: Run returns at once with the
// refusal, whose message (what the editor shows) names the host's versions,
// ahpls's offer and which side to upgrade. One connection attempt only.
func TestNegotiationRefused(t *testing.T) {
	offer := strings.Join(ahpclient.DefaultProtocolVersions, ", ")
	cases := []struct {
		name string
		host []string
		want []string // substrings of the message
	}{
		{name: "host newer", host: []string{"2.0.0"},
			want: []string{"supports protocol 2.0.0", "offered " + offer, "upgrade ahpls"}},
		{name: "host older", host: []string{"0.4.0"},
			want: []string{"supports protocol 0.4.0", "offered " + offer, "upgrade the agent host"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHost(t, ahptest.Options{ProtocolVersions: tc.host})
			var events []ahpclient.Event
			var mu sync.Mutex
			c, err := ahpclient.New(ahpclient.Options{URL: h.URL(), StateDir: t.TempDir(), WorkspaceKey: folder, Logger: quietLogger(),
				Backoff: ahpclient.Backoff{Initial: time.Millisecond, Max: time.Millisecond}})
			require.NoError(t, err)
			defer c.Close()
			c.OnEvent(func(e ahpclient.Event) { mu.Lock(); events = append(events, e); mu.Unlock() })

			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			err = c.Run(ctx)
			require.NoError(t, ctx.Err(), "Run must return by itself, not loop until the deadline")
			var uv *ahpclient.UnsupportedVersionError
			require.ErrorAs(t, err, &uv)
			assert.ErrorIs(t, err, wire.ErrUnsupportedVersion)
			assert.Equal(t, tc.host, uv.Supported)
			assert.Equal(t, ahpclient.DefaultProtocolVersions, uv.Offered)
			assert.Empty(t, uv.Chosen)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
			assert.Equal(t, 1, h.Accepted(), "exactly one connection attempt")
			assert.False(t, c.Connected())
			assert.Nil(t, c.Dialect())
			assert.Empty(t, c.ProtocolVersion())
			mu.Lock()
			defer mu.Unlock()
			for _, e := range events {
				assert.NotEqual(t, ahpclient.EventConnected, e.Kind)
			}
		})
	}
}

// oneShotHost is a bare WebSocket host on loopback that answers initialize
// with a fixed result, to play hosts the test host will not: one that
// ignores the offer, or that refuses without saying what it supports.
func oneShotHost(t *testing.T, answer func(id json.RawMessage) string) (url string, accepted *atomic.Int32) {
	t.Helper()
	accepted = new(atomic.Int32)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer ws.CloseNow()
		accepted.Add(1)
		ctx := r.Context()
		_, data, err := ws.Read(ctx)
		if err != nil {
			return
		}
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(data, &req) != nil {
			return
		}
		if ws.Write(ctx, websocket.MessageText, []byte(answer(req.ID))) != nil {
			return
		}
		// Hold the socket until the client closes it.
		for {
			if _, _, err := ws.Read(ctx); err != nil {
				return
			}
		}
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "ws://" + ln.Addr().String(), accepted
}

// A host that ignores the offer (or names no version) cannot be spoken to:
// fatal, reported, not retried.
func TestHostChoosingUnspokenVersionIsFatal(t *testing.T) {
	offer := strings.Join(ahpclient.DefaultProtocolVersions, ", ")
	cases := []struct {
		name, result, chosen, msg string
	}{
		{name: "unknown version", result: `{"protocolVersion":"3.1.0","serverSeq":0,"snapshots":[]}`, chosen: "3.1.0",
			msg: "the agent host chose protocol 3.1.0, which ahpls does not speak; ahpls offered " + offer},
		{name: "no version", result: `{"serverSeq":0,"snapshots":[]}`,
			msg: "the agent host accepted initialize without naming a protocol version; ahpls offered " + offer},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			url, accepted := oneShotHost(t, func(id json.RawMessage) string {
				return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, tc.result)
			})
			c, err := ahpclient.New(ahpclient.Options{URL: url, ClientID: "ahpls-000000000002", Logger: quietLogger(),
				Backoff: ahpclient.Backoff{Initial: time.Millisecond, Max: time.Millisecond}})
			require.NoError(t, err)
			defer c.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			err = c.Run(ctx)
			require.NoError(t, ctx.Err(), "Run must return by itself")
			var uv *ahpclient.UnsupportedVersionError
			require.ErrorAs(t, err, &uv)
			assert.Equal(t, tc.chosen, uv.Chosen)
			assert.ErrorIs(t, err, wire.ErrUnsupportedVersion)
			assert.Equal(t, tc.msg, err.Error())
			assert.Equal(t, int32(1), accepted.Load(), "not retried")
			assert.Nil(t, c.Dialect())
			assert.False(t, c.Connected())
		})
	}
}

func TestRefusalWithoutSupportedVersions(t *testing.T) {
	url, accepted := oneShotHost(t, func(id json.RawMessage) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32005,"message":"Unsupported protocol version"}}`, id)
	})
	c, err := ahpclient.New(ahpclient.Options{URL: url, ClientID: "ahpls-000000000003", Logger: quietLogger(),
		Backoff: ahpclient.Backoff{Initial: time.Millisecond, Max: time.Millisecond}})
	require.NoError(t, err)
	defer c.Close()
	err = c.Run(context.Background())
	var uv *ahpclient.UnsupportedVersionError
	require.ErrorAs(t, err, &uv)
	assert.Empty(t, uv.Supported)
	assert.Equal(t, "Unsupported protocol version", uv.Message)
	assert.Contains(t, err.Error(), "did not say which it supports")
	assert.Contains(t, err.Error(), "1.1.0, 1.0.0, 0.10.0, 0.9.0, 0.8.0")
	assert.Equal(t, int32(1), accepted.Load())
}

// hostPlugin is a host-side plugin entry; enabled and/or enablement as given.
func hostPlugin(id string, enabled *bool, enablement []any) map[string]any {
	p := map[string]any{"type": "plugin", "id": id, "uri": "file:///plugins/" + id, "name": id}
	if enabled != nil {
		p["enabled"] = *enabled
	}
	if enablement != nil {
		p["enablement"] = enablement
	}
	return p
}

// sendAction delivers a session action exactly as given, bypassing the test
// host's per-dialect shaping (which strips lists on 0.x connections): a
// released 0.8.0 host sends lists although it announces 0.8.0.
func sendAction(t *testing.T, h *ahptest.Host, clientID, channel string, action map[string]any) {
	t.Helper()
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "action",
		"params": map[string]any{"channel": channel, "serverSeq": h.NextServerSeq(), "action": action}})
	require.NoError(t, err)
	require.NoError(t, h.SendRaw(clientID, false, b))
}

// A host announcing 0.8.0 that sends enablement lists (docs/ahp.md §4.7):
// the dialect stays 0.8.0 but enablement is treated like 1.x — and the
// toggle ahpls would send switches to the list shape.
func TestEnablementLearntFrom08Host(t *testing.T) {
	h := newHost(t, ahptest.Options{ProtocolVersions: []string{"0.8.0"}})
	r, s, _ := joined(t, h, nil)
	id := r.client.ClientID()
	require.Equal(t, "0.8.0", r.client.ProtocolVersion())
	require.Equal(t, wire.EnablementUnknown, r.client.Dialect().Enablement())
	decisions := []wire.CustomizationEnablement{{Kind: wire.ScopeSession, Enabled: false}, {Kind: wire.ScopeGlobal, Enabled: true}}
	unknown := r.client.Dialect().CustomizationToggled("p1", decisions)
	assert.NotNil(t, unknown.Enabled, "unknown shape toggles with both")
	assert.NotNil(t, unknown.Enablement)

	// Booleans first, through the host (it keeps `enabled` on 0.x).
	on := true
	_, err := h.Emit(s, map[string]any{"type": "session/customizationsChanged", "customizations": []any{hostPlugin("p1", &on, nil)}})
	require.NoError(t, err)
	r.waitFor("boolean shape learnt", func() bool { return r.client.Dialect().Enablement() == wire.EnablementBoolean })
	boolean := r.client.Dialect().CustomizationToggled("p1", decisions)
	require.NotNil(t, boolean.Enabled)
	assert.False(t, *boolean.Enabled, "the effective value: the session entry wins")
	assert.Nil(t, boolean.Enablement)

	// Then the same host sends lists: scoped wins, for good.
	sendAction(t, h, id, s, map[string]any{"type": "session/customizationsChanged", "customizations": []any{
		hostPlugin("p1", nil, []any{map[string]any{"kind": "global", "enabled": true}}),
	}})
	r.waitFor("scoped shape learnt", func() bool { return r.client.Dialect().Enablement() == wire.EnablementScoped })
	d := r.client.Dialect()
	assert.Equal(t, "0.8.0", d.Version(), "the version stays what the host announced")
	assert.IsType(t, wire.V08{}, d)
	scoped := d.CustomizationToggled("p1", decisions)
	// 0.8.0's schema requires `enabled` whatever the shape (issue 15).
	require.NotNil(t, scoped.Enabled)
	assert.False(t, *scoped.Enabled)
	assert.Equal(t, decisions, scoped.Enablement)
	var pub wire.ClientPluginCustomization
	d.ApplyPluginEnablement(&pub, wire.PluginEnablement{Global: true, Effective: true})
	require.NotNil(t, pub.Enabled, "0.8.0 requires enabled beside the list")
	assert.True(t, *pub.Enabled)
	assert.Equal(t, []wire.CustomizationEnablement{{Kind: wire.ScopeGlobal, Enabled: true}}, pub.Enablement)
	r.waitEvent("dialect scoped", func(e ahpclient.Event) bool {
		return e.Kind == ahpclient.EventDialectChanged && e.Reason == "0.8.0 scoped"
	})

	// A later boolean-only list does not undo it.
	_, err = h.Emit(s, map[string]any{"type": "session/customizationsChanged", "customizations": []any{hostPlugin("p2", &on, nil)}})
	require.NoError(t, err)
	r.waitFor("boolean list mirrored", func() bool {
		st, _ := r.client.Confirmed(s)
		l, _ := st["customizations"].([]any)
		return len(l) == 1 && l[0].(map[string]any)["id"] == "p2"
	})
	assert.Equal(t, wire.EnablementScoped, r.client.Dialect().Enablement())

	// A resumed reconnect keeps what was learnt...
	require.NoError(t, h.Drop(id))
	r.waitFor("resumed", func() bool {
		return r.hasEvent(func(e ahpclient.Event) bool { return e.Kind == ahpclient.EventConnected && e.Resumed })
	})
	assert.Equal(t, wire.EnablementScoped, r.client.Dialect().Enablement())

	// ...a fresh initialize learns again, from the host's current state
	// (booleans only).
	h.RefuseReconnect(true)
	require.NoError(t, h.Drop(id))
	r.waitFor("re-initialized and relearnt", func() bool {
		fresh := 0
		r.mu.Lock()
		for _, e := range r.events {
			if e.Kind == ahpclient.EventConnected && !e.Resumed {
				fresh++
			}
		}
		r.mu.Unlock()
		d := r.client.Dialect()
		return fresh == 2 && d != nil && d.Enablement() == wire.EnablementBoolean
	})
}

// A 1.x host's shape is fixed by its version: a stray boolean entry is read
// leniently and does not turn the dialect back.
func TestV1EnablementFixed(t *testing.T) {
	h := newHost(t, ahptest.Options{ProtocolVersions: []string{"1.0.0", "0.9.0"}})
	r, s, _ := joined(t, h, nil)
	on := true
	sendAction(t, h, r.client.ClientID(), s, map[string]any{"type": "session/customizationsChanged", "customizations": []any{hostPlugin("p1", &on, nil)}})
	r.waitFor("list mirrored", func() bool {
		st, _ := r.client.Confirmed(s)
		l, _ := st["customizations"].([]any)
		return len(l) == 1
	})
	d := r.client.Dialect()
	assert.IsType(t, wire.V1{}, d)
	assert.Equal(t, wire.EnablementScoped, d.Enablement())
	assert.False(t, r.hasEvent(func(e ahpclient.Event) bool {
		return e.Kind == ahpclient.EventDialectChanged && strings.Contains(e.Reason, "boolean")
	}))
}

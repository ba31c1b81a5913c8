package ahpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/ahpclient"
	"github.com/ahpls-dev/ahpls/ahpclient/wire"
	"github.com/ahpls-dev/ahpls/ahptest"
)

const folder = "file:///work/proj"

// rig is a real host on loopback plus a real client, with every frame in
// both directions validated by the host against the AHP schemas.
type rig struct {
	t      *testing.T
	host   *ahptest.Host
	client *ahpclient.Client
	runErr chan error

	mu     sync.Mutex
	events []ahpclient.Event
	frames []string // received by the client
	wake   chan struct{}
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func newHost(t *testing.T, opts ahptest.Options) *ahptest.Host {
	t.Helper()
	opts.OnViolation = func(err error) { t.Errorf("AHP violation: %v", err) }
	opts.Logger = quietLogger()
	h := ahptest.New(opts)
	_, err := h.Start()
	require.NoError(t, err)
	t.Cleanup(func() { h.Close() })
	return h
}

// dialect is one AHP dialect the test host can be made to speak. The client
// always offers its default list, so the host's list alone picks the
// dialect, exactly as against a real host.
type dialect struct {
	name     string   // subtest name suffix
	versions []string // the host's ProtocolVersions
	version  string   // what the connection negotiates
	v1       bool     // enablement lists, lifecycle "failed"
}

var dialects = []dialect{
	{name: "0.8", versions: []string{"0.8.0"}, version: "0.8.0"},
	{name: "1.0", versions: []string{"1.0.0", "0.9.0"}, version: "1.0.0", v1: true},
}

// forEachDialect runs an end-to-end test once per dialect, as subtests
// named "dialect=0.8" and "dialect=1.0".
func forEachDialect(t *testing.T, f func(t *testing.T, d dialect)) {
	for _, d := range dialects {
		t.Run("dialect="+d.name, func(t *testing.T) { f(t, d) })
	}
}

// with sets the host's supported versions to this dialect's.
func (d dialect) with(o ahptest.Options) ahptest.Options {
	o.ProtocolVersions = d.versions
	return o
}

// failedLifecycle is how the dialect spells a session that failed to start.
func (d dialect) failedLifecycle() string {
	if d.v1 {
		return "failed"
	}
	return "creationFailed"
}

func startClient(t *testing.T, h *ahptest.Host, mod func(*ahpclient.Options)) *rig {
	t.Helper()
	r := &rig{t: t, host: h, runErr: make(chan error, 1), wake: make(chan struct{}, 1)}
	opts := ahpclient.Options{
		URL:            h.URL(),
		StateDir:       t.TempDir(),
		WorkspaceKey:   folder,
		Logger:         quietLogger(),
		Auto:           true,
		Folders:        []string{folder},
		ChatTurns:      1,
		PendingTimeout: 5 * time.Second,
		Backoff:        ahpclient.Backoff{Initial: 5 * time.Millisecond, Max: 50 * time.Millisecond, Multiplier: 2, Jitter: 0.5},
		Trace: func(d ahpclient.FrameDirection, b []byte) {
			if d == ahpclient.Received {
				r.mu.Lock()
				r.frames = append(r.frames, string(b))
				r.mu.Unlock()
			}
		},
	}
	if mod != nil {
		mod(&opts)
	}
	c, err := ahpclient.New(opts)
	require.NoError(t, err)
	r.client = c
	c.OnEvent(func(e ahpclient.Event) {
		r.mu.Lock()
		r.events = append(r.events, e)
		r.mu.Unlock()
		r.poke()
	})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { r.runErr <- c.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		c.Close()
		<-r.runErr
	})
	return r
}

func (r *rig) poke() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// waitFor waits for a condition (re-checked on every client event and on a
// short tick, since host-side changes raise no client event).
func (r *rig) waitFor(what string, cond func() bool) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			r.t.Fatalf("timed out waiting for %s", what)
		case <-r.wake:
		case <-tick.C:
		}
	}
}

func (r *rig) hostWait(what string, cond func(v *ahptest.View) bool) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	require.NoError(r.t, r.host.Wait(ctx, cond), what)
}

// waitEvent waits for an event f accepts: events reach the listener on
// their own goroutine, possibly after the mirror already shows their cause.
func (r *rig) waitEvent(what string, f func(ahpclient.Event) bool) {
	r.t.Helper()
	r.waitFor(what+" event", func() bool { return r.hasEvent(f) })
}

func (r *rig) hasEvent(f func(ahpclient.Event) bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.events {
		if f(e) {
			return true
		}
	}
	return false
}

func (r *rig) received(substr string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, f := range r.frames {
		if strings.Contains(f, substr) {
			return true
		}
	}
	return false
}

// outage drops the client and keeps it away until the returned func is called.
func (r *rig) outage() (end func()) {
	r.t.Helper()
	id := r.client.ClientID()
	r.host.RefuseConnections(true)
	require.NoError(r.t, r.host.Drop(id))
	r.hostWait("client gone", func(v *ahptest.View) bool { return !v.Connected(id) })
	return func() { r.host.RefuseConnections(false) }
}

func (r *rig) state(uri string) map[string]any {
	s, _ := r.client.State(uri)
	return s
}

func (r *rig) title(uri string) any { return r.state(uri)["title"] }

// joined sets up a session with one chat and waits until the client follows both.
func joined(t *testing.T, h *ahptest.Host, mod func(*ahpclient.Options)) (*rig, string, string) {
	s := h.CreateSession(ahptest.SessionSpec{Title: "Fix flaky test", WorkingDirectories: []string{folder}})
	chat, err := h.CreateChat(s, "", "Main")
	require.NoError(t, err)
	r := startClient(t, h, mod)
	r.waitFor("session and chat followed", func() bool {
		_, okS := r.client.State(s)
		_, okC := r.client.State(chat)
		return okS && okC
	})
	return r, s, chat
}

func TestHandshakeJoinDispatchEcho(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		h := newHost(t, dl.with(ahptest.Options{}))
		r, s, chat := joined(t, h, nil)
		id := r.client.ClientID()
		assert.Regexp(t, `^ahpls-[0-9a-f]{12}$`, id)
		assert.Equal(t, dl.version, r.client.ProtocolVersion())
		assert.Equal(t, dl.version, h.ProtocolVersion(id))
		assert.Equal(t, dl.v1, wire.IsV1(r.client.Dialect().Version()), "the client speaks the negotiated dialect")
		assert.Equal(t, []string{s}, r.client.Joined())
		r.hostWait("client subscribed to root, session and chat", func(v *ahptest.View) bool {
			return v.Subscribed(id, ahpclient.RootURI) && v.Subscribed(id, s) && v.Subscribed(id, chat)
		})
		r.waitEvent("session joined", func(e ahpclient.Event) bool { return e.Kind == ahpclient.EventSessionJoined && e.Channel == s })

		// The active-client entry is asserted on join and echoed.
		require.NoError(t, r.client.SetActiveClient(map[string]any{"displayName": "ahpls", "tools": []any{map[string]any{"name": "ahpls_diagnostics"}}}))
		r.hostWait("active client entry on the host", func(v *ahptest.View) bool { return v.ActiveClient(s, id) != nil })
		r.waitFor("entry confirmed in the mirror", func() bool {
			st, _ := r.client.Confirmed(s)
			l, _ := st["activeClients"].([]any)
			return len(l) == 1 && r.client.Pending(s) == 0
		})

		// A dispatched action is applied, echoed and reconciled.
		d, err := r.client.Dispatch(s, map[string]any{"type": "session/titleChanged", "title": "Renamed"})
		require.NoError(t, err)
		require.NoError(t, d.Wait(context.Background()))
		assert.Equal(t, "Renamed", r.title(s))
		conf, _ := r.client.Confirmed(s)
		assert.Equal(t, "Renamed", conf["title"])
		assert.Zero(t, r.client.Pending(s))
		hs, _ := h.State(s)
		assert.Equal(t, "Renamed", hs["title"])
		assert.Equal(t, h.ServerSeq(), r.client.ServerSeq())
	})
}

func TestRejectedActionRolledBack(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		h := newHost(t, dl.with(ahptest.Options{}))
		r, s, _ := joined(t, h, nil)
		release := make(chan struct{})
		entered := make(chan struct{})
		h.SetRejectPolicy(func(clientID, channel string, a map[string]any) string {
			if a["type"] == "session/titleChanged" {
				close(entered)
				<-release // hold the echo so the optimistic state can be observed
				return "title is locked by policy"
			}
			return ""
		})
		d, err := r.client.Dispatch(s, map[string]any{"type": "session/titleChanged", "title": "Nope"})
		require.NoError(t, err)
		<-entered
		assert.Equal(t, "Nope", r.title(s), "applied optimistically before the echo")
		assert.Equal(t, 1, r.client.Pending(s))
		close(release)
		err = d.Wait(context.Background())
		var rej *ahpclient.RejectedError
		require.ErrorAs(t, err, &rej)
		assert.Equal(t, "title is locked by policy", rej.Reason)
		assert.Equal(t, "Fix flaky test", r.title(s), "rolled back")
		assert.Zero(t, r.client.Pending(s))
		r.waitFor("rejection event", func() bool {
			return r.hasEvent(func(e ahpclient.Event) bool {
				return e.Kind == ahpclient.EventActionRejected && e.Reason == "title is locked by policy"
			})
		})
	})
}

func TestHostValidationRejectsNonOwnerCompletion(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		h := newHost(t, dl.with(ahptest.Options{}))
		r, _, chat := joined(t, h, nil)
		turn, err := h.StartTurn(chat, "go")
		require.NoError(t, err)
		tc, err := h.StartClientToolCall(chat, turn, ahptest.ClientToolCall{ToolName: "other_tool", ClientID: "someone-else", Input: `{}`})
		require.NoError(t, err)
		r.waitFor("tool call mirrored", func() bool { return strings.Contains(fmt.Sprint(r.state(chat)["activeTurn"]), tc) })
		d, err := r.client.Dispatch(chat, map[string]any{"type": "chat/toolCallComplete", "turnId": turn, "toolCallId": tc,
			"result": map[string]any{"success": false, "pastTenseMessage": "Skipped", "error": map[string]any{"message": "skip", "code": "cancelled"}}})
		require.NoError(t, err)
		var rej *ahpclient.RejectedError
		require.ErrorAs(t, d.Wait(context.Background()), &rej)
		assert.Contains(t, rej.Reason, "not owned")
		call, _ := h.ToolCall(chat, tc)
		assert.Equal(t, "running", call["status"])
	})
}

func TestNeverEchoedActionTimesOut(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		h := newHost(t, dl.with(ahptest.Options{}))
		r, s, _ := joined(t, h, func(o *ahpclient.Options) { o.PendingTimeout = 100 * time.Millisecond })
		require.NoError(t, h.SwallowActions(r.client.ClientID(), true))
		d, err := r.client.Dispatch(s, map[string]any{"type": "session/titleChanged", "title": "Lost"})
		require.NoError(t, err)
		require.ErrorIs(t, d.Wait(context.Background()), ahpclient.ErrActionTimeout)
		assert.Equal(t, "Fix flaky test", r.title(s))
		assert.Zero(t, r.client.Pending(s))
	})
}

func TestDropResumesByReplay(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		h := newHost(t, dl.with(ahptest.Options{}))
		r, s, chat := joined(t, h, nil)
		end := r.outage()
		_, err := h.Emit(s, map[string]any{"type": "session/titleChanged", "title": "Changed while away"})
		require.NoError(t, err)
		turn, err := h.StartTurn(chat, "hello")
		require.NoError(t, err)
		end()
		r.waitFor("resumed by replay", func() bool {
			return r.hasEvent(func(e ahpclient.Event) bool { return e.Kind == ahpclient.EventConnected && e.Resumed }) &&
				r.title(s) == "Changed while away"
		})
		assert.True(t, r.received(`"type":"replay"`))
		assert.False(t, r.received(`"type":"snapshot"`))
		at, _ := r.state(chat)["activeTurn"].(map[string]any)
		assert.Equal(t, turn, at["id"])
		assert.Equal(t, h.ServerSeq(), r.client.ServerSeq())
		// Still live afterwards.
		_, err = h.Emit(s, map[string]any{"type": "session/titleChanged", "title": "After"})
		require.NoError(t, err)
		r.waitFor("live after resume", func() bool { return r.title(s) == "After" })
	})
}

func TestLongOutageResumesBySnapshot(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		h := newHost(t, dl.with(ahptest.Options{}))
		r, s, chat := joined(t, h, nil)
		end := r.outage()
		_, err := h.Emit(s, map[string]any{"type": "session/titleChanged", "title": "Much later"})
		require.NoError(t, err)
		_, err = h.Emit(s, map[string]any{"type": "session/creationFailed", "error": map[string]any{"errorType": "backend", "message": "no model"}})
		require.NoError(t, err)
		h.ForceReplayGap()
		end()
		r.waitFor("resumed by snapshot", func() bool { return r.title(s) == "Much later" })
		assert.True(t, r.received(`"type":"snapshot"`))
		// The snapshot spells the lifecycle in the connection's dialect.
		assert.Equal(t, dl.failedLifecycle(), r.state(s)["lifecycle"])
		assert.True(t, r.received(`"lifecycle":"`+dl.failedLifecycle()+`"`))
		_, ok := r.client.State(chat)
		assert.True(t, ok, "chat still followed")
		assert.Equal(t, []string{s}, r.client.Joined())
	})
}

func TestDisposedSessionReportedMissing(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		h := newHost(t, dl.with(ahptest.Options{}))
		r, s, chat := joined(t, h, nil)
		end := r.outage()
		require.NoError(t, h.DisposeSession(s))
		end()
		r.waitFor("session reported missing", func() bool {
			return r.hasEvent(func(e ahpclient.Event) bool {
				return e.Kind == ahpclient.EventChannelDropped && e.Channel == s && e.Reason == "missing"
			})
		})
		assert.True(t, r.received(`"type":"replay"`))
		assert.True(t, r.received(s+`"]}}`) || r.received(s+`","`), "session listed in missing")
		_, ok := r.client.State(chat)
		assert.False(t, ok)
		r.waitFor("session left", func() bool { return len(r.client.Joined()) == 0 })
	})
}

func TestSnapshotFallbackReportsMissing(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		h := newHost(t, dl.with(ahptest.Options{}))
		r, s, _ := joined(t, h, nil)
		end := r.outage()
		require.NoError(t, h.DisposeSession(s))
		h.ForceReplayGap()
		end()
		r.waitFor("missing via snapshot result", func() bool {
			return r.hasEvent(func(e ahpclient.Event) bool {
				return e.Kind == ahpclient.EventChannelDropped && e.Channel == s && e.Reason == "missing"
			})
		})
		assert.True(t, r.received(`"type":"snapshot"`))
	})
}

// A host that speaks none of the offered versions refuses with -32005: Run
// returns the refusal at once, names both lists, and never reconnects.
func TestUnsupportedVersionIsFatal(t *testing.T) {
	h := newHost(t, ahptest.Options{ProtocolVersions: []string{"2.0.0"}})
	c, err := ahpclient.New(ahpclient.Options{URL: h.URL(), ClientID: "ahpls-000000000001", Logger: quietLogger(),
		Backoff: ahpclient.Backoff{Initial: time.Millisecond, Max: time.Millisecond}})
	require.NoError(t, err)
	defer c.Close()
	err = c.Run(context.Background())
	var uv *ahpclient.UnsupportedVersionError
	require.ErrorAs(t, err, &uv)
	assert.Equal(t, []string{"2.0.0"}, uv.Supported)
	assert.Contains(t, err.Error(), "supports protocol 2.0.0")
	assert.Contains(t, err.Error(), "1.0.0, 0.9.0, 0.8.0")
	assert.Equal(t, 1, h.Accepted(), "no reconnect loop")
	assert.Nil(t, c.Dialect(), "no dialect without a handshake")
}

func TestBadInputSurvived(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		h := newHost(t, dl.with(ahptest.Options{}))
		r, s, chat := joined(t, h, nil)
		id := r.client.ClientID()
		before := r.title(s)
		unknownAction := fmt.Sprintf(`{"jsonrpc":"2.0","method":"action","params":{"channel":%q,"serverSeq":%d,"action":{"type":"session/frobnicated","x":1}}}`, s, h.NextServerSeq())
		frames := []struct {
			binary bool
			data   string
		}{
			{false, `this is not json`},
			{false, `{"jsonrpc":"2.0","method":`},
			{true, "\x00\x01binary"},
			{false, `[{"jsonrpc":"2.0","method":"ping"}]`},
			{false, `{"jsonrpc":"2.0","method":"root/somethingNew","params":{"channel":"ahp-root://"}}`},
			{false, `{"jsonrpc":"2.0","id":900,"method":"frobnicate","params":{"channel":"ahp-root://"}}`},
			{false, `{"jsonrpc":"2.0","id":12345,"result":{}}`},
			{false, unknownAction},
			{false, `{"jsonrpc":"2.0","method":"action","params":{"channel":"ahp-chat:/nobody","serverSeq":"x"}}`},
		}
		for _, f := range frames {
			require.NoError(t, h.SendRaw(id, f.binary, []byte(f.data)))
		}
		// A frame after the garbage still gets through, on the same socket.
		_, err := h.Emit(s, map[string]any{"type": "session/titleChanged", "title": "Still alive"})
		require.NoError(t, err)
		r.waitFor("live after garbage", func() bool { return r.title(s) == "Still alive" })
		assert.NotEqual(t, before, r.title(s))
		assert.Equal(t, 1, h.Accepted(), "no reconnect was needed")
		r.waitEvent("bad frame", func(e ahpclient.Event) bool { return e.Kind == ahpclient.EventBadFrame })
		_, ok := r.client.State(chat)
		assert.True(t, ok)
		assert.Equal(t, []string{s}, r.client.Joined())
	})
}

func TestOversizeFrameDropsAndResumes(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		h := newHost(t, dl.with(ahptest.Options{}))
		r, s, _ := joined(t, h, func(o *ahpclient.Options) { o.ReadLimit = 64 << 10 })
		id := r.client.ClientID()
		big := `{"jsonrpc":"2.0","method":"root/progress","params":{"channel":"ahp-root://","progressToken":"t","progress":1,"message":"` + strings.Repeat("x", 100<<10) + `"}}`
		require.NoError(t, h.SendRaw(id, false, []byte(big)))
		r.waitFor("resumed after the oversize frame", func() bool {
			return r.hasEvent(func(e ahpclient.Event) bool { return e.Kind == ahpclient.EventConnected && e.Resumed })
		})
		_, err := h.Emit(s, map[string]any{"type": "session/titleChanged", "title": "Fine"})
		require.NoError(t, err)
		r.waitFor("live", func() bool { return r.title(s) == "Fine" })
		assert.Equal(t, 2, h.Accepted())
	})
}

func TestReverseRequests(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		h := newHost(t, dl.with(ahptest.Options{}))
		r, _, _ := joined(t, h, nil)
		id := r.client.ClientID()
		r.client.Handle("resourceRead", func(ctx context.Context, p json.RawMessage) (any, error) {
			var q struct{ URI string }
			if err := json.Unmarshal(p, &q); err != nil {
				return nil, ahpclient.NewError(ahpclient.CodeInvalidParams, err.Error(), nil)
			}
			if q.URI != "virtual://ahpls/ws/.plugin/plugin.json" {
				return nil, ahpclient.NewError(ahpclient.CodeNotFound, "not found: "+q.URI, nil)
			}
			return map[string]any{"data": `{"name":"ws"}`, "encoding": "utf-8", "contentType": "application/json"}, nil
		})
		data, err := h.ResourceRead(context.Background(), id, "virtual://ahpls/ws/.plugin/plugin.json")
		require.NoError(t, err)
		assert.Equal(t, `{"name":"ws"}`, data)

		_, err = h.ResourceRead(context.Background(), id, "virtual://ahpls/ws/nope")
		var re *ahptest.RPCError
		require.ErrorAs(t, err, &re)
		assert.EqualValues(t, ahpclient.CodeNotFound, re.Code)

		_, err = h.Request(context.Background(), id, "resourceList", map[string]any{"uri": "virtual://ahpls/ws"})
		require.ErrorAs(t, err, &re)
		assert.EqualValues(t, ahpclient.CodeMethodNotFound, re.Code)
	})
}

func TestClientResourceReadFromHost(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		h := newHost(t, dl.with(ahptest.Options{}))
		r, _, _ := joined(t, h, nil)
		h.SetResource("ahp-session:/s1/tool-inputs/tc-8", `{"uri":"file:///w"}`, "application/json")
		data, ct, err := r.client.ResourceRead(context.Background(), "ahp-session:/s1/tool-inputs/tc-8", "utf-8")
		require.NoError(t, err)
		assert.Equal(t, `{"uri":"file:///w"}`, string(data))
		assert.Equal(t, "application/json", ct)
		_, _, err = r.client.ResourceRead(context.Background(), "ahp-session:/s1/none", "")
		var re *ahpclient.RPCError
		require.ErrorAs(t, err, &re)
		assert.EqualValues(t, ahpclient.CodeNotFound, re.Code)
	})
}

func TestListSessionsPaginates(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		h := newHost(t, dl.with(ahptest.Options{PageSize: 2}))
		for i := 0; i < 5; i++ {
			h.CreateSession(ahptest.SessionSpec{WorkingDirectories: []string{fmt.Sprintf("file:///elsewhere/%d", i)}})
		}
		r := startClient(t, h, nil)
		require.NoError(t, r.client.WaitConnected(context.Background()))
		items, err := r.client.ListSessions(context.Background())
		require.NoError(t, err)
		assert.Len(t, items, 5)
		assert.Empty(t, r.client.Joined(), "no session covers the workspace")
	})
}

func TestAutoJoinFollowsSessions(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		h := newHost(t, dl.with(ahptest.Options{}))
		r := startClient(t, h, nil)
		require.NoError(t, r.client.WaitConnected(context.Background()))
		id := r.client.ClientID()
		other := h.CreateSession(ahptest.SessionSpec{WorkingDirectories: []string{"file:///work/other"}})
		parent := h.CreateSession(ahptest.SessionSpec{WorkingDirectories: []string{"file:///work/"}})
		r.waitFor("ancestor session joined", func() bool { return len(r.client.Joined()) == 1 })
		assert.Equal(t, []string{parent}, r.client.Joined())
		assert.NotContains(t, r.client.Joined(), other)

		// A chat added later is followed too.
		chat, err := h.CreateChat(parent, "", "Worker")
		require.NoError(t, err)
		r.hostWait("chat subscribed", func(v *ahptest.View) bool { return v.Subscribed(id, chat) })

		// The session moves away from the workspace: the client leaves.
		_, err = h.Emit(parent, map[string]any{"type": "session/workingDirectoryRemoved", "directory": "file:///work/"})
		require.NoError(t, err)
		r.waitFor("left", func() bool { return len(r.client.Joined()) == 0 })
		r.hostWait("unsubscribed", func(v *ahptest.View) bool { return !v.Subscribed(id, parent) && !v.Subscribed(id, chat) })

		// A removed session is left without a reconnect.
		s2 := h.CreateSession(ahptest.SessionSpec{WorkingDirectories: []string{folder}})
		r.waitFor("joined s2", func() bool { return len(r.client.Joined()) == 1 })
		require.NoError(t, h.DisposeSession(s2))
		r.waitFor("s2 left", func() bool { return len(r.client.Joined()) == 0 })
	})
}

func TestExplicitJoin(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		h := newHost(t, dl.with(ahptest.Options{}))
		s := h.CreateSession(ahptest.SessionSpec{WorkingDirectories: []string{"file:///not/ours"}})
		r := startClient(t, h, func(o *ahpclient.Options) { o.Auto = false; o.Sessions = []string{s} })
		r.waitFor("explicit session joined", func() bool { return len(r.client.Joined()) == 1 })
		r.client.Leave(s)
		r.waitFor("left", func() bool { return len(r.client.Joined()) == 0 })
		r.client.Join("ahp-session:/does-not-exist")
		r.waitFor("failed join reported", func() bool {
			return r.hasEvent(func(e ahpclient.Event) bool {
				var re *ahpclient.RPCError
				return e.Kind == ahpclient.EventChannelDropped && e.Reason == "failed" &&
					errors.As(e.Err, &re) && re.Code == ahpclient.CodeSessionNotFound
			})
		})
		assert.Empty(t, r.client.Joined())
	})
}

func TestDispatchWhileDisconnected(t *testing.T) {
	c, err := ahpclient.New(ahpclient.Options{URL: "ws://127.0.0.1:1/none", ClientID: "ahpls-000000000002", Logger: quietLogger()})
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Dispatch("ahp-session:/x", map[string]any{"type": "session/titleChanged", "title": "t"})
	assert.ErrorIs(t, err, ahpclient.ErrNotConnected)
	_, err = c.Dispatch("ahp-session:/x", "not an object")
	assert.Error(t, err)
	assert.False(t, errors.Is(err, ahpclient.ErrNotConnected))
}

func TestRefusedReconnectFallsBackToInitialize(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		h := newHost(t, dl.with(ahptest.Options{}))
		r, s, chat := joined(t, h, nil)
		id := r.client.ClientID()
		h.RefuseReconnect(true)
		end := r.outage()
		_, err := h.Emit(s, map[string]any{"type": "session/titleChanged", "title": "Fresh"})
		require.NoError(t, err)
		end()
		r.waitFor("re-initialized and re-subscribed", func() bool {
			_, ok := r.client.State(chat)
			return r.title(s) == "Fresh" && ok
		})
		r.hostWait("subscribed again", func(v *ahptest.View) bool { return v.Subscribed(id, s) && v.Subscribed(id, chat) })
		r.waitEvent("connected afresh", func(e ahpclient.Event) bool {
			return e.Kind == ahpclient.EventConnected && !e.Resumed && r.client.ClientID() == id
		})
	})
}

func TestPendingRebasedOnForeignActions(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		h := newHost(t, dl.with(ahptest.Options{}))
		r, s, _ := joined(t, h, func(o *ahpclient.Options) { o.PendingTimeout = 2 * time.Second })
		require.NoError(t, h.SwallowActions(r.client.ClientID(), true))
		d, err := r.client.Dispatch(s, map[string]any{"type": "session/titleChanged", "title": "Mine"})
		require.NoError(t, err)
		_, err = h.Emit(s, map[string]any{"type": "session/titleChanged", "title": "Theirs"})
		require.NoError(t, err)
		r.waitFor("foreign action confirmed", func() bool {
			c, _ := r.client.Confirmed(s)
			return c["title"] == "Theirs"
		})
		if d.Err() == nil { // still pending: rendered is confirmed + pending
			assert.Equal(t, "Mine", r.title(s))
		}
		require.ErrorIs(t, d.Wait(context.Background()), ahpclient.ErrActionTimeout)
		assert.Equal(t, "Theirs", r.title(s))
	})
}

func TestPingTimeoutDropsAndReconnects(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		h := newHost(t, dl.with(ahptest.Options{}))
		r, _, _ := joined(t, h, func(o *ahpclient.Options) {
			o.PingInterval = 20 * time.Millisecond
			o.PingTimeout = 100 * time.Millisecond
		})
		r.waitFor("a ping answered", func() bool { return r.received(`"result":null`) })
		require.NoError(t, h.SetFrameDelay(r.client.ClientID(), time.Hour)) // the host goes silent
		r.waitFor("reconnected after the silent host", func() bool {
			return r.hasEvent(func(e ahpclient.Event) bool { return e.Kind == ahpclient.EventConnected && e.Resumed })
		})
		assert.GreaterOrEqual(t, h.Accepted(), 2)
	})
}

func TestChatRemovedIsDropped(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		h := newHost(t, dl.with(ahptest.Options{}))
		r, _, chat := joined(t, h, nil)
		require.NoError(t, h.DisposeChat(chat))
		r.waitFor("chat dropped", func() bool {
			return r.hasEvent(func(e ahpclient.Event) bool {
				return e.Kind == ahpclient.EventChannelDropped && e.Channel == chat && e.Reason == "removed"
			})
		})
		_, ok := r.client.State(chat)
		assert.False(t, ok)
	})
}

func BenchmarkDispatchEcho(b *testing.B) {
	h := ahptest.New(ahptest.Options{Logger: quietLogger(), OnViolation: func(err error) { b.Errorf("violation: %v", err) }})
	_, err := h.Start()
	require.NoError(b, err)
	defer h.Close()
	s := h.CreateSession(ahptest.SessionSpec{WorkingDirectories: []string{folder}})
	c, err := ahpclient.New(ahpclient.Options{URL: h.URL(), ClientID: "ahpls-00000000bench", Logger: quietLogger(), Sessions: []string{s}})
	require.NoError(b, err)
	defer c.Close()
	go c.Run(context.Background())
	for {
		if _, ok := c.State(s); ok {
			break
		}
		time.Sleep(time.Millisecond)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d, err := c.Dispatch(s, map[string]any{"type": "session/titleChanged", "title": fmt.Sprint("t", i)})
		if err != nil {
			b.Fatal(err)
		}
		if err := d.Wait(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

func TestActiveClientReassertedAfterGraceExpiry(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		h := newHost(t, dl.with(ahptest.Options{GracePeriod: 10 * time.Millisecond}))
		r, s, _ := joined(t, h, nil)
		id := r.client.ClientID()
		require.NoError(t, r.client.SetActiveClient(map[string]any{"displayName": "ahpls", "tools": []any{}}))
		r.hostWait("active", func(v *ahptest.View) bool { return v.ActiveClient(s, id) != nil })
		end := r.outage()
		r.hostWait("removed after the grace period", func(v *ahptest.View) bool { return v.ActiveClient(s, id) == nil })
		end()
		r.hostWait("re-asserted after reconnect", func(v *ahptest.View) bool {
			return v.Connected(id) && v.ActiveClient(s, id) != nil
		})
		r.waitFor("mirror agrees", func() bool {
			st, _ := r.client.Confirmed(s)
			l, _ := st["activeClients"].([]any)
			return len(l) == 1 && r.client.Pending(s) == 0
		})
	})
}

// TestRetryingEventSaysWhenAndWhy: every failed attempt is an
// EventRetrying with the backoff's wait and the dial error, so an editor
// can show "retrying in N s" with the reason (#18).
func TestRetryingEventSaysWhenAndWhy(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	url := "ws://" + ln.Addr().String() + "/none"
	require.NoError(t, ln.Close()) // nothing listens there now
	c, err := ahpclient.New(ahpclient.Options{URL: url, ClientID: "ahpls-000000000003", Logger: quietLogger(),
		Backoff: ahpclient.Backoff{Initial: 20 * time.Millisecond, Max: 40 * time.Millisecond, Multiplier: 2, Jitter: 0.01}})
	require.NoError(t, err)
	got := make(chan ahpclient.Event, 16)
	c.OnEvent(func(e ahpclient.Event) {
		if e.Kind == ahpclient.EventRetrying {
			select {
			case got <- e:
			default:
			}
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	var evs []ahpclient.Event
	for len(evs) < 3 {
		select {
		case e := <-got:
			evs = append(evs, e)
		case <-time.After(10 * time.Second):
			t.Fatalf("only %d retrying events", len(evs))
		}
	}
	cancel()
	<-done
	c.Close()
	for _, e := range evs {
		assert.Positive(t, e.RetryIn)
		require.Error(t, e.Err)
		assert.Contains(t, e.Err.Error(), "dial")
	}
	assert.Greater(t, evs[1].RetryIn, evs[0].RetryIn, "the wait grows")
	assert.Equal(t, "retrying", ahpclient.EventRetrying.String())
}

// TestHostNotificationReachesListeners: a host notification the mirror
// does not route (auth/required) reaches listeners with its method and
// params, so a consumer can react to a new notification by its wire.Method
// constant without a change here.
func TestHostNotificationReachesListeners(t *testing.T) {
	h := newHost(t, ahptest.Options{})
	r := startClient(t, h, nil)
	r.waitEvent("connected", func(e ahpclient.Event) bool { return e.Kind == ahpclient.EventConnected })
	h.NotifyRoot(wire.MethodAuthRequired, map[string]any{"resource": "https://example.test/api", "reason": "required"})
	r.waitEvent("auth/required notification", func(e ahpclient.Event) bool {
		return e.Kind == ahpclient.EventNotification && e.Method == wire.MethodAuthRequired &&
			strings.Contains(string(e.Params), `"reason":"required"`)
	})
}

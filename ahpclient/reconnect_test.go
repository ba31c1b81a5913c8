package ahpclient_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/ahpclient"
	"github.com/ahpls-dev/ahpls/ahpclient/wire"
	"github.com/ahpls-dev/ahpls/ahptest"
)

// host11 is a host that implements AHP 1.1 (per-channel reconnect).
var host11 = []string{"1.1.0", "1.0.0", "0.10.0", "0.9.0"}

// joinedTwo sets up two sessions in the folder, the first with a chat, and
// waits until the client follows all three.
func joinedTwo(t *testing.T, h *ahptest.Host) (r *rig, s, chat, s2 string) {
	s = h.CreateSession(ahptest.SessionSpec{Title: "Fix flaky test", WorkingDirectories: []string{folder}})
	chat, err := h.CreateChat(s, "", "Main")
	require.NoError(t, err)
	s2 = h.CreateSession(ahptest.SessionSpec{Title: "Other", WorkingDirectories: []string{folder}})
	r = startClient(t, h, nil)
	r.waitFor("both sessions and the chat followed", func() bool {
		_, a := r.client.State(s)
		_, b := r.client.State(chat)
		_, c := r.client.State(s2)
		return a && b && c
	})
	return r, s, chat, s2
}

// One reconnect to a 1.1 host mixes all three recoveries: the chat is
// replayed, the session comes back as a snapshot, the disposed session is
// missing. Each channel resumes from its own cursor, never another's.
func TestReconnectPerChannelEveryRecoveryKind(t *testing.T) {
	h := newHost(t, ahptest.Options{ProtocolVersions: host11})
	r, s, chat, s2 := joinedTwo(t, h)
	// The session moves ahead of the chat before the drop: a connection-wide
	// watermark would carry the session's seq for the chat too.
	sessionSeq, err := h.Emit(s, map[string]any{"type": "session/titleChanged", "title": "Ahead"})
	require.NoError(t, err)
	r.waitFor("title seen", func() bool { return r.title(s) == "Ahead" })
	chatBefore := h.ServerSeq() // nothing on the chat since its snapshot

	end := r.outage()
	turn, err := h.StartTurn(chat, "hello")
	require.NoError(t, err)
	_, err = h.Emit(s, map[string]any{"type": "session/titleChanged", "title": "Snapshotted"})
	require.NoError(t, err)
	h.ForceSnapshot(s)
	require.NoError(t, h.DisposeSession(s2))
	end()

	r.waitFor("every channel recovered", func() bool {
		at, _ := r.state(chat)["activeTurn"].(map[string]any)
		return at["id"] == turn && r.title(s) == "Snapshotted" &&
			r.hasEvent(func(e ahpclient.Event) bool {
				return e.Kind == ahpclient.EventChannelDropped && e.Channel == s2 && e.Reason == "missing"
			})
	})
	assert.True(t, r.received(`{"actions":[`), "chat replayed")
	assert.True(t, r.received(`"channel":"`+chat+`","kind":"replay"`), "chat answered by replay")
	assert.True(t, r.received(`"channel":"`+s+`","kind":"snapshot"`), "session answered by snapshot")
	assert.True(t, r.received(`{"channel":"`+s2+`","kind":"missing"}`), "other session answered missing")
	assert.Equal(t, "per-channel", r.client.ReconnectShape())
	// The joiner reacts to a recovery's drop through its inbox, after the
	// event is delivered: wait for it to leave the missing session.
	r.waitFor("the missing session is left", func() bool { return slices.Equal(r.client.Joined(), []string{s}) })

	recs := h.Reconnects()
	require.Len(t, recs, 1)
	rec := recs[0]
	assert.True(t, rec.PerChannel)
	assert.Equal(t, sessionSeq, rec.Cursors[s], "the session's own cursor")
	assert.Less(t, rec.Cursors[chat], sessionSeq, "the chat keeps its own, older cursor")
	assert.LessOrEqual(t, rec.Cursors[chat], chatBefore)
	assert.Contains(t, rec.Cursors, s2)
	assert.Equal(t, h.ServerSeq(), r.client.ServerSeq())

	// Live afterwards, and the next reconnect no longer names the dropped one.
	_, err = h.Emit(s, map[string]any{"type": "session/titleChanged", "title": "After"})
	require.NoError(t, err)
	r.waitFor("live after resume", func() bool { return r.title(s) == "After" })
	end = r.outage()
	end()
	r.waitFor("second reconnect", func() bool { return len(h.Reconnects()) == 2 })
	assert.NotContains(t, h.Reconnects()[1].Cursors, s2)
	assert.Contains(t, h.Reconnects()[1].Cursors, chat)
}

// A host that answers only the connection-wide shape (a 1.0 host, which
// still negotiates 1.1.0 from the offer) refuses the per-channel params;
// the client asks again in its shape and accepts that answer.
func TestReconnectConnectionWideAnswerAccepted(t *testing.T) {
	for _, tc := range []struct {
		name           string
		versions       []string
		perChannelTry  bool // the client first tries per channel
		negotiated     string
		recoveryInText string
	}{
		{name: "1.0 host", versions: []string{"1.0.0", "0.9.0"}, perChannelTry: true, negotiated: "1.1.0", recoveryInText: `"type":"replay"`},
		{name: "1.0-pinned negotiation", versions: []string{"1.0.0"}, negotiated: "1.0.0", recoveryInText: `"type":"replay"`},
		{name: "0.8 host", versions: []string{"0.8.0"}, negotiated: "0.8.0", recoveryInText: `"type":"replay"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHost(t, ahptest.Options{ProtocolVersions: tc.versions})
			var mod func(*ahpclient.Options)
			if tc.name == "1.0-pinned negotiation" {
				mod = func(o *ahpclient.Options) { o.ProtocolVersions = []string{"1.0.0", "0.9.0"} }
			}
			r, s, chat := joined(t, h, mod)
			assert.Equal(t, tc.negotiated, r.client.ProtocolVersion())
			end := r.outage()
			turn, err := h.StartTurn(chat, "hello")
			require.NoError(t, err)
			end()
			r.waitFor("resumed", func() bool {
				at, _ := r.state(chat)["activeTurn"].(map[string]any)
				return at["id"] == turn
			})
			assert.True(t, r.received(tc.recoveryInText))
			assert.Equal(t, tc.perChannelTry, r.received(`"code":-32602`), "per-channel attempt refused")
			assert.Equal(t, "connection-wide", r.client.ReconnectShape())
			recs := h.Reconnects()
			require.Len(t, recs, 1)
			assert.False(t, recs[0].PerChannel)
			_, ok := r.client.State(s)
			assert.True(t, ok)
			if tc.perChannelTry {
				// The refusal is remembered: the next reconnect goes straight
				// to the connection-wide shape.
				n := r.count(`"code":-32602`)
				end = r.outage()
				end()
				r.waitFor("second reconnect", func() bool { return len(h.Reconnects()) == 2 })
				m := r.count(`"code":-32602`)
				assert.Equal(t, n, m, "no second per-channel attempt")
			}
		})
	}
}

// count is how many received frames contain substr.
func (r *rig) count(substr string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, f := range r.frames {
		if strings.Contains(f, substr) {
			n++
		}
	}
	return n
}

// A 1.1 host's _meta: the build is read from initialize, the read-only role
// from root state; a read-only client publishes no active-client entry and
// toggles nothing.
func TestHostMetaReadOnly(t *testing.T) {
	for _, tc := range []struct {
		name      string
		init      map[string]any
		root      map[string]any
		want      wire.HostMeta
		publishes bool
	}{
		{name: "build only", init: map[string]any{"hostBuild": map[string]any{"version": "9.9.9", "commit": "abc123"}},
			want: wire.HostMeta{Build: "9.9.9 abc123"}, publishes: true},
		{name: "read-only root", init: map[string]any{"hostBuild": "nightly"}, root: map[string]any{"role": "read-only"},
			want: wire.HostMeta{Build: "nightly", ReadOnly: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHost(t, ahptest.Options{ProtocolVersions: host11, InitializeMeta: tc.init, RootMeta: tc.root})
			r, s, _ := joined(t, h, nil)
			assert.Equal(t, tc.want, r.client.HostMeta())
			err := r.client.SetActiveClient(map[string]any{"displayName": "ahpls", "tools": []any{}})
			require.NoError(t, err)
			_, terr := r.client.Dispatch(s, map[string]any{"type": "session/customizationToggled", "id": "x", "enablement": []any{}})
			if tc.publishes {
				r.hostWait("active client entry on the host", func(v *ahptest.View) bool { return v.ActiveClient(s, r.client.ClientID()) != nil })
				assert.NotErrorIs(t, terr, ahpclient.ErrReadOnly)
				return
			}
			assert.ErrorIs(t, terr, ahpclient.ErrReadOnly)
			// The entry is never dispatched: nothing of ours is pending or
			// confirmed, and the host saw no activeClientSet.
			assert.Zero(t, r.client.Pending(s))
			assert.False(t, r.received(`"type":"session/activeClientSet"`))
			r.hostWait("host view", func(v *ahptest.View) bool {
				assert.Nil(t, v.ActiveClient(s, r.client.ClientID()))
				return true
			})
		})
	}
}

// A recovery kind the client does not know (an open enum) is a no-op on
// the state it had: the channel is subscribed again and ends up current.
func TestReconnectUnknownRecoveryResubscribes(t *testing.T) {
	h := newHost(t, ahptest.Options{ProtocolVersions: host11})
	r, _, chat := joined(t, h, nil)
	id := r.client.ClientID()
	end := r.outage()
	turn, err := h.StartTurn(chat, "while away")
	require.NoError(t, err)
	h.UnknownRecovery(chat)
	end()
	r.waitFor("chat current again", func() bool {
		at, _ := r.state(chat)["activeTurn"].(map[string]any)
		return at["id"] == turn
	})
	assert.True(t, r.received(`"kind":"x-ahptest/later"`))
	r.hostWait("chat subscribed again", func(v *ahptest.View) bool { return v.Subscribed(id, chat) })
	assert.True(t, r.received(`"snapshot":{"fromSeq"`) || r.received(`"result":{"snapshot"`), "a subscribe snapshot arrived")
}

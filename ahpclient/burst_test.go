package ahpclient_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/ahpclient"
	"github.com/ahpls-dev/ahpls/ahptest"
)

// Issue 16, item 5: a burst of 20,000 root session notifications — 100
// sessions in the workspace added and removed again and again, none of
// which the host can actually subscribe — costs coalesced join evaluations
// and a few subscribes per session (each lost session waits 1 s, 2 s, 4 s …
// before it is followed again), not a subscribe per notification. Then one
// real session announced the same way is still joined.
func TestSessionBurstCoalescesSubscribes(t *testing.T) {
	h := newHost(t, ahptest.Options{})
	var subscribes atomic.Int64
	r := startClient(t, h, func(o *ahpclient.Options) {
		o.Trace = func(d ahpclient.FrameDirection, b []byte) {
			if d == ahpclient.Sent && strings.Contains(string(b), `"method":"subscribe"`) {
				subscribes.Add(1)
			}
		}
	})
	r.waitFor("connected", r.client.Connected)
	id := r.client.ClientID()
	time.Sleep(100 * time.Millisecond)
	base := subscribes.Load()

	summary := func(uri string) map[string]any {
		return map[string]any{"resource": uri, "provider": "ahptest", "title": "burst", "status": 1,
			"createdAt": "2026-01-01T00:00:00Z", "modifiedAt": "2026-01-01T00:00:00Z", "workingDirectories": []any{folder}}
	}
	send := func(method string, params map[string]any) {
		params["channel"] = ahpclient.RootURI
		b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
		require.NoError(t, err)
		require.NoError(t, h.SendRaw(id, false, b))
	}
	const n, sessions = 20000, 100
	start := time.Now()
	for i := range n {
		uri := fmt.Sprintf("ahp-session:/burst-%d", i%sessions)
		if (i/sessions)%2 == 0 {
			send("root/sessionAdded", map[string]any{"summary": summary(uri)})
		} else {
			send("root/sessionRemoved", map[string]any{"session": uri})
		}
	}
	// A real session, announced last: still joined once the burst is over.
	real := h.CreateSession(ahptest.SessionSpec{WorkingDirectories: []string{folder}})
	r.waitFor("the real session joined", func() bool {
		for _, s := range r.client.Joined() {
			if s == real {
				return true
			}
		}
		return false
	})
	time.Sleep(300 * time.Millisecond)
	got := subscribes.Load() - base
	t.Logf("%d session notifications over %v: %d subscribe requests", n, time.Since(start).Round(time.Millisecond), got)
	assert.Less(t, got, int64(1000), "coalesced: not one subscribe per notification")
	assert.NotContains(t, r.client.Joined(), "ahp-session:/burst-0", "removed sessions are not followed")
}

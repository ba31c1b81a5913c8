package ahpclient_test

import (
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/ahptest"
)

// socketFDs counts this process's open sockets.
func socketFDs() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	n := 0
	for _, e := range ents {
		if l, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && strings.HasPrefix(l, "socket:") {
			n++
		}
	}
	return n
}

// Issue 16, reproduction 3: a host that drops the WebSocket 50 times, 150
// ms apart, then refuses upgrades for a second. Every connection attempt
// and every closed connection releases its socket: afterwards the count of open sockets (client and host ends,
// both in this process) is within 3 of the count before.
func TestFlappingHostLeaksNoSockets(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts fds through /proc")
	}
	h := newHost(t, ahptest.Options{})
	r, _, _ := joined(t, h, nil)
	id := r.client.ClientID()
	r.waitFor("connected", r.client.Connected)
	time.Sleep(200 * time.Millisecond)
	before := socketFDs()
	for i := range 50 {
		r.waitFor("connected", func() bool { return r.client.Connected() && len(h.Clients()) == 1 })
		require.NoError(t, h.Drop(id), "drop %d", i)
		time.Sleep(150 * time.Millisecond)
	}
	r.waitFor("connected after the last drop", func() bool { return r.client.Connected() && len(h.Clients()) == 1 })
	// Attempts that fail: the host answers the upgrade with 503 for a
	// second while the client retries every few milliseconds.
	h.RefuseConnections(true)
	require.NoError(t, h.Drop(id))
	time.Sleep(time.Second)
	h.RefuseConnections(false)
	r.waitFor("connected after the refusals", func() bool { return r.client.Connected() && len(h.Clients()) == 1 })
	deadline := time.Now().Add(10 * time.Second)
	after := socketFDs()
	for after > before+3 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		after = socketFDs()
	}
	t.Logf("open sockets: %d before, %d after 50 drops", before, after)
	require.LessOrEqual(t, after, before+3, "sockets released across reconnects")
}

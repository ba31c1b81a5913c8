package ahptest_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/ahpclient"
	"github.com/ahpls-dev/ahpls/ahptest"
)

// liveHeap is the heap still in use after full collections.
func liveHeap() uint64 {
	var ms runtime.MemStats
	for range 3 {
		runtime.GC()
	}
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// A closed host keeps nothing big alive even while the *Host is still
// referenced (a test's harness holds it until the test ends): 38 client tool
// calls of 1.5 MiB inputs (57 MiB; half inline, half behind a resource), sent
// to a connected client, are released by Close.
func TestCloseReleasesState(t *testing.T) {
	const calls, size = 38, 3 << 19 // 1.5 MiB each
	h := ahptest.New(ahptest.Options{Logger: quiet(), OnViolation: func(err error) { t.Errorf("AHP violation: %v", err) }})
	_, err := h.Start()
	require.NoError(t, err)
	s := h.CreateSession(ahptest.SessionSpec{WorkingDirectories: []string{folder}})
	chat, err := h.CreateChat(s, "", "")
	require.NoError(t, err)

	c, err := ahpclient.New(ahpclient.Options{URL: h.URL(), StateDir: t.TempDir(), WorkspaceKey: folder, Logger: quiet(), Auto: true, Folders: []string{folder},
		Backoff: ahpclient.Backoff{Initial: 5 * time.Millisecond, Max: 20 * time.Millisecond}})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = c.Run(ctx); close(done) }()
	clientID := c.ClientID()
	require.NoError(t, c.SetActiveClient(map[string]any{"tools": []any{map[string]any{"name": "ahpls_echo"}}}))
	wait(t, h, "client following the chat", func(v *ahptest.View) bool { return v.Subscribed(clientID, chat) })
	// Measured from here: the schemas are compiled (a process-wide cache)
	// and the host and client hold their small starting state.
	before := liveHeap()

	turn, err := h.StartTurn(chat, "go")
	require.NoError(t, err)
	var last string
	for i := range calls {
		input := `{"blob":"` + strings.Repeat(string(rune('a'+i%26)), size) + `"}`
		call := ahptest.ClientToolCall{ToolName: "ahpls_echo", ClientID: clientID, Input: input}
		if i%2 == 1 {
			call.ToolCallID = fmt.Sprintf("tc-ref-%d", i)
			call.InputRef = s + "/tool-inputs/" + call.ToolCallID
		}
		last, err = h.StartClientToolCall(chat, turn, call)
		require.NoError(t, err)
	}
	wait(t, h, "every call started", func(v *ahptest.View) bool { return v.ToolCall(chat, last) != nil })
	held := int64(liveHeap()) - int64(before)

	cancel()
	c.Close()
	<-done
	c = nil
	require.NoError(t, h.Close())
	after := int64(liveHeap()) - int64(before)
	t.Logf("live heap growth: %.1f MiB with the calls, %.1f MiB after Close", float64(held)/(1<<20), float64(after)/(1<<20))
	require.Greater(t, held, int64(calls*size), "the measurement sees the inputs")
	require.Less(t, after, int64(4<<20), "a closed host releases its state")
	// Still usable, and empty: reading a closed host does not panic.
	_, ok := h.State(chat)
	require.False(t, ok)
	runtime.KeepAlive(h)
}

package toolexec

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/ahpclient"
	"github.com/ahpls-dev/ahpls/ahptest"
)

// bigCustomizations is a session customization list of about size bytes:
// plugin entries with long URIs, each list's ids distinct.
func bigCustomizations(list, size int) []any {
	pad := strings.Repeat("x", 2400)
	var out []any
	for n := 0; n < size; n += len(pad) + 100 {
		id := fmt.Sprintf("l%d-p%05d", list, len(out))
		out = append(out, map[string]any{"type": "plugin", "enabled": true, "id": id, "uri": "file:///plugins/" + id + "/" + pad, "name": id})
	}
	return out
}

// A host sends three ~5 MB customization lists, then starts a client tool
// right after: the tool's first output reaches the host while another
// listener of the same client (standing for the host link, which works
// through every customization list) is stuck in the first list. The order
// is the assertion, no clock: the call starts only once that listener holds
// a list, and it is released only after the output has arrived, so the
// executor's events must not wait behind that listener's.
func TestToolStreamsWhileListsAreProcessed(t *testing.T) {
	const lists, size = 3, 5 << 20
	h := newHarness(t, dialects[1].with(ahptest.Options{}))

	release := make(chan struct{})
	var mu sync.Mutex
	busy, finished, newest := 0, 0, ""
	remove := h.client.OnEvent(func(e ahpclient.Event) {
		if e.Kind != ahpclient.EventStateChanged || e.Channel != h.session {
			return
		}
		l, _ := e.State["customizations"].([]any)
		if len(l) == 0 {
			return
		}
		mu.Lock()
		busy++
		mu.Unlock()
		<-release // the slow part: working through the list
		id, _ := l[0].(map[string]any)["id"].(string)
		mu.Lock()
		finished++
		newest = id
		mu.Unlock()
	})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(func() { free(); remove() })

	for i := range lists {
		_, err := h.host.Emit(h.session, map[string]any{"type": "session/customizationsChanged", "customizations": bigCustomizations(i, size)})
		require.NoError(t, err)
	}
	waitFor(t, "the other listener is working on a list", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return busy > 0
	})
	gate := filepath.Join(t.TempDir(), "gate")
	id := h.call(h.turn(), "gate", `{"path":`+strconv.Quote(gate)+`}`)
	h.wait("the tool's first output on the host", func(v *ahptest.View) bool {
		return strings.Contains(resultText(v.ToolCall(h.chat, id)), "waiting")
	})
	mu.Lock()
	f := finished
	mu.Unlock()
	assert.Equal(t, 0, f, "no list was finished before the tool's output arrived")
	// Every list reached the client ahead of the call.
	received := 0
	h.tr.mu.Lock()
	for _, fr := range h.tr.frames {
		if !fr.sent && fr.typ == "session/customizationsChanged" {
			received++
			assert.Greater(t, fr.size, size*9/10, "a list frame is ~5 MB")
		}
	}
	h.tr.mu.Unlock()
	assert.Equal(t, lists, received, "every list was received before the output")

	free()
	waitFor(t, "the listener reached the newest list", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return newest == fmt.Sprintf("l%d-p00000", lists-1)
	})
	require.NoError(t, os.WriteFile(gate, nil, 0o644))
	tc := h.done(id)
	assert.Equal(t, true, tc["success"], "%v", tc)
}

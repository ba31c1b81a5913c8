package toolexec

import (
	"context"
	"encoding/json"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/ahpclient"
	"github.com/ahpls-dev/ahpls/ahptest"
	"github.com/ahpls-dev/ahpls/tools"
)

// The mirror's bound on inline inputs is the tools' bound.
func TestInputBoundsAgree(t *testing.T) {
	require.Equal(t, tools.MaxInputBytes, ahpclient.MaxToolInput)
}

// 57 MB of tool inputs over the limit — half inline in
// chat/toolCallReady, half referenced — are refused, and the memory they
// took comes back (issue 28: RSS went 24 → 411 MB and stayed): the client's
// mirrored states keep a marker in place of each inline input, under 1 MB
// in all (57 MB before); a referenced one is refused from its sizeHint
// before it is read (TestLimitedCallReadsPastALongAnswer in ahpclient
// covers a host whose sizeHint is wrong). Once the in-process test host is
// closed (it holds its own copy of every input until then), the live heap
// of the whole process is back within 20 MB of where it started.
func TestRefusedInputsAreNotKept(t *testing.T) {
	r := newBatchRig(t)
	big := `{"pad":"` + strings.Repeat("x", 3<<19) + `"}` // 1.5 MiB, over tools.MaxInputBytes
	const calls = 38                                      // 57 MiB
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	base := heap()
	turn, err := r.host.StartTurn(r.chat, "go")
	require.NoError(t, err)
	ids := map[string]bool{}
	for i := 0; i < calls; i++ {
		call := ahptest.ClientToolCall{ToolName: "ahpls_" + tools.BuiltinDiagnostics, ClientID: r.client.ClientID(),
			Input: big, ToolCallID: "big" + strconv.Itoa(i)}
		if i%2 == 1 {
			call.InputRef = "ahp-resource:/input/" + strconv.Itoa(i)
		}
		id, err := r.host.StartClientToolCall(r.chat, turn, call)
		require.NoError(t, err)
		ids[id] = true
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	refused := 0
	require.NoError(t, r.host.Wait(ctx, func(v *ahptest.View) bool {
		refused = 0
		turn, _ := v.State(r.chat)["activeTurn"].(map[string]any)
		parts, _ := turn["responseParts"].([]any)
		for _, p := range parts {
			tc, _ := p.(map[string]any)["toolCall"].(map[string]any)
			if id, _ := tc["toolCallId"].(string); ids[id] && tc["status"] == "completed" && tc["success"] == false {
				if e, _ := tc["error"].(map[string]any); e["code"] == tools.CodeInvalidInput {
					refused++
				}
			}
		}
		return refused == calls
	}), "%d of %d calls refused", refused, calls)
	require.NoError(t, r.host.CompleteTurn(r.chat, turn))
	require.Eventually(t, func() bool { return r.client.Pending(r.chat) == 0 }, time.Minute, 10*time.Millisecond)
	// What the client keeps of the calls: its mirrored chat and session,
	// rendered and confirmed (the executor holds the same maps).
	held := 0
	for _, uri := range r.client.Channels() {
		for _, read := range []func(string) (map[string]any, bool){r.client.State, r.client.Confirmed} {
			st, _ := read(uri)
			b, err := json.Marshal(st)
			require.NoError(t, err)
			held += len(b)
		}
	}
	t.Logf("mirrored states after %d refused inputs of %d bytes: %d bytes", calls, len(big), held)
	require.Less(t, held, 1<<20, "refused inputs kept in the mirrored state")
	// The heap of the whole process, the in-process test host's copies of
	// the inputs included (it keeps every input it was given).
	t.Logf("heap growth, test host included: %+d MB", (int64(heap())-int64(base))>>20)
	require.NoError(t, r.host.Close())
	grown := int64(heap()) - int64(base)
	t.Logf("heap growth after the test host closed: %+.1f MB", float64(grown)/(1<<20))
	require.Less(t, grown, int64(20<<20), "memory taken by refused inputs is given back")
}

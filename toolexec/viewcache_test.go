package toolexec

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/ahpclient/reduce"
)

// The cached view, updated from the parts that changed, always equals the
// view read afresh from the state — over random tool-call actions, new
// turns, duplicate starts and states that go back to an older version.
func TestViewCacheMatchesAFreshRead(t *testing.T) {
	rng := rand.New(rand.NewSource(28))
	const chat = "ahp-chat:/c"
	vc := viewCache{}
	st := map[string]any{"activeTurn": map[string]any{"id": "t0", "responseParts": []any{}}}
	var history []map[string]any
	turn := 0
	for step := 0; step < 5000; step++ {
		id := fmt.Sprintf("c%d", rng.Intn(30))
		tid := fmt.Sprintf("t%d", turn)
		var a map[string]any
		switch r := rng.Intn(20); {
		case r < 6:
			a = map[string]any{"type": "chat/toolCallStart", "turnId": tid, "toolCallId": id, "toolName": "x",
				"contributor": map[string]any{"kind": "client", "clientId": "me"}}
		case r < 11:
			a = map[string]any{"type": "chat/toolCallReady", "turnId": tid, "toolCallId": id, "invocationMessage": "go", "confirmed": "not-needed"}
		case r < 16:
			a = map[string]any{"type": "chat/toolCallComplete", "turnId": tid, "toolCallId": id, "result": map[string]any{"success": true, "pastTenseMessage": "ok"}}
		case r < 17:
			a = map[string]any{"type": "chat/responsePart", "turnId": tid, "part": map[string]any{"kind": "markdown", "id": id, "content": "x"}}
		case r < 18:
			turn++
			a = map[string]any{"type": "chat/turnStarted", "turnId": fmt.Sprintf("t%d", turn), "message": map[string]any{"text": "go"}}
		case r < 19 && len(history) > 0:
			st = history[rng.Intn(len(history))] // an older version (a re-render after a rejection)
		default:
			st = map[string]any{"activeTurn": map[string]any{"id": tid, "responseParts": []any{}}}
		}
		if a != nil {
			st = reduce.ApplyWith(reduce.Chat, st, a, reduce.Options{Dialect: "1.0.0"})
		}
		history = append(history, st)
		got := vc.of(chat, st)
		want := newView(callsFromChat(chat, st))
		require.Equal(t, len(want.calls), len(got.calls), "step %d", step)
		for i, c := range want.calls {
			require.Equal(t, c.key, got.calls[i].key, "step %d", step)
			require.Equal(t, c.state, got.calls[i].state, "step %d", step)
			require.Equal(t, i, got.index[c.key], "step %d", step)
		}
	}
}

package reduce

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bigChat builds a chat with n completed turns (each a markdown part and a
// completed client tool call) and an active turn.
func bigChat(n int) map[string]any {
	turns := make([]any, n)
	for i := range turns {
		turns[i] = map[string]any{
			"id": fmt.Sprintf("t-%d", i), "startedAt": "2026-08-01T09:00:00.000Z", "duration": json.Number("1200"),
			"state": "complete", "message": map[string]any{"text": "do something useful", "origin": map[string]any{"kind": "user"}},
			"responseParts": []any{
				map[string]any{"kind": "markdown", "id": fmt.Sprintf("md-%d", i), "content": "Some answer text that is long enough to matter."},
				map[string]any{"kind": "toolCall", "toolCall": map[string]any{
					"status": "completed", "toolCallId": fmt.Sprintf("old-%d", i), "toolName": "ahpls_diagnostics", "displayName": "Diagnostics",
					"contributor": map[string]any{"kind": "client", "clientId": "ahpls-1"}, "invocationMessage": "Collecting",
					"confirmed": "not-needed", "success": true, "pastTenseMessage": "Collected",
					"content": []any{map[string]any{"type": "text", "text": "main.go:12:2: undefined: foo"}},
				}},
			},
		}
	}
	return map[string]any{
		"resource": "ahp-chat:/bench", "title": "Bench", "status": json.Number("8"), "modifiedAt": "2026-08-01T09:00:00.000Z",
		"turns": turns,
		"activeTurn": map[string]any{
			"id": "active", "startedAt": "2026-08-01T10:00:00.000Z",
			"message": map[string]any{"text": "go", "origin": map[string]any{"kind": "user"}}, "responseParts": []any{},
		},
	}
}

// cycle is one client tool call on the active turn: start, ready, three
// streamed content updates, completion.
func cycle(k int) []map[string]any {
	id := fmt.Sprintf("tc-%d", k)
	text := func(s string) []any { return []any{map[string]any{"type": "text", "text": s}} }
	return []map[string]any{
		{"type": "chat/toolCallStart", "turnId": "active", "toolCallId": id, "toolName": "ahpls_diagnostics", "displayName": "Diagnostics",
			"contributor": map[string]any{"kind": "client", "clientId": "ahpls-1"}},
		{"type": "chat/toolCallReady", "turnId": "active", "toolCallId": id, "invocationMessage": "Collecting", "toolInput": "{}", "confirmed": "not-needed"},
		{"type": "chat/toolCallContentChanged", "turnId": "active", "toolCallId": id, "content": text("a")},
		{"type": "chat/toolCallContentChanged", "turnId": "active", "toolCallId": id, "content": text("ab")},
		{"type": "chat/toolCallContentChanged", "turnId": "active", "toolCallId": id, "content": text("abc")},
		{"type": "chat/toolCallComplete", "turnId": "active", "toolCallId": id,
			"result": map[string]any{"success": true, "pastTenseMessage": "Collected", "content": text("abc")}},
	}
}

// BenchmarkChatToolCallStream measures actions applied per second on a chat
// with 1,000 completed turns. The active turn is reset every 20 calls so its
// own growth does not dominate; the 1,000 turns are never copied.
func BenchmarkChatToolCallStream(b *testing.B) {
	base := bigChat(1000)
	var actions []map[string]any
	for k := 0; k < 20; k++ {
		actions = append(actions, cycle(k)...)
	}
	state := base
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		j := i % len(actions)
		if j == 0 {
			state = base
		}
		state = Apply(Chat, state, actions[j], pinned)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "actions/s")
}

// BenchmarkChatContentChanged is the hottest path for ahpls: streaming
// partial output of its own running call.
func BenchmarkChatContentChanged(b *testing.B) {
	state := bigChat(1000)
	for _, a := range cycle(0)[:2] {
		state = Apply(Chat, state, a, pinned)
	}
	act := cycle(0)[2]
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		state = Apply(Chat, state, act, pinned)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "actions/s")
}

// BenchmarkChatContentChangedV1 is the same path through ApplyWith on a 1.x
// connection (dialect parsing and the modifiedAt guard included).
func BenchmarkChatContentChangedV1(b *testing.B) {
	opts := Options{Now: pinned, Dialect: "1.0.0"}
	state := bigChat(1000)
	for _, a := range cycle(0)[:2] {
		state = ApplyWith(Chat, state, a, opts)
	}
	act := cycle(0)[2]
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		state = ApplyWith(Chat, state, act, opts)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "actions/s")
}

// TestBigChatSharesCompletedTurns proves the path-copying claim the
// benchmark relies on: a tool-call action leaves the turns slice shared.
func TestBigChatSharesCompletedTurns(t *testing.T) {
	state := bigChat(1000)
	next := state
	for _, a := range cycle(0) {
		next = Apply(Chat, next, a, pinned)
	}
	oldTurns := state["turns"].([]any)
	newTurns := next["turns"].([]any)
	require.Len(t, newTurns, 1000)
	assert.Same(t, &oldTurns[0], &newTurns[0], "completed turns are shared, not copied")
	parts := next["activeTurn"].(map[string]any)["responseParts"].([]any)
	require.Len(t, parts, 1)
	tc := parts[0].(map[string]any)["toolCall"].(map[string]any)
	assert.Equal(t, "completed", tc["status"])
	assert.Empty(t, state["activeTurn"].(map[string]any)["responseParts"], "the original state is untouched")
}

// BenchmarkDeepCopyBaseline is what one action would cost if a reducer
// copied the whole 1,000-turn state (for comparison only).
func BenchmarkDeepCopyBaseline(b *testing.B) {
	state := bigChat(1000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = deepCopy(state)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "copies/s")
}

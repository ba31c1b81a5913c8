package reduce

// toolCallScoped are the chat actions that change one tool call (by
// toolCallId) of the active turn and, for some, refresh the chat's status
// bits from every part. toolCallStart appends a call; the others update
// the parts holding their call and nothing else.
var toolCallScoped = map[string]bool{
	"chat/toolCallStart": true, "chat/toolCallDelta": true, "chat/toolCallContentChanged": true,
	"chat/toolCallReady": true, "chat/toolCallConfirmed": true, "chat/toolCallComplete": true,
	"chat/toolCallResultConfirmed": true, "chat/toolCallAuthRequired": true, "chat/toolCallAuthResolved": true,
}

// Commutes reports that applying a to state and then every action of
// others (in order) gives the same state as applying others and then a.
// The mirror uses it to put a host's action under its own pending actions
// without replaying them: rendered = Apply(Apply(state, others…), a).
//
// It answers true only for chat tool-call actions of the active turn on
// different tool calls, at most one of them a start (two starts append in
// their order). Why that is exact: each such action changes only the parts
// of its own call (a start appends one), so the parts end the same in
// either order; the status bits a refreshing action writes are the old
// non-activity bits (which no tool-call action changes) plus the activity
// derived from all parts, and the non-refreshing ones (start, delta,
// content) never change that activity, so the last refresh in either
// order writes the same value; none of them reads the clock. Anything else
// — another channel kind or action type, a missing id, another turn —
// answers false, and the caller replays.
func Commutes(kind Kind, state, a map[string]any, others []map[string]any) bool {
	if len(others) == 0 {
		return true
	}
	if kind != Chat {
		return false
	}
	turn := obj(state["activeTurn"])
	if turn == nil {
		return false
	}
	turnID, _ := str(turn, "id")
	id, ok := scopedCall(a, turnID)
	if !ok {
		return false
	}
	starts := 0
	if a["type"] == "chat/toolCallStart" {
		starts++
	}
	for _, o := range others {
		oid, ok := scopedCall(o, turnID)
		if !ok || oid == id {
			return false
		}
		if o["type"] == "chat/toolCallStart" {
			if starts++; starts > 1 {
				return false
			}
		}
	}
	return true
}

func toolCallAction(a map[string]any) bool {
	t, _ := str(a, "type")
	return toolCallScoped[t]
}

// scopedCall is a's toolCallId when a is a tool-call action of turnID.
func scopedCall(a map[string]any, turnID string) (string, bool) {
	if !toolCallAction(a) {
		return "", false
	}
	id, _ := str(a, "toolCallId")
	tid, _ := str(a, "turnId")
	if id == "" || turnID == "" || tid != turnID {
		return "", false
	}
	return id, true
}

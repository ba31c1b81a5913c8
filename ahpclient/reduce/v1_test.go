package reduce

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The dialect string selects 1.x behaviour only for 0.9.0 and later; every
// other value, including garbage, keeps Apply's 0.8 semantics.
func TestOptionsDialectSelection(t *testing.T) {
	session := decodeObj(t, `{"provider":"p","title":"t","status":1,"lifecycle":"creating","activeClients":[],"chats":[]}`)
	failed := decodeObj(t, `{"type":"session/creationFailed","error":{"errorType":"E","message":"m"}}`)
	for dialect, want := range map[string]string{
		"": "creationFailed", "0.8.0": "creationFailed", "0.5.1": "creationFailed", "banana": "creationFailed", "0.11.0": "creationFailed",
		"0.9.0": "failed", "0.10.0": "failed", "1.0.0": "failed", "1.1.0": "failed", "1.1.0-dev": "failed",
	} {
		got := ApplyWith(Session, session, failed, Options{Now: pinned, Dialect: dialect})
		assert.Equal(t, want, got["lifecycle"], "dialect %q", dialect)
	}
	assert.Equal(t, "creationFailed", Apply(Session, session, failed, pinned)["lifecycle"], "Apply stays 0.8")
}

// 1.x no-ops hand back the very same map, like Apply's.
func TestV1NoOpsReturnTheSameState(t *testing.T) {
	session := decodeObj(t, `{"provider":"p","title":"t","status":1,"lifecycle":"ready","activeClients":[],"chats":[],
		"customizations":[{"type":"plugin","id":"p1","uri":"u","name":"n","enablement":[],"children":[{"type":"skill","id":"s1","uri":"u","name":"n"}]},
		{"type":"directory","id":"d1","uri":"u","name":"n","enabled":true,"contents":"skill","writable":true}]}`)
	errored := decodeObj(t, `{"resource":"r","title":"t","status":2,"turns":[{"id":"turn-1","message":{"text":"m"},"state":"error","responseParts":[
		{"kind":"error","error":{"errorType":"E","message":"m"},"resumable":true}]}]}`)
	notResumable := decodeObj(t, `{"resource":"r","title":"t","status":2,"turns":[{"id":"turn-1","state":"error","responseParts":[{"kind":"error","error":{}}]}]}`)
	completed := decodeObj(t, `{"resource":"r","title":"t","status":1,"turns":[{"id":"turn-1","state":"complete","responseParts":[{"kind":"error","resumable":true}]}]}`)
	empty := decodeObj(t, `{"resource":"r","title":"t","status":2,"turns":[{"id":"turn-1","state":"error","responseParts":[]}]}`)
	cases := []struct {
		kind   Kind
		state  map[string]any
		action string
	}{
		{Session, session, `{"type":"session/customizationToggled","id":"p1","enabled":false}`},
		{Session, session, `{"type":"session/customizationToggled","id":"s1","enabled":false}`},
		{Session, session, `{"type":"session/customizationToggled","id":"d1","enabled":false}`},
		{Session, session, `{"type":"session/customizationToggled","id":"d1","enablement":{"kind":"global"}}`},
		{Session, session, `{"type":"session/chatsReordered","order":[]}`},
		{Session, session, `{"type":"session/mcpServerBackgroundRequested","id":"p1"}`},
		{Chat, errored, `{"type":"chat/turnResume","turnId":"turn-2"}`},
		{Chat, errored, `{"type":"chat/turnResume","turnId":7}`},
		{Chat, errored, `{"type":"chat/error","turnId":"turn-1","part":{"kind":"error"}}`},
		{Chat, notResumable, `{"type":"chat/turnResume","turnId":"turn-1"}`},
		{Chat, completed, `{"type":"chat/turnResume","turnId":"turn-1"}`},
		{Chat, empty, `{"type":"chat/turnResume","turnId":"turn-1"}`},
		{Chat, errored, `{"type":"chat/isReadChanged","isRead":true}`},
		{Chat, errored, `{"type":"chat/movableChanged","movable":false}`},
	}
	for _, c := range cases {
		before := canonical(t, c.state)
		got := ApplyWith(c.kind, c.state, decodeObj(t, c.action), Options{Now: pinned, Dialect: "1.0.0"})
		assert.True(t, same(c.state, got), "%s: expected the same state back", c.action)
		assert.Equal(t, before, canonical(t, c.state), "%s: input mutated", c.action)
	}
	// chat/turnResume does not exist at 0.8: Apply ignores even a valid one.
	assert.True(t, same(errored, Apply(Chat, errored, decodeObj(t, `{"type":"chat/turnResume","turnId":"turn-1"}`), pinned)))
	resumed := ApplyWith(Chat, errored, decodeObj(t, `{"type":"chat/turnResume","turnId":"turn-1"}`), Options{Dialect: "0.9.0"})
	assert.Equal(t, "turn-1", resumed["activeTurn"].(map[string]any)["id"])
	assert.Empty(t, resumed["turns"])
	assert.Equal(t, json.Number("8"), resumed["status"], "InProgress again")
	assert.Len(t, errored["turns"], 1, "the input keeps its turn")
}

// The 0.8 chat/error keeps Turn.error and the part stays out when an error
// is present; 1.x is the other way round. Both end the turn in Error.
func TestChatErrorPerDialect(t *testing.T) {
	chat := decodeObj(t, `{"resource":"r","title":"t","status":8,"modifiedAt":"m0","turns":[],"activeTurn":{"id":"t1","responseParts":[]}}`)
	both := decodeObj(t, `{"type":"chat/error","turnId":"t1","duration":1,"error":{"errorType":"Old","message":"o"},"part":{"kind":"error","error":{"errorType":"New","message":"n"}}}`)

	v08 := Apply(Chat, chat, both, pinned)
	turn := v08["turns"].([]any)[0].(map[string]any)
	assert.Equal(t, "Old", turn["error"].(map[string]any)["errorType"])
	assert.Empty(t, turn["responseParts"])
	assert.Equal(t, "1970-01-01T00:00:09.999Z", v08["modifiedAt"])

	v1 := ApplyWith(Chat, chat, both, Options{Now: pinned, Dialect: "1.0.0"})
	turn = v1["turns"].([]any)[0].(map[string]any)
	assert.NotContains(t, turn, "error")
	parts := turn["responseParts"].([]any)
	if assert.Len(t, parts, 1) {
		assert.Equal(t, "New", parts[0].(map[string]any)["error"].(map[string]any)["errorType"])
	}
	assert.Equal(t, "m0", v1["modifiedAt"])
	assert.Equal(t, v08["status"], v1["status"])
}

package reduce

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func same(a, b map[string]any) bool {
	return reflect.ValueOf(a).Pointer() == reflect.ValueOf(b).Pointer()
}

func decodeObj(t *testing.T, s string) map[string]any {
	t.Helper()
	v, err := Decode([]byte(s))
	require.NoError(t, err)
	m, ok := v.(map[string]any)
	require.True(t, ok)
	return m
}

// No-ops hand back the very same map, so a caller can tell "nothing
// changed" by identity; malformed input never panics.
func TestNoOpsReturnTheSameState(t *testing.T) {
	session := decodeObj(t, `{"provider":"p","title":"t","status":1,"lifecycle":"ready","activeClients":[{"clientId":"c"}],"chats":[],
		"customizations":[{"type":"plugin","id":"p1","uri":"u","name":"n","enabled":true,"children":[{"type":"mcpServer","id":"m1","uri":"u","name":"n","enabled":true,"state":{"kind":"ready"}}]}]}`)
	chat := decodeObj(t, `{"resource":"r","title":"t","status":8,"modifiedAt":"x","turns":[],
		"activeTurn":{"id":"turn-1","startedAt":"s","message":{"text":"m"},"responseParts":[{"kind":"toolCall","toolCall":{"status":"running","toolCallId":"tc","toolName":"n","displayName":"d","confirmed":"not-needed"}}]}}`)
	cases := []struct {
		kind   Kind
		state  map[string]any
		action string
	}{
		{Session, session, `{"type":"session/nonExistentAction"}`},
		{Session, session, `{"type":"chat/turnComplete","turnId":"turn-1"}`},
		{Session, session, `{"type":7}`},
		{Session, session, `{}`},
		{Session, session, `{"type":"session/activeClientSet","activeClient":"c"}`},
		{Session, session, `{"type":"session/activeClientSet","activeClient":{"clientId":5}}`},
		{Session, session, `{"type":"session/activeClientRemoved","clientId":"nobody"}`},
		{Session, session, `{"type":"session/customizationToggled","id":"p1"}`},
		{Session, session, `{"type":"session/customizationToggled","id":"p1","enabled":"false"}`},
		{Session, session, `{"type":"session/customizationToggled","id":["p1"],"enabled":false}`},
		{Session, session, `{"type":"session/customizationRemoved","id":"nope"}`},
		{Session, session, `{"type":"session/mcpServerStateChanged","id":"p1","state":{"kind":"ready"}}`},
		{Session, session, `{"type":"session/mcpServerStartRequested","id":null}`},
		{Session, session, `{"type":"session/inputNeededRemoved","id":"x"}`},
		{Session, session, `{"type":"session/chatUpdated","chat":"ahp-chat:/none","changes":{"title":"x"}}`},
		{Session, session, `{"type":"session/workingDirectoryRemoved","directory":"file:///x"}`},
		{Session, session, `{"type":"session/configChanged","config":{"a":1}}`},
		{Chat, chat, `{"type":"chat/toolCallComplete","turnId":"turn-1","toolCallId":"tc","result":"done"}`},
		{Chat, chat, `{"type":"chat/toolCallComplete","turnId":"turn-2","toolCallId":"tc","result":{"success":true}}`},
		{Chat, chat, `{"type":"chat/toolCallConfirmed","turnId":"turn-1","toolCallId":"tc","approved":true}`},
		{Chat, chat, `{"type":"chat/toolCallContentChanged","turnId":"turn-1","toolCallId":"other","content":[]}`},
		{Chat, chat, `{"type":"chat/toolCallAuthRequired","turnId":"turn-1","toolCallId":"tc","auth":{}}`},
		{Chat, chat, `{"type":"chat/delta","turnId":"turn-1","partId":"tc","content":"x"}`},
		{Chat, chat, `{"type":"chat/turnComplete","turnId":{"id":"turn-1"},"duration":1}`},
		{Chat, chat, `{"type":"chat/truncated","turnId":"unknown"}`},
		{Chat, chat, `{"type":"chat/inputCompleted","requestId":"nope","response":"accept"}`},
		{Chat, chat, `{"type":"chat/pendingMessageRemoved","kind":"steering","id":"x"}`},
		{Chat, chat, `{"type":"chat/queuedMessagesReordered","order":["a"]}`},
		{Root, map[string]any{"agents": []any{}}, `{"type":"root/configChanged","config":{"a":1}}`},
	}
	for _, c := range cases {
		before := canonical(t, c.state)
		got := Apply(c.kind, c.state, decodeObj(t, c.action), pinned)
		assert.True(t, same(c.state, got), "%s: expected the same state back", c.action)
		assert.Equal(t, before, canonical(t, c.state), "%s: input mutated", c.action)
	}
	assert.Nil(t, Apply(Chat, nil, nil, pinned))
	assert.Nil(t, Apply(Chat, nil, decodeObj(t, `{"type":"chat/unknown"}`), pinned))
	assert.NotNil(t, Apply(Chat, nil, decodeObj(t, `{"type":"chat/draftChanged","draft":{"text":"x"}}`), pinned),
		"a nil state behaves as {}")
	assert.Equal(t, session, Apply(Kind("terminal"), session, decodeObj(t, `{"type":"terminal/data","data":"x"}`), pinned))
}

func TestDecodeKeepsNumbersExact(t *testing.T) {
	v, err := Decode([]byte(`{"serverSeq":9007199254740993,"status":2147483720,"f":0.1}`))
	require.NoError(t, err)
	m := v.(map[string]any)
	assert.Equal(t, json.Number("9007199254740993"), m["serverSeq"])
	out, err := json.Marshal(m)
	require.NoError(t, err)
	assert.JSONEq(t, `{"serverSeq":9007199254740993,"status":2147483720,"f":0.1}`, string(out))
	assert.Contains(t, string(out), "9007199254740993")

	for _, bad := range []string{``, `{`, `{"a":1} {"b":2}`, `nul`} {
		_, err := Decode([]byte(bad))
		assert.Error(t, err, bad)
	}
}

// Status arithmetic keeps unknown high bits, as JavaScript's 32-bit bit
// operators do in the reference reducers.
func TestStatusKeepsUnknownBits(t *testing.T) {
	chat := decodeObj(t, `{"resource":"r","title":"t","status":2147483689,"modifiedAt":"x","turns":[]}`)
	out := Apply(Chat, chat, decodeObj(t, `{"type":"chat/turnStarted","turnId":"t1","startedAt":"s","message":{"text":"m"}}`),
		func() time.Time { return time.Date(2026, 8, 1, 9, 4, 0, 5e6, time.UTC) })
	// 2147483689 = 2^31 | 32 (IsRead) | 9; turnStarted clears IsRead and sets InProgress.
	assert.Equal(t, json.Number("2147483656"), out["status"])
	assert.Equal(t, "2026-08-01T09:04:00.005Z", out["modifiedAt"])
}

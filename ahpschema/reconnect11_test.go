package ahpschema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The official 1.1 reconnect fixtures pass the validator: the per-channel
// params as a request, each result as reconnect's result.
func TestOfficialReconnect11Fixtures(t *testing.T) {
	dir := filepath.Join("..", "ahpclient", "testdata", "ahp-test-cases", "round-trips-1.1")
	input := func(name string) json.RawMessage {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		var f struct {
			Input json.RawMessage `json:"input"`
		}
		require.NoError(t, json.Unmarshal(b, &f))
		return f.Input
	}
	req, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "reconnect", "params": input("054-reconnect-params-per-channel-cursors.json")})
	require.NoError(t, err)
	assert.NoError(t, ValidateMessage(req, ClientToHost))
	for _, f := range []string{"055-reconnect-result-mixed-channel-recovery.json", "061-reconnect-snapshot-without-missing.json"} {
		assert.NoError(t, ValidateResult("reconnect", input(f)), f)
	}
	// A broken per-channel shape is reported.
	bad := json.RawMessage(`{"channels":[{"kind":"replay","channel":"ahp-session:/a","actions":[{"channel":"ahp-session:/b","serverSeq":1,"action":{"type":"session/titleChanged","title":"x"}}]}]}`)
	assert.Error(t, ValidateResult("reconnect", bad))
	req, err = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "reconnect", "params": map[string]any{"channel": "ahp-root://", "clientId": "c", "subscriptions": []any{map[string]any{"channel": "x"}}}})
	require.NoError(t, err)
	assert.Error(t, ValidateMessage(req, ClientToHost))
}

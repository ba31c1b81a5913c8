package ahptest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/ahptest"
)

func TestNegotiationPerConnection(t *testing.T) {
	v1Only := []string{"1.0.0", "0.9.0"}
	both := []string{"1.0.0", "0.9.0", "0.8.0"}
	cases := []struct {
		name    string
		host    []string // nil = the default, ["0.8.0"]
		offered []string
		chosen  string   // "" = refused with -32005
		support []string // supportedVersions of a refusal
	}{
		{"1.x host, 1.x client", v1Only, []string{"1.0.0"}, "1.0.0", nil},
		{"1.x host takes the highest, not the client's first", v1Only, []string{"0.9.0", "1.0.0"}, "1.0.0", nil},
		{"1.x host, 0.9 client", v1Only, []string{"0.9.0", "0.8.0"}, "0.9.0", nil},
		{"1.x host refuses today's ahpls", v1Only, []string{"0.8.0", "0.7.0", "0.6.0", "0.5.2", "0.5.1"}, "", v1Only},
		{"1.x host, newer 1.x patch is caret-compatible", v1Only, []string{"1.0.3"}, "1.0.3", nil},
		{"0.8 host, today's ahpls", []string{"0.8.0"}, []string{"0.8.0", "0.7.0"}, "0.8.0", nil},
		{"0.8 host, client offering 1.x too", []string{"0.8.0"}, []string{"1.0.0", "0.9.0", "0.8.0"}, "0.8.0", nil},
		{"0.8 host refuses another 0.x minor", []string{"0.8.0"}, []string{"0.7.0"}, "", []string{"0.8.0"}},
		{"0.8 host refuses 1.x only", []string{"0.8.0"}, []string{"1.0.0"}, "", []string{"0.8.0"}},
		{"both, 1.x client", both, []string{"1.0.0", "0.8.0"}, "1.0.0", nil},
		{"both, 1.x wins over client order", both, []string{"0.8.0", "1.0.0"}, "1.0.0", nil},
		{"both, 0.8 client", both, []string{"0.8.0", "0.7.0"}, "0.8.0", nil},
		{"both, nothing in common", both, []string{"0.7.0", "2.0.0"}, "", both},
		{"default host, 0.8 client", nil, []string{"0.8.0"}, "0.8.0", nil},
		{"default host, 1.x client", nil, []string{"1.0.0"}, "", []string{"0.8.0"}},
		{"no offer at all", both, []string{}, "", both},
		{"garbage offer", both, []string{"latest", "1.0"}, "", both},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHost(t, ahptest.Options{ProtocolVersions: tc.host})
			r := dialRaw(t, h)
			offered, _ := json.Marshal(tc.offered)
			res := r.call("initialize", fmt.Sprintf(`{"channel":"ahp-root://","protocolVersions":%s,"clientId":"neg-1"}`, offered))
			if tc.chosen != "" {
				require.Nil(t, res["error"])
				assert.Equal(t, tc.chosen, res["result"].(map[string]any)["protocolVersion"])
				assert.Equal(t, tc.chosen, h.ProtocolVersion("neg-1"))
				return
			}
			e, _ := res["error"].(map[string]any)
			require.NotNil(t, e, "refused")
			assert.EqualValues(t, -32005, e["code"])
			var got []string
			for _, v := range e["data"].(map[string]any)["supportedVersions"].([]any) {
				got = append(got, v.(string))
			}
			assert.Equal(t, tc.support, got)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, _, err := r.ws.Read(ctx)
			assert.Error(t, err, "the host closes after a refusal")
			assert.NotErrorIs(t, err, context.DeadlineExceeded)
			assert.Empty(t, h.Clients())
		})
	}
}

// TestV1LifecycleAndToggleShapes: a 1.x connection sees "failed" and
// enablement lists where a 0.8 one sees "creationFailed" and booleans, and
// neither direction reports a schema violation.
func TestV1LifecycleAndToggleShapes(t *testing.T) {
	h := newHost(t, ahptest.Options{ProtocolVersions: []string{"1.0.0", "0.8.0"}})
	s := h.CreateSession(ahptest.SessionSpec{WorkingDirectories: []string{folder}})
	_, err := h.Emit(s, map[string]any{"type": "session/customizationUpdated", "customization": map[string]any{
		"type": "mcpServer", "id": "srv", "uri": "file:///work/proj/.mcp.json", "name": "srv", "enabled": false, "state": map[string]any{"kind": "stopped"}}})
	require.NoError(t, err)

	init := func(id, version string) *rawClient {
		r := dialRaw(t, h)
		res := r.call("initialize", fmt.Sprintf(`{"channel":"ahp-root://","protocolVersions":[%q],"clientId":%q}`, version, id))
		require.Nil(t, res["error"])
		r.call("subscribe", fmt.Sprintf(`{"channel":%q}`, s))
		return r
	}
	old, v1 := init("raw-08", "0.8.0"), init("raw-1", "1.0.0")

	srvOf := func(r *rawClient, seq int) map[string]any {
		env := r.readUntil(func(m map[string]any) bool {
			p, _ := m["params"].(map[string]any)
			return m["method"] == "action" && p["serverSeq"] == float64(seq)
		})["params"].(map[string]any)
		return env["action"].(map[string]any)
	}
	// A hand-emitted enabled:false has no list; 1.x gets it as a Session
	// decision, the 0.8 connection keeps the boolean.
	seq, err := h.Emit(s, map[string]any{"type": "session/customizationUpdated", "customization": map[string]any{
		"type": "mcpServer", "id": "srv", "uri": "file:///work/proj/.mcp.json", "name": "srv", "enabled": false, "state": map[string]any{"kind": "stopped"}}})
	require.NoError(t, err)
	c08 := srvOf(old, int(seq))["customization"].(map[string]any)
	c1 := srvOf(v1, int(seq))["customization"].(map[string]any)
	assert.Equal(t, false, c08["enabled"])
	assert.NotContains(t, c08, "enablement")
	assert.NotContains(t, c1, "enabled")
	assert.Equal(t, []any{map[string]any{"kind": "session", "enabled": false}}, c1["enablement"])

	// A 1.x toggle (list only) passes validation, reaches the overlay and
	// is echoed to the 0.8 connection as a boolean.
	v1.send(`{"jsonrpc":"2.0","method":"dispatchAction","params":{"channel":"` + s + `","clientSeq":1,"action":{"type":"session/customizationToggled","id":"srv","enablement":[{"kind":"session","enabled":true}]}}}`)
	echo := old.readUntil(func(m map[string]any) bool {
		a, _ := m["params"].(map[string]any)["action"].(map[string]any)
		return m["method"] == "action" && a["type"] == "session/customizationToggled"
	})["params"].(map[string]any)["action"].(map[string]any)
	assert.Equal(t, map[string]any{"type": "session/customizationToggled", "id": "srv", "enabled": true}, echo)
	wait(t, h, "srv back on", func(v *ahptest.View) bool { return customization(v, s, "srv")["enabled"] == true })

	// Lifecycle spelling.
	seq, err = h.Emit(s, map[string]any{"type": "session/creationFailed", "error": map[string]any{"errorType": "backend", "message": "no model"}})
	require.NoError(t, err)
	srvOf(old, int(seq))
	srvOf(v1, int(seq))
	snap08 := old.call("subscribe", fmt.Sprintf(`{"channel":%q}`, s))["result"].(map[string]any)["snapshot"].(map[string]any)["state"].(map[string]any)
	snap1 := v1.call("subscribe", fmt.Sprintf(`{"channel":%q}`, s))["result"].(map[string]any)["snapshot"].(map[string]any)["state"].(map[string]any)
	assert.Equal(t, "creationFailed", snap08["lifecycle"])
	assert.Equal(t, "failed", snap1["lifecycle"])
}

// Frames are validated against the schema of the version each connection
// negotiated: on 0.8.0 a plugin or toggle without `enabled` is a violation
// (the 0.8.0 schema requires it, issue 15); on 1.x the same list-only
// shape is what the version speaks and passes.
func TestValidationFollowsTheNegotiatedVersion(t *testing.T) {
	for _, version := range []string{"0.8.0", "1.0.0"} {
		t.Run(version, func(t *testing.T) {
			var mu sync.Mutex
			var violations []error
			h := newHost(t, ahptest.Options{ProtocolVersions: []string{"1.0.0", "0.8.0"}, OnViolation: func(err error) {
				mu.Lock()
				violations = append(violations, err)
				mu.Unlock()
			}})
			s := h.CreateSession(ahptest.SessionSpec{WorkingDirectories: []string{folder}})
			r := dialRaw(t, h)
			res := r.call("initialize", fmt.Sprintf(`{"channel":"ahp-root://","protocolVersions":[%q],"clientId":"val-1"}`, version))
			require.Nil(t, res["error"])
			r.call("subscribe", fmt.Sprintf(`{"channel":%q}`, s))
			r.send(`{"jsonrpc":"2.0","method":"dispatchAction","params":{"channel":"` + s + `","clientSeq":1,"action":{"type":"session/activeClientSet","activeClient":{"clientId":"val-1","tools":[],"customizations":[` +
				`{"type":"plugin","id":"p","uri":"virtual://ahpls/x/p","name":"p","enablement":[{"kind":"global","enabled":true}]}]}}}}`)
			r.readUntil(func(m map[string]any) bool { return m["method"] == "action" })
			mu.Lock()
			defer mu.Unlock()
			if version == "0.8.0" {
				require.Len(t, violations, 1)
				assert.Contains(t, violations[0].Error(), `missing properties: ["enabled"]`)
				return
			}
			assert.Empty(t, violations)
		})
	}
}

package hostlink

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/ahpclient"
	"github.com/ahpls-dev/ahpls/ahpschema"
	"github.com/ahpls-dev/ahpls/ahptest"
	"github.com/ahpls-dev/ahpls/enablement"
)

// sentActiveClientSets records every session/activeClientSet the client
// put on the wire, as sent.
type sentActiveClientSets struct {
	mu     sync.Mutex
	frames [][]byte
}

func (s *sentActiveClientSets) trace(dir ahpclient.FrameDirection, b []byte) {
	if dir != ahpclient.Sent {
		return
	}
	var f struct {
		Method string `json:"method"`
		Params struct {
			Action struct {
				Type string `json:"type"`
			} `json:"action"`
		} `json:"params"`
	}
	if json.Unmarshal(b, &f) != nil || f.Method != "dispatchAction" || f.Params.Action.Type != "session/activeClientSet" {
		return
	}
	s.mu.Lock()
	s.frames = append(s.frames, append([]byte(nil), b...))
	s.mu.Unlock()
}

func (s *sentActiveClientSets) all() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.frames...)
}

// Issue 15, defect 1: a 0.8.0 host stores our customization as sent and
// echoes it back, extra `enablement` key included. The link must not learn
// "scoped" from its own echo and drop the `enabled` the 0.8.0 schema
// requires: over 100 load-state changes of our echoed plugin, every
// activeClientSet on the wire is schema-valid and names `enabled` on every
// plugin, also those sent for the user's toggles in between. The host
// reports any invalid frame as a violation, which fails the test too.
func TestOwnEchoDoesNotTeachTheDialect(t *testing.T) {
	host := startHost(t, ahptest.Options{ProtocolVersions: []string{"0.8.0"}})
	sent := &sentActiveClientSets{}
	h := newHarness(t, harnessOpts{host: host, cfg: func(c *Config) {
		prev := c.ClientOptions
		c.ClientOptions = func(o *ahpclient.Options) {
			prev(o)
			o.Trace = sent.trace
		}
	}})
	h.published("proj")
	require.Equal(t, "0.8.0", h.link.client.ProtocolVersion())
	require.NoError(t, host.EchoClientExtras(h.cid(), true))
	id := h.pluginID("proj")
	h.host.wait(t, "our plugin loaded", func(v *ahptest.View) bool {
		load, _ := hostCustomization(v.State(h.session), id)["load"].(map[string]any)
		return load != nil && load["kind"] != "loading"
	})

	before := len(sent.all())
	const n = 100
	for i := 0; i < n; i++ {
		if i%10 == 0 {
			// The user turns the plugin off and on now and then, so
			// activeClientSets go out while the echoes arrive.
			require.NoError(t, h.link.Toggle(t.Context(), h.session, id, enablement.KindGlobal, (i/10)%2 == 1))
		}
		st := map[string]any{"kind": "loaded"}
		if i%2 == 1 {
			st = map[string]any{"kind": "degraded", "message": fmt.Sprintf("change %d", i)}
		}
		require.NoError(t, host.EmitLoadState(h.session, id, st))
	}
	final := map[string]any{"kind": "degraded", "message": "final"}
	require.NoError(t, host.EmitLoadState(h.session, id, final))
	waitUntil(t, "the client mirrored every change", func() bool {
		st, ok := h.link.client.State(h.session)
		if !ok {
			return false
		}
		load, _ := hostCustomization(st, id)["load"].(map[string]any)
		return load["message"] == "final"
	})
	// The echo reached the client with our extra key: the fault is live.
	st, _ := h.link.client.State(h.session)
	require.Contains(t, hostCustomization(st, id), "enablement", "the host echoed our extra key")

	frames := sent.all()
	t.Logf("activeClientSet frames: %d in all, %d during the %d load-state changes; dialect %s", len(frames), len(frames)-before, n, h.link.client.Dialect().Enablement())
	require.NotEmpty(t, frames)
	for i, b := range frames {
		var f struct {
			Params json.RawMessage `json:"params"`
		}
		require.NoError(t, json.Unmarshal(b, &f))
		assert.NoError(t, ahpschema.Validate("commands", "DispatchActionParams", f.Params), "frame %d: %s", i, b)
		var p struct {
			Action struct {
				ActiveClient struct {
					Customizations []map[string]any `json:"customizations"`
				} `json:"activeClient"`
			} `json:"action"`
		}
		require.NoError(t, json.Unmarshal(f.Params, &p))
		for _, c := range p.Action.ActiveClient.Customizations {
			if c["type"] == "plugin" {
				assert.Contains(t, c, "enabled", "frame %d: plugin %v without enabled", i, c["id"])
			}
		}
	}
	// The plugin stays published as on: nothing read `enabled` as absent.
	host.wait(t, "our plugin published as on", func(v *ahptest.View) bool {
		return entryPlugin(v, h.session, h.cid(), id)["enabled"] == true
	})
}

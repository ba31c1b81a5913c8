package ahptest_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/ahpclient"
	"github.com/ahpls-dev/ahpls/ahptest"
	"github.com/ahpls-dev/ahpls/enablement"
)

// clientEntry is a customization as a client's mirror shows it.
func clientEntry(c *ahpclient.Client, session, id string) map[string]any {
	st, _ := c.State(session)
	l, _ := st["customizations"].([]any)
	for _, e := range l {
		if m, ok := e.(map[string]any); ok && m["id"] == id {
			return m
		}
	}
	return nil
}

func list(ds ...any) []any {
	out := []any{}
	for i := 0; i+1 < len(ds); i += 2 {
		out = append(out, map[string]any{"kind": ds[i], "enabled": ds[i+1]})
	}
	return out
}

// shapes asserts what each dialect shows for a plugin: the 0.8 client a
// boolean only, the 1.x client the list only.
func shapes(t *testing.T, old, v1 *ahpclient.Client, session, id string, on bool, l []any) {
	t.Helper()
	want := fmt.Sprint(l)
	clientWait(t, old, fmt.Sprintf("0.8 client sees %s enabled=%v", id, on), func() bool {
		e := clientEntry(old, session, id)
		return e != nil && e["enabled"] == on
	})
	clientWait(t, v1, fmt.Sprintf("1.x client sees %s %s", id, want), func() bool {
		e := clientEntry(v1, session, id)
		return e != nil && fmt.Sprint(e["enablement"]) == want
	})
	_, has := clientEntry(old, session, id)["enablement"]
	assert.False(t, has, "the snapshot dialect has no enablement list")
	_, has = clientEntry(v1, session, id)["enabled"]
	assert.False(t, has, "the 1.x dialect has no enabled boolean on plugins")
}

func TestTogglesReachTheOverlayAndRepublishInBothDialects(t *testing.T) {
	h := newHost(t, ahptest.Options{ProtocolVersions: []string{"1.0.0", "0.9.0", "0.8.0"}})
	s := h.CreateSession(ahptest.SessionSpec{WorkingDirectories: []string{folder}})
	old, _ := startClient(t, h, func(o *ahpclient.Options) { o.ProtocolVersions = []string{"0.8.0", "0.7.0"} })
	v1, _ := startClient(t, h, func(o *ahpclient.Options) { o.ProtocolVersions = []string{"1.0.0"} })
	srvOld, srvV1 := newPluginServer(), newPluginServer()
	srvOld.install(old)
	srvV1.install(v1)
	wait(t, h, "both joined", func(v *ahptest.View) bool {
		return v.Subscribed(old.ClientID(), s) && v.Subscribed(v1.ClientID(), s)
	})
	require.Equal(t, "0.8.0", h.ProtocolVersion(old.ClientID()))
	require.Equal(t, "1.0.0", h.ProtocolVersion(v1.ClientID()))

	// The 0.8 client publishes P with a boolean: the host reads it as the
	// client's Global.
	p := old.ClientID() + ":workspace"
	pURI := "virtual://ahpls/0a1b2c3d/workspace"
	srvOld.set(pURI, workspaceFiles())
	require.NoError(t, old.SetActiveClient(map[string]any{"tools": []any{}, "customizations": []any{plugin(p, pURI, "n1")}}))
	wait(t, h, "P loaded", func(v *ahptest.View) bool { return loadKind(v, s, p) == "loaded" })
	shapes(t, old, v1, s, p, true, list("global", true))

	// The 1.x client disables P for this session with a full list.
	_, err := v1.Dispatch(s, map[string]any{"type": "session/customizationToggled", "id": p, "enablement": list("session", false, "global", true)})
	require.NoError(t, err)
	shapes(t, old, v1, s, p, false, list("session", false, "global", true))
	// The clients may see the echo before the host has applied the toggle:
	// take the host lock once (the dispatch is handled under it).
	viewOf(h)
	assert.Equal(t, map[string]bool{p: false}, h.Overlay().SessionDecisions(s), "the toggle reached the overlay")
	wait(t, h, "P's servers stop with it", func(v *ahptest.View) bool {
		st := mcpStates(customization(v, s, p))
		return st["docs"] == "stopped" && st["web"] == "stopped" && st["broken"] == "error"
	})

	// The 0.8 client turns it back on: {id, enabled} is the Session scope;
	// equal to what it inherits, so the session decision goes.
	_, err = old.Dispatch(s, map[string]any{"type": "session/customizationToggled", "id": p, "enabled": true})
	require.NoError(t, err)
	shapes(t, old, v1, s, p, true, list("global", true))
	viewOf(h)
	assert.Empty(t, h.Overlay().SessionDecisions(s))
	wait(t, h, "P's servers run again", func(v *ahptest.View) bool { return mcpStates(customization(v, s, p))["docs"] == "ready" })

	// The 1.x client publishes Q with its Global off: the base, nothing
	// durable (enablement S8).
	q := v1.ClientID() + ":tools"
	qURI := "virtual://ahpls/9f8e7d6c/tools"
	srvV1.set(qURI, map[string]string{".plugin/plugin.json": `{"name":"tools"}`, ".mcp.json": `{"mcpServers":{"search":{"command":"search"}}}`})
	publishQ := func(display string, global bool) {
		require.NoError(t, v1.SetActiveClient(map[string]any{"displayName": display, "tools": []any{}, "customizations": []any{
			map[string]any{"type": "plugin", "id": q, "uri": qURI, "name": "Tools", "nonce": "q1", "enablement": list("global", global)}}}))
		wait(t, h, "Q published as "+display, func(v *ahptest.View) bool {
			return v.ActiveClient(s, v1.ClientID())["displayName"] == display
		})
	}
	publishQ("first", false)
	wait(t, h, "Q loaded", func(v *ahptest.View) bool { return loadKind(v, s, q) == "loaded" })
	shapes(t, old, v1, s, q, false, list("global", false))
	assert.Empty(t, h.DurableDecisions().Global)

	// A Session decision from another client masks the base.
	_, err = old.Dispatch(s, map[string]any{"type": "session/customizationToggled", "id": q, "enabled": true})
	require.NoError(t, err)
	shapes(t, old, v1, s, q, true, list("session", true, "global", false))

	// A toggle cannot store the client-owned Global: the list's Global is
	// replaced by the resolved one, and the full replacement clears Session.
	_, err = v1.Dispatch(s, map[string]any{"type": "session/customizationToggled", "id": q, "enablement": list("global", true)})
	require.NoError(t, err)
	shapes(t, old, v1, s, q, false, list("global", false))
	assert.Empty(t, h.DurableDecisions().Global, "no Global stored from a toggle")

	// A host decision masks the client's base, and a stale republish of the
	// client's Global does not undo it (enablement S7 through the wire).
	_, err = h.SetDecision(s, q, enablement.List{{Kind: enablement.KindGlobal, Enabled: true}})
	require.NoError(t, err)
	shapes(t, old, v1, s, q, true, list("global", true))
	publishQ("stale", false)
	shapes(t, old, v1, s, q, true, list("global", true))
	assert.Equal(t, map[string]bool{qURI: true}, h.DurableDecisions().Global)
	assert.Equal(t, "ready", mcpStates(customization(viewOf(h), s, q))["search"])
}

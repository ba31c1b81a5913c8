package hostlink

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/ahptest"
	"github.com/ahpls-dev/ahpls/virtualplugin"
)

// readAt reads a file of our plugin as a host that captured it at a nonce
// (empty: no nonce named).
func (h *harness) readAt(uri, nonce string) (string, error) {
	p := map[string]any{"uri": uri, "encoding": "utf-8"}
	if nonce != "" {
		p["_meta"] = map[string]any{virtualplugin.MetaNonce: nonce}
	}
	raw, err := h.request("resourceRead", p)
	if err != nil {
		return "", err
	}
	var r struct{ Data string }
	require.NoError(h.t, json.Unmarshal(raw, &r))
	return r.Data, nil
}

// changedNonce edits the lint skill and waits until the link publishes a
// new nonce for the workspace plugin; it returns the new one.
func (h *harness) changedNonce(text string) string {
	h.t.Helper()
	before := h.localNonce("proj")
	h.change(".github/skills/lint/SKILL.md", text)
	h.host.wait(h.t, "a new nonce", func(*ahptest.View) bool { return h.localNonce("proj") != before })
	return h.localNonce("proj")
}

// A host that captured the workspace plugin at a nonce reads it after the
// plugin changed, naming the nonce in _meta; without it, the current tree.
// (The workspace is trusted: its plugin carries a .mcp.json.)
func TestKeptVersionReadByNonce(t *testing.T) {
	h := newHarness(t, harnessOpts{cfg: func(c *Config) { c.TrustWorkspaceTools = true }})
	h.published("proj")
	old := h.localNonce("proj")
	skill := h.pluginURI("proj") + "/skills/lint/SKILL.md"
	first, err := h.readAt(skill, old)
	require.NoError(t, err)
	assert.Equal(t, lintSkill, first)

	edited := lintSkill + "\nAlso run vet.\n"
	cur := h.changedNonce(edited)
	got, err := h.readAt(skill, old)
	require.NoError(t, err, "the superseded version is read by its nonce")
	assert.Equal(t, lintSkill, got)
	got, err = h.readAt(skill, "")
	require.NoError(t, err)
	assert.Equal(t, edited, got, "no nonce: the current tree")
	got, err = h.readAt(skill, cur)
	require.NoError(t, err)
	assert.Equal(t, edited, got)
}

// Revoking workspace trust withdraws every kept version of a plugin
// carrying hooks or MCP servers (the workspace plugin has a .mcp.json),
// while the current publication is served as before.
func TestTrustRevokedWithdrawsKeptCommandPlugins(t *testing.T) {
	h := newHarness(t, harnessOpts{cfg: func(c *Config) { c.TrustWorkspaceTools = true }})
	h.published("proj")
	old := h.localNonce("proj")
	skill := h.pluginURI("proj") + "/skills/lint/SKILL.md"
	_, err := h.readAt(skill, old)
	require.NoError(t, err)
	h.changedNonce(lintSkill + "\nv2\n")
	_, err = h.readAt(skill, old)
	require.NoError(t, err, "kept while trusted")

	h.link.SetTrusted(false)
	_, err = h.readAt(skill, old)
	require.Error(t, err, "withdrawn with trust")
	assert.Equal(t, int64(virtualplugin.CodeNotFound), rpcCode(err))
	_, err = h.readAt(skill, "")
	require.NoError(t, err, "the current tree is served as before")
}

// The .mcp.json served without client-disabled servers (0.8) is made from
// the workspace's .mcp.json: deleting that file withdraws the kept
// versions carrying the filtered copy too.
func TestFilteredMCPWithdrawnWithItsSource(t *testing.T) {
	ws := workspace(t)
	b, err := virtualplugin.NewBuilder(ws, virtualplugin.Options{})
	require.NoError(t, err)
	srv := virtualplugin.NewServer()
	publish := func(nonce string) *virtualplugin.Plugin {
		snap, err := b.Build()
		require.NoError(t, err)
		served := &virtualplugin.Snapshot{Folder: snap.Folder, Key: snap.Key}
		var proj *virtualplugin.Plugin
		for _, p := range snap.Plugins {
			if p.Name == "proj" {
				p = withoutServers(p, []string{"web"}, nonce)
				proj = p
			}
			served.Plugins = append(served.Plugins, p)
		}
		require.NotNil(t, proj)
		srv.Publish(served)
		return proj
	}
	old := publish("sha256-1")
	edit := func(rel, text string) {
		p := filepath.Join(ws, filepath.FromSlash(rel))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		b.Changed(p)
	}
	edit(".github/skills/lint/SKILL.md", lintSkill+"\nv2\n")
	publish("sha256-2")
	_, err = srv.ReadAt(old.URI+"/.mcp.json", old.Nonce, "")
	require.NoError(t, err, "kept")

	p := filepath.Join(ws, ".mcp.json")
	require.NoError(t, os.Remove(p))
	b.Changed(p)
	publish("sha256-3")
	_, err = srv.ReadAt(old.URI+"/.mcp.json", old.Nonce, "")
	require.Error(t, err, "withdrawn with the file it was made from")
}

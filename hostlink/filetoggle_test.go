package hostlink

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/ahptest"
	"github.com/ahpls-dev/ahpls/enablement"
)

// "Toggle this file" acts on the file's own customization: a skill's leaf,
// a manifest's plugin, a .mcp.json's one server; it never falls back to
// the whole plugin for a file the host has not listed.
func TestFileToggleRow(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.published("proj", "tooling")
	h.settled(h.session, "proj", "tooling")
	lint := esPath(h, ".github/skills/lint/SKILL.md")
	waitUntil(t, "the host lists the lint skill", func() bool { return len(h.link.FileRows(h.session, lint)) == 2 })

	tests := []struct {
		rel, wantType, wantName, wantErr string
	}{
		{rel: ".github/skills/lint/SKILL.md", wantType: "skill", wantName: "lint"},
		{rel: ".github/agents/reviewer.agent.md", wantType: "agent", wantName: "reviewer"},
		{rel: "plugins/tooling/.plugin/plugin.json", wantType: enablement.TypePlugin, wantName: "tooling"},
		{rel: ".mcp.json", wantErr: "several MCP servers: toggle one by id: docs"},
		{rel: "src/main.go", wantErr: "not published"},
	}
	for _, tc := range tests {
		t.Run(tc.rel, func(t *testing.T) {
			var r enablement.Row
			var err error
			waitUntil(t, "the host lists "+tc.rel, func() bool {
				r, err = h.link.FileToggleRow(h.session, esPath(h, tc.rel))
				return !errors.Is(err, ErrNotListed)
			})
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.wantType, r.Type)
			assert.Equal(t, tc.wantName, r.Name)
		})
	}
}

// Before the host lists a skill, toggling its file is refused instead of
// switching off everything published with it.
func TestFileToggleRowNotListedYet(t *testing.T) {
	off := false
	h := newHarness(t, harnessOpts{host: startHost(t, ahptest.Options{LoadClientPlugins: &off})})
	h.published("proj")
	lint := esPath(h, ".github/skills/lint/SKILL.md")
	waitUntil(t, "rows for the skill's plugin", func() bool { return len(h.link.FileRows(h.session, lint)) == 1 })
	_, err := h.link.FileToggleRow(h.session, lint)
	require.ErrorIs(t, err, ErrNotListed)
	assert.Contains(t, err.Error(), h.pluginID("proj"), "names the plugin's id for toggling all of it")
}

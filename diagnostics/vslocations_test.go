package diagnostics

import (
	"github.com/ahpls-dev/ahpls/diagnostics/copilot"

	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestVSLocations follows config.ts promptSourceFolders: defaults stay
// unless mapped to false, "true"/"false" strings count, home and absolute
// paths are not the workspace's, a glob searches below its non-glob parent.
func TestVSLocations(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".vscode"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, ".vscode", "settings.json"), []byte(`{
		// comments are fine: VS Code reads JSONC
		"chat.agentFilesLocations": {".github/agents": false, "agents": "TRUE ", "~/mine": true, "/abs": true,
			"team/**/*.agent.md": true, "../up": true, "off": false, "bad": 1,},
		"chat.modeFilesLocations": {"modes/": true}
	}`), 0o644))
	got := copilot.VsLocations(dirFS(root), []string{".github/agents"}, copilot.VsAgentLocations, copilot.VsModeLocations)
	assert.Equal(t, []copilot.VsLocation{{Dir: "agents"}, {Dir: "team", Recursive: true}, {Dir: "modes"}}, got)
	assert.Equal(t, []copilot.VsLocation{{Dir: ".github/agents"}}, copilot.VsLocations(dirFS(t.TempDir()), []string{".github/agents"}, copilot.VsAgentLocations))

	write := func(rel, text string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	write("team/a/b/coach.agent.md", "---\nname: Team Coach\n---\n")
	write("agents/planner.agent.md", "---\ndescription: x\n---\n")
	write(".github/agents/off.agent.md", "---\nname: Disabled\n---\n")
	assert.True(t, copilot.AgentDefined(dirFS(root), "Team Coach"), "found by 'name' below a glob location")
	assert.True(t, copilot.AgentDefined(dirFS(root), "planner"), "found by stem")
	assert.True(t, copilot.AgentDefined(dirFS(root), "Disabled"), ".github/agents is searched for agents whatever the setting says (getLocalParentFolders)")
	assert.False(t, copilot.AgentDefined(dirFS(root), "Nobody"))
}

package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/check"
	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/wsfolder"
)

// TestREADMEConfigsPassAhplsCheck: the configs the README tells users to
// write for `ahpls mcp` are in the README verbatim and pass ahpls' own
// rules for the consumers that read them.
func TestREADMEConfigsPassAhplsCheck(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	for _, c := range []struct {
		file    string
		targets []model.Target
		checked bool // ahpls classifies the file
	}{
		{"testdata/configs/claude/.mcp.json", []model.Target{model.TargetClaudeCode, model.TargetVSCode, model.TargetVSCodeAgentHost, model.TargetCopilotCLI}, true},
		{"testdata/configs/copilot/.mcp.json", []model.Target{model.TargetCopilotCLI}, true},
		{"testdata/configs/vscode/.vscode/mcp.json", model.AllTargets, false},
	} {
		text, err := os.ReadFile(c.file)
		require.NoError(t, err)
		assert.Contains(t, string(readme), "```json\n"+string(text)+"```\n", "README shows %s verbatim", c.file)

		folder := strings.SplitN(c.file, "/", 4)
		root := filepath.Join(folder[0], folder[1], folder[2])
		found, err := check.Run([]string{root}, diagnostics.Options{Targets: c.targets, NoImpliedTargets: true})
		require.NoError(t, err)
		assert.Empty(t, found, "%s: ahpls check reports nothing", c.file)
		rel, _ := filepath.Rel(root, c.file)
		kind := model.Classify(filepath.ToSlash(rel), wsfolder.DirLayout(root))
		assert.Equal(t, c.checked, kind == model.KindMCP, "%s classified as %q", c.file, kind)
	}
	// The Copilot file is not one for Claude Code: the check tells so.
	found, err := check.Run([]string{"testdata/configs/copilot"}, diagnostics.Options{Targets: []model.Target{model.TargetClaudeCode}, NoImpliedTargets: true})
	require.NoError(t, err)
	require.NotEmpty(t, found)
	assert.Equal(t, "mcp/type", found[0].Rule)
	assert.Contains(t, string(readme), "claude mcp add --scope project ahpls -- ahpls mcp")
}

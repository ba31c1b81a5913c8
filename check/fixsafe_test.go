package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

// TestFixesReadByAgents: the fixes `--format json` and the MCP tools hand
// to an agent (Finding.Fixes) never move a key Claude Code reads out of a
// Claude skill's header, never suggest a name the name rules refuse, and a
// join the guard demoted is neither safe nor applied by --fix (issue 39).
func TestFixesReadByAgents(t *testing.T) {
	ws := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(ws, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	write(".claude/skills/Deploy_Tool/SKILL.md", "---\nname: deploy\ndescription: Deploys.\nallowed-tools: [\"Bash(git status:*)\", Read]\nmodel: sonnet\n---\nBody.\n")
	opts := diagnostics.Options{Targets: []model.Target{model.TargetVSCode, model.TargetClaudeCode, model.TargetAgentSkills}}
	found, err := RunConfig([]string{ws}, Config{Rules: opts, keepText: true})
	require.NoError(t, err)
	sawJoin := false
	for _, f := range found {
		for _, fx := range f.Fixes() {
			assert.NotContains(t, fx.Title, "metadata", "%s suggests hiding a key Claude Code reads", f.Rule)
			for _, e := range fx.Edits {
				assert.NotContains(t, e.NewText, "Deploy_Tool", "%s suggests a name the rules refuse", f.Rule)
			}
			if f.Rule == "skill/allowed-tools" {
				sawJoin = true
				assert.False(t, fx.Safe, "the join splits 'Bash(git status:*)' for the Agent Skills spec")
				assert.Equal(t, "unsafe", fx.Tier)
				assert.NotEmpty(t, fx.Demoted)
			}
		}
	}
	require.True(t, sawJoin, "skill/allowed-tools did not fire")
	for _, p := range PlanFixes(found, false) {
		assert.False(t, strings.Contains(string(p.New), "Bash(git status:*) Read"), "--fix applied a demoted join")
	}
}

package check

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

// A plugin's findings do not depend on which folder is the workspace
// (issue #13): opened as the workspace root or from two ancestors, every
// finding on a file of the plugin is the same (rule, severity, position,
// message), with paths compared below the plugin root.
func TestPluginFindingsIndependentOfWorkspaceRoot(t *testing.T) {
	top := t.TempDir()
	plugin := filepath.Join(top, "repo", "plugins", "demo")
	files := map[string]string{
		".claude-plugin/plugin.json": `{"name": "demo", "version": 1, "agents": ["./agents"], "skills": "./skills/", "frobnicate": true}`,
		".codex-plugin/plugin.json":  `{"name": "demo", "skills": "./skills/", "agents": "./nowhere"}`,
		".mcp.json":                  `{"mcpServers": {"srv": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/srv", "url": "x"}}}`,
		"hooks/hooks.json":           `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/check.sh"}]}]}}`,
		"agents/reviewer.md":         "---\nname: reviewer\n---\nReview.\n",
		"skills/Pdf_Helper/SKILL.md": "---\nname: PDF Helper\ndescription: Fills PDF forms.\n---\nBody [x](missing.md).\n",
		"commands/go.md":             "---\ndescription: Go.\nname: go\n---\nGo.\n",
	}
	for rel, text := range files {
		p := filepath.Join(plugin, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	for _, targets := range [][]model.Target{nil, {model.TargetClaudeCode}, {model.TargetVSCodeAgentHost, model.TargetAgentSkills, model.TargetClaudeCode}} {
		opts := diagnostics.Options{Targets: targets}
		want := pluginFindings(t, plugin, plugin, opts)
		require.NotEmpty(t, want, "the fixture has findings")
		for _, ws := range []string{filepath.Join(top, "repo"), top} {
			got := pluginFindings(t, ws, plugin, opts)
			assert.Equal(t, want, got, "workspace %s, targets %v", ws, targets)
		}
		for _, f := range want {
			assert.NotContains(t, f, ".codex-plugin/", "another product's manifest is not judged")
		}
	}
}

// pluginFindings checks workspace ws and returns the findings on files
// below plugin, as "rel-to-plugin:line:col severity rule message".
func pluginFindings(t *testing.T, ws, plugin string, opts diagnostics.Options) []string {
	t.Helper()
	found, err := Run([]string{ws}, opts)
	require.NoError(t, err)
	var out []string
	for _, f := range found {
		abs, err := filepath.Abs(f.Path)
		require.NoError(t, err)
		rel, err := filepath.Rel(plugin, abs)
		require.NoError(t, err)
		if strings.HasPrefix(rel, "..") {
			continue
		}
		out = append(out, fmt.Sprintf("%s:%d:%d %s %s %s", filepath.ToSlash(rel), f.Line, f.Column, f.Level, f.Rule, f.Message))
	}
	sort.Strings(out)
	return out
}

package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// fakeTree is a Layout over an in-memory tree of manifests.
type fakeTree map[string]string

func (f fakeTree) read(rel string) ([]byte, bool) {
	s, ok := f[rel]
	return []byte(s), ok
}

func (f fakeTree) PluginRoot(dir string) PluginFormat { return DetectPluginFormat(f.read, dir) }
func (f fakeTree) ClaudeListed(dir string) bool       { return ClaudeListed(f.read, dir) }

// TestImpliedTable checks every row of the decision table (docs/rules.md
// "Implied targets") on a tree that shows it, and that no row is untested.
func TestImpliedTable(t *testing.T) {
	tree := fakeTree{
		"cc/.claude-plugin/plugin.json":          `{"name":"cc"}`,
		"listed/plugin.json":                     `{"name":"listed"}`,
		"market/.claude-plugin/marketplace.json": `{"name":"m","plugins":[{"name":"a","source":"./plugins/a"},{"name":"b","source":"b"},{"name":"r","source":{"source":"github","repo":"o/r"}}],"metadata":{"pluginRoot":"./plugins"}}`,
		"market/plugins/a/plugin.json":           `{"name":"a"}`,
		"market/plugins/b/plugin.json":           `{"name":"b"}`,
		"market/plugins/c/plugin.json":           `{"name":"c"}`,
		".claude-plugin/marketplace.json":        `{"name":"top","plugins":[{"name":"listed","source":"./listed"}]}`,
		"self/plugin.json":                       `{"name":"self"}`,
		"self/.claude-plugin/marketplace.json":   `{"name":"self","plugins":[]}`,
		"gh/plugin.json":                         `{"name":"gh"}`,
		"ap/plugin.json":                         `{"$schema":"https://agent-plugins.org/schemas/v1/plugin.schema.json"}`,
		"x/.github/plugin/plugin.json":           `{"name":"x"}`,
	}
	cases := []struct {
		row, rel string
		cc, cl   bool
	}{
		{"claude-dir", ".claude/skills/a/SKILL.md", true, false},
		{"claude-md", "pkg/CLAUDE.local.md", true, false},
		{"claude-plugin-dir", "cc/.claude-plugin/plugin.json", true, false},
		{"claude-plugin", "cc/skills/a/SKILL.md", true, false},
		{"claude-listed", "listed/hooks/hooks.json", true, false},           // root plugin.json, listed by the top marketplace (#25 repro 2)
		{"claude-listed", "market/plugins/a/hooks/hooks.json", true, false}, // "./plugins/a"
		{"claude-listed", "market/plugins/b/hooks/hooks.json", true, false}, // "b" below metadata.pluginRoot
		{"claude-listed", "self/hooks/hooks.json", true, false},             // a .claude-plugin/ folder in the plugin
		{"copilot-plugin-dir", "x/.github/plugin/plugin.json", false, true},
		{"copilot-plugin", "gh/hooks/hooks.json", false, true},
		{"copilot-plugin", "market/plugins/c/hooks/hooks.json", false, true}, // not listed
		{"copilot-hooks", ".github/hooks/copilot.json", false, false},        // by content: diagnostics' hooks rules
		{"copilot-setup-steps", ".github/workflows/copilot-setup-steps.yml", false, false},
		{"codex-dir", "p/.codex-plugin/plugin.json", false, false},
		{"codex-dir", ".codex/skills/a/SKILL.md", false, false},
		{"cursor-dir", ".cursor/rules/a.mdc", false, false},
		{"cursor-dir", ".cursorrules", false, false},
		{"gemini-dir", ".gemini/commands/a.toml", false, false},
		{"gemini-dir", "ext/gemini-extension.json", false, false},
		{"kiro-dir", ".kiro/steering/tech.md", false, false},
		{"windsurf-dir", ".windsurf/rules/ts.md", false, false},
		{"windsurf-dir", ".windsurfrules", false, false},
		{"windsurf-dir", ".windsurf/workflows/deploy.md", false, false},
		{"cline-rules", ".clinerules", false, false},
		{"cline-rules", ".clinerules/style.md", false, false},
		{"cline-rules", ".cline/rules/style.md", false, false},
		{"roo-dir", ".roo/rules/style.md", false, false},
		{"roo-dir", ".roo/rules-code/ts.md", false, false},
		{"roo-dir", ".roorules", false, false},
		{"roo-dir", ".roomodes", false, false},
		{"opencode-dir", ".opencode/agent/review.md", false, false},
		{"opencode-dir", "opencode.jsonc", false, false},
		{"agents-md", "AGENTS.md", false, false},
		{"none", "ap/skills/a/SKILL.md", false, false},
		{"none", "docs/x.prompt.md", false, false},
	}
	// Each consumer's own row: a file in each of its folders and each of
	// its file names implies it and no other consumer.
	for _, c := range Consumers {
		if p := c.Implied; p != nil {
			for _, seg := range p.Segs {
				cases = append(cases, struct {
					row, rel string
					cc, cl   bool
				}{p.ID, seg + "/x/y.md", false, false})
			}
			for _, b := range p.Bases {
				cases = append(cases, struct {
					row, rel string
					cc, cl   bool
				}{p.ID, "sub/" + b, false, false})
			}
		}
	}
	tested := map[string]bool{}
	for _, tc := range cases {
		tested[tc.row] = true
		got := EffectiveTargetsIn(nil, true, tc.rel, tree)
		assert.Equal(t, tc.cc, contains(got, TargetClaudeCode), "%s: %s claude-code", tc.row, tc.rel)
		assert.Equal(t, tc.cl, contains(got, TargetCopilotCLI), "%s: %s copilot-cli", tc.row, tc.rel)
		for _, c := range Consumers {
			if c.Implied != nil {
				assert.Equal(t, tc.row == c.Implied.ID, contains(got, c.Target), "%s: %s %s", tc.row, tc.rel, c.Target)
			}
		}
		assert.Equal(t, DefaultTargets, EffectiveTargetsIn(nil, false, tc.rel, tree), "implied off: %s", tc.rel)
	}
	for _, r := range ImpliedTable {
		assert.True(t, tested[r.ID], "row %s has no case", r.ID)
	}
}

func contains(ts []Target, t Target) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}

func TestCodexMarketplaceEntries(t *testing.T) {
	name, got := CodexMarketplaceEntries([]byte(`{"name": "m", "plugins": [
		{"name": "a", "source": "./plugins/a"},
		{"name": "b", "source": {"source": "local", "path": "./b"}},
		{"name": "c", "source": "plugins/c"},
		{"name": "d", "source": {"source": "url", "url": "https://x"}},
		{"name": "e", "source": "./../e"}]}`), "sub/.agents/plugins/marketplace.json")
	if name != "m" || len(got) != 2 || got[0] != (ListedPlugin{Name: "a", Dir: "sub/plugins/a"}) || got[1] != (ListedPlugin{Name: "b", Dir: "sub/b"}) {
		t.Fatalf("got %q %+v", name, got)
	}
}

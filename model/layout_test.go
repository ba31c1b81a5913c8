package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestManifestRoot(t *testing.T) {
	for _, tc := range []struct {
		rel, root, loc string
		ok             bool
	}{
		{"plugin.json", "", "plugin.json", true},
		{".claude-plugin/plugin.json", "", ".claude-plugin/plugin.json", true},
		{"a/b/.plugin/plugin.json", "a/b", ".plugin/plugin.json", true},
		{"x/.github/plugin/plugin.json", "x", ".github/plugin/plugin.json", true},
		{"r1/.codex-plugin/plugin.json", "", "", false}, // #13 repro 1
		{".cursor-plugin/plugin.json", "", "", false},
		{".kimi-plugin/plugin.json", "", "", false},
		{"node_modules/p/plugin.json", "", "", false},
		{"a/b/c/d/e/f/.claude-plugin/plugin.json", "a/b/c/d/e/f", ".claude-plugin/plugin.json", true},
		{"docs/readme.json", "", "", false},
		{"claude-plugin/plugin.json", "", "", false}, // dotless twin of .claude-plugin (#25)
		{"my-plugin/plugin.json", "my-plugin", "plugin.json", true},
	} {
		root, loc, ok := ManifestRoot(tc.rel)
		assert.Equal(t, tc.ok, ok, tc.rel)
		if tc.ok {
			assert.Equal(t, tc.root, root, tc.rel)
			assert.Equal(t, tc.loc, loc, tc.rel)
		}
	}
}

func TestMarketplaceRoot(t *testing.T) {
	for _, tc := range []struct {
		rel, root string
		ok        bool
	}{
		{".claude-plugin/marketplace.json", "", true},
		{"cli-tool/components/.claude-plugin/marketplace.json", "cli-tool/components", true}, // #13 repro 4
		{"marketplace.json", "", true},
		{"sub/marketplace.json", "", false},
		{".cursor-plugin/marketplace.json", "", false},
		{".agents/plugins/marketplace.json", "", false},
	} {
		root, ok := MarketplaceRoot(tc.rel)
		assert.Equal(t, tc.ok, ok, tc.rel)
		assert.Equal(t, tc.root, root, tc.rel)
	}
}

// DetectPluginFormat follows VS Code's detectPluginFormat order and never
// makes another product's dot-folder a plugin root.
func TestDetectPluginFormat(t *testing.T) {
	files := map[string]string{
		"ap/plugin.json":                  `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json"}`,
		"both/plugin.json":                `{}`,
		"both/.claude-plugin/plugin.json": `{}`,
		"op/.plugin/plugin.json":          `{}`,
		"op/.claude-plugin/plugin.json":   `{}`,
		"gh/plugin.json":                  `{}`,
		"r1/.codex-plugin/plugin.json":    `{}`,
		"r1/.claude-plugin/plugin.json":   `{}`,
		".claude/plugins/x/plugin.json":   `{}`,
	}
	read := func(rel string) ([]byte, bool) { b, ok := files[rel]; return []byte(b), ok }
	for dir, want := range map[string]PluginFormat{
		"ap": FormatAP, "both": FormatClaude, "op": FormatOpenPlugin, "gh": FormatCopilot,
		"r1": FormatClaude, "r1/.codex-plugin": FormatNone, ".claude/plugins/x": FormatClaude, "none": FormatNone,
	} {
		assert.Equal(t, want, DetectPluginFormat(read, dir), dir)
	}
}

package diagnostics

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/plugins"

	"testing"

	"github.com/ahpls-dev/ahpls/model"
)

// TestCodexReadsClaudeMarketplaceAsFallback: where a folder has no
// .agents/plugins/marketplace.json, Codex reads its
// .claude-plugin/marketplace.json (openai/codex@0e543a2c marketplace.rs),
// so the Codex marketplace rules run there with Codex's verdicts and no
// fixes; with Codex's own marketplace beside it, they do not.
func TestCodexReadsClaudeMarketplaceAsFallback(t *testing.T) {
	market := `{
  "name": "m",
  "owner": {"name": "o"},
  "plugins": [
    {"name": "gh", "source": {"source": "github", "repo": "o/r"}},
    {"name": "bare", "source": "plugins/bare"}
  ]
}
`
	for _, tc := range []struct {
		name    string
		fs      memFS
		targets []model.Target
		want    int
	}{
		{"fallback, Codex targeted", memFS{".claude-plugin/marketplace.json": market, "plugins/bare/.claude-plugin/plugin.json": `{"name":"bare"}`}, []model.Target{model.TargetCodex}, 2},
		{"own marketplace beside it", memFS{".claude-plugin/marketplace.json": market, ".agents/plugins/marketplace.json": `{"name":"c","plugins":[]}`}, []model.Target{model.TargetCodex}, 0},
		{"Codex not targeted", memFS{".claude-plugin/marketplace.json": market}, []model.Target{model.TargetClaudeCode}, 0},
		{"a Copilot marketplace", memFS{".github/plugin/marketplace.json": market}, []model.Target{model.TargetCodex}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rel := ".claude-plugin/marketplace.json"
			if _, ok := tc.fs[rel]; !ok {
				rel = ".github/plugin/marketplace.json"
			}
			n := 0
			for _, d := range Check(core.File{Path: rel, Text: []byte(tc.fs[rel]), FS: tc.fs}, core.Options{Targets: tc.targets, NoImpliedTargets: true}) {
				if d.Rule == plugins.CxmarketSource.ID {
					n++
					if len(d.Fixes) != 0 {
						t.Errorf("%s: a fix on Claude Code's marketplace: %v", d.Message, d.Fixes)
					}
					if _, ok := d.Verdicts[model.TargetCodex]; !ok {
						t.Errorf("%s: no Codex verdict", d.Message)
					}
				}
			}
			if n != tc.want {
				t.Errorf("cxmarket/source findings: %d, want %d", n, tc.want)
			}
		})
	}
}

// TestCodexRootPluginSource: since openai/codex#28771 (Codex 0.142.0) a
// local source "./" or "." is the marketplace root, so a plugin at the
// workspace root is installable; "" is still refused.
func TestCodexRootPluginSource(t *testing.T) {
	for _, tc := range []struct {
		source string
		want   []string
	}{
		{`"./"`, nil},
		{`{"source": "local", "path": "."}`, nil},
		{`""`, []string{plugins.CxmarketSource.ID}},
		{`"././p"`, []string{plugins.CxmarketSource.ID}},
	} {
		fs := memFS{
			".agents/plugins/marketplace.json": `{"name": "m", "plugins": [{"name": "root-p", "source": ` + tc.source + `}]}`,
			".codex-plugin/plugin.json":        `{"name": "root-p"}`,
		}
		rel := ".agents/plugins/marketplace.json"
		var got []string
		for _, d := range Check(core.File{Path: rel, Text: []byte(fs[rel]), FS: fs}, core.Options{Targets: []model.Target{model.TargetCodex}, NoImpliedTargets: true}) {
			got = append(got, d.Rule)
		}
		if len(got) != len(tc.want) || len(got) > 0 && got[0] != tc.want[0] {
			t.Errorf("source %s: findings %v, want %v", tc.source, got, tc.want)
		}
	}
}

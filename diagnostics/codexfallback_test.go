package diagnostics

import (
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
			for _, d := range Check(File{Path: rel, Text: []byte(tc.fs[rel]), FS: tc.fs}, Options{Targets: tc.targets, NoImpliedTargets: true}) {
				if d.Rule == cxmarketSource.ID {
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

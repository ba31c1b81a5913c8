package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

// Issue #38, "defect 3": with only Kiro, Windsurf, Cline, Roo Code or
// OpenCode named, rules that name no consumer were still reported on files
// the named consumer never opens (an empty .github/prompts file, a plugin
// manifest without a version) and Codex's AGENTS.md budget note on an
// AGENTS.md the run does not read for Codex. With the default targets the
// same files keep their findings. A memory file counts only under a name
// the consumer reads: Kiro's AGENTS.md is not Copilot's
// .github/copilot-instructions.md (an empty one was reported for Kiro,
// Windsurf and Roo Code, judged false on batch 9-11's tune part).
func TestFixedFindingsOnlyWhereANamedConsumerReads(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		".github/prompts/empty.prompt.md": "---\ndescription: Nothing here.\n---\n",
		"plugins/p/plugin.json":           `{"name": "p"}`,
		"AGENTS.md":                       "# Notes\n\n" + strings.Repeat("Keep answers short and test every change. ", 1000),
		".github/copilot-instructions.md": "",
	}
	for rel, text := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rules := func(opts diagnostics.Options) map[string]bool {
		found, err := Run([]string{root}, opts)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, f := range found {
			out[f.Rule] = true
			out[f.Rule+" "+filepath.Base(f.Path)] = true
		}
		return out
	}
	def := rules(diagnostics.Options{})
	for _, want := range []string{"body/empty", "plugin/version-missing", "memory/codex-size", "body/empty copilot-instructions.md"} {
		if !def[want] {
			t.Errorf("default targets: no %s (the fixture no longer shows it)", want)
		}
	}
	for _, target := range []model.Target{model.TargetKiro, model.TargetWindsurf, model.TargetCline, model.TargetRoo, model.TargetOpenCode} {
		got := rules(diagnostics.Options{Targets: []model.Target{target}, NoImpliedTargets: true})
		for _, rule := range []string{"body/empty", "plugin/version-missing", "memory/codex-size", "body/empty copilot-instructions.md"} {
			if got[rule] {
				t.Errorf("--targets %s: %s reported for a file %s never reads (or a note about Codex)", target, rule, target)
			}
		}
	}
}

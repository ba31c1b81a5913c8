package check

import (
	"path/filepath"
	"testing"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

// The judged false findings of issue #38 (scripts/agree/judged.tsv): a
// skill in a folder Codex or Gemini CLI never reads (a root skills/ with
// no gemini-extension.json, locales/zh-CN/skills, an archived
// codex-skills/, another agent's .github/skills) got an Error naming that
// consumer. With only those consumers named, each fixture has no finding.
func TestNoVerdictForASkillTheConsumerNeverReads(t *testing.T) {
	for _, dir := range []string{"codex-archived-skill", "gemini-locale-skill", "gemini-unscanned-skill", "codex-unscanned-skill"} {
		root := filepath.Join("..", "scripts", "agree", "testdata", dir)
		found, err := Run([]string{root}, diagnostics.Options{
			Targets: []model.Target{model.TargetCodex, model.TargetGeminiCLI}, NoImpliedTargets: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range found {
			if f.Severity == model.SeverityError || f.Severity == model.SeverityWarning {
				t.Errorf("%s: %s:%d %s", dir, f.Rel, f.Line, f.Message)
			}
		}
	}
}

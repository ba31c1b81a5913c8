package check

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/view"
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
			Targets: []model.Target{model.TargetCodex, model.TargetGeminiCLI, model.TargetOpenCode}, NoImpliedTargets: true})
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

// Codex reads Claude Code's root marketplace where its own is missing
// (openai/codex@0e543a2c marketplace.rs MARKETPLACE_MANIFEST_RELATIVE_PATHS)
// and installs a plugin that has only .claude-plugin/plugin.json from it:
// the plugin's skills are Codex's once installed, with Codex's verdicts,
// and `ahpls list` says so. With Codex's own marketplace present (listing
// nothing), the Claude plugin is not Codex's.
func TestCodexFallsBackToClaudeMarketplace(t *testing.T) {
	for _, tc := range []struct {
		dir         string
		codexSkill  bool
		wantInstall string
	}{
		{"claude-only", true, "once plugin p from marketplace m is installed"},
		{"own-marketplace", false, ""},
	} {
		root := filepath.Join("testdata", "codex-fallback", tc.dir)
		found, err := Run([]string{root}, diagnostics.Options{Targets: []model.Target{model.TargetCodex}, NoImpliedTargets: true})
		if err != nil {
			t.Fatal(err)
		}
		codexVerdict := false
		for _, f := range found {
			if f.Rule == "skill/desc-missing" {
				_, codexVerdict = f.Verdicts[model.TargetCodex]
			}
		}
		if codexVerdict != tc.codexSkill {
			t.Errorf("%s: Codex verdict on the plugin's skill = %v, want %v", tc.dir, codexVerdict, tc.codexSkill)
		}
		in, err := Inventory(root, Config{})
		if err != nil {
			t.Fatal(err)
		}
		install := ""
		for _, c := range view.Build(in).Consumers {
			if c.Target != model.TargetCodex {
				continue
			}
			for _, it := range c.Items {
				if it.Category == view.CatPlugins && it.Name == "p" {
					install = it.Install
				}
			}
		}
		if install != tc.wantInstall {
			t.Errorf("%s: Codex's plugin item install %q, want %q", tc.dir, install, tc.wantInstall)
		}
	}
}

// Batch 3 of issue #38: skill/nested and skill/catalog said "no agent
// discovers this SKILL.md" with only Codex named, but Codex's skill walk
// descends into every folder below a skill root down to depth 6
// (openai/codex@c9d127cf core-skills/src/loader.rs discover_skills_under_root)
// and loads a nested SKILL.md too (1235wsg/plugins, 26 findings; 196
// skill/catalog Infos in 1139030773-cmd/awesome-codex-plugins). For Gemini
// CLI, which globs only SKILL.md and */SKILL.md below a root, a nested skill
// in a folder it reads is still reported; one in a folder it never reads
// (a Codex plugin's skills/) is not.
func TestNestedSkillOnlyForConsumersThatMissIt(t *testing.T) {
	root := filepath.Join("..", "scripts", "agree", "testdata", "codex-nested-skill")
	run := func(ts ...model.Target) map[string]bool {
		found, err := Run([]string{root}, diagnostics.Options{Targets: ts, NoImpliedTargets: true})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, f := range found {
			if f.Rule == "skill/nested" || f.Rule == "skill/catalog" {
				got[f.Rule+" "+filepath.ToSlash(f.Rel)] = true
			}
		}
		return got
	}
	if got := run(model.TargetCodex); len(got) != 0 {
		t.Errorf("codex: want no skill/nested or skill/catalog, got %v", got)
	}
	want := map[string]bool{"skill/nested .gemini/skills/a/b/SKILL.md": true}
	if got := run(model.TargetGeminiCLI); !equalSet(got, want) {
		t.Errorf("gemini-cli: got %v, want %v", got, want)
	}
	want = map[string]bool{
		"skill/nested .gemini/skills/a/b/SKILL.md": true,
		"skill/nested p/skills/sdk/web/SKILL.md":   true,
		"skill/catalog p/skills/cat/tool/SKILL.md": true,
	}
	if got := run(model.TargetAgentSkills, model.TargetCodex); !equalSet(got, want) {
		t.Errorf("agent-skills,codex: got %v, want %v", got, want)
	}
}

func equalSet(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// Kiro, Windsurf, Cline and Roo Code read skills from their own folders
// only, one folder below each (model.Consumers' SkillRoots and their
// evidence). A skill nested in another skill is undiscovered there; in
// another agent's folder (.claude/skills) they never look, so
// skill/nested does not speak for them (issue #38: 8 consumer-neutral
// Warnings each on the held-out part).
func TestNestedSkillOnlyInTheConsumersOwnFolder(t *testing.T) {
	root := filepath.Join("testdata", "skill-roots")
	for _, tc := range []struct {
		target model.Target
		folder string
	}{
		{model.TargetKiro, ".kiro/skills"},
		{model.TargetWindsurf, ".windsurf/skills"},
		{model.TargetCline, ".cline/skills"},
		{model.TargetRoo, ".roo/skills"},
	} {
		found, err := Run([]string{root}, diagnostics.Options{Targets: []model.Target{tc.target}, NoImpliedTargets: true})
		if err != nil {
			t.Fatal(err)
		}
		var nested []string
		for _, f := range found {
			if f.Rule == "skill/nested" {
				nested = append(nested, filepath.ToSlash(f.Rel))
			}
		}
		want := []string{tc.folder + "/outer/inner/SKILL.md"}
		if len(nested) != 1 || nested[0] != want[0] {
			t.Errorf("%s: skill/nested on %v, want %v", tc.target, nested, want)
		}
	}
}

// Batch 9 of issue #38: with only Cline or Roo Code named, skill/nested and
// skill/catalog were reported (8 Warnings, 214 Infos on the held-out part)
// for skills in a Claude plugin's skills/ folder, which neither reads: their
// skill discovery was not modelled. Cline reads .clinerules/skills,
// .cline/skills and .agents/skills (cline/cline@21cb8d25
// sdk/packages/shared/src/storage/paths.ts getWorkspaceSkillDirectories),
// Roo Code .agents/skills and .roo/skills (RooCodeInc/Roo-Code@cb836567
// src/services/skills/SkillsManager.ts getSkillsDirectories), each one
// folder down. A skill nested in a skill of .agents/skills is still reported.
func TestClineRooSkillFindingsOnlyWhereTheyRead(t *testing.T) {
	root := filepath.Join("..", "scripts", "agree", "testdata", "cline-roo-unread-skill")
	for _, target := range []model.Target{model.TargetCline, model.TargetRoo} {
		found, err := Run([]string{root}, diagnostics.Options{Targets: []model.Target{target}, NoImpliedTargets: true})
		if err != nil {
			t.Fatal(err)
		}
		inner := false
		for _, f := range found {
			if f.Rule != "skill/nested" && f.Rule != "skill/catalog" {
				continue
			}
			if f.Rel == ".agents/skills/top/inner/SKILL.md" && f.Rule == "skill/nested" {
				inner = true
				continue
			}
			t.Errorf("%s: %s %s: %s", target, f.Rel, f.Rule, f.Message)
		}
		if !inner {
			t.Errorf("%s: no skill/nested for .agents/skills/top/inner/SKILL.md", target)
		}
	}
}

// Kiro reads workspace skills from .kiro/skills (kiro.dev/docs/skills),
// Windsurf from .windsurf/skills and .agents/skills
// (docs.windsurf.com/windsurf/cascade/skills): a SKILL.md nested in a
// plugin's skills/, in .claude/skills or in another agent's folder is
// neither's, so no skill rule speaks for them there (issue #38 batch 9:
// 8 held-out and 156 tune skill/nested Warnings named them while their
// skill discovery was not modelled).
func TestKiroWindsurfNoVerdictOutsideTheirSkillFolders(t *testing.T) {
	root := filepath.Join("..", "scripts", "agree", "testdata", "kiro-windsurf-nested-skill")
	for _, target := range []model.Target{model.TargetKiro, model.TargetWindsurf} {
		found, err := Run([]string{root}, diagnostics.Options{Targets: []model.Target{target}, NoImpliedTargets: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range found {
			if f.Severity == model.SeverityError || f.Severity == model.SeverityWarning || strings.HasPrefix(f.Rule, "skill/") {
				t.Errorf("%s: %s:%d %s %s", target, f.Rel, f.Line, f.Rule, f.Message)
			}
		}
	}
}

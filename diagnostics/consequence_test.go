package diagnostics

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/skills"

	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/model"
)

// levelProblem says why a finding's level does not follow from its typed
// consequence and the deciding consumers' used fields (issue #40), or "".
// A finding with a fixed level ([I], no verdicts) has no consequence.
func levelProblem(d model.Diagnostic, kind model.Kind, effective []model.Target) string {
	if len(d.Verdicts) == 0 {
		if d.Consequence == "" || d.Severity == d.Consequence.Level(true) {
			return ""
		}
		return fmt.Sprintf("level %s, but its consequence %s gives %s", d.Severity, d.Consequence, d.Consequence.Level(true))
	}
	if d.Consequence == "" {
		return "a verdict finding without a consequence"
	}
	var deciders []model.Target // effective consumers whose reaction has this consequence
	for _, t := range effective {
		if c, ok := d.Verdicts[t].Consequence(); ok && c == d.Consequence {
			deciders = append(deciders, t)
		}
	}
	if len(deciders) == 0 && (d.Consequence == model.Advice || d.Consequence == model.SpecOnly) {
		// ahpls' own advice beside consumers that accept the file
		if d.Severity != d.Consequence.Level(true) {
			return fmt.Sprintf("level %s for advice", d.Severity)
		}
		return ""
	}
	if len(deciders) == 0 {
		return fmt.Sprintf("consequence %s, but no effective consumer's reaction has it (%v)", d.Consequence, d.Verdicts)
	}
	used := false
	guessedOnly := true
	for _, t := range deciders {
		used = used || model.Uses(t, kind, d.Lost)
		guessedOnly = guessedOnly && (d.Verdicts[t] == model.Unknown || strings.HasSuffix(string(d.Verdicts[t]), "?"))
	}
	want := d.Consequence.Level(used)
	if guessedOnly && want < model.SeverityWarning {
		want = model.SeverityWarning // a guess is never an Error
	}
	if d.Severity != want {
		return fmt.Sprintf("level %s, but consequence %s (lost %v, used %v) gives %s", d.Severity, d.Consequence, d.Lost, used, want)
	}
	if d.Severity == model.SeverityError && d.Consequence != model.FileRefused && d.Consequence != model.HeaderDropped {
		return "an Error whose consequence is neither a refused file nor a dropped header"
	}
	return ""
}

// claimsRead reports a finding that says what a consumer does with the
// file as loaded (anything but a spec's or a recommendation's words).
func claimsRead(d model.Diagnostic) bool {
	switch d.Consequence {
	case "", model.SpecOnly, model.Advice, model.NotDiscovered, model.Referenced, model.Unverifiable:
		return false
	}
	return true
}

// oneVerdictProblem says why a file's findings contradict each other: "not
// discovered" beside a finding that claims a consumer reads the file.
func oneVerdictProblem(diags []model.Diagnostic) string {
	undiscovered := slices.ContainsFunc(diags, func(d model.Diagnostic) bool {
		return d.Consequence == model.NotDiscovered || d.Consequence == model.Referenced
	})
	if !undiscovered {
		return ""
	}
	for _, d := range diags {
		if claimsRead(d) {
			return fmt.Sprintf("not discovered, yet %s says %q (%s)", d.Rule, d.Message, d.Consequence)
		}
	}
	return ""
}

// TestLevelFollowsConsequence runs every golden fixture with the default
// targets and with every target: each finding's level follows from its
// consequence and the deciding consumers' used fields, and a file no
// consumer discovers gets no finding claiming a consumer reads it.
func TestLevelFollowsConsequence(t *testing.T) {
	checked := 0
	files := goldenFiles(t)
	for _, targets := range [][]model.Target{nil, model.AllTargets, {model.TargetClaudeCode}} {
		for _, p := range files {
			rel := strings.TrimPrefix(filepath.ToSlash(p), goldenRoot+"/")
			kind := model.Classify(rel, dirLayout(goldenRoot))
			if kind == model.KindNone {
				continue
			}
			text, err := os.ReadFile(p)
			require.NoError(t, err)
			f := core.File{Path: rel, Kind: kind, Text: text, FS: dirFS(goldenRoot), Layout: dirLayout(goldenRoot)}
			opts := core.Options{Targets: targets}
			diags := Check(f, opts)
			r := core.NewReporter(f, opts)
			for _, d := range diags {
				checked++
				eff := r.Effective
				for t := range d.Verdicts { // targets a rule added for this file (a Copilot-format hooks file)
					if !slices.Contains(eff, t) && t == model.TargetCopilotCLI && !opts.NoImpliedTargets {
						eff = append(eff, t)
					}
				}
				if msg := levelProblem(d, kind, eff); msg != "" {
					t.Errorf("%s (targets %v): %s %s: %s", rel, targets, d.Rule, d.Message, msg)
				}
			}
			if msg := oneVerdictProblem(diags); msg != "" {
				t.Errorf("%s: %s", rel, msg)
			}
		}
	}
	assert.Greater(t, checked, 500)
}

// The checks above fail on the mistakes they exist for.
func TestLevelProblemCatchesMistakes(t *testing.T) {
	cc := []model.Target{model.TargetClaudeCode}
	bad := []struct {
		name string
		d    model.Diagnostic
		kind model.Kind
	}{
		{"an Error for a dropped entry", model.Diagnostic{Severity: model.SeverityError, Consequence: model.EntryDropped,
			Verdicts: model.Verdicts{model.TargetClaudeCode: model.Drop}}, model.KindHooks},
		{"a Warning for fields Claude Code never reads", model.Diagnostic{Severity: model.SeverityWarning, Consequence: model.FieldDropped,
			Lost: []string{"license", "metadata"}, Verdicts: model.Verdicts{model.TargetClaudeCode: model.Lose}}, model.KindSkill},
		{"an Info for a lost description", model.Diagnostic{Severity: model.SeverityInfo, Consequence: model.FieldDropped,
			Lost: []string{"description"}, Verdicts: model.Verdicts{model.TargetClaudeCode: model.Lose}}, model.KindSkill},
		{"an Error on the file that wins", model.Diagnostic{Severity: model.SeverityError, Consequence: model.Shadows,
			Verdicts: model.Verdicts{model.TargetClaudeCode: model.Wins}}, model.KindClaudeAgent},
		{"an Error on a guess", model.Diagnostic{Severity: model.SeverityError, Consequence: model.FileRefused,
			Verdicts: model.Verdicts{model.TargetClaudeCode: model.Skip.Unverified()}}, model.KindSkill},
		{"no consequence", model.Diagnostic{Severity: model.SeverityError,
			Verdicts: model.Verdicts{model.TargetClaudeCode: model.Skip}}, model.KindSkill},
	}
	for _, c := range bad {
		assert.NotEmpty(t, levelProblem(c.d, c.kind, cc), c.name)
	}
	good := model.Diagnostic{Severity: model.SeverityInfo, Consequence: model.FieldDropped, Lost: []string{"license", "metadata"},
		Verdicts: model.Verdicts{model.TargetClaudeCode: model.Lose}}
	assert.Empty(t, levelProblem(good, model.KindSkill, cc))

	both := []model.Diagnostic{
		{Rule: skills.SkillNested.ID, Severity: model.SeverityWarning, Consequence: model.NotDiscovered},
		{Rule: core.FmMissing.ID, Severity: model.SeverityWarning, Consequence: model.FieldDropped, Message: "this skill has no frontmatter"},
	}
	assert.NotEmpty(t, oneVerdictProblem(both), "not discovered beside a claim that a consumer reads it")
	assert.Empty(t, oneVerdictProblem(both[:1]))
}

// Claude Code 2.1.332's YAML reader fails a quoted value continued at
// column 1 (the minimal cases of docs/rules.md, yaml/syntax); indented, in
// a block scalar or closed on its line, it reads it.
func TestFlowContinuationAtColumn0(t *testing.T) {
	cases := []struct {
		body string
		at   int // -1: none
	}{
		{"description: \"first line\n比较 second\"\n", 25},
		{"description: \"first line\nsecond\"\n", 25},
		{"description: 'first line\nsecond'\n", 25},
		{"description: \"first line\n 比较 second\"\n", -1},
		{"description: \"one line\"\nname: x\n", -1},
		{"description: \"esc \\\" quote\nx\"\n", 27},
		{"description: 'it''s\nx'\n", 20},
		{"description: |\n  note: \"open\n  more\nname: x\n", -1},
		{"items:\n  - \"a\nb\"\n", 14},
		{"# \"comment\nname: x\n", -1},
		{"url: http://x\"y\nname: z\n", -1},
	}
	for _, c := range cases {
		_, at, ok := core.FlowContinuationAtColumn0([]byte(c.body))
		if c.at < 0 {
			assert.False(t, ok, "%q", c.body)
			continue
		}
		assert.True(t, ok, "%q", c.body)
		assert.Equal(t, c.at, at, "%q", c.body)
	}
}

func FuzzFlowContinuationAtColumn0(f *testing.F) {
	f.Add("description: \"first line\n比较 second\"\n")
	f.Add("description: |\n  note: \"open\n  more\nname: x\n")
	f.Add("- 'a''\nb'\n")
	f.Fuzz(func(t *testing.T, body string) {
		open, at, ok := core.FlowContinuationAtColumn0([]byte(body))
		if ok && (open < 0 || open >= at || at >= len(body) || body[at-1] != '\n') {
			t.Fatalf("open %d, at %d in %q", open, at, body)
		}
	})
}

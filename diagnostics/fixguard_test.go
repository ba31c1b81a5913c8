package diagnostics

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"

	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/model"
)

// chosen is the fix `--fix` would take for d: the preferred one, or the
// only one.
func chosen(d *model.Diagnostic) (model.Fix, bool) {
	if fx, ok := preferred(d); ok {
		return fx, true
	}
	if len(d.Fixes) == 1 {
		return d.Fixes[0], true
	}
	return model.Fix{}, false
}

// safeFixes lists each finding's chosen fix that would be applied unasked.
func safeFixes(ds []model.Diagnostic) (out []struct {
	d  model.Diagnostic
	fx model.Fix
}) {
	for i := range ds {
		fx, ok := chosen(&ds[i])
		if ok && FixTierOf(ds[i].Rule, &fx) == core.FixSafe {
			out = append(out, struct {
				d  model.Diagnostic
				fx model.Fix
			}{ds[i], fx})
		}
	}
	return out
}

// issue39Cases are the files issue 39 found safe fixes breaking. want is
// what the fixed text must hold when the fix stays safe; demoted says the
// fix must not be safe.
var issue39Cases = []struct {
	name, rule, rel, text, want string
	demoted                     bool
}{
	{"flow mapping", "skill/metadata", ".github/skills/a/SKILL.md", "---\nname: a\ndescription: d\nmetadata: {a: 1}\n---\n", "metadata: {a: '1'}\n", false},
	{"flow mapping two", "skill/metadata", ".github/skills/a/SKILL.md", "---\nname: a\ndescription: d\nmetadata: {a: 1, b: true}\n---\n", "metadata: {a: '1', b: true}\n", false},
	{"flow mapping quoted key", "skill/metadata", ".github/skills/a/SKILL.md", "---\nname: a\ndescription: d\nmetadata: {\"k\": 1}\n---\n", "metadata: {\"k\": '1'}\n", false},
	{"brace glob paths", "rule/paths", ".claude/rules/r.md", "---\npaths: src/{a,b}/**/*.ts\n---\nBody.\n", "paths: ['src/{a,b}/**/*.ts']\n", false},
	{"tools with spaces", "skill/allowed-tools", ".claude/skills/a/SKILL.md", "---\nname: a\ndescription: d\nallowed-tools: [\"Bash(git status:*)\", Read]\n---\n", "", true},
	{"brace glob applyTo", "instr/apply-to", ".github/instructions/x.instructions.md", "---\napplyTo: [\"src/{a,b}/**/*.ts\", \"docs/**\"]\n---\nBody.\n", "", true},
	// Found by TestFixProperty in CI: a map used as a key, which Go's YAML
	// decoder refuses and JavaScript readers key by text of their own.
	{"collection key", "skill/metadata", ".github/skills/a/SKILL.md", "---\nname: a\ndescription: d\nmetadata: {k: 1, j: {a,{b,c}}}\n---\n", "metadata: {k: '1', j: {a,{b,c}}}\n", true},
	{"trailing comment", "yaml/unquoted-special", ".github/skills/a/SKILL.md", "---\nname: a\ndescription: Use when: deploying # note\n---\n", "description: 'Use when: deploying' # note\n", true},
}

// TestIssue39Fixes: each case either keeps a safe fix that writes what it
// should and passes the independent verifier, or has its fix demoted.
func TestIssue39Fixes(t *testing.T) {
	for _, c := range issue39Cases {
		t.Run(c.name, func(t *testing.T) {
			f := core.File{Path: c.rel, Text: []byte(c.text)}
			ds := Check(f, core.Options{})
			d := find(ds, c.rule)
			require.NotNil(t, d, "%v", rulesOf(ds))
			fx, ok := chosen(d)
			require.True(t, ok)
			if c.want != "" {
				assert.Contains(t, applyFix(c.text, fx), c.want)
			}
			if c.demoted {
				assert.NotEmpty(t, fx.Demoted, "a fix that changes what a consumer reads stays safe")
				assert.Equal(t, core.FixUnsafe, FixTierOf(d.Rule, &fx))
				return
			}
			assert.Empty(t, fx.Demoted)
			f.Kind = model.Classify(c.rel, nil)
			assert.NoError(t, verifyFix(f, core.Options{}, *d, fx))
		})
	}
}

// TestFixGuardOff shows what the guard stops: with it off, the joins of
// issue 39 are offered as safe and the independent verifier rejects them.
func TestFixGuardOff(t *testing.T) {
	defer func() { fixGuardOff = false }()
	for _, c := range issue39Cases {
		if !c.demoted || c.rule == "yaml/unquoted-special" {
			continue // that one is demoted where it is made
		}
		t.Run(c.name, func(t *testing.T) {
			f := core.File{Path: c.rel, Kind: model.Classify(c.rel, nil), Text: []byte(c.text)}
			fixGuardOff = true
			off := safeFixes(Check(f, core.Options{}))
			fixGuardOff = false
			require.Len(t, off, 1, "without the guard the join is offered as safe")
			assert.Error(t, verifyFix(f, core.Options{}, off[0].d, off[0].fx), "the verifier must catch the join")
			assert.Empty(t, safeFixes(Check(f, core.Options{})), "with the guard the join is not safe")
		})
	}
}

// TestSuggestionsRespectConsumers: no quick fix moves a key a consumer
// reads under `metadata:`, and no fix suggests a name the rules refuse.
func TestSuggestionsRespectConsumers(t *testing.T) {
	text := "---\nname: deploy\ndescription: d\nallowed-tools: Read\nmodel: sonnet\n---\n"
	for _, rel := range []string{".claude/skills/deploy/SKILL.md", ".github/skills/deploy/SKILL.md"} {
		for _, d := range Check(core.File{Path: rel, Text: []byte(text)}, core.Options{Targets: []model.Target{model.TargetVSCode, model.TargetAgentSkills}}) {
			for _, fx := range d.Fixes {
				assert.NotContains(t, fx.Title, "under 'metadata:'", "%s: %s", rel, d.Rule)
			}
		}
	}
	ds := Check(core.File{Path: ".claude/skills/My_Skill/SKILL.md", Text: []byte("---\nname: deploy\ndescription: d\n---\n")}, core.Options{})
	d := find(ds, "skill/name-dir")
	require.NotNil(t, d, "%v", rulesOf(ds))
	for _, fx := range d.Fixes {
		for _, e := range fx.Edits {
			assert.NotContains(t, e.NewText, "My_Skill", "suggests a name the name rules refuse")
		}
	}
}

// fixtureRel places a fixture of testdata/fixes in a workspace by its
// name: NAME.SKILL.md is a Claude skill, NAME.rule.md a Claude rule,
// NAME.instructions.md a VS Code instructions file.
func fixtureRel(name string) string {
	switch {
	case strings.HasSuffix(name, ".SKILL.md"):
		return ".claude/skills/" + strings.TrimSuffix(name, ".SKILL.md") + "/SKILL.md"
	case strings.HasSuffix(name, ".rule.md"):
		return ".claude/rules/" + strings.TrimSuffix(name, ".rule.md") + ".md"
	}
	return ".github/instructions/" + name
}

// TestFixGoldens: for each fixture, every quick fix with its tier (and why
// the guard demoted it), the text after each fix, and for a safe one the
// independent verifier's verdict.
func TestFixGoldens(t *testing.T) {
	const dir = "testdata/fixes"
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".golden") {
			continue
		}
		t.Run(e.Name(), func(t *testing.T) {
			text, err := os.ReadFile(filepath.Join(dir, e.Name()))
			require.NoError(t, err)
			rel := fixtureRel(e.Name())
			f := core.File{Path: rel, Kind: model.Classify(rel, nil), Text: text}
			var b strings.Builder
			fmt.Fprintf(&b, "# %s\n", rel)
			for _, d := range Check(f, core.Options{}) {
				for _, fx := range d.Fixes {
					tier := FixTierOf(d.Rule, &fx)
					fmt.Fprintf(&b, "\n## %s: %s [%s]\n", d.Rule, fx.Title, tier)
					if fx.Demoted != "" {
						fmt.Fprintf(&b, "demoted: %s\n", fx.Demoted)
					}
					if tier == core.FixSafe {
						verdict := "verified"
						if err := verifyFix(f, core.Options{}, d, fx); err != nil {
							verdict = "REJECTED: " + err.Error()
							t.Errorf("%s: safe fix %q rejected: %v", d.Rule, fx.Title, err)
						}
						fmt.Fprintf(&b, "verifier: %s\n", verdict)
					}
					fmt.Fprintf(&b, "```\n%s```\n", applyFix(string(text), fx))
				}
			}
			golden := filepath.Join(dir, e.Name()+".golden")
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(b.String()), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test ./diagnostics -run TestFixGoldens -update")
			assert.Equal(t, string(want), b.String())
		})
	}
}

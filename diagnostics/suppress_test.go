package diagnostics

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"

	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/model"
)

// linesRules lists "line rule" for each finding (1-based lines).
func linesRules(text string, ds []model.Diagnostic) []string {
	out := []string{}
	for _, d := range ds {
		out = append(out, strconv.Itoa(strings.Count(text[:d.Span.Start], "\n")+1)+" "+d.Rule)
	}
	return out
}

func TestSuppressionComments(t *testing.T) {
	const head = "---\nname: s\ndescription: A skill.\n---\n"
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"no comment: both links reported", head + "[a](a.md)\n[b](b.md)\n", []string{"5 md/link", "6 md/link"}},
		{"next line hides the next line only", head + "<!-- ahpls-disable-next-line md/link -->\n[a](a.md)\n[b](b.md)\n", []string{"7 md/link"}},
		{"next line without ids hides every rule", head + "<!-- ahpls-disable-next-line -->\n[a](a.md)\n", []string{}},
		{"file-wide anywhere", head + "[a](a.md)\n[b](b.md)\n<!-- ahpls-disable md/link -->\n", []string{}},
		{"inline after text", head + "[a](a.md) <!-- ahpls-disable md/link -->\n", []string{}},
		{"other rule: unused and the finding stays", head + "<!-- ahpls-disable-next-line skill/name-dir -->\n[a](a.md)\n", []string{"5 suppress/unused", "6 md/link"}},
		{"unused without ids", head + "<!-- ahpls-disable-next-line -->\nplain text\n", []string{"5 suppress/unused"}},
		{"unknown id is unused", head + "<!-- ahpls-disable nope/rule -->\n", []string{"5 suppress/unused"}},
		{"YAML comment in the header", "---\nname: s\n# ahpls-disable-next-line yaml/unquoted-special\ndescription: Use it when: asked.\n---\n", []string{}},
		{"YAML comment that hides nothing", "---\nname: s\n# ahpls-disable-next-line yaml/unquoted-special\ndescription: A skill.\n---\n", []string{"3 suppress/unused"}},
		{"a '#' heading in the body is no directive", head + "# ahpls-disable-next-line md/link\n[a](a.md)\n", []string{"6 md/link"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ds := Check(core.File{Path: ".github/skills/s/SKILL.md", Text: []byte(c.text), FS: dirFS(t.TempDir())}, core.Options{})
			assert.Equal(t, c.want, linesRules(c.text, ds))
		})
	}
}

func TestUnusedSuppressionFixDeletesTheLine(t *testing.T) {
	text := "---\nname: s\ndescription: A skill.\n---\n<!-- ahpls-disable-next-line md/link -->\nplain\n"
	ds := Check(core.File{Path: ".github/skills/s/SKILL.md", Text: []byte(text)}, core.Options{})
	if assert.Len(t, ds, 1) && assert.Len(t, ds[0].Fixes, 1) {
		e := ds[0].Fixes[0].Edits[0]
		assert.Equal(t, "<!-- ahpls-disable-next-line md/link -->\n", text[e.Span.Start:e.Span.End])
		assert.Equal(t, model.SeverityHint, ds[0].Severity)
	}
}

func TestOverrides(t *testing.T) {
	text := "---\nname: s\ndescription: A skill.\n---\n[a](a.md)\n"
	under := func(prefix string) func(string) bool {
		return func(rel string) bool { return strings.HasPrefix(rel, prefix) }
	}
	for _, c := range []struct {
		name string
		opts core.Options
		want []model.Severity
	}{
		{"none", core.Options{}, []model.Severity{model.SeverityWarning}},
		{"off for the path", core.Options{Overrides: []core.Override{{Match: under(".github/"), Rules: map[string]model.Severity{"md/link": 0}}}}, nil},
		{"other path: untouched", core.Options{Overrides: []core.Override{{Match: under("docs/"), Rules: map[string]model.Severity{"md/link": 0}}}}, []model.Severity{model.SeverityWarning}},
		{"raised", core.Options{Overrides: []core.Override{{Match: under(""), Rules: map[string]model.Severity{"md/link": model.SeverityError}}}}, []model.Severity{model.SeverityError}},
		{"later entry wins, and over the settings", core.Options{Rules: map[string]model.Severity{"md/link": 0}, Overrides: []core.Override{
			{Match: under(""), Rules: map[string]model.Severity{"md/link": model.SeverityError}},
			{Match: under(".github/"), Rules: map[string]model.Severity{"md/link": model.SeverityInfo}},
		}}, []model.Severity{model.SeverityInfo}},
		{"unused suppression hint can be turned off", core.Options{Overrides: []core.Override{{Match: under(""), Rules: map[string]model.Severity{"suppress/unused": 0}}}}, []model.Severity{model.SeverityWarning}},
	} {
		t.Run(c.name, func(t *testing.T) {
			txt := text
			if strings.Contains(c.name, "unused") {
				txt += "<!-- ahpls-disable skill/name-dir -->\n"
			}
			var got []model.Severity
			for _, d := range Check(core.File{Path: ".github/skills/s/SKILL.md", Text: []byte(txt), FS: dirFS(t.TempDir())}, c.opts) {
				got = append(got, d.Severity)
			}
			assert.Equal(t, c.want, got)
		})
	}
}

// TestSuppressFixesHideTheirFinding: over every Markdown golden fixture,
// each "Disable … for this line" and "… in this file" action, applied,
// hides a finding of its rule, and leaves no suppress/unused behind and no
// finding of another rule that was not there.
func TestSuppressFixesHideTheirFinding(t *testing.T) {
	tried := 0
	for _, p := range goldenFiles(t) {
		rel := strings.TrimPrefix(filepath.ToSlash(p), goldenRoot+"/")
		kind := model.Classify(rel, dirLayout(goldenRoot))
		if !kind.Markdown() {
			continue
		}
		text, err := os.ReadFile(p)
		require.NoError(t, err)
		check := func(b []byte) []model.Diagnostic {
			return Check(core.File{Path: rel, Kind: kind, Text: b, FS: dirFS(goldenRoot), Layout: dirLayout(goldenRoot)}, core.Options{})
		}
		before := check(text)
		count := func(ds []model.Diagnostic) map[string]int {
			m := map[string]int{}
			for _, d := range ds {
				m[d.Rule]++
			}
			return m
		}
		was := count(before)
		for _, d := range before {
			for _, fx := range SuppressFixes(text, kind, d.Span, d.Rule) {
				tried++
				e := fx.Edits[0]
				after := append(append(append([]byte{}, text[:e.Span.Start]...), e.NewText...), text[e.Span.End:]...)
				now := count(check(after))
				assert.Less(t, now[d.Rule], was[d.Rule], "%s: %s did not hide %s", rel, fx.Title, d.Rule)
				assert.Zero(t, now[suppressUnused.ID]-was[suppressUnused.ID], "%s: %s is unused", rel, fx.Title)
				for r, n := range now {
					assert.LessOrEqual(t, n, was[r], "%s: %s added %s", rel, fx.Title, r)
				}
			}
		}
	}
	assert.Greater(t, tried, 100)
	t.Logf("%d suppress actions applied and re-checked", tried)
}

func goldenFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(goldenRoot, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || strings.HasSuffix(p, ".golden") {
			return err
		}
		out = append(out, p)
		return nil
	}))
	return out
}

// TestSuppressRenamedID: a suppression comment naming a renamed rule by its
// old id still hides the rule's findings, with a Hint at the old id; a
// removed rule's id hides nothing and says why.
func TestSuppressRenamedID(t *testing.T) {
	defer SetRuleHistoryForTest(map[string]string{"md/old-link": "md/link"}, map[string]string{"md/gone": "merged into md/link"})()
	const head = "---\nname: s\ndescription: A skill.\n---\n"
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"next line, old id", head + "<!-- ahpls-disable-next-line md/old-link -->\n[a](a.md)\n[b](b.md)\n", []string{"5 suppress/renamed", "7 md/link"}},
		{"file-wide, old id", head + "[a](a.md)\n<!-- ahpls-disable md/old-link -->\n", []string{"6 suppress/renamed"}},
		{"YAML comment, old id", "---\nname: s\n# ahpls-disable-next-line md/old-link\ndescription: A skill.\n---\n", []string{"3 suppress/renamed", "3 suppress/unused"}},
		{"removed id", head + "<!-- ahpls-disable md/gone -->\n[a](a.md)\n", []string{"5 suppress/unused", "6 md/link"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ds := Check(core.File{Path: ".github/skills/s/SKILL.md", Text: []byte(c.text), FS: dirFS(t.TempDir())}, core.Options{})
			assert.Equal(t, c.want, linesRules(c.text, ds))
			for _, d := range ds {
				switch d.Rule {
				case "suppress/renamed":
					assert.Equal(t, model.SeverityHint, d.Severity)
					assert.Equal(t, "md/old-link", c.text[d.Span.Start:d.Span.End])
					assert.Contains(t, d.Message, "'md/old-link' is now 'md/link'")
				case "suppress/unused":
					if strings.Contains(c.name, "removed") {
						assert.Contains(t, d.Message, "no longer an ahpls rule (merged into md/link)")
					}
				}
			}
		})
	}
}

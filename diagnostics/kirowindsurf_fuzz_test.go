package diagnostics

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"

	"io/fs"
	"testing"

	"github.com/ahpls-dev/ahpls/model"
)

// noFiles is a workspace where no referenced file exists, so Kiro's
// #[[file:...]] scanner reports every reference it finds.
type noFiles struct{}

func (noFiles) Stat(string) (fs.FileInfo, error) { return nil, fs.ErrNotExist }

// FuzzKiroWindsurf: the Kiro steering, Windsurf rule and Windsurf workflow checkers never
// panic and keep every finding's span inside the text.
func FuzzKiroWindsurf(f *testing.F) {
	for _, s := range []string{
		"---\ninclusion: fileMatch\nfileMatchPattern: \"**/*.ts\"\n---\nSee #[[file:a.md]].\n",
		"---\ninclusion: [always\n---\n", "---\ninclusion: auto\n", "#[[file:", "#[[file:]]", "#[[file:../x]] #[[file:/abs]]",
		"```\n#[[file:x]]\n```\n#[[file:y]]", "---\n- a\n---\n",
		"---\ntrigger: glob\nglobs: **/*.ts\n---\n", "---\ntrigger: model_decision\n---\n", "",
		"---\ndescription: deploy\n---\n\n1. Run `make`\n", "---\ndescription: x\n---\n  \n", "\xef\xbb\xbf---\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, file := range []core.File{
			{Path: ".kiro/steering/x.md", Kind: model.KindKiroSteering, Text: b, FS: noFiles{}},
			{Path: "w/.kiro/steering/x.md", Kind: model.KindKiroSteering, Text: b, FS: noFiles{}},
			{Path: ".windsurf/rules/x.md", Kind: model.KindWindsurfRule, Text: b},
			{Path: model.WindsurfLegacyRules, Kind: model.KindWindsurfRule, Text: b},
			{Path: ".windsurf/workflows/x.md", Kind: model.KindWindsurfFlow, Text: b},
			{Path: "a/.windsurf/workflows/b/x.md", Kind: model.KindWindsurfFlow, Text: b},
		} {
			for _, d := range Check(file, core.Options{Targets: []model.Target{model.TargetKiro, model.TargetWindsurf}}) {
				if d.Span.Start < 0 || d.Span.Start > d.Span.End || d.Span.End > len(b) {
					t.Fatalf("%s: %s span %+v outside %d bytes", file.Path, d.Rule, d.Span, len(b))
				}
			}
		}
	})
}

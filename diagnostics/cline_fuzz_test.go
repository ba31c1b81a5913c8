package diagnostics

import (
	"github.com/ahpls-dev/ahpls/diagnostics/cline"
	"github.com/ahpls-dev/ahpls/diagnostics/core"

	"bytes"
	"regexp"
	"testing"

	"github.com/ahpls-dev/ahpls/model"
)

// clineHeaderRE is Cline's own header pattern (cline/cline@21cb8d25
// user-instruction-config-loader.ts parseMarkdownFrontmatter); RE2's lazy
// and leftmost-first matching is JavaScript's for it.
var clineHeaderRE = regexp.MustCompile(`^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$`)

// FuzzClineRule: clineSplit cuts a file where Cline's regular expression
// does (after the BOM Cline strips), and the Cline and Roo Code rule
// checkers never panic and keep every finding's span inside the text.
func FuzzClineRule(f *testing.F) {
	for _, s := range []string{
		"---\nname: a\n---\nbody\n", "---\r\nname: a\r\n---\r\nbody", "\uFEFF---\npaths:\n  - **/*.ts\n---\nx",
		"---\n---\nx\n---\ny", "---\n\n---", "---\nname: a\n---", "---\nx\n----y", "\n---\nname: a\n---\nx",
		"---\nname: [\n---\nx", "---\ndisabled: yes\n---\nx", "---\nname: a\nname: b\n---\nx", "---\r\n\r\n---\r\n", "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		h := cline.ClineSplit(b)
		text := bytes.TrimPrefix(b, []byte("\uFEFF"))
		off := len(b) - len(text)
		m := clineHeaderRE.FindSubmatchIndex(text)
		if (m != nil) != h.Present {
			t.Fatalf("%q: regexp match %v, clineSplit present %v", b, m != nil, h.Present)
		}
		if m != nil && (m[2]+off != h.YamlStart || m[3]+off != h.YamlEnd || m[4]+off != h.BodyStart) {
			t.Fatalf("%q: regexp groups %v (+%d), clineSplit %+v", b, m, off, h)
		}
		for _, file := range []core.File{
			{Path: ".clinerules/x.md", Kind: model.KindClineRule, Text: b},
			{Path: model.ClineRules, Kind: model.KindClineRule, Text: b},
			{Path: ".cline/rules/x.md", Kind: model.KindClineRule, Text: b},
			{Path: ".roo/rules/x.md", Kind: model.KindRooRule, Text: b},
			{Path: model.RooRules, Kind: model.KindRooRule, Text: b, FS: noFiles{}},
		} {
			for _, d := range Check(file, core.Options{Targets: []model.Target{model.TargetCline, model.TargetRoo}}) {
				if d.Span.Start < 0 || d.Span.Start > d.Span.End || d.Span.End > len(b) {
					t.Fatalf("%s: %s span %+v outside %d bytes", file.Path, d.Rule, d.Span, len(b))
				}
			}
		}
	})
}

package server

import (
	"fmt"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/ahpls-dev/ahpls/model"
)

// bigSkill is a 2,000-line SKILL.md: a header, 200 sections with a fence
// and a link each.
func bigSkill() []byte {
	var b strings.Builder
	b.WriteString("---\nname: big\ndescription: A big skill.\nmetadata:\n  owner: me\n---\n# Big\n")
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, "\n## Section %d\n\nSee [ref](references/r%d.md).\n\n```sh\n# not a heading\necho %d\n```\n", i, i, i)
	}
	return []byte(b.String())
}

func BenchmarkMarkdownOutline(b *testing.B) {
	text := bigSkill()
	idx := model.NewLineIndex(text)
	rng := func(sp model.Span) protocol.Range { return lspRange(idx.Range(sp, model.UTF16)) }
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		_ = markdownSymbols(text, rng)
		_ = markdownRefs(text)
	}
}

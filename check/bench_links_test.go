package check

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ahpls-dev/ahpls/diagnostics"
)

// BenchmarkBrokenLinksOneLine: one SKILL.md with 20,000 broken links on one
// line (#16 item 4; about 16 s of CPU per check before positions were
// converted from checkpoints).
func BenchmarkBrokenLinksOneLine(b *testing.B) {
	root := b.TempDir()
	var sb strings.Builder
	sb.WriteString("---\nname: x\ndescription: Many links.\n---\n")
	for i := range 20000 {
		fmt.Fprintf(&sb, "[l](missing%d.md) ", i)
	}
	write(b, root, ".github/skills/x/SKILL.md", sb.String())
	for b.Loop() {
		fs, err := Run([]string{root}, diagnostics.Options{})
		if err != nil || len(fs) < 20000 {
			b.Fatalf("%d findings, %v", len(fs), err)
		}
	}
}

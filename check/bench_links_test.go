package check

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ahpls-dev/ahpls/diagnostics"
)

// BenchmarkBrokenLinksOneLine: one SKILL.md with n broken links on one
// line (#16 item 4; about 16 s of CPU per check at 20,000 before positions
// were converted from checkpoints, 27 s before fingerprints hashed each
// line once, #42). Linear from 5,000 to 20,000: compare the sub-benchmarks.
func BenchmarkBrokenLinksOneLine(b *testing.B) {
	for _, n := range []int{5000, 10000, 20000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			root := b.TempDir()
			write(b, root, ".github/skills/x/SKILL.md", linksOneLine(n))
			for b.Loop() {
				fs, err := Run([]string{root}, diagnostics.Options{})
				if err != nil || len(fs) < n {
					b.Fatalf("%d findings, %v", len(fs), err)
				}
			}
		})
	}
}

// linksOneLine is a SKILL.md whose body is n broken links on one line.
func linksOneLine(n int) string {
	var sb strings.Builder
	sb.WriteString("---\nname: x\ndescription: Many links.\n---\n")
	for i := range n {
		fmt.Fprintf(&sb, "[l](missing%d.md) ", i)
	}
	return sb.String()
}

package server

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/model"
)

// BenchmarkWorkspaceSymbol50k answers workspace/symbol over 50,000 indexed
// skills (as the scan indexes them) and marshals the answer, for a mix of
// queries: everything (the 1,000 cap), a prefix, one exact name and one
// that matches nothing (the whole index read). p50-ms is the median
// answer of each.
func BenchmarkWorkspaceSymbol50k(b *testing.B) {
	s := New(Options{})
	s.enc = model.UTF16
	s.mu.Lock()
	for i := range 50000 {
		rel := fmt.Sprintf(".github/skills/skill-%05d/SKILL.md", i)
		u := uri.File("/ws/" + rel)
		text := fmt.Appendf(nil, "---\nname: skill-%05d\ndescription: Skill %d.\n---\n\n# Body\n", i, i)
		s.indexLocked(u, &fileState{kind: model.KindSkill, rel: rel, snap: Snapshot{URI: u, Text: text}})
	}
	s.mu.Unlock()
	l := &lspServer{s: s}
	for _, q := range []string{"", "skill-4", "skill-31337", "zzz"} {
		b.Run(fmt.Sprintf("query=%q", q), func(b *testing.B) {
			var times []time.Duration
			for b.Loop() {
				t := time.Now()
				res, err := l.Symbols(context.Background(), &protocol.WorkspaceSymbolParams{Query: q})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := protocol.Marshal(res); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(t))
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
		})
	}
}

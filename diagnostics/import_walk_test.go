package diagnostics

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/memory"

	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/model"
)

// countingFS is memFS that counts the bytes the rules read through it.
type countingFS struct {
	memFS
	read *atomic.Int64
}

func (c countingFS) ReadFile(rel string) ([]byte, error) {
	b, err := c.memFS.ReadFile(rel)
	c.read.Add(int64(len(b)))
	return b, err
}

// importsWorkspace is a ~5 KB CLAUDE.md importing a 4 MB file n times
// (issue 39: 300 imports cost 26 s of CPU, one 0.16 s).
func importsWorkspace(n int) (memFS, []byte) {
	big := strings.Repeat("A line of a large imported reference file, no imports in it.\n", (4<<20)/62)
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "- see @docs/big.md (%d)\n", i)
	}
	for b.Len() < 5<<10 {
		b.WriteString("Filler text for the always-on instructions.\n")
	}
	ws := memFS{"CLAUDE.md": b.String(), "docs/big.md": big}
	return ws, []byte(ws["CLAUDE.md"])
}

// TestImportWalkReadsEachFileOnce: the work of the import walk grows with
// the files it reaches, not with how often they are imported: 300 imports
// of one file read what one import reads.
func TestImportWalkReadsEachFileOnce(t *testing.T) {
	readFor := func(n int) int64 {
		ws, text := importsWorkspace(n)
		var read atomic.Int64
		Check(core.File{Path: "CLAUDE.md", Text: text, FS: countingFS{ws, &read}}, core.Options{Targets: []model.Target{model.TargetClaudeCode}})
		return read.Load()
	}
	one, many := readFor(1), readFor(300)
	require.NotZero(t, one)
	assert.LessOrEqual(t, many, 2*one, "300 imports read %d bytes, one import %d", many, one)
}

// TestImportWalkByteBudget: the walk stops reading once it has read
// importByteBudget bytes, however many distinct large files are imported.
func TestImportWalkByteBudget(t *testing.T) {
	big := strings.Repeat("x", 4<<20)
	ws := memFS{}
	var b strings.Builder
	for i := range 40 {
		p := fmt.Sprintf("docs/big%d.md", i)
		ws[p] = big
		fmt.Fprintf(&b, "@%s\n", p)
	}
	ws["CLAUDE.md"] = b.String()
	var read atomic.Int64
	Check(core.File{Path: "CLAUDE.md", Text: []byte(ws["CLAUDE.md"]), FS: countingFS{ws, &read}}, core.Options{Targets: []model.Target{model.TargetClaudeCode}})
	assert.LessOrEqual(t, read.Load(), int64(memory.ImportByteBudget+4<<20), "40 imports of 4 MB files")
	assert.Less(t, read.Load(), int64(40*4<<20))
}

// TestImportWalkMemoKeepsFindings: the memo answers depth and cycles as
// the walk without it did, for a file reached by several chains.
func TestImportWalkMemoKeepsFindings(t *testing.T) {
	ws := memFS{
		"CLAUDE.md": "@a.md\n@b.md\n@c1.md\n",
		"a.md":      "@shared.md\n", "b.md": "@shared.md\n",
		"shared.md": "@CLAUDE.md\n",
		"c1.md":     "@c2.md\n", "c2.md": "@c3.md\n", "c3.md": "@c4.md\n", "c4.md": "@c5.md\n", "c5.md": "@c6.md\n", "c6.md": "end\n",
	}
	ds := Check(core.File{Path: "CLAUDE.md", Text: []byte(ws["CLAUDE.md"]), FS: ws}, core.Options{Targets: []model.Target{model.TargetClaudeCode}})
	var got []string
	for _, d := range ds {
		if strings.HasPrefix(d.Rule, "memory/import") {
			got = append(got, fmt.Sprintf("%s@%d", d.Rule, d.Span.Start))
		}
	}
	assert.ElementsMatch(t, []string{"memory/import-cycle@1", "memory/import-cycle@7", "memory/import-depth@13"}, got)
}

// BenchmarkImportWalk: a 5 KB CLAUDE.md importing one 4 MB file 300 times
// against once (issue 39's must-show: ratio ≤ 2×).
func BenchmarkImportWalk(b *testing.B) {
	for _, n := range []int{1, 300} {
		b.Run(fmt.Sprintf("imports=%d", n), func(b *testing.B) {
			ws, text := importsWorkspace(n)
			opts := core.Options{Targets: []model.Target{model.TargetClaudeCode}}
			b.ReportAllocs()
			for b.Loop() {
				Check(core.File{Path: "CLAUDE.md", Text: text, FS: ws}, opts)
			}
		})
	}
}

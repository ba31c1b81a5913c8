package server

import (
	"os"
	"strings"
	"testing"
)

// BenchmarkFirstScan runs the first scan of the workspace in
// $AHPLS_BENCH_WS (make one with scripts/synthskills) up to its $/progress
// end; skipped without it. For profiles: -benchtime=1x -cpuprofile.
func BenchmarkFirstScan(b *testing.B) {
	ws := os.Getenv("AHPLS_BENCH_WS")
	if ws == "" {
		b.Skip("set AHPLS_BENCH_WS to a workspace (scripts/synthskills)")
	}
	for b.Loop() {
		c := newTestClient(b, clientSetup{folders: []string{ws}, caps: `{"window":{"workDoneProgress":true}}`, opts: Options{NoFSNotify: true}})
		c.waitFor("progress end", func(n note) bool {
			return n.Method == "$/progress" && strings.Contains(string(n.Params), `"end"`)
		})
	}
}

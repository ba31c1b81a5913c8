package check

import (
	"os"
	"testing"

	"github.com/ahpls-dev/ahpls/diagnostics"
)

// BenchmarkCheckWorkspace checks the workspace in $AHPLS_BENCH_WS (make
// one with scripts/synthskills) in process, the counterpart of the
// server's BenchmarkFirstScan; skipped without it. For profiles:
// -benchtime=1x -cpuprofile.
func BenchmarkCheckWorkspace(b *testing.B) {
	ws := os.Getenv("AHPLS_BENCH_WS")
	if ws == "" {
		b.Skip("set AHPLS_BENCH_WS to a workspace (scripts/synthskills)")
	}
	for b.Loop() {
		if _, err := Run([]string{ws}, diagnostics.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

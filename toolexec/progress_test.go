//go:build linux

package toolexec

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/ahptest"
	"github.com/ahpls-dev/ahpls/tools"
)

// writeManyTests writes a Go module of n tests, each sleeping d, into dir.
func writeManyTests(t *testing.T, dir string, n int, d time.Duration) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/many\n\ngo 1.22\n"), 0o644))
	var b strings.Builder
	b.WriteString("package many\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n")
	for i := range n {
		fmt.Fprintf(&b, "\nfunc TestCase%03d(t *testing.T) { time.Sleep(%d * time.Microsecond) }\n", i, d.Microseconds())
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "many_test.go"), []byte(b.String()), 0o644))
}

// ahpls_run_tests on a 1.1 connection reports chat/toolCallProgress: "N of
// M tests, current package/test", a few times a second. A package of 200
// tests that runs for at least 2 s (200 × 12 ms of sleep, run one after the
// other) shows at least 5 reports and never more than 10 in any second.
func TestRunTestsReportsProgress(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go module")
	}
	h := newHarness(t, ahptest.Options{ProtocolVersions: []string{"1.1.0", "1.0.0", "0.10.0", "0.9.0"}})
	writeManyTests(t, filepath.Join(h.root, "many"), 200, 12*time.Millisecond)
	h.reg.RefreshTestProjects()
	turn := h.turn()
	id := h.call(turn, "run_tests", `{"path":"many"}`)
	tc := h.done(id)
	require.Equal(t, true, tc["success"], "%v", tc)
	// The observer hears of the result after the completion went out.
	var res tools.Result
	waitFor(t, "the observer saw the result", func() bool {
		r, ok := h.obs.result(id)
		res = r
		return ok
	})
	require.GreaterOrEqual(t, res.Duration, 2*time.Second, "the run lasts at least 2 s")

	reports := h.host.ToolCallProgress(id)
	t.Logf("%d progress reports over %v; last step %q", len(reports), res.Duration, reports[len(reports)-1].Step)
	assert.GreaterOrEqual(t, len(reports), 5)
	for i := 10; i < len(reports); i++ {
		assert.GreaterOrEqual(t, reports[i].At.Sub(reports[i-10].At), time.Second,
			"reports %d..%d arrived within a second", i-10, i)
	}
	current := 0
	for _, r := range reports {
		assert.Regexp(t, `^\d+ of \d+ tests`, r.Step)
		if strings.Contains(r.Step, ", current example.com/many/TestCase") {
			current++
		}
	}
	assert.Positive(t, current, "steps name the current package/test")
	require.NoError(t, h.host.CompleteTurn(h.chat, turn))
}

// Other command tools report the elapsed time; a pre-1.1 connection gets
// no chat/toolCallProgress at all.
func TestCommandToolReportsElapsed(t *testing.T) {
	for _, tc := range []struct {
		versions []string
		want     bool
	}{
		{[]string{"1.1.0", "1.0.0"}, true},
		{[]string{"0.8.0"}, false},
	} {
		t.Run(tc.versions[0], func(t *testing.T) {
			h := newHarness(t, ahptest.Options{ProtocolVersions: tc.versions})
			turn := h.turn()
			id := h.call(turn, "drip", `{"n":450}`) // 450 lines 5 ms apart: over 2 s
			h.done(id)
			reports := h.host.ToolCallProgress(id)
			if !tc.want {
				assert.Empty(t, reports)
				return
			}
			require.NotEmpty(t, reports)
			assert.Regexp(t, `^running for \d+ s$`, reports[len(reports)-1].Step)
			assert.LessOrEqual(t, len(reports), 4, "elapsed changes once a second")
		})
	}
}

package toolexec

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/ahpclient"
	"github.com/ahpls-dev/ahpls/ahptest"
	"github.com/ahpls-dev/ahpls/tools"
)

// fixedEditor is the editor side of ahpls_diagnostics: a few findings.
type fixedEditor struct{}

func (fixedEditor) Diagnostics(context.Context, string) ([]tools.Diagnostic, error) {
	return []tools.Diagnostic{
		{URI: "file:///w/a/SKILL.md", Severity: "error", Message: "name does not match the folder"},
		{URI: "file:///w/b/SKILL.md", Severity: "warning", Message: "description is empty"},
	}, nil
}
func (fixedEditor) ShowDocument(context.Context, string, *tools.Range) error { return nil }

// batchRig is one client following one chat of the test host, with the
// built-in tools only.
type batchRig struct {
	host   *ahptest.Host
	client *ahpclient.Client
	chat   string
}

func newBatchRig(tb testing.TB) *batchRig {
	tb.Helper()
	r := &batchRig{}
	r.host = ahptest.New(ahptest.Options{Logger: quiet(), OnViolation: func(err error) { tb.Errorf("AHP violation: %v", err) }})
	_, err := r.host.Start()
	require.NoError(tb, err)
	tb.Cleanup(func() { r.host.Close() })
	session := r.host.CreateSession(ahptest.SessionSpec{WorkingDirectories: []string{folder}})
	r.chat, err = r.host.CreateChat(session, "", "")
	require.NoError(tb, err)
	reg, err := tools.NewRegistry(tools.Options{Root: tb.TempDir(), Editor: fixedEditor{}})
	require.NoError(tb, err)
	c, err := ahpclient.New(ahpclient.Options{URL: r.host.URL(), StateDir: tb.TempDir(), WorkspaceKey: folder, Logger: quiet(),
		Auto: true, Folders: []string{folder}})
	require.NoError(tb, err)
	r.client = c
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = c.Run(ctx); close(done) }()
	x := New(Options{Client: c, Logger: quiet(), Tools: func(string) Runner { return reg }})
	x.Start()
	tb.Cleanup(func() { x.Stop(); cancel(); c.Close(); <-done })
	defs, _ := reg.Resolve(nil)
	require.NoError(tb, c.SetActiveClient(map[string]any{"tools": defs}))
	wctx, wcancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer wcancel()
	require.NoError(tb, r.host.Wait(wctx, func(v *ahptest.View) bool {
		return v.ActiveClient(session, c.ClientID()) != nil && v.Subscribed(c.ClientID(), r.chat)
	}))
	return r
}

// batch starts n ahpls_diagnostics calls at once in a new turn and waits
// until the host shows every one completed; it returns how many did.
func (r *batchRig) batch(tb testing.TB, n int, limit time.Duration) int {
	tb.Helper()
	turn, err := r.host.StartTurn(r.chat, "go")
	require.NoError(tb, err)
	ids := make(map[string]bool, n)
	for i := 0; i < n; i++ {
		id, err := r.host.StartClientToolCall(r.chat, turn, ahptest.ClientToolCall{
			ToolName: "ahpls_" + tools.BuiltinDiagnostics, ClientID: r.client.ClientID(), Input: "{}",
			ToolCallID: "b" + strconv.Itoa(i) + "-" + turn})
		require.NoError(tb, err)
		ids[id] = true
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	done := 0
	_ = r.host.Wait(ctx, func(v *ahptest.View) bool {
		done = 0
		turn, _ := v.State(r.chat)["activeTurn"].(map[string]any)
		parts, _ := turn["responseParts"].([]any)
		for _, p := range parts {
			tc, _ := p.(map[string]any)["toolCall"].(map[string]any)
			if id, _ := tc["toolCallId"].(string); ids[id] && tc["status"] == "completed" {
				done++
			}
		}
		return done == n
	})
	require.NoError(tb, r.host.CompleteTurn(r.chat, turn))
	return done
}

// A thousand calls in flight at once all complete.
func TestThousandConcurrentCallsComplete(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("1,000 calls: run without -short and -race")
	}
	r := newBatchRig(t)
	require.Equal(t, 1000, r.batch(t, 1000, 5*time.Minute))
}

// BenchmarkCallBatch: the time of a batch of 10 and of 1,000 concurrent
// ahpls_diagnostics calls, their ratio (flat throughput is 100), and the
// peak RSS growth during the big batch.
func BenchmarkCallBatch(b *testing.B) {
	r := newBatchRig(b)
	r.batch(b, 10, time.Minute) // warm up
	for b.Loop() {
		start, cpu0 := time.Now(), cpuTime()
		require.Equal(b, 10, r.batch(b, 10, time.Minute))
		small, smallCPU := time.Since(start), cpuTime()-cpu0
		base := rssKB()
		stop := make(chan struct{})
		peak := make(chan int)
		go func() {
			p := base
			for {
				select {
				case <-stop:
					peak <- p
					return
				case <-time.After(10 * time.Millisecond):
					p = max(p, rssKB())
				}
			}
		}()
		start, cpu0 = time.Now(), cpuTime()
		require.Equal(b, 1000, r.batch(b, 1000, 5*time.Minute))
		big, bigCPU := time.Since(start), cpuTime()-cpu0
		close(stop)
		p := <-peak
		b.ReportMetric(float64(small.Milliseconds()), "ms/10calls")
		b.ReportMetric(float64(big.Milliseconds()), "ms/1000calls")
		b.ReportMetric(float64(big)/float64(small), "ratio")
		// CPU time of the process (client, executor and the in-process
		// test host): on a shared machine the wall time of the small batch
		// swings with other load, the CPU a call costs much less.
		b.ReportMetric(float64(smallCPU.Milliseconds()), "cpu-ms/10calls")
		b.ReportMetric(float64(bigCPU.Milliseconds()), "cpu-ms/1000calls")
		b.ReportMetric(float64(bigCPU)/float64(max(smallCPU, time.Millisecond)), "cpuRatio")
		b.ReportMetric(float64(p-base)/1024, "peakRSSgrowthMB")
	}
}

// rssKB is the process's resident set (Linux), 0 elsewhere.
func rssKB() int {
	if runtime.GOOS != "linux" {
		return 0
	}
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			var kb int
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(l, "VmRSS:")), "%d", &kb)
			return kb
		}
	}
	return 0
}

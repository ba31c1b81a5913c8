package server

import (
	"encoding/json"
	"sort"
	"testing"
	"time"
)

// BenchmarkDidChangeToPublish measures the round trip an editor sees: a
// didChange leaves the client, the server applies it, checks the file and
// the matching publishDiagnostics arrives back, over an in-process pipe with
// debounce 0. Alternating a broken and a clean text makes every change
// publish. p50/p99 are reported from per-iteration durations.
func BenchmarkDidChangeToPublish(b *testing.B) {
	root := b.TempDir()
	c := newTestClient(b, clientSetup{folders: []string{root}})
	versions := make(chan int, 1)
	u := skillURI(root, "bench")
	c.mu.Lock()
	c.onNote = func(n note) {
		if n.Method != "textDocument/publishDiagnostics" {
			return
		}
		var p wirePublish
		if json.Unmarshal(n.Params, &p) == nil && p.URI == string(u) && p.Version != nil {
			versions <- *p.Version
		}
	}
	c.mu.Unlock()
	broken := "---\nname: bench\x00\ndescription: Benchmarks the round trip.\n---\n# Body\n"
	clean := "---\nname: bench\ndescription: Benchmarks the round trip.\n---\n# Body\n"
	if err := c.notify("textDocument/didOpen", didOpen(u, 1, clean)); err != nil {
		b.Fatal(err)
	}
	<-versions
	durs := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v := i + 2
		text := clean
		if i%2 == 0 {
			text = broken
		}
		start := time.Now()
		if err := c.notify("textDocument/didChange", didChangeFull(u, v, text)); err != nil {
			b.Fatal(err)
		}
		for got := <-versions; got != v; got = <-versions {
		}
		durs = append(durs, time.Since(start))
	}
	b.StopTimer()
	sort.Slice(durs, func(i, j int) bool { return durs[i] < durs[j] })
	pct := func(p float64) float64 {
		return float64(durs[min(len(durs)-1, int(p*float64(len(durs))))].Microseconds())
	}
	b.ReportMetric(pct(0.50), "p50-µs")
	b.ReportMetric(pct(0.99), "p99-µs")
}

package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"
)

// pipeSession is a server with DefaultOptions (the 150 ms debounce
// included) behind real OS pipes, and a jsonrpc2 client that hands every
// published version of one URI to versions. The server runs in this
// process (srv is set, so checks can be counted) or, for the editor's own
// view, as the ahpls binary in a process of its own (srv is nil).
type pipeSession struct {
	srv      *Server
	conn     jsonrpc2.Conn
	u        uri.URI
	versions chan int
}

func newPipeSession(b *testing.B) *pipeSession {
	r1, w1, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	r2, w2, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	opts := DefaultOptions()
	opts.Logger = nil
	srv := New(opts)
	done := make(chan int, 1)
	go func() {
		done <- srv.Serve(context.Background(), pipeRWC{Reader: r1, Writer: w2, closers: []io.Closer{r1, w2}})
	}()
	ps := startSession(b, pipeRWC{Reader: r2, Writer: w1, closers: []io.Closer{r2, w1}})
	ps.srv = srv
	b.Cleanup(func() {
		_ = ps.conn.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
	})
	return ps
}

// TestMain removes the binary the process benchmarks built.
func TestMain(m *testing.M) {
	code := m.Run()
	if serverBin.path != "" {
		os.Remove(serverBin.path)
	}
	os.Exit(code)
}

var serverBin struct {
	sync.Once
	path string
	err  error
}

// newProcessSession runs `ahpls serve` (built once per benchmark run) as
// an editor does: its own process, its stdin and stdout as the pipes.
func newProcessSession(b *testing.B) *pipeSession {
	serverBin.Do(func() {
		serverBin.path = filepath.Join(os.TempDir(), fmt.Sprintf("ahpls-latency-%d", os.Getpid()))
		out, err := exec.Command("go", "build", "-o", serverBin.path, "../cmd/ahpls").CombinedOutput()
		if err != nil {
			serverBin.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if serverBin.err != nil {
		b.Fatal(serverBin.err)
	}
	cmd := exec.Command(serverBin.path, "serve")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	ps := startSession(b, pipeRWC{Reader: stdout, Writer: stdin, closers: []io.Closer{stdin, stdout}})
	b.Cleanup(func() {
		_ = ps.conn.Close()
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	return ps
}

// startSession connects the client end and initializes a workspace.
func startSession(b *testing.B, rwc io.ReadWriteCloser) *pipeSession {
	root := b.TempDir()
	ps := &pipeSession{u: skillURI(root, "bench"), versions: make(chan int, 1024)}
	ps.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(rwc))
	ps.conn.Go(context.Background(), func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if req.Method() == "textDocument/publishDiagnostics" {
			var p wirePublish
			if json.Unmarshal(req.Params(), &p) == nil && p.URI == string(ps.u) && p.Version != nil {
				ps.versions <- *p.Version
			}
		}
		return nil, nil
	})
	ctx := context.Background()
	init := fmt.Sprintf(`{"processId":null,"rootUri":null,"capabilities":{},"workspaceFolders":[{"uri":%q,"name":"ws"}]}`, string(uri.File(root)))
	if _, err := ps.conn.Call(ctx, "initialize", json.RawMessage(init), nil); err != nil {
		b.Fatal(err)
	}
	if err := ps.conn.Notify(ctx, "initialized", json.RawMessage(`{}`)); err != nil {
		b.Fatal(err)
	}
	return ps
}

func (ps *pipeSession) send(b *testing.B, method, params string) {
	if err := ps.conn.Notify(context.Background(), method, json.RawMessage(params)); err != nil {
		b.Fatal(err)
	}
}

// waitVersion waits for the publication of version v (earlier ones are
// skipped) and returns when it arrived.
func (ps *pipeSession) waitVersion(b *testing.B, v int) time.Time {
	timeout := time.After(30 * time.Second)
	for {
		select {
		case got := <-ps.versions:
			if got == v {
				return time.Now()
			}
		case <-timeout:
			b.Fatalf("version %d was never published", v)
		}
	}
}

// skill4K is a SKILL.md of about 4 KB whose name breaks a rule with a
// finding that names v, so every version publishes a different set (the
// server does not re-send an unchanged set).
func skill4K(v int) string {
	var sb strings.Builder
	name := fmt.Sprintf("Bench %d", v)
	fmt.Fprintf(&sb, "---\nname: %s\ndescription: Measures how long an edit takes to reach the editor as diagnostics.\n---\n# Bench\n\n", name)
	for sb.Len() < 4096 {
		sb.WriteString("Follow the steps in [the guide](references/guide.md) and run `make test` before you hand the change over.\n")
	}
	return sb.String()
}

func percentile(durs []time.Duration, p float64) time.Duration {
	sort.Slice(durs, func(i, j int) bool { return durs[i] < durs[j] })
	return durs[min(len(durs)-1, int(p*float64(len(durs))))]
}

// BenchmarkEditToPublishPipes is the editor's view of one keystroke with
// the default settings (debounce included) over real OS pipes: didChange
// of a 4 KB SKILL.md out, its publishDiagnostics back. Reports p50/p99.
func BenchmarkEditToPublishPipes(b *testing.B) { benchEditToPublish(b, newPipeSession(b)) }

// BenchmarkEditToPublishProcess is the same against `ahpls serve` in a
// process of its own, as an editor runs it.
func BenchmarkEditToPublishProcess(b *testing.B) { benchEditToPublish(b, newProcessSession(b)) }

func benchEditToPublish(b *testing.B, ps *pipeSession) {
	ps.send(b, "textDocument/didOpen", didOpen(ps.u, 1, skill4K(1)))
	ps.waitVersion(b, 1)
	durs := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v := i + 2
		// A single edit lands on an idle file: the user paused (longer
		// than a burst's pacing interval).
		b.StopTimer()
		time.Sleep(burstInterval)
		b.StartTimer()
		start := time.Now()
		ps.send(b, "textDocument/didChange", didChangeFull(ps.u, v, skill4K(v)))
		durs = append(durs, ps.waitVersion(b, v).Sub(start))
	}
	b.StopTimer()
	b.ReportMetric(float64(percentile(durs, 0.50).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(percentile(durs, 0.99).Microseconds())/1000, "p99-ms")
}

// BenchmarkEditBurstPipes types 50 edits 10 ms apart into a 4 KB SKILL.md
// (default settings, real OS pipes) and reports how long after the last
// edit its version was published, and how many checks the burst cost.
func BenchmarkEditBurstPipes(b *testing.B) { benchEditBurst(b, newPipeSession(b)) }

// BenchmarkEditBurstProcess is the same against `ahpls serve` in a process
// of its own (checks are not counted there).
func BenchmarkEditBurstProcess(b *testing.B) { benchEditBurst(b, newProcessSession(b)) }

func benchEditBurst(b *testing.B, ps *pipeSession) {
	const edits = 50
	v := 1
	ps.send(b, "textDocument/didOpen", didOpen(ps.u, v, skill4K(v)))
	ps.waitVersion(b, v)
	var lags []time.Duration
	var checks []int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var before int64
		if ps.srv != nil {
			before = ps.srv.Checks()
		}
		var last time.Time
		for e := 0; e < edits; e++ {
			if e > 0 {
				time.Sleep(10 * time.Millisecond)
			}
			v++
			last = time.Now()
			ps.send(b, "textDocument/didChange", didChangeFull(ps.u, v, skill4K(v)))
		}
		lags = append(lags, ps.waitVersion(b, v).Sub(last))
		time.Sleep(20 * time.Millisecond) // let any straggler check finish
		if ps.srv != nil {
			checks = append(checks, ps.srv.Checks()-before)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(percentile(lags, 0.50).Microseconds())/1000, "final-p50-ms")
	b.ReportMetric(float64(percentile(lags, 0.99).Microseconds())/1000, "final-p99-ms")
	b.ReportMetric(float64(percentile(lags, 1).Microseconds())/1000, "final-max-ms")
	if len(checks) > 0 {
		maxChecks, sum := int64(0), int64(0)
		for _, c := range checks {
			maxChecks = max(maxChecks, c)
			sum += c
		}
		b.ReportMetric(float64(sum)/float64(len(checks)), "checks/burst")
		b.ReportMetric(float64(maxChecks), "max-checks/burst")
	}
}

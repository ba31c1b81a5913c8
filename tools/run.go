package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"
)

// execSpec is a fully resolved process: nothing in it is interpreted by a
// shell, and Path and Dir were already confined by the caller.
type execSpec struct {
	Path    string   // absolute program path
	Args    []string // argv, Args[0] as written in the template
	Dir     string   // absolute, symlink-free working directory
	Env     []string
	Timeout time.Duration
	Limit   int    // output bytes kept
	Label   string // tool title for messages
	// OnOutput, when set, sees every byte of output in order (from one
	// goroutine; the chunk is only valid during the call). The test
	// runner parses its framework's events here without the output limit.
	OnOutput func([]byte)
	// Status, when set, replaces the output snapshot in progress updates
	// ("12 passed, 1 failed, running pkg/x"); an unchanged text is not
	// sent again. It is called from the goroutine that runs the call.
	Status func() string
	// Step, when set, words the progress step ("N of M tests, current
	// package/test"); without it the step is the elapsed time.
	Step func() string
}

// Timing knobs. They are variables so that tests of the mechanism could
// shorten them; nothing in this package changes them at run time.
var (
	progressInterval = 100 * time.Millisecond // at most ~10 updates a second
	killGrace        = 500 * time.Millisecond // SIGTERM → SIGKILL on cancel/timeout
	drainGrace       = 2 * time.Second        // wait for output EOF once the group is dead
)

// runProcess runs s as the root of its own process tree (a process group on
// Unix, a Job Object on Windows; see proc_*.go) and returns when the process
// and every member of its tree are gone and the output pipe is drained.
//
// Lifetime rules: cancellation of ctx and the timeout ask the whole tree to
// stop (SIGTERM to the group on Unix), then kill it after killGrace. When
// the leader exits on its own, the tree is killed as well, so background
// children of a tool never outlive it. Output (stdout and stderr share one pipe, so their
// interleaving is kept) goes into a bounded outBuf; memory does not grow
// with the amount printed.
func runProcess(ctx context.Context, s execSpec, onProgress ProgressFunc) Result {
	start := time.Now()
	if err := ctx.Err(); err != nil {
		r := failure(CodeCancelled, s.Label+" was cancelled before it started")
		r.Cancelled = true
		return r
	}
	cmd, tree, pr, err := startProcess(s)
	if err != nil {
		r := failure(CodeStartFailed, fmt.Sprintf("could not start %s: %v", s.Label, err))
		r.Duration = time.Since(start)
		return r
	}
	out := &capture{buf: newOutBuf(s.Limit), readDone: make(chan struct{})}
	go out.read(pr, s.OnOutput)
	waitDone := make(chan error, 1)
	go func() { waitDone <- cmd.Wait() }()

	p := &progressor{s: s, out: out, start: start, onProgress: onProgress}
	end := supervise(ctx, s.Timeout, tree, waitDone, p)
	// The leader is reaped; whatever is left of its tree goes too
	// (including, on Linux, descendants that left the process group).
	tree.release()
	out.drain(pr)
	if onProgress != nil {
		p.emit(true)
	}
	return processResult(s, cmd, start, out, end)
}

// startProcess starts s with stdout and stderr on one pipe and returns the
// pipe's read end; only the child tree holds the write end afterwards, so
// EOF on it means they have all exited or closed it.
func startProcess(s execSpec) (*exec.Cmd, *procTree, *os.File, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, nil, nil, err
	}
	cmd := &exec.Cmd{
		Path:   s.Path,
		Args:   s.Args,
		Dir:    s.Dir,
		Env:    s.Env,
		Stdout: pw,
		Stderr: pw,
		// Stdin nil reads /dev/null (NUL on Windows): a tool cannot wait
		// for input that will never come. startTree sets the platform's
		// process-tree attributes (proc_*.go).
	}
	tree, err := startTree(cmd)
	pw.Close()
	if err != nil {
		pr.Close()
		return nil, nil, nil, err
	}
	return cmd, tree, pr, nil
}

// capture collects a process's output while it runs.
type capture struct {
	mu      sync.Mutex
	buf     *outBuf // guarded by mu
	version uint64  // bumped on every write, guarded by mu
	// readDone is closed when read returns.
	readDone chan struct{}
}

// read copies the pipe into the buffer (and to onOutput) until EOF.
func (c *capture) read(pr *os.File, onOutput func([]byte)) {
	defer close(c.readDone)
	chunk := make([]byte, 64<<10)
	for {
		n, err := pr.Read(chunk)
		if n > 0 {
			if onOutput != nil {
				onOutput(chunk[:n])
			}
			c.mu.Lock()
			c.buf.Write(chunk[:n])
			c.version++
			c.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// drain waits for the reader after the process ended. A process that
// escaped the tree (where the platform cannot contain it) may still hold
// the pipe; it does not keep the call open longer than drainGrace.
func (c *capture) drain(pr *os.File) {
	drain := time.NewTimer(drainGrace)
	select {
	case <-c.readDone:
	case <-drain.C:
		_ = pr.SetReadDeadline(time.Now())
		<-c.readDone
	}
	drain.Stop()
	pr.Close()
}

// snapshot is the output so far, its total size and how much was cut.
func (c *capture) snapshot() (text string, total int64, cut int64, version uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	text, cut = c.buf.Text()
	return text, c.buf.total, cut, c.version
}

// progressor reports progress, only when there is something new: the
// spec's status line when it has one, else the output so far. It is used
// by one goroutine (runProcess's).
type progressor struct {
	s          execSpec
	out        *capture
	start      time.Time
	onProgress ProgressFunc
	sent       uint64 // output version last reported
	sentStatus string
	sentStep   string
	lastEmit   time.Time // when onProgress was last called
}

// emit reports when the output or the step changed since the last report,
// never sooner than progressInterval after it: a tick the ticker delivers
// late is followed by one on time, and the final report comes whenever the
// process ends, so the ticker alone does not bound the rate. A tick too
// soon is skipped (the next one reports); the final report (final) waits
// out the rest of the interval instead, at most progressInterval.
func (p *progressor) emit(final bool) {
	var pr Progress
	prevSent, prevStatus := p.sent, p.sentStatus
	if p.s.Status != nil {
		text := p.s.Status()
		pr.Output, pr.OutputChanged = text, text != p.sentStatus
		p.sentStatus = text
	} else {
		text, total, _, version := p.out.snapshot()
		pr.Output, pr.TotalBytes, pr.OutputChanged = text, total, version != p.sent
		p.sent = version
	}
	pr.Elapsed = time.Since(p.start)
	pr.Step = p.step(pr.Elapsed)
	if !pr.OutputChanged && pr.Step == p.sentStep {
		return
	}
	if wait := progressInterval - time.Since(p.lastEmit); !p.lastEmit.IsZero() && wait > 0 {
		if !final {
			p.sent, p.sentStatus = prevSent, prevStatus
			return
		}
		time.Sleep(wait)
		pr.Elapsed = time.Since(p.start)
	}
	p.sentStep = pr.Step
	p.lastEmit = time.Now()
	p.onProgress(pr)
}

func (p *progressor) step(elapsed time.Duration) string {
	if p.s.Step != nil {
		return p.s.Step()
	}
	return fmt.Sprintf("running for %d s", int(elapsed/time.Second))
}

// ending is how a supervised process ended.
type ending struct {
	waitErr   error
	cancelled bool
	timedOut  bool
}

// supervise waits for the process, reporting progress on a tick; on
// cancellation or timeout it terminates the tree, and kills it killGrace
// later if it is still there.
func supervise(ctx context.Context, timeoutAfter time.Duration, tree *procTree, waitDone <-chan error, p *progressor) ending {
	timeout := time.NewTimer(timeoutAfter)
	defer timeout.Stop()
	var tick <-chan time.Time
	if p.onProgress != nil {
		t := time.NewTicker(progressInterval)
		defer t.Stop()
		tick = t.C
	}
	var (
		end       ending
		done      = ctx.Done()
		hardKill  *time.Timer
		hardKillC <-chan time.Time
	)
	startKilling := func() {
		tree.terminate()
		hardKill = time.NewTimer(killGrace)
		hardKillC = hardKill.C
	}
	defer func() {
		if hardKill != nil {
			hardKill.Stop()
		}
	}()
	for {
		select {
		case end.waitErr = <-waitDone:
			return end
		case <-done:
			done = nil
			if !end.timedOut {
				end.cancelled = true
				startKilling()
			}
		case <-timeout.C:
			if !end.cancelled {
				end.timedOut = true
				startKilling()
			}
		case <-hardKillC:
			hardKillC = nil
			tree.kill()
		case <-tick:
			p.emit(false)
		}
	}
}

// processResult turns how the process ended into the tool's Result.
func processResult(s execSpec, cmd *exec.Cmd, start time.Time, out *capture, end ending) Result {
	text, total, cut, _ := out.snapshot()
	r := Result{
		Output:     text,
		TotalBytes: total,
		CutBytes:   cut,
		ExitCode:   -1,
		Duration:   time.Since(start),
		TimedOut:   end.timedOut,
		Cancelled:  end.cancelled,
	}
	if cmd.ProcessState != nil {
		r.ExitCode = cmd.ProcessState.ExitCode()
	}
	switch {
	case end.cancelled:
		r.ErrorCode = CodeCancelled
		r.PastTenseMessage = s.Label + " was cancelled"
	case end.timedOut:
		r.ErrorCode = CodeTimeout
		r.PastTenseMessage = fmt.Sprintf("%s timed out after %s", s.Label, s.Timeout)
	case r.ExitCode == 0:
		r.Success = true
		r.PastTenseMessage = "Ran " + s.Label
	default:
		r.ErrorCode = CodeExitStatus
		r.PastTenseMessage = fmt.Sprintf("%s failed with exit code %d", s.Label, r.ExitCode)
		var ee *exec.ExitError
		if errors.As(end.waitErr, &ee) && r.ExitCode < 0 {
			if sig, ok := killedBySignal(ee); ok {
				r.PastTenseMessage = fmt.Sprintf("%s was killed by signal %v", s.Label, sig)
			}
		}
	}
	if !r.Success {
		r.ErrorMessage = r.PastTenseMessage
	}
	return r
}

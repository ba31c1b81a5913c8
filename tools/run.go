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
	pr, pw, err := os.Pipe()
	if err != nil {
		return failure(CodeStartFailed, fmt.Sprintf("could not start %s: %v", s.Label, err))
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
	if err != nil {
		pr.Close()
		pw.Close()
		r := failure(CodeStartFailed, fmt.Sprintf("could not start %s: %v", s.Label, err))
		r.Duration = time.Since(start)
		return r
	}
	// Only the child (and its descendants) hold the write end now, so EOF on
	// pr means they have all exited or closed it.
	pw.Close()

	var (
		mu      sync.Mutex
		buf     = newOutBuf(s.Limit)
		version uint64 // bumped on every write, guarded by mu
	)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		chunk := make([]byte, 64<<10)
		for {
			n, err := pr.Read(chunk)
			if n > 0 {
				if s.OnOutput != nil {
					s.OnOutput(chunk[:n])
				}
				mu.Lock()
				buf.Write(chunk[:n])
				version++
				mu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}()
	waitDone := make(chan error, 1)
	go func() { waitDone <- cmd.Wait() }()

	var sent uint64
	var sentStatus string
	emit := func() {
		if s.Status != nil {
			if text := s.Status(); text != sentStatus {
				sentStatus = text
				onProgress(Progress{Output: text, Elapsed: time.Since(start)})
			}
			return
		}
		mu.Lock()
		if version == sent {
			mu.Unlock()
			return
		}
		sent = version
		text, _ := buf.Text()
		total := buf.total
		mu.Unlock()
		onProgress(Progress{Output: text, TotalBytes: total, Elapsed: time.Since(start)})
	}

	timeout := time.NewTimer(s.Timeout)
	defer timeout.Stop()
	var tick <-chan time.Time
	if onProgress != nil {
		t := time.NewTicker(progressInterval)
		defer t.Stop()
		tick = t.C
	}
	var (
		waitErr      error
		cancelled    bool
		timedOut     bool
		done         = ctx.Done()
		hardKill     *time.Timer
		hardKillC    <-chan time.Time
		startKilling = func() {
			tree.terminate()
			hardKill = time.NewTimer(killGrace)
			hardKillC = hardKill.C
		}
	)
wait:
	for {
		select {
		case waitErr = <-waitDone:
			break wait
		case <-done:
			done = nil
			if !timedOut {
				cancelled = true
				startKilling()
			}
		case <-timeout.C:
			if !cancelled {
				timedOut = true
				startKilling()
			}
		case <-hardKillC:
			hardKillC = nil
			tree.kill()
		case <-tick:
			emit()
		}
	}
	if hardKill != nil {
		hardKill.Stop()
	}
	// The leader is reaped; whatever is left of its tree goes too
	// (including, on Linux, descendants that left the process group).
	tree.release()

	// A process that escaped the tree (where the platform cannot contain
	// it) may still hold the pipe; do not let it keep the call open forever.
	drain := time.NewTimer(drainGrace)
	select {
	case <-readDone:
	case <-drain.C:
		_ = pr.SetReadDeadline(time.Now())
		<-readDone
	}
	drain.Stop()
	pr.Close()
	if onProgress != nil {
		emit()
	}

	mu.Lock()
	text, cut := buf.Text()
	total := buf.total
	mu.Unlock()
	r := Result{
		Output:     text,
		TotalBytes: total,
		CutBytes:   cut,
		ExitCode:   -1,
		Duration:   time.Since(start),
		TimedOut:   timedOut,
		Cancelled:  cancelled,
	}
	if cmd.ProcessState != nil {
		r.ExitCode = cmd.ProcessState.ExitCode()
	}
	switch {
	case cancelled:
		r.ErrorCode = CodeCancelled
		r.PastTenseMessage = s.Label + " was cancelled"
	case timedOut:
		r.ErrorCode = CodeTimeout
		r.PastTenseMessage = fmt.Sprintf("%s timed out after %s", s.Label, s.Timeout)
	case r.ExitCode == 0:
		r.Success = true
		r.PastTenseMessage = "Ran " + s.Label
	default:
		r.ErrorCode = CodeExitStatus
		var ee *exec.ExitError
		if errors.As(waitErr, &ee) && r.ExitCode < 0 {
			if sig, ok := killedBySignal(ee); ok {
				r.PastTenseMessage = fmt.Sprintf("%s was killed by signal %v", s.Label, sig)
				break
			}
		}
		r.PastTenseMessage = fmt.Sprintf("%s failed with exit code %d", s.Label, r.ExitCode)
	}
	if !r.Success {
		r.ErrorMessage = r.PastTenseMessage
	}
	return r
}

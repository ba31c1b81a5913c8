// Package demo runs the whole product once, end to end, and narrates it:
// `ahpls demo [workspace]`. The embedded AHP test host (package ahptest)
// plays the agent host on loopback, so a newcomer sees every job of ahpls
// without installing one — the rules find problems, the workspace is
// published as a virtual plugin, the host reads it back and loads it, and a
// scripted agent turn calls the workspace's test-runner tool, whose output
// streams back. It is also the project's living end-to-end check: every
// step must succeed or Run returns a *StepError naming it. ahpls itself runs
// as it ships: the language server with its agent-host bridge (what `ahpls
// serve` runs), driven over a pipe by an editor stand-in speaking LSP
// (lspeditor.Editor) whose settings name the embedded host.
//
// Start at Run; steps.go holds the steps in order.
package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Options configure one demo run.
type Options struct {
	// Workspace is the folder to demonstrate on; empty means the example
	// workspace shipped in the repository (examples/workspace).
	Workspace string
	// JSON prints one JSON event per line instead of the transcript.
	JSON bool
	// Out receives the transcript (default os.Stdout).
	Out io.Writer
	// Log receives the components' own logs (default: discarded).
	Log io.Writer
	// Timeout bounds the whole run (default 3 minutes).
	Timeout time.Duration
	// ProtocolVersions are what the embedded host supports (default
	// 1.0.0, 0.9.0 and 0.8.0: ahpls negotiates 1.0.0).
	ProtocolVersions []string
	// Pattern is the test-runner tool's input pattern (default "TestAdd|TestMul").
	Pattern string
}

// Event is one line of the transcript; --json prints them as they are.
type Event struct {
	Step string         `json:"step"`
	Text string         `json:"text"`
	Data map[string]any `json:"data,omitempty"`
}

// StepError says which step failed.
type StepError struct {
	Step string
	Err  error
}

func (e *StepError) Error() string { return fmt.Sprintf("demo step %q failed: %v", e.Step, e.Err) }
func (e *StepError) Unwrap() error { return e.Err }

// Steps are the demo's steps in order; each prints under its name.
var Steps = []string{"check", "host", "connect", "publish", "read", "load", "tool"}

// printer writes events either as a transcript or as JSON lines.
type printer struct {
	mu   sync.Mutex
	out  io.Writer
	json bool
	last string
}

func (p *printer) emit(e Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.json {
		b, _ := json.Marshal(e)
		fmt.Fprintf(p.out, "%s\n", b)
		return
	}
	label := ""
	if e.Step != p.last {
		label = "[" + e.Step + "]"
		p.last = e.Step
	}
	for i, line := range strings.Split(e.Text, "\n") {
		if i > 0 {
			label = ""
		}
		fmt.Fprintf(p.out, "%-10s %s\n", label, line)
	}
}

// Run performs the demo. It returns nil when every step succeeded.
func Run(ctx context.Context, opts Options) error {
	if opts.Out == nil {
		opts.Out = os.Stdout
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 3 * time.Minute
	}
	if len(opts.ProtocolVersions) == 0 {
		opts.ProtocolVersions = []string{"1.0.0", "0.9.0", "0.8.0"}
	}
	if opts.Pattern == "" {
		opts.Pattern = "TestAdd|TestMul"
	}
	ws := opts.Workspace
	if ws == "" {
		found, err := FindExampleWorkspace()
		if err != nil {
			return &StepError{Step: "check", Err: err}
		}
		ws = found
	}
	abs, err := filepath.Abs(ws)
	if err != nil {
		return &StepError{Step: "check", Err: err}
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return &StepError{Step: "check", Err: fmt.Errorf("workspace %s is not a folder", ws)}
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	r := &run{opts: opts, ws: abs, p: &printer{out: opts.Out, json: opts.JSON}, start: time.Now()}
	defer r.close()
	return r.all(ctx)
}

// FindExampleWorkspace locates examples/workspace from the working
// directory or the executable's location, walking up to the repository root.
func FindExampleWorkspace() (string, error) {
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if exe, err := os.Executable(); err == nil {
		starts = append(starts, filepath.Dir(exe))
	}
	for _, dir := range starts {
		for {
			cand := filepath.Join(dir, "examples", "workspace")
			if st, err := os.Stat(cand); err == nil && st.IsDir() {
				return cand, nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return "", errors.New("cannot find examples/workspace: run from the ahpls repository or name a workspace: ahpls demo <folder>")
}

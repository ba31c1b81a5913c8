package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/ahpls-dev/ahpls/demo"
)

// runDemo is `ahpls demo [--json] [--verbose] [workspace]`.
func runDemo(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the transcript as JSON events, one per line")
	verbose := fs.Bool("verbose", false, "show the components' logs on stderr")
	timeout := fs.Duration("timeout", 3*time.Minute, "give up after this long")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: ahpls demo [--json] [--verbose] [--timeout 3m] [workspace]")
		fmt.Fprintln(stderr, "Runs ahpls end to end against an embedded AHP test host on loopback.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 1 {
		fs.Usage()
		return 2
	}
	opts := demo.Options{Workspace: fs.Arg(0), JSON: *asJSON, Out: stdout, Timeout: *timeout}
	if *verbose {
		opts.Log = stderr
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := demo.Run(ctx, opts); err != nil {
		var se *demo.StepError
		if errors.As(err, &se) {
			fmt.Fprintf(stderr, "ahpls demo: step %q failed: %v\n", se.Step, se.Err)
		} else {
			fmt.Fprintf(stderr, "ahpls demo: %v\n", err)
		}
		return 1
	}
	return 0
}

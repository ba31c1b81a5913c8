// Command ahpls is the language server for agent customization files and
// its command-line companions. This package is flags and dispatch: `ahpls`
// or `ahpls serve` runs the LSP server over stdio (package server, with the
// agent-host bridge of package bridge), `ahpls check` checks files for CI
// (package check), `ahpls demo` runs the product end to end (package demo),
// `ahpls version` prints the version.
//
// Stdout is the LSP channel in serve mode: everything else logs to stderr.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/ahpls-dev/ahpls/bridge"
	"github.com/ahpls-dev/ahpls/check"
	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/internal/buildinfo"
	"github.com/ahpls-dev/ahpls/server"
	"github.com/ahpls-dev/ahpls/tools"
)

// version is set at build time with -ldflags "-X main.version=…" (release
// archives, npm, the vsix); buildinfo.Version falls back to the module
// version of a `go install` build.
var version = ""

func versionString() string { return buildinfo.Version(version) }

func main() {
	code := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	atExit()
	os.Exit(code)
}

// atExit runs before the process exits; a no-op but in the perf gate's
// slowed-down test build (slowdown_perfgate.go).
var atExit = func() {}

func run(args []string, stdin io.ReadCloser, stdout io.WriteCloser, stderr io.Writer) int {
	cmd := "serve"
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(args, stdin, stdout, stderr)
	case "check":
		return check.Main(args, stdout, stderr, versionString(), diagnostics.Options{ToolsConfig: tools.ConfigProblems})
	case "rules":
		return check.RulesMain(args, stdout, stderr)
	case "mcp":
		return runMCP(args, stdin, stdout, stderr)
	case "list":
		return check.ListMain(args, stdout, stderr)
	case "version", "--version", "-version":
		fmt.Fprintf(stdout, "ahpls %s\n", versionString())
		return 0
	case "demo":
		return runDemo(args, stdout, stderr)
	case "help", "-h", "--help":
		usage(stdout)
		return 0
	default:
		fmt.Fprintf(stderr, "ahpls: unknown command %q\n\n", cmd)
		usage(stderr)
		return 2
	}
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage: ahpls [command]

commands:
  serve     run the language server over stdio (the default)
  check     check customization files: ahpls check [--format text|json|sarif] [paths...]; --explain rule-id
  rules     list every rule with its kinds, level per target and fix tier: ahpls rules [--format text|json]
  mcp       serve the Model Context Protocol over stdio (check, fix, explain, list_customizations): ahpls mcp [--root DIR]...
  list      what each consumer loads from a folder: ahpls list [--targets a,b] [--format text|json] [DIR]
  demo      run ahpls end to end against an embedded agent host: ahpls demo [--json] [workspace]
  version   print the version
`)
}

// stdio joins stdin and stdout into the connection the server reads and
// writes; closing it closes both.
type stdio struct {
	io.ReadCloser
	io.WriteCloser
}

func (s stdio) Close() error {
	err := s.ReadCloser.Close()
	if err2 := s.WriteCloser.Close(); err == nil {
		err = err2
	}
	return err
}

func serve(args []string, stdin io.ReadCloser, stdout io.WriteCloser, stderr io.Writer) int {
	if len(args) > 0 && args[0] != "--stdio" {
		fmt.Fprintf(stderr, "ahpls serve: unexpected argument %q (the server always speaks LSP over stdio)\n", args[0])
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts := server.DefaultOptions()
	// One logger for the whole process: warnings and errors to stderr,
	// the rest to the editor (window/logMessage), #18.
	log := slog.New(server.NewLogHandler(stderr, nil))
	opts.Logger = log
	opts.Version = versionString()
	// The agent-host side (package bridge) follows the `ahpls.host`
	// settings and runs the host link next to the server.
	s, _ := bridge.NewServer(opts, bridge.Config{
		Log:           log,
		ClientVersion: versionString(),
	})
	return s.Serve(ctx, stdio{stdin, stdout})
}

// Command ahpls-mcp is `ahpls mcp`: the Model Context Protocol server
// (package mcpserver) over stdio. It is a binary of its own so the MCP SDK's
// package initialisation (encoding/gob, jsonschema-go, the SDK: about 2 ms
// of CPU and 150 KB per start, measured with GODEBUG=inittrace=1) is not
// paid by every `ahpls check` and `ahpls serve`: `ahpls mcp` execs this
// binary from its own folder or PATH (cmd/ahpls/mcp.go). (jsonschema-go
// alone, ~300 allocations of that init, is in ahpls too since ahpschema
// validates with it, #30.)
//
// Stdout is the MCP channel; everything else goes to stderr.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/mcpserver"
	"github.com/ahpls-dev/ahpls/tools"
)

// rootFlags collects repeated --root folders.
type rootFlags []string

func (r *rootFlags) String() string     { return fmt.Sprint(*r) }
func (r *rootFlags) Set(v string) error { *r = append(*r, v); return nil }

// version is set at build time with -ldflags "-X main.version=…" (release
// archives, npm, the vsix: the tag without its "v"); otherwise the module
// version from the build info is used.
var version = ""

// versionString is the one version both binaries print. A `go install
// …@v0.2.0` build records "v0.2.0" as its module version; the "v" goes, so
// it prints what the release archives, npm and the vsix print ("0.2.0").
// A build from a checkout without VCS stamping records "(devel)".
func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return strings.TrimPrefix(bi.Main.Version, "v")
	}
	return "devel"
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is `ahpls mcp [--root DIR]... [DIR]...`: the MCP server over stdio,
// rooted at the given folders or the current one.
func run(args []string, stdin io.ReadCloser, stdout io.WriteCloser, stderr io.Writer) int {
	fs := flag.NewFlagSet("ahpls mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var roots rootFlags
	fs.Var(&roots, "root", "a folder the tools may read and fix below (repeatable; default: the current folder)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: ahpls mcp [--root DIR]...\n\nServes the Model Context Protocol over stdio: tools check, fix, explain and\nlist_customizations, the rules as ahpls://rules/<id>, and a review prompt.\n\nflags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	roots = append(roots, fs.Args()...)
	if len(roots) == 0 {
		roots = rootFlags{"."}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts := mcpserver.Options{Roots: roots, Version: versionString(), Rules: diagnostics.Options{ToolsConfig: tools.ConfigProblems}}
	if err := mcpserver.Run(ctx, opts, &mcp.IOTransport{Reader: stdin, Writer: stdout}); err != nil && ctx.Err() == nil {
		fmt.Fprintf(stderr, "ahpls mcp: %v\n", err)
		return 1
	}
	return 0
}

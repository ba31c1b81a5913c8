//go:build unix

package main

import (
	"os"
	"syscall"
)

// execMCP replaces this process with ahpls-mcp, so the MCP client talks to
// it directly (its signals and exit code are the server's).
func execMCP(bin string, args []string) {
	_ = syscall.Exec(bin, append([]string{bin}, args...), os.Environ())
}

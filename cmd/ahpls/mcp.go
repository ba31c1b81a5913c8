package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// mcpBinary finds ahpls-mcp (cmd/ahpls-mcp): next to this executable,
// under this executable's name with "ahpls" turned into "ahpls-mcp" (the
// release names: ahpls-linux-amd64 → ahpls-mcp-linux-amd64), else on PATH.
// The MCP server is a binary of its own so the MCP SDK's package
// initialisation is not paid by every other subcommand (issue #33).
func mcpBinary() (string, error) {
	ext := ""
	if runtime.GOOS == "windows" {
		ext = ".exe"
	}
	if self, err := os.Executable(); err == nil {
		dir, base := filepath.Split(self)
		cands := []string{filepath.Join(dir, "ahpls-mcp"+ext)}
		if strings.HasPrefix(base, "ahpls") {
			cands = append(cands, filepath.Join(dir, "ahpls-mcp"+strings.TrimPrefix(base, "ahpls")))
		}
		for _, c := range cands {
			if st, err := os.Stat(c); err == nil && st.Mode().IsRegular() {
				return c, nil
			}
		}
	}
	p, err := exec.LookPath("ahpls-mcp")
	if err != nil {
		return "", errors.New("ahpls mcp needs the ahpls-mcp binary next to ahpls or on PATH (go install github.com/ahpls-dev/ahpls/cmd/...@latest, or `make build`)")
	}
	return p, nil
}

// runMCP is `ahpls mcp`: it runs ahpls-mcp with the same arguments and
// standard streams (on Unix it replaces this process: mcp_exec_unix.go).
func runMCP(args []string, stdin io.ReadCloser, stdout io.WriteCloser, stderr io.Writer) int {
	bin, err := mcpBinary()
	if err != nil {
		fmt.Fprintf(stderr, "ahpls mcp: %v\n", err)
		return 2
	}
	if stdin == os.Stdin && stdout == os.Stdout {
		execMCP(bin, args) // returns only if the exec failed
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		fmt.Fprintf(stderr, "ahpls mcp: %v\n", err)
		return 2
	}
	return 0
}

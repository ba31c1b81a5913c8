package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// pathSeps are the characters that make argv[0] a path, not a PATH name.
const pathSeps = `/\`

// programExts are the only program kinds a tool may start on Windows.
// Batch files (.bat, .cmd) are refused: CreateProcess runs them through
// cmd.exe, which re-parses the arguments as shell text, and a tool value
// must never be shell text. Run `cmd /c` explicitly in a tool's argv if a
// workspace really needs one (the value is then visibly shell input).
var programExts = []string{".exe", ".com"}

// programCandidates lists the files argv[0] may name: itself when it has
// an allowed extension, else itself with each allowed extension, as
// Windows' own PATH lookup does.
func programCandidates(p string) []string {
	ext := strings.ToLower(filepath.Ext(p))
	for _, e := range programExts {
		if ext == e {
			return []string{p}
		}
	}
	out := make([]string, 0, len(programExts))
	for _, e := range programExts {
		out = append(out, p+e)
	}
	return out
}

func checkExecutable(p string) error {
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	ext := strings.ToLower(filepath.Ext(p))
	if !st.Mode().IsRegular() || (ext != ".exe" && ext != ".com") {
		return fmt.Errorf("%s is not an executable file (.exe or .com)", p)
	}
	return nil
}

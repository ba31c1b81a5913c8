//go:build !windows

package tools

import (
	"fmt"
	"os"
)

// pathSeps are the characters that make argv[0] a path, not a PATH name.
const pathSeps = "/"

// programCandidates lists the files argv[0] may name; on Unix exactly one.
func programCandidates(p string) []string { return []string{p} }

func checkExecutable(p string) error {
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file", p)
	}
	return nil
}

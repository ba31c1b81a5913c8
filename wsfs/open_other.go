//go:build !unix

package wsfs

import "os"

// openNoBlock opens p for reading. Outside Unix there are no FIFOs in the
// file system namespace (Windows named pipes live under \\.\pipe\, which
// EvalSymlinks and Lstat already refuse as non-regular), so a plain open
// cannot block; the fstat check after it still applies.
func openNoBlock(p string) (*os.File, error) { return os.Open(p) }

func isELOOP(error) bool { return false }

// readOpen is readOpenFile outside Unix (into is only a hint there).
func readOpen(shown, p string, limit int64, into []byte) ([]byte, error) {
	return readOpenFile(shown, p, limit)
}

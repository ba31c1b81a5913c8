//go:build unix

package wsfs

import (
	"errors"
	"os"
	"syscall"
)

// openNoBlock opens p for reading without waiting for a writer (a FIFO
// swapped in after Lstat) and without following a final symlink.
func openNoBlock(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
}

func isELOOP(err error) bool { return errors.Is(err, syscall.ELOOP) }

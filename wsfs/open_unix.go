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

// readOpen is readOpenFile on raw descriptors: the same open flags, the
// same fstat check and the same limit, without an *os.File (whose open
// tries, and fails, to register each regular file with the poller: one
// wasted epoll_ctl per file in a large check). Anything but a regular
// file goes to readOpenFile, which phrases the refusal. The text is read
// into into's storage when it is large enough.
func readOpen(shown, p string, limit int64, into []byte) ([]byte, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(p, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, statErr(shown, &os.PathError{Op: "open", Path: p, Err: err})
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, statErr(shown, &os.PathError{Op: "stat", Path: p, Err: err})
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return readOpenFile(shown, p, limit)
	}
	size := int64(st.Size)
	if limit > 0 && size > limit {
		size = limit
	}
	buf := into[:0]
	if int64(cap(buf)) < size+1 {
		buf = make([]byte, 0, size+1)
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		room := cap(buf) - len(buf)
		if limit > 0 && int64(len(buf)+room) > limit {
			room = int(limit - int64(len(buf)))
		}
		if room <= 0 {
			return buf, nil // limit reached, as io.LimitReader stops
		}
		n, err := syscall.Read(fd, buf[len(buf):len(buf)+room])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, statErr(shown, &os.PathError{Op: "read", Path: p, Err: err})
		}
		if n <= 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
		if int64(len(buf)) == int64(st.Size) && (limit <= 0 || int64(st.Size) < limit) {
			// All fstat promised: the text as it was when opened, without
			// a second read to hear EOF (a file checked is read once).
			return buf, nil
		}
	}
}

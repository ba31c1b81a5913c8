//go:build linux

package wsfs

import (
	"encoding/binary"
	"io/fs"
	"os"
	"sync"
	"syscall"
)

// direntBufs hold getdents64 results; one 32 KB read lists most folders in
// one call.
var direntBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// listDir lists dir with getdents64 on a raw descriptor: no *os.File (whose
// open costs an fstat and a poller probe), no lstat per entry (the type
// comes from the listing; DT_UNKNOWN falls back to lstat), no sort (the
// walker sorts). A large repository has thousands of folders, so this is
// most of the walk's cost. A folder below the walk's start (follow false)
// is opened with O_NOFOLLOW: one swapped for a symlink after its parent was
// listed is not entered.
func listDir(dir string, follow bool) ([]dirEntry, error) {
	flags := syscall.O_RDONLY | syscall.O_DIRECTORY | syscall.O_CLOEXEC | syscall.O_NONBLOCK
	if !follow {
		flags |= syscall.O_NOFOLLOW
	}
	var fd int
	var err error
	for {
		fd, err = syscall.Open(dir, flags, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	defer syscall.Close(fd)
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	var out []dirEntry
	for {
		n, err := syscall.ReadDirent(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return out, &os.PathError{Op: "getdents", Path: dir, Err: err}
		}
		if n <= 0 {
			return out, nil
		}
		out = appendDirents(out, dir, buf[:n])
	}
}

// linux_dirent64: d_ino (8), d_off (8), d_reclen (2), d_type (1), d_name
// (NUL-terminated, padded to d_reclen).
const direntNameOff = 19

func appendDirents(out []dirEntry, dir string, b []byte) []dirEntry {
	for len(b) >= direntNameOff {
		reclen := int(binary.NativeEndian.Uint16(b[16:18]))
		if reclen < direntNameOff || reclen > len(b) {
			break // malformed: stop rather than misread
		}
		name := b[direntNameOff:reclen]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		typ := b[18]
		b = b[reclen:]
		if len(name) == 0 || (name[0] == '.' && (len(name) == 1 || (len(name) == 2 && name[1] == '.'))) {
			continue
		}
		e := dirEntry{name: string(name)}
		switch typ {
		case syscall.DT_REG:
		case syscall.DT_DIR:
			e.typ = fs.ModeDir
		case syscall.DT_LNK:
			e.typ = fs.ModeSymlink
		case syscall.DT_FIFO:
			e.typ = fs.ModeNamedPipe
		case syscall.DT_SOCK:
			e.typ = fs.ModeSocket
		case syscall.DT_CHR:
			e.typ = fs.ModeDevice | fs.ModeCharDevice
		case syscall.DT_BLK:
			e.typ = fs.ModeDevice
		default: // DT_UNKNOWN: some file systems do not say
			st, err := os.Lstat(dir + "/" + e.name)
			if err != nil {
				continue // gone since the listing
			}
			e.typ = st.Mode().Type()
		}
		out = append(out, e)
	}
	return out
}

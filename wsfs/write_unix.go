//go:build unix

package wsfs

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"

	"golang.org/x/sys/unix"
)

// writeHandle is the root folder's descriptor: every path below it is
// opened component by component with openat(O_NOFOLLOW), so no symlink,
// whenever it appears, leads a write out of the root.
type writeHandle struct{ fd int }

func openWriteHandle(real string) (writeHandle, error) {
	fd, err := retry(func() (int, error) {
		return unix.Open(real, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	})
	if err != nil {
		return writeHandle{-1}, &os.PathError{Op: "open", Path: real, Err: err}
	}
	return writeHandle{fd}, nil
}

func (h writeHandle) close() error { return unix.Close(h.fd) }

// retry repeats a call interrupted by a signal.
func retry(f func() (int, error)) (int, error) {
	for {
		n, err := f()
		if err != unix.EINTR {
			return n, err
		}
	}
}

// openDir opens the folder dir (slash-separated, real: no symlinks) below
// the root without following any symlink on the way.
func (h writeHandle) openDir(shown, dir string) (int, error) {
	cur, err := retry(func() (int, error) {
		return unix.Openat(h.fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	})
	if err != nil {
		return -1, statErr(shown, err)
	}
	if dir == "." || dir == "" {
		return cur, nil
	}
	for _, name := range strings.Split(dir, "/") {
		next, err := retry(func() (int, error) {
			return unix.Openat(cur, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		})
		unix.Close(cur)
		if err != nil {
			if err == unix.ELOOP || err == unix.ENOTDIR {
				// Resolved a moment ago as a real folder: swapped since.
				return -1, changedErr(shown)
			}
			return -1, statErr(shown, err)
		}
		cur = next
	}
	return cur, nil
}

func (h writeHandle) replace(shown, in string, old, data []byte) error {
	dirfd, err := h.openDir(shown, path.Dir(in))
	if err != nil {
		return err
	}
	defer unix.Close(dirfd)
	name := path.Base(in)
	fd, err := retry(func() (int, error) {
		return unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	})
	if err != nil {
		if err == unix.ELOOP {
			return changedErr(shown)
		}
		return statErr(shown, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return statErr(shown, err)
	}
	if uint32(st.Mode)&unix.S_IFMT != unix.S_IFREG {
		return &Error{Path: shown, Reason: NotRegular, Detail: Describe(modeOf(uint32(st.Mode)))}
	}
	if uint64(st.Nlink) > 1 {
		return hardLinkErr(shown, uint64(st.Nlink))
	}
	if err := sameText(shown, fd, old); err != nil {
		return err
	}
	tmp := tempName(name)
	var mine unix.Stat_t
	if err := writeTemp(shown, dirfd, tmp, data, &st, &mine); err != nil {
		return err
	}
	committed := false
	defer func() {
		if !committed {
			removeIfMine(dirfd, tmp, &mine)
		}
	}()
	if beforeCommit != nil {
		beforeCommit(shown)
	}
	// The last look before the swap: the same file, one link, the same
	// text. What changes after this is caught by commit (Linux) or is an
	// editor's save racing us by microseconds.
	if err := h.sameDir(shown, path.Dir(in), dirfd); err != nil {
		return err
	}
	if err := sameEntry(shown, dirfd, name, &st); err != nil {
		return err
	}
	if err := sameText(shown, fd, old); err != nil {
		return err
	}
	if err := commit(shown, dirfd, tmp, name, &st, &mine); err != nil {
		return err
	}
	committed = true
	_ = unix.Fsync(dirfd)
	return nil
}

// sameDir checks that the folder dir, opened again from the root, is still
// the one dirfd holds: a folder moved away and replaced (by a link out, or
// anything else) since it was opened refuses the write.
func (h writeHandle) sameDir(shown, dir string, dirfd int) error {
	again, err := h.openDir(shown, dir)
	if err != nil {
		return err
	}
	defer unix.Close(again)
	var a, b unix.Stat_t
	if unix.Fstat(again, &a) != nil || unix.Fstat(dirfd, &b) != nil || a.Dev != b.Dev || a.Ino != b.Ino {
		return changedErr(shown)
	}
	return nil
}

// sameEntry checks that name in dirfd is still the regular file st
// describes, with no other link.
func sameEntry(shown string, dirfd int, name string, st *unix.Stat_t) error {
	var now unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &now, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return changedErr(shown)
		}
		return statErr(shown, err)
	}
	if now.Dev != st.Dev || now.Ino != st.Ino || uint32(now.Mode)&unix.S_IFMT != unix.S_IFREG {
		return changedErr(shown)
	}
	if uint64(now.Nlink) > 1 {
		return hardLinkErr(shown, uint64(now.Nlink))
	}
	return nil
}

// sameText reads the open file from its start and compares it with old.
func sameText(shown string, fd int, old []byte) error {
	buf := make([]byte, len(old)+1)
	n := 0
	for n < len(buf) {
		m, err := unix.Pread(fd, buf[n:], int64(n))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return statErr(shown, err)
		}
		if m == 0 {
			break
		}
		n += m
	}
	if !bytes.Equal(buf[:n], old) {
		return changedErr(shown)
	}
	return nil
}

// writeTemp creates tmp in dirfd with data, the owner and the mode of st
// (owner first: chown clears setuid/setgid), synced.
func writeTemp(shown string, dirfd int, tmp string, data []byte, st, mine *unix.Stat_t) error {
	tfd, err := retry(func() (int, error) {
		return unix.Openat(dirfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	})
	if err != nil {
		return statErr(shown, err)
	}
	fail := func(err error) error {
		unix.Close(tfd)
		unix.Unlinkat(dirfd, tmp, 0)
		return err
	}
	for rest := data; len(rest) > 0; {
		n, err := unix.Write(tfd, rest)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fail(statErr(shown, err))
		}
		rest = rest[n:]
	}
	if err := unix.Fchown(tfd, int(st.Uid), int(st.Gid)); err != nil {
		var me unix.Stat_t
		if unix.Fstat(tfd, &me) != nil || me.Uid != st.Uid || me.Gid != st.Gid {
			return fail(&Error{Path: shown, Reason: OwnerLost, Detail: "ahpls cannot give the new text the file's owner and group, so it leaves the file alone (apply the fix as its owner)"})
		}
	}
	if err := unix.Fchmod(tfd, uint32(st.Mode)&0o7777); err != nil {
		return fail(statErr(shown, err))
	}
	if err := unix.Fsync(tfd); err != nil {
		return fail(statErr(shown, err))
	}
	if err := unix.Fstat(tfd, mine); err != nil {
		return fail(statErr(shown, err))
	}
	if err := unix.Close(tfd); err != nil {
		unix.Unlinkat(dirfd, tmp, 0)
		return statErr(shown, err)
	}
	return nil
}

func (h writeHandle) rename(shown, from, to string) error {
	fd1, err := h.openDir(shown, path.Dir(from))
	if err != nil {
		return err
	}
	defer unix.Close(fd1)
	fd2, err := h.openDir(shown, path.Dir(to))
	if err != nil {
		return err
	}
	defer unix.Close(fd2)
	var st unix.Stat_t
	if err := unix.Fstatat(fd1, path.Base(from), &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return statErr(shown, err)
	}
	var there unix.Stat_t
	if err := unix.Fstatat(fd2, path.Base(to), &there, unix.AT_SYMLINK_NOFOLLOW); err == nil && (there.Dev != st.Dev || there.Ino != st.Ino) {
		return &Error{Path: shown, Reason: Exists, Detail: "already exists"}
	}
	if err := renameNoReplace(fd1, path.Base(from), fd2, path.Base(to)); err != nil {
		if errors.Is(err, unix.EEXIST) {
			return &Error{Path: shown, Reason: Exists, Detail: "already exists"}
		}
		return statErr(shown, err)
	}
	return nil
}

// modeOf turns a raw st_mode type into an fs.FileMode for Describe.
func modeOf(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		return fs.ModeDevice
	}
	return fs.ModeIrregular
}

// plainCommit renames tmp over name (renameat never follows a symlink at
// name: a link swapped in is replaced, not written through).
func plainCommit(shown string, dirfd int, tmp, name string) error {
	if err := unix.Renameat(dirfd, tmp, dirfd, name); err != nil {
		return statErr(shown, err)
	}
	return nil
}

// removeIfMine unlinks tmp only while it is still the temporary file ahpls
// wrote (mine): after a lost race the name may hold someone else's file,
// and that is never deleted.
func removeIfMine(dirfd int, tmp string, mine *unix.Stat_t) {
	var now unix.Stat_t
	if unix.Fstatat(dirfd, tmp, &now, unix.AT_SYMLINK_NOFOLLOW) == nil && now.Dev == mine.Dev && now.Ino == mine.Ino {
		unix.Unlinkat(dirfd, tmp, 0)
	}
}

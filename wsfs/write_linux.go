//go:build linux

package wsfs

import (
	"golang.org/x/sys/unix"
)

// commit puts tmp in name's place. Linux swaps the two entries in one step
// (RENAME_EXCHANGE) and then looks at what it took out: if that is not the
// file checked a moment ago (an editor saved, or someone swapped in a
// link), it swaps back and refuses, so nobody's text is lost. File systems
// without the flag get a plain rename.
func commit(shown string, dirfd int, tmp, name string, st *unix.Stat_t) error {
	err := unix.Renameat2(dirfd, tmp, dirfd, name, unix.RENAME_EXCHANGE)
	if err == unix.EINVAL || err == unix.ENOSYS || err == unix.EOPNOTSUPP {
		return plainCommit(shown, dirfd, tmp, name)
	}
	if err != nil {
		return statErr(shown, err)
	}
	var was unix.Stat_t
	if err := unix.Fstatat(dirfd, tmp, &was, unix.AT_SYMLINK_NOFOLLOW); err != nil || was.Dev != st.Dev || was.Ino != st.Ino || was.Nlink > 1 {
		if unix.Renameat2(dirfd, tmp, dirfd, name, unix.RENAME_EXCHANGE) != nil {
			// Cannot swap back: keep both, under the names they have now,
			// rather than delete anything.
			return &Error{Path: shown, Reason: Changed, Detail: "changed on disk while ahpls wrote it; the other version is kept beside it as " + tmp}
		}
		return changedErr(shown)
	}
	if err := unix.Unlinkat(dirfd, tmp, 0); err != nil {
		return statErr(shown, err)
	}
	return nil
}

// renameNoReplace renames without ever replacing an existing entry.
func renameNoReplace(fd1 int, from string, fd2 int, to string) error {
	err := unix.Renameat2(fd1, from, fd2, to, unix.RENAME_NOREPLACE)
	if err == unix.EINVAL || err == unix.ENOSYS || err == unix.EOPNOTSUPP {
		return unix.Renameat(fd1, from, fd2, to)
	}
	return err
}

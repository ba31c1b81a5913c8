//go:build linux

package wsfs

import (
	"golang.org/x/sys/unix"
)

// commit puts tmp in name's place. Linux swaps the two entries in one step
// (RENAME_EXCHANGE) and then looks at what it took out:
//   - the file checked a moment ago: done, the old file is removed;
//   - another regular file (an editor saved): swap back and refuse, so
//     nobody's text is lost;
//   - a symlink swapped in: it stays out, as a plain rename over it would
//     have left it, and the write is reported as refused. Swapping a link
//     back would hand whoever is moving entries around a different entry
//     than the one they moved, and their next rename could then destroy
//     the real file.
//
// File systems without the flag get a plain rename. mine is the temporary
// file ahpls wrote; nothing but mine or a symlink ahpls itself took out of
// name's place is ever deleted.
func commit(shown string, dirfd int, tmp, name string, st, mine *unix.Stat_t) error {
	if beforeExchange != nil {
		beforeExchange()
	}
	err := unix.Renameat2(dirfd, tmp, dirfd, name, unix.RENAME_EXCHANGE)
	if err == unix.EINVAL || err == unix.ENOSYS || err == unix.EOPNOTSUPP {
		return plainCommit(shown, dirfd, tmp, name)
	}
	if err != nil {
		return statErr(shown, err)
	}
	if afterExchange != nil {
		afterExchange()
	}
	var was unix.Stat_t
	if err := unix.Fstatat(dirfd, tmp, &was, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return &Error{Path: shown, Reason: Changed, Detail: "changed on disk while ahpls wrote it; what was there may be kept beside it as " + tmp}
	}
	if same(&was, st) && was.Nlink <= 1 {
		if err := unix.Unlinkat(dirfd, tmp, 0); err != nil {
			return statErr(shown, err)
		}
		return nil
	}
	switch uint32(was.Mode) & unix.S_IFMT {
	case unix.S_IFREG:
		return swapBack(shown, dirfd, tmp, name, &was, mine)
	case unix.S_IFLNK:
		unix.Unlinkat(dirfd, tmp, 0)
		return &Error{Path: shown, Reason: Changed, Detail: "was replaced by a symlink while ahpls wrote it; the new text took the link's place (nothing the link led to was touched)"}
	}
	return &Error{Path: shown, Reason: Changed, Detail: "was replaced while ahpls wrote it; what was there is kept beside it as " + tmp}
}

// swapBack undoes an exchange that took out was (not the checked file).
// After the swap, tmp should hold mine again. If it holds something else,
// a writer put that under name after the exchange: it is newer than was, so
// it goes back under name, and was stays under tmp (a symlink, which holds
// no text, is removed).
func swapBack(shown string, dirfd int, tmp, name string, was, mine *unix.Stat_t) error {
	kept := &Error{Path: shown, Reason: Changed, Detail: "changed on disk while ahpls wrote it; the other version is kept beside it as " + tmp}
	if unix.Renameat2(dirfd, tmp, dirfd, name, unix.RENAME_EXCHANGE) != nil {
		return kept
	}
	var now unix.Stat_t
	if unix.Fstatat(dirfd, tmp, &now, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return kept
	}
	if same(&now, mine) {
		unix.Unlinkat(dirfd, tmp, 0)
		return changedErr(shown)
	}
	// Someone's newer file is under tmp, was is back under name: swap once
	// more so the newer file has the name.
	if unix.Renameat2(dirfd, tmp, dirfd, name, unix.RENAME_EXCHANGE) != nil {
		return kept
	}
	if unix.Fstatat(dirfd, tmp, &now, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return kept
	}
	if same(&now, was) && uint32(now.Mode)&unix.S_IFMT == unix.S_IFLNK {
		unix.Unlinkat(dirfd, tmp, 0)
		return changedErr(shown)
	}
	return kept
}

// beforeExchange and afterExchange, when set (tests), run just before and
// just after the swap, where only another writer's exact timing can act.
var beforeExchange, afterExchange func()

func same(a, b *unix.Stat_t) bool { return a.Dev == b.Dev && a.Ino == b.Ino }

// renameNoReplace renames without ever replacing an existing entry.
func renameNoReplace(fd1 int, from string, fd2 int, to string) error {
	err := unix.Renameat2(fd1, from, fd2, to, unix.RENAME_NOREPLACE)
	if err == unix.EINVAL || err == unix.ENOSYS || err == unix.EOPNOTSUPP {
		return unix.Renameat(fd1, from, fd2, to)
	}
	return err
}

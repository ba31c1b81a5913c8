//go:build unix && !linux

package wsfs

import (
	"golang.org/x/sys/unix"
)

// commit puts tmp in name's place with renameat, which replaces the entry
// itself and never writes through a symlink that took name's place.
func commit(shown string, dirfd int, tmp, name string, _, _ *unix.Stat_t) error {
	return plainCommit(shown, dirfd, tmp, name)
}

// renameNoReplace renames; the caller checked that the target is absent.
func renameNoReplace(fd1 int, from string, fd2 int, to string) error {
	return unix.Renameat(fd1, from, fd2, to)
}

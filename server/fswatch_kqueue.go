//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package server

import (
	"errors"
	"os"
	"syscall"

	"github.com/fsnotify/fsnotify"
)

// budgetUnit names what the budget counts, for the message that it ran out.
const budgetUnit = "a quarter of the open-file limit"

// watchBudget is how many files the server's watcher may keep open: kqueue
// needs an open file for every watched folder and for every entry in it,
// so the budget is a quarter of the process's open-file limit (which Go
// raises to the hard limit at start), never more than 65536.
func watchBudget() int {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 256
	}
	n := min(uint64(r.Cur), 1<<20)
	return max(64, min(int(n/4), 65536))
}

// watchCost is what watching one folder costs: the folder and each of its
// entries (fsnotify's kqueue backend opens them all).
func watchCost(dir string) int {
	f, err := os.Open(dir) // wsfs:ok only counts the entries the watcher opens itself; no file is read
	if err != nil {
		return 1
	}
	defer f.Close()
	names, _ := f.Readdirnames(-1)
	return 1 + len(names)
}

func addWatch(w *fsnotify.Watcher, dir string) error { return w.Add(dir) }

// limitErr reports the system refusing a watch: no file left.
func limitErr(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)
}

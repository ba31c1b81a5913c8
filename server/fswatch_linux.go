//go:build linux

package server

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/fsnotify/fsnotify"
)

// budgetUnit names what the budget counts, for the message that it ran out.
const budgetUnit = "a quarter of fs.inotify.max_user_watches"

// watchBudget is how many folders the server watches itself: inotify takes
// one watch per folder from the user's fs.inotify.max_user_watches, which
// the editor's own watcher and every other program of the user share, so
// the server takes at most a quarter of it (and never more than 65536).
func watchBudget() int {
	b, err := os.ReadFile("/proc/sys/fs/inotify/max_user_watches")
	if err != nil {
		return 2048
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || n <= 0 {
		return 2048
	}
	return max(1, min(n/4, 65536))
}

// watchCost is what watching one folder costs of the budget: one inotify
// watch, whatever the folder holds.
func watchCost(string) int { return 1 }

func addWatch(w *fsnotify.Watcher, dir string) error { return w.Add(dir) }

// limitErr reports the system refusing a watch: no inotify watch left for
// the user (ENOSPC) or no file left for the process.
func limitErr(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)
}

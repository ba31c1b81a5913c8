//go:build windows

package server

import (
	"errors"
	"syscall"

	"github.com/fsnotify/fsnotify"
)

// budgetUnit names what the budget counts, for the message that it ran out.
const budgetUnit = "2048 folders of 16 KiB event buffers"

// watchBudget is how many folders the server watches itself:
// ReadDirectoryChangesW takes a handle and an event buffer per folder; with
// 16 KiB buffers (fsnotify's default is 64 KiB) 2048 folders hold 32 MiB.
func watchBudget() int { return 2048 }

// watchCost is what watching one folder costs: one handle and buffer.
func watchCost(string) int { return 1 }

func addWatch(w *fsnotify.Watcher, dir string) error {
	return w.AddWith(dir, fsnotify.WithBufferSize(16<<10))
}

// limitErr reports the system refusing a watch: out of memory or handles.
func limitErr(err error) bool {
	// ERROR_NOT_ENOUGH_MEMORY (8), ERROR_NO_SYSTEM_RESOURCES (1450)
	return errors.Is(err, syscall.Errno(8)) || errors.Is(err, syscall.Errno(1450))
}

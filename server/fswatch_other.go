//go:build !linux && !windows && !darwin && !dragonfly && !freebsd && !netbsd && !openbsd

package server

import "github.com/fsnotify/fsnotify"

// budgetUnit names what the budget counts, for the message that it ran out.
const budgetUnit = "1024 folders"

// watchBudget is how many folders the server watches itself where fsnotify
// has no backend or one not measured here (illumos's FEN).
func watchBudget() int { return 1024 }

func watchCost(string) int { return 1 }

func addWatch(w *fsnotify.Watcher, dir string) error { return w.Add(dir) }

func limitErr(error) bool { return false }

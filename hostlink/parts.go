package hostlink

// Small parts of the Link, one job and one lock each: the queue of file
// changes waiting for the debounce, the connection status shown to the
// editor, and what the editor shows per file (the board's).

import (
	"context"
	"path/filepath"
	"sort"
	"sync"
	"time"
)

// changeQueue collects changed paths until the debounce lets them through.
type changeQueue struct {
	mu      sync.Mutex
	pending map[string]bool // guarded by mu
	kick    chan struct{}   // one token: something was added
}

func newChangeQueue() *changeQueue {
	return &changeQueue{pending: map[string]bool{}, kick: make(chan struct{}, 1)}
}

// add queues paths (cleaned) and wakes the loop.
func (q *changeQueue) add(paths ...string) {
	q.mu.Lock()
	for _, p := range paths {
		q.pending[filepath.Clean(p)] = true
	}
	q.mu.Unlock()
	select {
	case q.kick <- struct{}{}:
	default:
	}
}

// take empties the queue, sorted.
func (q *changeQueue) take() []string {
	q.mu.Lock()
	paths := make([]string, 0, len(q.pending))
	for p := range q.pending {
		paths = append(paths, p)
	}
	q.pending = map[string]bool{}
	q.mu.Unlock()
	sort.Strings(paths)
	return paths
}

// loop calls apply once changes have been quiet for delay, or at the
// latest 10×delay after the first of a burst: continuous typing must not
// hold publication back for ever. It returns when ctx ends.
func (q *changeQueue) loop(ctx context.Context, delay time.Duration, apply func()) {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	var first time.Time // start of the current burst; zero when idle
	for {
		select {
		case <-ctx.Done():
			return
		case <-q.kick:
			now := time.Now()
			if first.IsZero() {
				first = now
			}
			wait := delay
			if rest := first.Add(10 * delay).Sub(now); rest < wait {
				wait = max(rest, 0)
			}
			timer.Stop()
			select {
			case <-timer.C:
			default:
			}
			timer.Reset(wait)
		case <-timer.C:
			first = time.Time{}
			apply()
		}
	}
}

// statusBox is the connection status last reported to the editor.
type statusBox struct {
	mu      sync.Mutex
	state   string // guarded by mu
	message string // guarded by mu
}

// set records a status and reports whether it changed.
func (s *statusBox) set(state, message string) (changed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	changed = s.state != state || s.message != message
	s.state, s.message = state, message
	return changed
}

func (s *statusBox) get() (state, message string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state, s.message
}

// shownSets remembers, per file, the diagnostics set the editor shows, so
// a set is sent only when it changed.
type shownSets struct {
	// mu is held across a publication's Editor calls: two publishers
	// computing and sending could otherwise deliver an older set last.
	mu     sync.Mutex
	byPath map[string]string // guarded by mu: file → key of the set shown
}

// changedLocked records key ("" = nothing shown) for p and reports whether
// it differs from what is shown.
func (s *shownSets) changedLocked(p, key string) bool {
	if s.byPath[p] == key {
		return false
	}
	if key == "" {
		delete(s.byPath, p)
	} else {
		s.byPath[p] = key
	}
	return true
}

// pathsLocked lists the files with something shown, sorted.
func (s *shownSets) pathsLocked() []string {
	out := make([]string, 0, len(s.byPath))
	for p := range s.byPath {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

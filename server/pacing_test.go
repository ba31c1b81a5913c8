package server

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// simulateTyping replays edits at the given offsets through editDelay in
// virtual time, as fileEvent does: a zero delay starts a check at once, a
// positive one (re)arms the file's one timer, which starts a check when it
// fires before the next edit. It returns how many checks ran and how long
// after the last edit the last check started.
func simulateTyping(edits []time.Duration) (checks int, finalLag time.Duration) {
	fs := &fileState{}
	t0 := time.Unix(1_000_000, 0)
	var timer time.Time // zero: no timer armed
	for i, at := range edits {
		now := t0.Add(at)
		if !timer.IsZero() && !timer.After(now) {
			checks++
			fs.lastStart = timer
		}
		timer = time.Time{}
		if d := editDelay(fs, now, true); d == 0 {
			checks++
			fs.lastStart = now
			if i == len(edits)-1 {
				return checks, 0
			}
		} else {
			timer = now.Add(d)
		}
	}
	checks++
	return checks, timer.Sub(t0.Add(edits[len(edits)-1]))
}

func TestEditPacing(t *testing.T) {
	every := func(n int, gap time.Duration, jitterEvery int, jitter time.Duration) []time.Duration {
		var out []time.Duration
		at := time.Duration(0)
		for i := range n {
			if i > 0 {
				at += gap
				if jitterEvery > 0 && i%jitterEvery == 0 {
					at += jitter
				}
			}
			out = append(out, at)
		}
		return out
	}
	for _, tc := range []struct {
		name      string
		edits     []time.Duration
		maxChecks int
		maxLag    time.Duration
	}{
		{"one edit on an idle file: checked at once", every(1, 0, 0, 0), 1, 0},
		{"keystrokes a human types (150 ms): each checked at once", every(10, 150*time.Millisecond, 0, 0), 10, 0},
		{"50 edits at 10 ms", every(50, 10*time.Millisecond, 0, 0), 5, burstQuiet},
		// A late keystroke looks like the end of the burst: one extra check.
		{"50 edits at 10 ms, every 10th 8 ms late", every(50, 10*time.Millisecond, 10, 8*time.Millisecond), 10, burstQuiet},
		// Long typing: the first edit, one check per interval, the last.
		{"500 edits at 10 ms: one check per interval", every(500, 10*time.Millisecond, 0, 0), int(5*time.Second/burstInterval) + 2, burstQuiet},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checks, lag := simulateTyping(tc.edits)
			assert.LessOrEqual(t, checks, tc.maxChecks, "checks")
			assert.LessOrEqual(t, lag, tc.maxLag, "the final text waits this long after the last edit")
			assert.GreaterOrEqual(t, checks, 1)
		})
	}
}

// Without pacing (Debounce 0, as tests and `ahpls demo` run) every edit is
// checked at once.
func TestEditPacingOff(t *testing.T) {
	fs := &fileState{}
	now := time.Unix(1_000_000, 0)
	for i := range 5 {
		assert.Zero(t, editDelay(fs, now.Add(time.Duration(i)*time.Millisecond), false))
	}
}

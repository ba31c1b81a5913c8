package wsfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSeenAnswersFromTheWalk walks a real tree into a Seen and asks it
// what the rules ask: each answer is either known (and then must match the
// disk) or left to the disk.
func TestSeenAnswersFromTheWalk(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"a/SKILL.md", "a/references/r.md", "b/x.md", "build/out.md", "ign/i.md"} {
		p := filepath.Join(root, filepath.FromSlash(f))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("x"), 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(root, ".gitignore"), []byte("ign/\n"), 0o644))
	if err := os.Symlink("a", filepath.Join(root, "link")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	ex, err := NewMatcher([]string{"build"})
	require.NoError(t, err)
	s := NewSeen(ex)
	opt := WalkOptions{Exclude: ex, Listed: s.Listed, GitIgnore: true, Skipped: func(e Entry, why SkipReason) {
		if why == SkipGitIgnored {
			s.Saw(e)
		}
	}}
	require.NoError(t, Walk(root, opt, func(Entry) error { return nil }))

	tests := []struct {
		rel          string
		known        bool // Stat answers without the disk
		exists       bool // when known
		dir          bool
		absent, real bool
	}{
		{rel: "a/SKILL.md", known: true, exists: true},
		{rel: "a/references", known: true, exists: true, dir: true, real: true},
		{rel: "a/missing.md", known: true, absent: true},
		{rel: "nowhere/deeper/x.md", absent: true},                     // its folder is absent
		{rel: "build/out.md"},                                          // excluded: may exist
		{rel: "build"},                                                 // excluded
		{rel: "ign", known: true, exists: true, dir: true, real: true}, // gitignored but seen
		{rel: "link"},          // a symlink: its target decides
		{rel: "link/SKILL.md"}, // below a symlink: never listed
		{rel: "../escape"},     // not a valid path
		{rel: "."},
	}
	for _, tc := range tests {
		t.Run(tc.rel, func(t *testing.T) {
			fi, err, known := s.Stat(tc.rel)
			require.Equal(t, tc.known, known, "known")
			if known {
				if tc.exists {
					require.NoError(t, err)
					require.Equal(t, tc.dir, fi.IsDir())
					require.Equal(t, filepath.Base(tc.rel), fi.Name())
				} else {
					require.True(t, errors.Is(err, fs.ErrNotExist), "%v", err)
					require.Equal(t, NotExist, ReasonOf(err))
				}
				// What the walk says must be what the disk says.
				_, derr := os.Lstat(filepath.Join(root, filepath.FromSlash(tc.rel)))
				require.Equal(t, tc.exists, derr == nil)
			}
			require.Equal(t, tc.absent, s.Absent(tc.rel), "absent")
			require.Equal(t, tc.real, s.RealDir(tc.rel), "real dir")
		})
	}
}

// TestNilSeenKnowsNothing: a Seen outside a walk sends every question to
// the disk.
func TestNilSeenKnowsNothing(t *testing.T) {
	var s *Seen
	_, _, known := s.Stat("a")
	require.False(t, known)
	require.False(t, s.Absent("a/b"))
	require.False(t, s.RealDir("a"))
}

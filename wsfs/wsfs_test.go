//go:build unix

package wsfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func write(t *testing.T, p, s string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(s), 0o644))
}

// hostile builds a folder with one of each hazard; it skips on systems
// without FIFOs or /dev/zero.
func hostile(t *testing.T) (root, outside string) {
	t.Helper()
	base := t.TempDir()
	root = filepath.Join(base, "ws")
	outside = filepath.Join(base, "secret.env")
	write(t, outside, "TOKEN=1\n")
	write(t, filepath.Join(root, "ok.md"), "hello")
	write(t, filepath.Join(root, "sub/inner.md"), "inner")
	require.NoError(t, syscall.Mkfifo(filepath.Join(root, "fifo.md"), 0o644))
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(root, "zero.md")))
	require.NoError(t, os.Symlink("loop2.md", filepath.Join(root, "loop1.md")))
	require.NoError(t, os.Symlink("loop1.md", filepath.Join(root, "loop2.md")))
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "out.md")))
	require.NoError(t, os.Symlink("sub/inner.md", filepath.Join(root, "in.md")))
	require.NoError(t, os.Symlink("missing.md", filepath.Join(root, "dangling.md")))
	require.NoError(t, os.Symlink("..", filepath.Join(root, "sub/up")))
	f, err := os.Create(filepath.Join(root, "big.md"))
	require.NoError(t, err)
	require.NoError(t, f.Truncate(1<<30))
	require.NoError(t, f.Close())
	return root, outside
}

func TestReadRefusesHazards(t *testing.T) {
	root, outside := hostile(t)
	r := NewRoot(root)
	cases := []struct {
		rel    string
		reason Reason
		want   string
	}{
		{"ok.md", 0, "hello"},
		{"in.md", 0, "inner"},
		{"fifo.md", NotRegular, "fifo.md: a FIFO (named pipe)"},
		{"zero.md", OutsideRoot, "zero.md: a symlink that leads out of the workspace"},
		{"loop1.md", LinkLoop, "loop1.md: a symlink loop"},
		{"out.md", OutsideRoot, "out.md: a symlink that leads out of the workspace"},
		{"dangling.md", NotExist, "dangling.md: not found"},
		{"sub", NotRegular, "sub: a directory"},
		{"../secret.env", NotExist, "../secret.env: not a path inside the workspace"},
	}
	for _, c := range cases {
		t.Run(c.rel, func(t *testing.T) {
			b, err := r.Read(c.rel, 100)
			if c.reason == 0 {
				require.NoError(t, err)
				assert.Equal(t, c.want, string(b))
				return
			}
			require.Error(t, err)
			assert.Equal(t, c.reason, ReasonOf(err))
			assert.Equal(t, c.want, err.Error())
			assert.NotContains(t, err.Error(), outside)
			assert.NotContains(t, err.Error(), root)
		})
	}
	b, err := r.Read("big.md", 4<<20+1)
	require.NoError(t, err)
	assert.Len(t, b, 4<<20+1, "the limit bounds the read of a 1 GiB file")
	_, err = r.Read("dangling.md", 0)
	assert.True(t, errors.Is(err, fs.ErrNotExist))
}

func TestRelativeRoot(t *testing.T) {
	root, _ := hostile(t)
	t.Chdir(root)
	r := NewRoot(".")
	b, err := r.Read("in.md", 0)
	require.NoError(t, err)
	assert.Equal(t, "inner", string(b))
	_, err = r.Read("fifo.md", 0)
	assert.Equal(t, NotRegular, ReasonOf(err))
	st, err := r.Stat("big.md")
	require.NoError(t, err)
	assert.Equal(t, int64(1<<30), st.Size())
}

func TestReadFileOutsideAnyRoot(t *testing.T) {
	root, _ := hostile(t)
	_, err := ReadFile(filepath.Join(root, "fifo.md"), 0)
	assert.Equal(t, NotRegular, ReasonOf(err))
	_, err = ReadFile(filepath.Join(root, "zero.md"), 10)
	assert.Equal(t, NotRegular, ReasonOf(err), "/dev/zero is a device wherever the link points")
	b, err := ReadFile(filepath.Join(root, "out.md"), 0)
	require.NoError(t, err, "a path the user named may lead anywhere")
	assert.Equal(t, "TOKEN=1\n", string(b))
}

func TestReadEntryDoesNotFollowASwappedInLink(t *testing.T) {
	root, _ := hostile(t)
	// The walker saw a regular file; it is now a symlink to /dev/zero.
	_, err := NewRoot(root).ReadEntry(Entry{Rel: "zero.md"}, 10)
	require.Error(t, err)
	_, err = NewRoot(root).ReadEntry(Entry{Rel: "fifo.md"}, 10)
	assert.Equal(t, NotRegular, ReasonOf(err), "a FIFO swapped in is opened without blocking and refused by fstat")
}

// hostileTree is hostile with folders the walkers must skip (.git,
// node_modules, an excluded fixtures/) or stop above (a/b/c at depth 2),
// and the matcher that excludes fixtures.
func hostileTree(t *testing.T) (string, *Matcher) {
	t.Helper()
	root, _ := hostile(t)
	write(t, filepath.Join(root, ".git/config"), "x")
	write(t, filepath.Join(root, "node_modules/p/SKILL.md"), "x")
	write(t, filepath.Join(root, "fixtures/bad/SKILL.md"), "x")
	write(t, filepath.Join(root, "a/b/c/deep.md"), "x")
	m, err := NewMatcher([]string{"fixtures"})
	require.NoError(t, err)
	return root, m
}

func TestWalkListsWithoutOpeningOrFollowing(t *testing.T) {
	root, m := hostileTree(t)
	var got []string
	require.NoError(t, Walk(root, WalkOptions{MaxDepth: 2, Exclude: m}, func(e Entry) error {
		got = append(got, e.Rel+" "+Describe(e.Type))
		return nil
	}))
	assert.Equal(t, []string{
		"a a directory",
		"a/b a directory",
		"a/b/c a directory", // listed, not entered
		"big.md a regular file",
		"dangling.md a symlink",
		"fifo.md a FIFO (named pipe)",
		"in.md a symlink",
		"loop1.md a symlink",
		"loop2.md a symlink",
		"ok.md a regular file",
		"out.md a symlink",
		"sub a directory",
		"sub/inner.md a regular file",
		"sub/up a symlink",
		"zero.md a symlink",
	}, got)
}

// TestWalkParallelSeesWhatWalkSees runs both walkers over the same hostile
// tree with each option and compares what they report (WalkParallel in no
// overall order, so sorted), and that every entry's folder was Listed,
// with the entry among its listing, before fn heard of the entry.
func TestWalkParallelSeesWhatWalkSees(t *testing.T) {
	root, m := hostileTree(t)
	for i := range 40 {
		write(t, filepath.Join(root, fmt.Sprintf("many/%02d/x/SKILL.md", i)), "x")
	}
	for _, tc := range []struct {
		name string
		opt  WalkOptions
		skip string // fn answers SkipDir for this folder
	}{
		{name: "default", opt: WalkOptions{}},
		{name: "depth and excludes", opt: WalkOptions{MaxDepth: 2, Exclude: m}},
		{name: "under", opt: WalkOptions{Under: "many"}},
		{name: "skip a folder", opt: WalkOptions{}, skip: "many/07"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fn := func(got *[]string, mu *sync.Mutex) func(Entry) error {
				return func(e Entry) error {
					mu.Lock()
					*got = append(*got, e.Rel+" "+Describe(e.Type))
					mu.Unlock()
					if e.Rel == tc.skip {
						return SkipDir
					}
					return nil
				}
			}
			var want []string
			var wmu sync.Mutex
			require.NoError(t, Walk(root, tc.opt, fn(&want, &wmu)))

			var got []string
			var gmu, lmu sync.Mutex
			listing := map[string]bool{}
			opt := tc.opt
			opt.Listed = func(dir string, es []Entry) {
				lmu.Lock()
				defer lmu.Unlock()
				for _, e := range es {
					listing[e.Rel] = true
				}
			}
			inner := fn(&got, &gmu)
			require.NoError(t, WalkParallel(root, opt, 4, func(e Entry) error {
				lmu.Lock()
				listed := listing[e.Rel]
				lmu.Unlock()
				assert.True(t, listed, "%s reached fn before its folder's listing", e.Rel)
				return inner(e)
			}))
			sort.Strings(want)
			sort.Strings(got)
			assert.Equal(t, want, got)
			assert.NotEmpty(t, got)
		})
	}
}

func TestWalkParallelStopsAtTheFirstError(t *testing.T) {
	root := t.TempDir()
	for i := range 50 {
		write(t, filepath.Join(root, fmt.Sprintf("d%02d/f.md", i)), "x")
	}
	boom := errors.New("boom")
	var calls atomic.Int64
	err := WalkParallel(root, WalkOptions{}, 4, func(e Entry) error {
		calls.Add(1)
		if e.Rel == "d10/f.md" {
			return boom
		}
		return nil
	})
	assert.ErrorIs(t, err, boom)
	assert.Less(t, calls.Load(), int64(100), "the walk went on after the error")
}

// A workspace folder may itself be a symlink (the user opened it that way):
// both walkers list it; symlinked folders below it are still not entered.
func TestWalkersStartThroughASymlinkedRoot(t *testing.T) {
	base := t.TempDir()
	write(t, filepath.Join(base, "real/a/SKILL.md"), "x")
	require.NoError(t, os.Symlink("real", filepath.Join(base, "link")))
	require.NoError(t, os.Symlink("a", filepath.Join(base, "real/b")))
	for _, walk := range []func(string, WalkOptions, func(Entry) error) error{
		Walk,
		func(root string, opt WalkOptions, fn func(Entry) error) error { return WalkParallel(root, opt, 2, fn) },
	} {
		var mu sync.Mutex
		var got []string
		require.NoError(t, walk(filepath.Join(base, "link"), WalkOptions{}, func(e Entry) error {
			mu.Lock()
			got = append(got, e.Rel)
			mu.Unlock()
			return nil
		}))
		sort.Strings(got)
		assert.Equal(t, []string{"a", "a/SKILL.md", "b"}, got)
	}
}

//go:build unix

package wsfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
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

func TestWalkListsWithoutOpeningOrFollowing(t *testing.T) {
	root, _ := hostile(t)
	write(t, filepath.Join(root, ".git/config"), "x")
	write(t, filepath.Join(root, "node_modules/p/SKILL.md"), "x")
	write(t, filepath.Join(root, "fixtures/bad/SKILL.md"), "x")
	write(t, filepath.Join(root, "a/b/c/deep.md"), "x")
	m, err := NewMatcher([]string{"fixtures"})
	require.NoError(t, err)
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

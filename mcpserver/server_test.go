package mcpserver

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResolveConfinesToRoots(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "ws")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "a"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(base, "out"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "a", "f.md"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(base, "out", "f.md"), nil, 0o644))
	if runtime.GOOS != "windows" {
		require.NoError(t, os.Symlink(filepath.Join(base, "out"), filepath.Join(root, "link")))
		require.NoError(t, os.Symlink(filepath.Join(root, "a"), filepath.Join(root, "inside")))
	}
	srv, err := New(Options{Roots: []string{root}})
	require.NoError(t, err)
	_ = srv
	s := &server{roots: []string{mustReal(t, root)}}
	for _, c := range []struct {
		path string
		ok   bool
		want string
	}{
		{"a/f.md", true, ""},
		{".", true, ""},
		{filepath.Join(root, "a", "f.md"), true, ""},
		{"a/../a/f.md", true, ""},
		{"../out/f.md", false, "outside the workspace roots"},
		{filepath.Join(base, "out", "f.md"), false, "outside the workspace roots"},
		{"..", false, "outside the workspace roots"},
		{"a/missing.md", false, "does not exist"},
		{"", false, "empty path"},
		{"a/\x00", false, "NUL"},
		{"link/f.md", false, "outside the workspace roots"},
		{"inside/f.md", true, ""},
	} {
		if runtime.GOOS == "windows" && (c.path == "link/f.md" || c.path == "inside/f.md") {
			continue
		}
		_, _, err := s.resolve(c.path)
		if c.ok {
			assert.NoError(t, err, c.path)
		} else if assert.Error(t, err, c.path) {
			assert.Contains(t, err.Error(), c.want, c.path)
		}
	}
}

func mustReal(t *testing.T, p string) string {
	r, err := filepath.EvalSymlinks(p)
	require.NoError(t, err)
	return r
}

func TestPage(t *testing.T) {
	s := &server{pageSize: 3}
	for _, c := range []struct {
		n        int
		cursor   string
		limit    int
		from, to int
		next     string
		bad      bool
	}{
		{0, "", 0, 0, 0, "", false},
		{7, "", 0, 0, 3, "3", false},
		{7, "3", 0, 3, 6, "6", false},
		{7, "6", 0, 6, 7, "", false},
		{7, "", 10, 0, 7, "", false},
		{7, "8", 0, 0, 0, "", true},
		{7, "-1", 0, 0, 0, "", true},
		{7, "x", 0, 0, 0, "", true},
		{7, "", -1, 0, 0, "", true},
		{7, "", MaxPageSize + 1, 0, 0, "", true},
	} {
		from, to, next, err := s.page(c.n, c.cursor, c.limit)
		if c.bad {
			assert.Error(t, err, "%+v", c)
			continue
		}
		require.NoError(t, err, "%+v", c)
		assert.Equal(t, [3]any{c.from, c.to, c.next}, [3]any{from, to, next}, "%+v", c)
	}
}

func TestNewRefusesBadRoots(t *testing.T) {
	_, err := New(Options{})
	assert.Error(t, err)
	_, err = New(Options{Roots: []string{filepath.Join(t.TempDir(), "missing")}})
	assert.Error(t, err)
	f := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(f, nil, 0o644))
	_, err = New(Options{Roots: []string{f}})
	assert.ErrorContains(t, err, "not a folder")
}

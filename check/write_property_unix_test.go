//go:build unix

package check

import (
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/diagnostics"
)

// fileSnap is one regular file as found before a run.
type fileSnap struct {
	text  string
	ino   uint64
	nlink uint64
}

// snapTree records every regular file below base by path, never following
// a symlink.
func snapTree(t *testing.T, base string) map[string]fileSnap {
	t.Helper()
	out := map[string]fileSnap{}
	require.NoError(t, filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		var st syscall.Stat_t
		require.NoError(t, syscall.Lstat(p, &st))
		out[p] = fileSnap{string(b), uint64(st.Ino), uint64(st.Nlink)}
		return nil
	}))
	return out
}

// randomTree builds a workspace below base/ws with skills that --fix
// changes (a byte-order mark), next to base/out with the same kind of
// files, and symlinks of every sort: to files and folders inside and out,
// loops, dangling, hard links.
func randomTree(t *testing.T, r *rand.Rand, base string) (ws string, named []string) {
	t.Helper()
	ws = filepath.Join(base, "ws")
	out := filepath.Join(base, "out")
	skill := func(name string) string {
		return "\ufeff---\nname: " + name + "\ndescription: Does " + name + ".\n---\nBody.\n"
	}
	write(t, out, "skills/o/SKILL.md", skill("o"))
	write(t, out, "SKILL.md", skill("x"))
	n := 3 + r.Intn(6)
	for i := range n {
		rel := fmt.Sprintf(".github/skills/s%d/SKILL.md", i)
		p := filepath.Join(ws, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		named = append(named, p)
		switch r.Intn(8) {
		case 0: // a link out of the workspace
			require.NoError(t, os.Symlink(filepath.Join(out, "SKILL.md"), p))
		case 1: // a link to another skill inside
			require.NoError(t, os.Symlink("../s0/SKILL.md", p))
		case 2: // dangling
			require.NoError(t, os.Symlink("missing.md", p))
		case 3: // a loop
			require.NoError(t, os.Symlink("SKILL.md", p))
		case 4: // a hard link to a file outside
			require.NoError(t, os.Link(filepath.Join(out, "SKILL.md"), p))
		case 5: // the whole folder is a link out
			require.NoError(t, os.Remove(filepath.Dir(p)))
			require.NoError(t, os.Symlink(filepath.Join(out, "skills/o"), filepath.Dir(p)))
		default:
			write(t, ws, rel, skill(fmt.Sprintf("s%d", i)))
		}
	}
	if r.Intn(2) == 0 {
		require.NoError(t, os.Symlink(out, filepath.Join(ws, "up")))
	}
	if r.Intn(2) == 0 {
		// A repository: named files outside the current folder belong to it.
		require.NoError(t, os.MkdirAll(filepath.Join(ws, ".git"), 0o755))
	}
	if r.Intn(2) == 0 {
		require.NoError(t, os.Symlink("..", filepath.Join(ws, ".github/loop")))
	}
	return ws, named
}

// TestFixPropertyRandomTrees: over random trees, whatever `check --fix`
// does (the folder form and each file named), it changes only files whose
// real path is inside the workspace, never a file with other hard links,
// and a changed file holds its old text with the fix applied: nothing is
// lost.
func TestFixPropertyRandomTrees(t *testing.T) {
	runs := 40
	if testing.Short() {
		runs = 8
	}
	changed := 0
	for seed := range runs {
		r := rand.New(rand.NewSource(int64(seed)))
		base := t.TempDir()
		ws, named := randomTree(t, r, base)
		before := snapTree(t, base)
		realWS, err := filepath.EvalSymlinks(ws)
		require.NoError(t, err)
		cfg := Config{Rules: diagnostics.Options{}}
		_, _ = Fix([]string{ws}, cfg, true)
		for i, p := range named {
			if i%2 == 0 {
				_, _ = Fix([]string{p}, cfg, true)
				continue
			}
			// Named from inside the workspace, as in CI.
			rel, err := filepath.Rel(ws, p)
			require.NoError(t, err)
			wd, err := os.Getwd()
			require.NoError(t, err)
			require.NoError(t, os.Chdir(ws))
			_, _ = Fix([]string{rel}, cfg, true)
			require.NoError(t, os.Chdir(wd))
		}
		after := snapTree(t, base)
		for p, b := range before {
			a, ok := after[p]
			require.True(t, ok, "seed %d: %s disappeared", seed, p)
			if a.text == b.text {
				continue
			}
			changed++
			real, err := filepath.EvalSymlinks(p)
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(real, realWS+string(filepath.Separator)), "seed %d: %s outside the workspace was changed", seed, p)
			assert.Equal(t, uint64(1), b.nlink, "seed %d: %s had other hard links and was changed", seed, p)
			assert.Equal(t, strings.TrimPrefix(b.text, "\ufeff"), a.text, "seed %d: %s lost text", seed, p)
		}
		for p := range after {
			_, ok := before[p]
			assert.True(t, ok, "seed %d: %s appeared (a temporary file left behind?)", seed, p)
		}
	}
	assert.NotZero(t, changed, "the trees held fixable files inside the workspace")
	t.Logf("%d random trees, %d files fixed, none outside", runs, changed)
}

//go:build unix

package check

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/diagnostics"
)

// bomSkill has a byte-order mark before its header: fm/bom, a safe fix.
const bomSkill = "\ufeff---\nname: pdf\ndescription: Reads PDF files.\n---\nBody.\n"

// fixWorkspace is a folder with one fixable skill and a file outside it.
func fixWorkspace(t *testing.T) (root, skill, outside string) {
	t.Helper()
	base := t.TempDir()
	root = filepath.Join(base, "ws")
	skill = filepath.Join(root, ".github/skills/pdf/SKILL.md")
	outside = filepath.Join(base, "outside.md")
	write(t, root, ".github/skills/pdf/SKILL.md", bomSkill)
	write(t, base, "outside.md", bomSkill)
	return root, skill, outside
}

func runCheck(t *testing.T, dir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	wd, err := os.Getwd()
	require.NoError(t, err)
	require.NoError(t, os.Chdir(dir))
	defer os.Chdir(wd)
	code = Main(args, &out, &errb, "test", diagnostics.Options{})
	return code, out.String(), errb.String()
}

func readStr(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
}

// TestFixNamedSymlinkOut: `ahpls check --fix path/SKILL.md` where SKILL.md
// is a symlink out of the workspace fixed the file outside; the folder
// form refused the same link. Now both leave it alone and say why.
func TestFixNamedSymlinkOut(t *testing.T) {
	root, skill, outside := fixWorkspace(t)
	require.NoError(t, os.Remove(skill))
	require.NoError(t, os.Symlink(outside, skill))
	for _, arg := range []string{".github/skills/pdf/SKILL.md", skill, "."} {
		code, _, stderr := runCheck(t, root, "--fix", arg)
		assert.Equal(t, bomSkill, readStr(t, outside), "check --fix %s wrote outside the workspace", arg)
		if arg != "." {
			assert.Equal(t, 2, code, stderr)
			assert.Contains(t, stderr, "not written")
			assert.Contains(t, stderr, "leads out of the workspace")
		}
	}
}

// TestFixRefusesHardLink: replacing a file with other hard links would cut
// them; --fix says so and leaves both names on the same old text.
func TestFixRefusesHardLink(t *testing.T) {
	root, skill, _ := fixWorkspace(t)
	other := filepath.Join(root, "copy.md")
	require.NoError(t, os.Link(skill, other))
	code, _, stderr := runCheck(t, root, "--fix", ".")
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "hard links")
	assert.Equal(t, bomSkill, readStr(t, skill))
	a, _ := os.Stat(skill)
	b, _ := os.Stat(other)
	assert.True(t, os.SameFile(a, b), "the hard link is intact")
}

// TestFixKeepsModeAndOwner: mode 4751 and a non-root owner survive --fix
// (the old atomic write gave the new file root's owner and dropped setuid).
func TestFixKeepsModeAndOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("SKIPPED: keeping a foreign owner needs root to chown the fixture; run as root to cover it")
	}
	root, skill, _ := fixWorkspace(t)
	require.NoError(t, os.Chown(skill, 1234, 5678))
	require.NoError(t, syscall.Chmod(skill, 0o4751))
	code, _, stderr := runCheck(t, root, "--fix", ".")
	assert.Equal(t, 0, code, stderr)
	assert.NotContains(t, readStr(t, skill), "\ufeff", "fixed")
	var st syscall.Stat_t
	require.NoError(t, syscall.Stat(skill, &st))
	assert.Equal(t, uint32(0o4751), st.Mode&0o7777, "mode %o", st.Mode&0o7777)
	assert.Equal(t, uint32(1234), st.Uid)
	assert.Equal(t, uint32(5678), st.Gid)
}

// TestFixChangedSincePlanned: a save between the plan and the write is
// never overwritten.
func TestFixChangedSincePlanned(t *testing.T) {
	root, skill, _ := fixWorkspace(t)
	found, err := RunConfig([]string{root}, Config{Rules: diagnostics.Options{}, keepText: true})
	require.NoError(t, err)
	plans := PlanFixes(found, false)
	require.Len(t, plans, 1)
	saved := bomSkill + "A line the user saved meanwhile.\n"
	require.NoError(t, os.WriteFile(skill, []byte(saved), 0o644))
	ws := writers{}
	defer ws.close()
	var res FixResult
	done := writePlans(ws, plans, map[string]bool{}, &res)
	assert.Empty(t, done)
	require.Len(t, res.Refused, 1)
	assert.Contains(t, res.Refused[0].Error(), "changed on disk")
	assert.Equal(t, saved, readStr(t, skill))
}

// TestFixSwapLoop runs `check --fix` 200 times while a goroutine keeps
// swapping SKILL.md for a symlink out of the workspace and back. The file
// outside never changes, whichever moment the swap hits.
func TestFixSwapLoop(t *testing.T) {
	root, skill, outside := fixWorkspace(t)
	keep := filepath.Join(filepath.Dir(skill), "keep.md")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if os.Rename(skill, keep) != nil {
				continue
			}
			os.Symlink(outside, skill)
			runtime.Gosched()
			os.Rename(keep, skill)
			runtime.Gosched()
		}
	}()
	fixed := 0
	for range 200 {
		res, err := Fix([]string{root}, Config{Rules: diagnostics.Options{}}, true)
		if err != nil {
			continue // the folder walk met the link mid-swap
		}
		if len(res.Changes) > 0 {
			fixed++
			// Put the problem back for the next run, through the real file.
			tmp := filepath.Join(filepath.Dir(skill), "reset.tmp")
			write(t, filepath.Dir(skill), "reset.tmp", bomSkill)
			os.Rename(tmp, skill)
		}
	}
	close(stop)
	wg.Wait()
	assert.Equal(t, bomSkill, readStr(t, outside), "a file outside the workspace was written")
	t.Logf("%d of 200 runs fixed the real file; the rest were refused or found the link", fixed)
}

//go:build unix

package wsfs

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	oldText = "---\nname: PDF\n---\n"
	newText = "---\nname: pdf\n---\n"
)

// writeFixture is a workspace with one skill and a file outside it that a
// symlink could lead to.
func writeFixture(t *testing.T) (root, skill, outside string) {
	t.Helper()
	base := t.TempDir()
	root = filepath.Join(base, "ws")
	skill = filepath.Join(root, "skills/pdf/SKILL.md")
	outside = filepath.Join(base, "outside.md")
	write(t, skill, oldText)
	write(t, outside, oldText)
	return root, skill, outside
}

func openW(t *testing.T, root string) *Writer {
	t.Helper()
	w, err := OpenWriter(root)
	require.NoError(t, err)
	t.Cleanup(func() { w.Close() })
	return w
}

func readS(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
}

func TestReplaceWritesAndKeepsLinksInside(t *testing.T) {
	root, skill, _ := writeFixture(t)
	require.NoError(t, os.Symlink("skills/pdf/SKILL.md", filepath.Join(root, "alias.md")))
	w := openW(t, root)
	require.NoError(t, w.Replace("alias.md", []byte(oldText), []byte(newText)))
	assert.Equal(t, newText, readS(t, skill))
	st, err := os.Lstat(filepath.Join(root, "alias.md"))
	require.NoError(t, err)
	assert.NotZero(t, st.Mode()&os.ModeSymlink, "the link inside the root stays a link")
	left, _ := filepath.Glob(filepath.Join(root, "skills/pdf/.*ahpls*"))
	assert.Empty(t, left, "no temporary file left behind")
}

func TestReplaceRefusesLinkOut(t *testing.T) {
	root, skill, outside := writeFixture(t)
	require.NoError(t, os.Remove(skill))
	require.NoError(t, os.Symlink(outside, skill))
	err := openW(t, root).Replace("skills/pdf/SKILL.md", []byte(oldText), []byte(newText))
	assert.Equal(t, OutsideRoot, ReasonOf(err), "%v", err)
	assert.Equal(t, oldText, readS(t, outside))
}

// TestReplaceSwapRaceSeam swaps SKILL.md for a symlink out of the root at
// the worst moment: after the file was read and checked, before the new
// text replaces it. The write is refused and the file outside is intact.
func TestReplaceSwapRaceSeam(t *testing.T) {
	for _, what := range []string{"file", "folder"} {
		t.Run(what, func(t *testing.T) {
			root, skill, outside := writeFixture(t)
			beforeCommit = func(string) {
				if what == "file" {
					require.NoError(t, os.Remove(skill))
					require.NoError(t, os.Symlink(outside, skill))
					return
				}
				// The folder: moved away and replaced by a link to one outside.
				out := filepath.Join(filepath.Dir(outside), "outdir")
				require.NoError(t, os.MkdirAll(out, 0o755))
				write(t, filepath.Join(out, "SKILL.md"), oldText)
				require.NoError(t, os.Rename(filepath.Dir(skill), filepath.Join(root, "moved")))
				require.NoError(t, os.Symlink(out, filepath.Dir(skill)))
			}
			t.Cleanup(func() { beforeCommit = nil })
			err := openW(t, root).Replace("skills/pdf/SKILL.md", []byte(oldText), []byte(newText))
			assert.Equal(t, Changed, ReasonOf(err), "%v", err)
			assert.Equal(t, oldText, readS(t, outside))
			if what == "folder" {
				assert.Equal(t, oldText, readS(t, filepath.Join(filepath.Dir(outside), "outdir/SKILL.md")))
			}
		})
	}
}

// TestReplaceSwapRaceLoop runs 200 writes while another goroutine keeps
// swapping SKILL.md between the real file and a symlink out of the root.
// Whatever each write says, the file outside never changes and the real
// file is never deleted: it ends under its name or, when the racer moved
// things between ahpls's swap and swap back, under the temporary name the
// refusal named.
func TestReplaceSwapRaceLoop(t *testing.T) {
	root, skill, outside := writeFixture(t)
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
			// The real file steps aside, a link out takes its name, then
			// the real file comes back over the link.
			if os.Rename(skill, keep) != nil {
				continue
			}
			os.Symlink(outside, skill)
			runtime.Gosched()
			os.Rename(keep, skill)
			runtime.Gosched()
		}
	}()
	w := openW(t, root)
	wrote := 0
	texts := [2]string{oldText, newText}
	keptAs := map[string]bool{}
	for range 200 {
		// Toggle the text so every write that goes through can be undone
		// by the next; only the real file ever holds newText.
		err := w.Replace("skills/pdf/SKILL.md", []byte(texts[wrote%2]), []byte(texts[(wrote+1)%2]))
		if err == nil {
			wrote++
			continue
		}
		if _, name, ok := strings.Cut(err.Error(), "kept beside it as "); ok {
			keptAs[name] = true
		}
	}
	close(stop)
	wg.Wait()
	assert.Equal(t, oldText, readS(t, outside), "the file outside the workspace changed")
	ents, err := os.ReadDir(filepath.Dir(skill))
	require.NoError(t, err)
	var holders []string
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		if e.Name() != "SKILL.md" && !keptAs[e.Name()] {
			t.Errorf("%s left behind without a refusal naming it", e.Name())
		}
		if readS(t, filepath.Join(filepath.Dir(skill), e.Name())) == texts[wrote%2] {
			holders = append(holders, e.Name())
		}
	}
	assert.Len(t, holders, 1, "the real file, with the last written text, exists exactly once")
	t.Logf("%d of 200 writes went through, the rest were refused; %d kept beside", wrote, len(keptAs))
}

func TestReplaceRefusesChangedText(t *testing.T) {
	root, skill, _ := writeFixture(t)
	w := openW(t, root)
	// Saved by an editor after the plan was made.
	write(t, skill, oldText+"more\n")
	err := w.Replace("skills/pdf/SKILL.md", []byte(oldText), []byte(newText))
	assert.Equal(t, Changed, ReasonOf(err), "%v", err)
	assert.Contains(t, err.Error(), "changed on disk")
	assert.Equal(t, oldText+"more\n", readS(t, skill))

	// Changed in place between the check and the rename.
	write(t, skill, oldText)
	beforeCommit = func(string) { write(t, skill, "saved meanwhile\n") }
	t.Cleanup(func() { beforeCommit = nil })
	err = w.Replace("skills/pdf/SKILL.md", []byte(oldText), []byte(newText))
	assert.Equal(t, Changed, ReasonOf(err), "%v", err)
	assert.Equal(t, "saved meanwhile\n", readS(t, skill))
}

func TestReplaceRefusesHardLink(t *testing.T) {
	root, skill, _ := writeFixture(t)
	other := filepath.Join(root, "other.md")
	require.NoError(t, os.Link(skill, other))
	err := openW(t, root).Replace("skills/pdf/SKILL.md", []byte(oldText), []byte(newText))
	assert.Equal(t, HardLinked, ReasonOf(err), "%v", err)
	assert.Contains(t, err.Error(), "hard links")
	assert.Equal(t, oldText, readS(t, skill))
	assert.True(t, sameInode(t, skill, other), "the link is not cut")
}

func sameInode(t *testing.T, a, b string) bool {
	sa, err := os.Stat(a)
	require.NoError(t, err)
	sb, err := os.Stat(b)
	require.NoError(t, err)
	return os.SameFile(sa, sb)
}

// TestReplaceKeepsModeAndOwner: setuid/setgid bits and a foreign owner
// survive the write (the new file is created by root here, so the owner
// must be given back explicitly).
func TestReplaceKeepsModeAndOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("SKIPPED: keeping a foreign owner needs root (chown); run the tests as root to cover it")
	}
	root, skill, _ := writeFixture(t)
	require.NoError(t, os.Chown(skill, 4242, 4343))
	require.NoError(t, os.Chmod(skill, 0o4751|os.ModeSetuid))
	require.NoError(t, syscall.Chmod(skill, 0o4751))
	require.NoError(t, openW(t, root).Replace("skills/pdf/SKILL.md", []byte(oldText), []byte(newText)))
	var st syscall.Stat_t
	require.NoError(t, syscall.Stat(skill, &st))
	assert.Equal(t, uint32(0o4751), st.Mode&0o7777, "mode %o", st.Mode&0o7777)
	assert.Equal(t, uint32(4242), st.Uid)
	assert.Equal(t, uint32(4343), st.Gid)
	assert.Equal(t, newText, readS(t, skill))
}

func TestReplaceRefusesNonRegular(t *testing.T) {
	root, skill, _ := writeFixture(t)
	require.NoError(t, os.Remove(skill))
	require.NoError(t, syscall.Mkfifo(skill, 0o644))
	err := openW(t, root).Replace("skills/pdf/SKILL.md", nil, []byte(newText))
	assert.Equal(t, NotRegular, ReasonOf(err), "%v", err)
}

func TestRenameCaseOnlyThroughTempName(t *testing.T) {
	for _, fold := range []bool{false, true} {
		t.Run(map[bool]string{false: "case-sensitive", true: "case-insensitive (simulated)"}[fold], func(t *testing.T) {
			foldCase = fold
			t.Cleanup(func() { foldCase = false })
			root := t.TempDir()
			write(t, filepath.Join(root, "skills/PDF/SKILL.md"), oldText)
			steps, err := RenameSteps(root, "skills/PDF", "skills/pdf")
			require.NoError(t, err, "a case-only rename is no clash")
			require.Len(t, steps, 3, "through a temporary name: %v", steps)
			assert.Equal(t, "skills/PDF", steps[0])
			assert.Equal(t, "skills/pdf", steps[2])
			require.NoError(t, openW(t, root).Rename("skills/PDF", "skills/pdf"))
			assert.Equal(t, oldText, readS(t, filepath.Join(root, "skills/pdf/SKILL.md")))
			des, err := os.ReadDir(filepath.Join(root, "skills"))
			require.NoError(t, err)
			require.Len(t, des, 1)
			assert.Equal(t, "pdf", des[0].Name())
		})
	}
}

func TestRenameRefuses(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "skills/a/SKILL.md"), oldText)
	write(t, filepath.Join(root, "skills/b/SKILL.md"), oldText)
	_, err := RenameSteps(root, "skills/a", "skills/b")
	assert.Equal(t, Exists, ReasonOf(err))
	_, err = RenameSteps(root, ".", "x")
	assert.Error(t, err, "the root never moves")
	_, err = RenameSteps(root, "skills/a", "../x")
	assert.Error(t, err)
	assert.Error(t, openW(t, root).Rename("skills/a", "skills/b"))
	assert.Equal(t, oldText, readS(t, filepath.Join(root, "skills/b/SKILL.md")))
}

func TestEditTargetAndConfined(t *testing.T) {
	root, skill, outside := writeFixture(t)
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "CLAUDE.md")))
	require.NoError(t, os.Symlink("/etc", filepath.Join(root, "etc")))
	assert.NoError(t, EditTarget(root, "skills/pdf/SKILL.md"))
	assert.Equal(t, OutsideRoot, ReasonOf(EditTarget(root, "CLAUDE.md")))
	assert.True(t, Confined(root, skill))
	assert.True(t, Confined(root, filepath.Join(root, "new.md")), "a file not yet there, in the root")
	assert.False(t, Confined(root, filepath.Join(root, "CLAUDE.md")))
	assert.False(t, Confined(root, filepath.Join(root, "etc/passwd")))
	assert.False(t, Confined(root, outside))
	require.NoError(t, os.Symlink("nowhere", filepath.Join(root, "dangling.md")))
	require.NoError(t, os.Symlink("loop.md", filepath.Join(root, "loop.md")))
	r := NewRoot(root)
	for rel, want := range map[string]bool{
		"skills/pdf/SKILL.md": true, "skills/new/x.md": true, ".": true,
		"CLAUDE.md": false, "etc/passwd": false, "etc/none": false, "dangling.md": false, "loop.md": false, "../x": false,
	} {
		assert.Equal(t, want, r.Contains(rel), rel)
		if rel != "../x" {
			assert.Equal(t, want, Confined(root, filepath.Join(root, rel)), "Confined %s", rel)
		}
	}
}

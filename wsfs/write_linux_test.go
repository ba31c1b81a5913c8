//go:build linux

package wsfs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// saveByRename saves text the way editors do: a new file renamed over the
// old name.
func saveByRename(t *testing.T, p, text string) {
	t.Helper()
	tmp := p + ".editor-save"
	require.NoError(t, os.WriteFile(tmp, []byte(text), 0o644))
	require.NoError(t, os.Rename(tmp, p))
}

// An editor's save lands between ahpls's last look and its swap: the swap
// takes the saved file out, sees it is not the file it checked, and puts it
// back. Nothing is written and nothing is left beside.
func TestReplaceSwapsAnEditorsSaveBack(t *testing.T) {
	root, skill, _ := writeFixture(t)
	beforeExchange = func() { saveByRename(t, skill, "saved meanwhile\n") }
	t.Cleanup(func() { beforeExchange = nil })
	err := openW(t, root).Replace("skills/pdf/SKILL.md", []byte(oldText), []byte(newText))
	assert.Equal(t, Changed, ReasonOf(err), "%v", err)
	assert.Equal(t, "saved meanwhile\n", readS(t, skill))
	assertOnlyEntries(t, filepath.Dir(skill), "SKILL.md")
}

// Two saves: one before the swap, one right after it (over ahpls's new
// file). The newest save ends under the name; the earlier save is kept
// beside it under the name the refusal gives, never deleted.
func TestReplaceKeepsTheNewestOfTwoSaves(t *testing.T) {
	root, skill, _ := writeFixture(t)
	beforeExchange = func() { saveByRename(t, skill, "first save\n") }
	afterExchange = func() { saveByRename(t, skill, "second save\n") }
	t.Cleanup(func() { beforeExchange, afterExchange = nil, nil })
	err := openW(t, root).Replace("skills/pdf/SKILL.md", []byte(oldText), []byte(newText))
	require.Error(t, err)
	assert.Equal(t, Changed, ReasonOf(err))
	assert.Equal(t, "second save\n", readS(t, skill))
	_, kept, ok := strings.Cut(err.Error(), "kept beside it as ")
	require.True(t, ok, "the refusal names where the other version is: %v", err)
	assert.Equal(t, "first save\n", readS(t, filepath.Join(filepath.Dir(skill), kept)))
}

// A symlink swapped in just before the swap is taken out and removed; the
// file it led to is untouched.
func TestReplaceLeavesALinkSwappedInOut(t *testing.T) {
	root, skill, outside := writeFixture(t)
	beforeExchange = func() {
		require.NoError(t, os.Remove(skill))
		require.NoError(t, os.Symlink(outside, skill))
	}
	t.Cleanup(func() { beforeExchange = nil })
	err := openW(t, root).Replace("skills/pdf/SKILL.md", []byte(oldText), []byte(newText))
	assert.Equal(t, Changed, ReasonOf(err), "%v", err)
	assert.Equal(t, oldText, readS(t, outside))
	st, err := os.Lstat(skill)
	require.NoError(t, err)
	assert.True(t, st.Mode().IsRegular())
	assertOnlyEntries(t, filepath.Dir(skill), "SKILL.md")
}

func assertOnlyEntries(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	assert.ElementsMatch(t, names, got)
}

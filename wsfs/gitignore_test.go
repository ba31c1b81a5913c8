//go:build unix

package wsfs

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGitIgnoreMatch(t *testing.T) {
	root := ParseGitIgnore(nil, "", []byte(strings.Join([]string{
		"# comment",
		"",
		"dist/",         // dir-only, any depth
		"*.log",         // name at any depth
		"!keep.log",     // negation
		"/top.md",       // anchored to the root
		"docs/*.tmp.md", // a middle slash anchors
		"build/**",      // everything inside, not build itself
		"a/**/z.md",     // ** spans folders
		`\#hash.md`,     // escaped '#'
		"trail.md   ",   // trailing spaces dropped
		"[!x]y.md",      // negated class
		"bad[",          // unparsable: skipped
	}, "\r\n")))
	sub := ParseGitIgnore(root, "pkg", []byte("!dist/\nlocal.md\n/anch.md\n"))
	for _, tc := range []struct {
		ig   *Ignore
		rel  string
		dir  bool
		want bool
	}{
		{root, "dist", true, true},
		{root, "x/y/dist", true, true},
		{root, "dist", false, false}, // a file named dist
		{root, "a.log", false, true},
		{root, "deep/b.log", false, true},
		{root, "deep/keep.log", false, false},
		{root, "top.md", false, true},
		{root, "x/top.md", false, false},
		{root, "docs/a.tmp.md", false, true},
		{root, "x/docs/a.tmp.md", false, false},
		{root, "build", true, false},
		{root, "build/x", true, true},
		{root, "a/z.md", false, true},
		{root, "a/b/c/z.md", false, true},
		{root, "#hash.md", false, true},
		{root, "trail.md", false, true},
		{root, "ay.md", false, true},
		{root, "xy.md", false, false},
		{root, "bad[", false, false},
		{sub, "pkg/dist", true, false}, // the deeper file re-includes
		{sub, "pkg/x/local.md", false, true},
		{sub, "local.md", false, false}, // not below pkg
		{sub, "pkg/anch.md", false, true},
		{sub, "pkg/x/anch.md", false, false},
		{sub, "pkg/a.log", false, true}, // the parent's rules still apply
	} {
		assert.Equal(t, tc.want, tc.ig.Match(tc.rel, tc.dir), "%s dir=%v", tc.rel, tc.dir)
	}
	assert.Same(t, root, ParseGitIgnore(root, "x", []byte("# only a comment\n\n")))
}

// TestWalkHonoursGitIgnore: ignored files and folders are left out and
// told to Skipped (nested files and negation included), kept paths are
// walked although ignored, and both walkers and Under agree.
func TestWalkHonoursGitIgnore(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{
		"skills/a/SKILL.md", "dist/skills/b/SKILL.md", "vendor/x/SKILL.md", "pkg/.venv/y/SKILL.md",
		"pkg/notes.md", "pkg/keep.md", "pkg/sub/deep.md", ".claude/settings.local.json", "CLAUDE.local.md",
		".claude/agents/a.md", "node_modules/p/SKILL.md",
	} {
		write(t, filepath.Join(root, p), "x")
	}
	write(t, filepath.Join(root, ".gitignore"), "dist/\nvendor\n*.md\n!SKILL.md\n.claude/\n")
	// A work tree whose index tracks one ignored file.
	writeIndex(t, root, "vendor/x/SKILL.md", "skills/a/SKILL.md")
	write(t, filepath.Join(root, "pkg/.gitignore"), ".venv/\n!keep.md\n")
	keep := func(rel string) bool {
		return rel == "CLAUDE.local.md" || rel == ".claude" || strings.HasPrefix(rel, ".claude/")
	}
	run := func(t *testing.T, parallel bool, under string) (got, skipped []string) {
		var mu sync.Mutex
		opt := WalkOptions{GitIgnore: true, Keep: keep, Under: under, Skipped: func(e Entry, why SkipReason) {
			mu.Lock()
			skipped = append(skipped, e.Rel+" "+string(why))
			mu.Unlock()
		}}
		fn := func(e Entry) error {
			if !e.IsDir() {
				mu.Lock()
				got = append(got, e.Rel)
				mu.Unlock()
			}
			return nil
		}
		if parallel {
			require.NoError(t, WalkParallel(root, opt, 4, fn))
		} else {
			require.NoError(t, Walk(root, opt, fn))
		}
		sort.Strings(got)
		sort.Strings(skipped)
		return got, skipped
	}
	for _, parallel := range []bool{false, true} {
		got, skipped := run(t, parallel, "")
		assert.Equal(t, []string{
			".claude/agents/a.md", ".claude/settings.local.json", ".gitignore", "CLAUDE.local.md",
			"pkg/.gitignore", "pkg/keep.md", "skills/a/SKILL.md", "vendor/x/SKILL.md",
		}, got)
		assert.Equal(t, []string{
			".git excluded", "dist gitignored", "node_modules excluded", "pkg/.venv gitignored", "pkg/notes.md gitignored",
			"pkg/sub/deep.md gitignored",
		}, skipped)
	}
	got, skipped := run(t, false, "pkg")
	assert.Equal(t, []string{"pkg/.gitignore", "pkg/keep.md"}, got)
	assert.Equal(t, []string{"pkg/.venv gitignored", "pkg/notes.md gitignored", "pkg/sub/deep.md gitignored"}, skipped)
	got, _ = run(t, false, "dist")
	assert.Empty(t, got, "an ignored Under yields nothing")

	assert.True(t, IgnoredPath(root, "pkg/.venv/y/SKILL.md", keep, nil))
	assert.True(t, IgnoredPath(root, "pkg/notes.md", keep, nil))
	assert.False(t, IgnoredPath(root, "pkg/keep.md", keep, nil))
	assert.False(t, IgnoredPath(root, ".claude/settings.local.json", keep, nil))
	assert.True(t, IgnoredPath(root, "dist/skills/b/SKILL.md", keep, nil))
	tracked, ok := GitTracked(root)
	require.True(t, ok)
	assert.False(t, IgnoredPath(root, "vendor/x/SKILL.md", keep, tracked), "tracked files are never ignored")

	// Outside a git work tree nothing is skipped: an export holds only
	// what was committed.
	require.NoError(t, os.RemoveAll(filepath.Join(root, ".git")))
	var all []string
	require.NoError(t, Walk(root, WalkOptions{GitIgnore: true, Keep: keep}, func(e Entry) error {
		if !e.IsDir() {
			all = append(all, e.Rel)
		}
		return nil
	}))
	assert.Contains(t, all, "dist/skills/b/SKILL.md")
}

// writeIndex writes root/.git/index (version 2) tracking paths.
func writeIndex(t *testing.T, root string, paths ...string) {
	t.Helper()
	b := []byte("DIRC\x00\x00\x00\x02")
	b = binary.BigEndian.AppendUint32(b, uint32(len(paths)))
	sort.Strings(paths)
	for _, p := range paths {
		e := make([]byte, 62)
		binary.BigEndian.PutUint16(e[60:], uint16(min(len(p), 0xfff)))
		e = append(e, p...)
		e = append(e, make([]byte, 8-(len(e)%8))...) // 1 to 8 NULs
		b = append(b, e...)
	}
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, ".git", "index"), b, 0o644))
}

// TestParseGitIndex reads versions 2 and 4 (prefix-compressed names) and
// refuses what is not an index.
func TestParseGitIndex(t *testing.T) {
	root := t.TempDir()
	writeIndex(t, root, "a/b.md", "a/c.md", "z")
	b, err := os.ReadFile(filepath.Join(root, ".git", "index"))
	require.NoError(t, err)
	got, ok := parseGitIndex(b)
	require.True(t, ok)
	assert.Equal(t, []string{"a/b.md", "a/c.md", "z"}, got)

	v4 := []byte("DIRC\x00\x00\x00\x04\x00\x00\x00\x02")
	entry := func(drop byte, suffix string) []byte {
		e := make([]byte, 62)
		return append(append(append(e, drop), suffix...), 0)
	}
	v4 = append(v4, entry(0, "skills/one/SKILL.md")...)
	v4 = append(v4, entry(12, "two/SKILL.md")...) // drops "one/SKILL.md"
	got, ok = parseGitIndex(v4)
	require.True(t, ok)
	assert.Equal(t, []string{"skills/one/SKILL.md", "skills/two/SKILL.md"}, got)

	for _, bad := range [][]byte{nil, []byte("DIRC"), []byte("XXXX\x00\x00\x00\x02\x00\x00\x00\x00"), v4[:30]} {
		_, ok := parseGitIndex(bad)
		assert.False(t, ok)
	}
}

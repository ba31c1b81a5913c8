package check

import (
	"bytes"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

var updateFix = flag.Bool("update", false, "rewrite the after/ trees and fix.diff under testdata/fix")

// fixCases is testdata/fix: each case has before/ (a workspace folder),
// after/ (the same folder after `ahpls check --fix`), fix.diff (what
// --diff prints, paths relative to the folder) and optional args (extra
// flags, one a line). Regenerate with `go test ./check -run TestFixGolden -update`.
const fixCases = "testdata/fix"

// readTree maps every file below root (slash paths) to its bytes.
func readTree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = string(b)
		return nil
	}))
	return out
}

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	require.NoError(t, os.RemoveAll(root))
	for rel, text := range files {
		write(t, root, rel, text)
	}
}

// TestFixGolden runs --diff, then --fix, then --fix again on a copy of each
// case: --fix gives after/, --diff prints exactly the change --fix made
// (and fix.diff), and the second run changes nothing and reports nothing
// fixable.
func TestFixGolden(t *testing.T) {
	cases, err := os.ReadDir(fixCases)
	require.NoError(t, err)
	covered := map[string]bool{}
	for _, c := range cases {
		t.Run(c.Name(), func(t *testing.T) {
			dir := filepath.Join(fixCases, c.Name())
			var args []string
			if b, err := os.ReadFile(filepath.Join(dir, "args")); err == nil {
				args = strings.Fields(string(b))
			}
			before := readTree(t, filepath.Join(dir, "before"))
			ws := t.TempDir()
			writeTree(t, ws, before)

			found, err := RunConfig([]string{ws}, Config{Rules: optsFor(t, args), keepText: true})
			require.NoError(t, err)
			for _, p := range PlanFixes(found, slices.Contains(args, "--unsafe-fixes")) {
				for _, f := range p.Fixed {
					covered[f.Rule] = true
				}
			}

			var diffOut, errb bytes.Buffer
			Main(append(append([]string{}, args...), "--diff", ws), &diffOut, &errb, "test", diagnostics.Options{})
			assert.Equal(t, before, readTree(t, ws), "--diff must not write")

			var out bytes.Buffer
			errb.Reset()
			code := Main(append(append([]string{}, args...), "--fix", ws), &out, &errb, "test", diagnostics.Options{})
			after := readTree(t, ws)
			assert.NotEqual(t, before, after, "--fix changed nothing")
			assert.Contains(t, errb.String(), "ahpls check: fixed ")
			assert.Empty(t, out.String(), "the case leaves no finding")
			assert.Equal(t, 0, code)

			// --diff printed the change --fix made, file by file.
			var want bytes.Buffer
			for _, rel := range sortedKeys(before) {
				require.NoError(t, WriteUnifiedDiff(&want, filepath.Join(ws, filepath.FromSlash(rel)), []byte(before[rel]), []byte(after[rel])))
			}
			assert.Equal(t, want.String(), diffOut.String())
			gotDiff := strings.ReplaceAll(diffOut.String(), ws+string(filepath.Separator), "")

			if *updateFix {
				writeTree(t, filepath.Join(dir, "after"), after)
				require.NoError(t, os.WriteFile(filepath.Join(dir, "fix.diff"), []byte(gotDiff), 0o644))
			}
			assert.Equal(t, readTree(t, filepath.Join(dir, "after")), after, "after/ (regenerate with -update)")
			wantDiff, err := os.ReadFile(filepath.Join(dir, "fix.diff"))
			require.NoError(t, err)
			assert.Equal(t, string(wantDiff), gotDiff, "fix.diff (regenerate with -update)")

			// Idempotent: a second run changes nothing.
			out.Reset()
			errb.Reset()
			Main(append(append([]string{}, args...), "--fix", ws), &out, &errb, "test", diagnostics.Options{})
			assert.Equal(t, after, readTree(t, ws))
			assert.Contains(t, errb.String(), "fixed 0 problem(s) in 0 file(s)")
			diffOut.Reset()
			Main(append(append([]string{}, args...), "--diff", ws), &diffOut, &errb, "test", diagnostics.Options{})
			assert.Empty(t, diffOut.String())
		})
	}
	// Every rule whose fix is safe has a case that exercises its fix.
	for _, r := range diagnostics.Rules() {
		if r.Fix == diagnostics.FixSafe {
			assert.True(t, covered[r.ID], "no testdata/fix case fixes %s", r.ID)
		}
	}
}

func sortedKeys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// optsFor turns a case's --targets flag into rule options, as Main does.
func optsFor(t *testing.T, args []string) diagnostics.Options {
	t.Helper()
	opts := diagnostics.Options{}
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "--targets" {
			for _, id := range strings.Split(args[i+1], ",") {
				opts.Targets = append(opts.Targets, model.Target(id))
			}
		}
	}
	return opts
}

// TestFixKeepsModeAndLeavesNoTemp: the atomic write keeps the file's mode
// and leaves no temporary file behind.
func TestFixKeepsModeAndLeavesNoTemp(t *testing.T) {
	ws := t.TempDir()
	rel := ".github/skills/bom-skill/SKILL.md"
	write(t, ws, rel, "\ufeff---\nname: bom-skill\ndescription: Checks a skill whose header follows a byte-order mark.\n---\n")
	p := filepath.Join(ws, filepath.FromSlash(rel))
	require.NoError(t, os.Chmod(p, 0o600))
	res, err := Fix([]string{ws}, Config{}, true)
	require.NoError(t, err)
	require.Len(t, res.Changes, 1)
	st, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	ents, err := os.ReadDir(filepath.Dir(p))
	require.NoError(t, err)
	assert.Len(t, ents, 1, "a temporary file was left")
}

// TestUnsafeFixesAreNotApplied: a rule whose fix is unsafe keeps its
// quick fix for the editor and --unsafe-fixes only.
func TestUnsafeFixesAreNotApplied(t *testing.T) {
	ws := t.TempDir()
	rel := ".github/skills/demo/SKILL.md"
	text := "---\nname: demo\n---\n# Demo\n\nDoes things.\n" // no description: fixable, not safe
	write(t, ws, rel, text)
	found, err := Run([]string{ws}, diagnostics.Options{})
	require.NoError(t, err)
	hasFix := false
	for _, f := range found {
		hasFix = hasFix || len(f.fixes) > 0
	}
	require.True(t, hasFix, "the fixture should have an (unsafe) quick fix")
	var out, errb bytes.Buffer
	Main([]string{"--fix", ws}, &out, &errb, "test", diagnostics.Options{})
	b, err := os.ReadFile(filepath.Join(ws, filepath.FromSlash(rel)))
	require.NoError(t, err)
	assert.Equal(t, text, string(b))
	assert.NotEmpty(t, out.String(), "the remaining finding is printed")
}

// TestFixReportsWhatRemains: a file with a safe fix and a finding that has
// none is fixed, the finding is printed, and the exit code comes from it; a
// symlinked SKILL.md is fixed through its link, which stays a link.
func TestFixReportsWhatRemains(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, ".github/skills/left/SKILL.md", "\ufeff---\nname: Left Skill\ndescription: Has a name that is not kebab-case and a byte-order mark.\n---\n")
	write(t, ws, "shared/linked.md", "---\nname: linked\ndescription: Reached through a symlink, indented with tabs.\nmetadata:\n\tauthor: someone\n---\n")
	link := filepath.Join(ws, ".github", "skills", "linked", "SKILL.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(link), 0o755))
	if err := os.Symlink("../../../shared/linked.md", link); err != nil {
		t.Skip("no symlinks:", err)
	}
	var out, errb bytes.Buffer
	code := Main([]string{"--fix", "--fail-on", "info", ws}, &out, &errb, "test", diagnostics.Options{})
	assert.Contains(t, errb.String(), "fixed 1 problem(s) in "+filepath.Join(ws, ".github", "skills", "left", "SKILL.md")+" [fm/bom]")
	assert.Contains(t, errb.String(), "[yaml/tab-indent]")
	assert.NotContains(t, out.String(), "fm/bom")
	assert.NotContains(t, out.String(), "yaml/tab-indent")
	assert.Contains(t, out.String(), "skill/name")
	assert.Equal(t, 1, code, "the remaining finding fails the run")
	b, err := os.ReadFile(filepath.Join(ws, ".github/skills/left/SKILL.md"))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(b), "---\nname: Left Skill"))
	st, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, st.Mode()&os.ModeSymlink, "the link is still a link")
	b, err = os.ReadFile(filepath.Join(ws, "shared/linked.md"))
	require.NoError(t, err)
	assert.Contains(t, string(b), "\n  author: someone\n")
}

package diagnostics

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"

	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/model"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/ws")

// goldenRoot is a workspace folder of fixtures. Every customization file in
// it has a sibling "<name>.golden" with the expected diagnostics, one per
// line: `line:col-line:col severity rule message` (1-based, UTF-16 columns,
// as `ahpls check` prints them).
const goldenRoot = "testdata/ws"

type dirFS string

func (d dirFS) Stat(rel string) (fs.FileInfo, error) {
	if !fs.ValidPath(rel) {
		return nil, fs.ErrNotExist
	}
	return os.Stat(filepath.Join(string(d), filepath.FromSlash(rel)))
}

// ReadFile lets cross-file rules (WorkspaceReader) run on the fixtures.
func (d dirFS) ReadFile(rel string) ([]byte, error) {
	if !fs.ValidPath(rel) {
		return nil, fs.ErrNotExist
	}
	return os.ReadFile(filepath.Join(string(d), filepath.FromSlash(rel)))
}

// ReadDir lets rules that compare sibling files (WorkspaceLister) run.
func (d dirFS) ReadDir(rel string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(rel) {
		return nil, fs.ErrNotExist
	}
	return os.ReadDir(filepath.Join(string(d), filepath.FromSlash(rel)))
}

type dirLayout string

func (d dirLayout) PluginRoot(dir string) model.PluginFormat {
	return DetectPluginFormat(func(rel string) ([]byte, bool) {
		b, err := os.ReadFile(filepath.Join(string(d), filepath.FromSlash(rel)))
		return b, err == nil
	}, dir)
}

func (d dirLayout) ClaudeListed(dir string) bool {
	return model.ClaudeListed(func(rel string) ([]byte, bool) {
		b, err := os.ReadFile(filepath.Join(string(d), filepath.FromSlash(rel)))
		return b, err == nil
	}, dir)
}

func (d dirLayout) HasFile(rel string) bool {
	fi, err := os.Stat(filepath.Join(string(d), filepath.FromSlash(rel)))
	return err == nil && fi.Mode().IsRegular()
}

func renderGolden(text []byte, diags []model.Diagnostic) string {
	idx := model.NewLineIndex(text)
	var b strings.Builder
	for _, d := range diags {
		r := idx.Range(d.Span, model.UTF16)
		fmt.Fprintf(&b, "%d:%d-%d:%d %s %s %s\n", r.Start.Line+1, r.Start.Character+1, r.End.Line+1, r.End.Character+1, d.Severity, d.Rule, d.Message)
	}
	return b.String()
}

func TestGolden(t *testing.T) {
	seen := map[string]bool{}
	var files []string
	require.NoError(t, filepath.WalkDir(goldenRoot, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || strings.HasSuffix(p, ".golden") {
			return err
		}
		files = append(files, p)
		return nil
	}))
	sort.Strings(files)
	checked := 0
	for _, p := range files {
		rel := filepath.ToSlash(strings.TrimPrefix(p, goldenRoot+string(filepath.Separator)))
		kind := model.Classify(rel, dirLayout(goldenRoot))
		if kind == model.KindNone {
			continue
		}
		checked++
		t.Run(rel, func(t *testing.T) {
			text, err := os.ReadFile(p)
			require.NoError(t, err)
			diags := Check(core.File{Path: rel, Kind: kind, Text: text, FS: dirFS(goldenRoot), Layout: dirLayout(goldenRoot)}, core.Options{})
			for _, d := range diags {
				seen[d.Rule] = true
			}
			got := renderGolden(text, diags)
			if *update {
				require.NoError(t, os.WriteFile(p+".golden", []byte(got), 0o644))
				return
			}
			want, err := os.ReadFile(p + ".golden")
			require.NoError(t, err, "missing golden file; run go test ./diagnostics -run TestGolden -update")
			assert.Equal(t, string(want), got)
		})
	}
	t.Logf("golden: %d customization files checked", checked)
}

// TestEveryRuleHasAGoldenCase keeps the rule list honest: a rule that no
// fixture triggers is a rule nobody has seen fire. Rules that cannot be
// triggered by a single file on disk are listed with the test that covers them.
func TestEveryRuleHasAGoldenCase(t *testing.T) {
	coveredElsewhere := map[string]string{
		"file/too-large": "TestFileGuards",
		// The golden workspace is also check's and the server's test
		// workspace: a broken .ahpls/config.json there would change theirs.
		"config/invalid":      "TestAhplsConfig",
		"config/unknown-key":  "TestAhplsConfig",
		"config/unknown-rule": "TestAhplsConfig",
		// Renamed and removed ids need a rule history; the table holds
		// real history only, so far none.
		"config/rule-renamed":  "TestConfigRuleLifecycle",
		"config/rule-removed":  "TestConfigRuleLifecycle",
		"suppress/renamed":     "TestSuppressRenamedID",
		"file/unreadable":      "TestFileGuards (and check's TestHostileWorkspace: FIFOs cannot be committed)",
		"file/encoding":        "TestFileGuards",
		"fm/crlf":              "TestUploadOnlyRules",                                   // claude-upload is opt-in: no default-target fixture can fire it
		"internal/error":       "TestToolsConfig",                                       // no built-in rule panics on purpose
		"memory/windsurf-size": "TestWindsurfAgentsSize",                                // AGENTS.md implies no Windsurf: only --targets windsurf fires it
		"tools/config":         "TestToolsConfig, and tools' TestConfigFileIsDiagnosed", // its validator lives in package tools
		// The golden workspace holds one copilot-setup-steps.yml, at its root.
		"setup/job-missing": "TestSetupSteps",
		"setup/syntax":      "TestSetupSteps",
	}
	seen := map[string]bool{}
	// Roo Code's .roomodes cases are one workspace each (TestRooModesGolden).
	for _, root := range []string{goldenRoot, roomodesRoot} {
		_ = filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err == nil && strings.HasSuffix(p, ".golden") {
				b, _ := os.ReadFile(p)
				for _, line := range strings.Split(string(b), "\n") {
					if f := strings.Fields(line); len(f) >= 3 {
						seen[f[2]] = true
					}
				}
			}
			return nil
		})
	}
	for _, r := range Rules() {
		if _, ok := coveredElsewhere[r.ID]; ok {
			continue
		}
		assert.True(t, seen[r.ID], "rule %s has no golden case under %s or %s", r.ID, goldenRoot, roomodesRoot)
	}
}

func TestFileGuards(t *testing.T) {
	big := make([]byte, core.MaxFileSize+1)
	for i := range big {
		big[i] = 'a'
	}
	d := Check(core.File{Path: ".github/skills/a/SKILL.md", Text: big}, core.Options{})
	require.Len(t, d, 1)
	assert.Equal(t, "file/too-large", d[0].Rule)

	d = Check(core.File{Path: ".github/skills/a/SKILL.md", Text: []byte("---\nname: a\x00\n---\n")}, core.Options{})
	require.Len(t, d, 1)
	assert.Equal(t, "file/encoding", d[0].Rule)
	assert.Equal(t, model.Span{Start: 11, End: 12}, d[0].Span)

	d = Check(core.File{Path: ".mcp.json", Text: []byte("{\"a\": \"\xff\"}")}, core.Options{})
	require.Len(t, d, 1)
	assert.Equal(t, "file/encoding", d[0].Rule)
	assert.Equal(t, 7, d[0].Span.Start)

	d = Check(core.File{Path: ".github/skills/a/SKILL.md", Unreadable: "a symlink loop"}, core.Options{})
	require.Len(t, d, 1)
	assert.Equal(t, "file/unreadable", d[0].Rule)
	assert.Equal(t, "ahpls did not read this file: a symlink loop. Only regular files inside the workspace folder are checked.", d[0].Message)
	assert.Empty(t, Check(core.File{Path: ".github/skills/a/SKILL.md", Unreadable: "a symlink loop"}, core.Options{Rules: map[string]model.Severity{"file/unreadable": 0}}))

	assert.Empty(t, Check(core.File{Path: "src/main.go", Text: []byte("package main")}, core.Options{}))
}

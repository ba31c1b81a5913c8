package diagnostics

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"

	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/model"
)

// writeTree writes files (slash paths) under a fresh temp dir.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for rel, text := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	return root
}

func checkIn(t *testing.T, root, rel string, fsys core.WorkspaceFS, targets ...model.Target) []model.Diagnostic {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	require.NoError(t, err)
	return Check(core.File{Path: rel, Text: text, FS: fsys, Layout: dirLayout(root)}, core.Options{Targets: targets})
}

// statOnly hides ReadFile and ReadDir: the cross-file rules must stay quiet.
type statOnly struct{ d dirFS }

func (s statOnly) Stat(rel string) (fs.FileInfo, error) { return s.d.Stat(rel) }

// noList hides ReadDir only.
type noList struct{ d dirFS }

func (s noList) Stat(rel string) (fs.FileInfo, error) { return s.d.Stat(rel) }
func (s noList) ReadFile(rel string) ([]byte, error)  { return s.d.ReadFile(rel) }

func TestSkillNameDuplicate(t *testing.T) {
	winner := "---\nname: deploy\ndescription: Deploys the app.\n---\nBody.\n"
	other := "---\nname: deploy\ndescription: Deploys the docs.\n---\nBody.\n"
	root := writeTree(t, map[string]string{
		".github/skills/deploy/SKILL.md":   winner,
		".claude/skills/deploy/SKILL.md":   other,
		".agents/skills/deploy/SKILL.md":   winner,
		".claude/skills/solo/SKILL.md":     "---\nname: solo\ndescription: Alone.\n---\n",
		".agents/skills/headless/SKILL.md": "Just text.\n",
		".github/skills/headless/SKILL.md": "---\nname: headless\ndescription: x\n---\n",
	})
	d := dirFS(root)

	ds := checkIn(t, root, ".claude/skills/deploy/SKILL.md", d)
	dup := find(ds, "skill/name-duplicate")
	require.NotNil(t, dup, "%v", rulesOf(ds))
	assert.Equal(t, model.SeverityWarning, dup.Severity, "VS Code loads the earlier skill: the later one is shadowed")
	assert.Equal(t, sp(other, "deploy"), dup.Span, "the name value")
	assert.Equal(t, "The VS Code agent host skips this skill: '.github/skills/deploy' defines skill 'deploy' first.", dup.Message)
	require.Len(t, dup.Related, 1)
	assert.Equal(t, ".github/skills/deploy/SKILL.md", dup.Related[0].Path)
	assert.Equal(t, sp(winner, "deploy"), dup.Related[0].Span, "related points at the winner's name")
	// Copilot CLI's reaction has no evidence entry: unknown, not skip (#25).
	assert.Equal(t, model.Unknown, dup.Verdicts[model.TargetCopilotCLI])

	// An identical copy (a symlink reads the same) is only a hint.
	ds = checkIn(t, root, ".agents/skills/deploy/SKILL.md", d)
	dup = find(ds, "skill/name-duplicate")
	require.NotNil(t, dup)
	assert.Equal(t, model.SeverityHint, dup.Severity)
	assert.Equal(t, ".github/skills/deploy/SKILL.md", dup.Related[0].Path, "the first root wins, not .claude/skills")

	// A header-less skill still clashes by folder: the first line carries it.
	dup = find(checkIn(t, root, ".agents/skills/headless/SKILL.md", d), "skill/name-duplicate")
	require.NotNil(t, dup)
	assert.Equal(t, model.Span{Start: 0, End: len("Just text.")}, dup.Span)

	// The winner, a unique name, Claude Code alone, or an FS that cannot
	// read files: nothing.
	assert.Nil(t, find(checkIn(t, root, ".github/skills/deploy/SKILL.md", d), "skill/name-duplicate"))
	assert.Nil(t, find(checkIn(t, root, ".claude/skills/solo/SKILL.md", d), "skill/name-duplicate"))
	assert.Nil(t, find(checkIn(t, root, ".claude/skills/deploy/SKILL.md", d, model.TargetClaudeCode), "skill/name-duplicate"))
	assert.Nil(t, find(checkIn(t, root, ".claude/skills/deploy/SKILL.md", statOnly{d}), "skill/name-duplicate"))
	assert.Nil(t, find(checkIn(t, root, ".agents/skills/deploy/SKILL.md", d, model.TargetClaudeCode), "skill/name-duplicate"),
		"the hint too needs a consumer that reads both folders")
}

// Other folders of an earlier root clash through the agent host's `name`
// or VS Code's case-blind folder names; that needs a directory listing.
func TestSkillNameDuplicateAcrossFolders(t *testing.T) {
	root := writeTree(t, map[string]string{
		".github/skills/deploy-app/SKILL.md": "---\nname: deploy\ndescription: Deploys the app.\n---\n",
		".github/skills/Release/SKILL.md":    "---\nname: Release\ndescription: Releases.\n---\n",
		".github/skills/unrelated/SKILL.md":  "---\nname: unrelated\ndescription: deploy is mentioned here.\n---\n",
		".claude/skills/deploy/SKILL.md":     "---\nname: deploy\ndescription: Deploys the docs.\n---\n",
		".claude/skills/release/SKILL.md":    "---\nname: release\ndescription: Releases the docs.\n---\n",
	})
	d := dirFS(root)

	dup := find(checkIn(t, root, ".claude/skills/deploy/SKILL.md", d), "skill/name-duplicate")
	require.NotNil(t, dup)
	assert.Equal(t, model.SeverityWarning, dup.Severity)
	assert.Equal(t, "The VS Code agent host skips this skill: '.github/skills/deploy-app' defines a skill named 'deploy' first.", dup.Message)
	assert.Equal(t, ".github/skills/deploy-app/SKILL.md", dup.Related[0].Path)
	assert.Nil(t, find(checkIn(t, root, ".claude/skills/deploy/SKILL.md", d, model.TargetVSCode), "skill/name-duplicate"),
		"VS Code names skills after their folder: no clash there")
	assert.Nil(t, find(checkIn(t, root, ".claude/skills/deploy/SKILL.md", noList{d}), "skill/name-duplicate"), "no ReadDir: only the same folder is checked")

	dup = find(checkIn(t, root, ".claude/skills/release/SKILL.md", d, model.TargetVSCode), "skill/name-duplicate")
	require.NotNil(t, dup)
	assert.Equal(t, "VS Code skips this skill: '.github/skills/Release' is read first and differs only in case.", dup.Message)
}

func TestSkillNameDuplicateIgnoresPlugins(t *testing.T) {
	text := "---\nname: deploy\ndescription: Deploys.\n---\n"
	root := writeTree(t, map[string]string{
		".github/skills/deploy/SKILL.md":       text,
		"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`,
		"plugins/p/skills/deploy/SKILL.md":     text + "More.\n",
		"plugins/q/.claude-plugin/plugin.json": `{"name": "q"}`,
		"plugins/q/skills/deploy/SKILL.md":     text + "Other.\n",
	})
	for _, rel := range []string{"plugins/p/skills/deploy/SKILL.md", "plugins/q/skills/deploy/SKILL.md"} {
		assert.Nil(t, find(checkIn(t, root, rel, dirFS(root)), "skill/name-duplicate"), rel)
	}
}

func TestClaudeAgentDuplicate(t *testing.T) {
	a := "---\nname: twin\ndescription: A.\n---\n"
	b := "---\nname: twin\ndescription: B.\n---\n"
	root := writeTree(t, map[string]string{
		".claude/agents/first.md":              a,
		".claude/agents/deep/second.md":        b,
		".claude/agents/README.md":             a,
		".claude/agents/other.md":              "---\nname: other\ndescription: C.\n---\n",
		".claude/agents/retry.md":              "---\nname: twin\ndescription: Use: this one\n---\n",
		"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`,
		"plugins/p/agents/twin.md":             "No header: named after the file.\n",
		"plugins/p/agents/named.md":            "---\nname: twin\ndescription: D.\n---\n",
	})
	d := dirFS(root)
	ds := checkIn(t, root, ".claude/agents/first.md", d)
	dup := find(ds, "ccagent/duplicate")
	require.NotNil(t, dup, "%v", rulesOf(ds))
	assert.Equal(t, model.SeverityWarning, dup.Severity, "shadowed by retry.md, the last in path order")
	assert.Equal(t, model.Shadowed, dup.Consequence)
	assert.Equal(t, sp(a, "twin"), dup.Span)
	win := find(checkIn(t, root, ".claude/agents/retry.md", d), "ccagent/duplicate")
	require.NotNil(t, win)
	assert.Equal(t, model.SeverityInfo, win.Severity, "the one Claude Code keeps")
	assert.Equal(t, model.Shadows, win.Consequence)
	var paths []string
	for _, r := range dup.Related {
		paths = append(paths, r.Path)
	}
	assert.Equal(t, []string{".claude/agents/retry.md", ".claude/agents/deep/second.md"}, paths,
		"nested folders and headers that need Claude Code's retry count; README.md and the plugin's agents do not")
	assert.Equal(t, sp(b, "twin"), dup.Related[1].Span)
	fx, ok := preferred(dup)
	require.True(t, ok)
	assert.Equal(t, "---\nname: first\ndescription: A.\n---\n", applyFix(a, fx))

	assert.Nil(t, find(checkIn(t, root, ".claude/agents/other.md", d), "ccagent/duplicate"))
	assert.Nil(t, find(checkIn(t, root, ".claude/agents/first.md", noList{d}), "ccagent/duplicate"), "no ReadDir: skipped")

	// In a plugin a header-less agent is named after its file.
	dup = find(checkIn(t, root, "plugins/p/agents/named.md", d), "ccagent/duplicate")
	require.NotNil(t, dup)
	require.Len(t, dup.Related, 1)
	assert.Equal(t, "plugins/p/agents/twin.md", dup.Related[0].Path)
}

// A subagent check lists and reads its whole tree: this is the cost per
// keystroke in a workspace with 200 subagents.
func BenchmarkClaudeAgentDuplicate200(b *testing.B) {
	root := b.TempDir()
	for i := range 200 {
		p := filepath.Join(root, ".claude", "agents", fmt.Sprintf("g%d", i%10), fmt.Sprintf("a%d.md", i))
		require.NoError(b, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(b, os.WriteFile(p, fmt.Appendf(nil, "---\nname: agent-%d\ndescription: Agent number %d.\ntools: Read, Grep\n---\n\nDo task %d.\n", i, i, i), 0o644))
	}
	rel := ".claude/agents/g0/a0.md"
	text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	require.NoError(b, err)
	f := core.File{Path: rel, Text: text, FS: dirFS(root)}
	b.ReportAllocs()
	for b.Loop() {
		Check(f, core.Options{})
	}
}

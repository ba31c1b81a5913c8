package main

// Process-level tests: the MCP SDK's own client talks to the built binaries
// over real pipes (`ahpls mcp`, which execs ahpls-mcp), as Claude Code or
// VS Code would.

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// ahplsBinary builds ahpls and ahpls-mcp once into one folder, as `make
// build` lays them out, and returns the path of ahpls.
func ahplsBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "ahpls-mcp-e2e")
		if buildErr != nil {
			return
		}
		ext := ""
		if runtime.GOOS == "windows" {
			ext = ".exe"
		}
		for _, b := range [][2]string{{"ahpls" + ext, "../ahpls"}, {"ahpls-mcp" + ext, "."}} {
			out, err := exec.Command("go", "build", "-o", filepath.Join(binDir, b[0]), b[1]).CombinedOutput()
			if err != nil {
				buildErr = &buildError{string(out)}
				return
			}
		}
	})
	require.NoError(t, buildErr)
	return filepath.Join(binDir, "ahpls")
}

type buildError struct{ out string }

func (e *buildError) Error() string { return "go build: " + e.out }

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// brokenSkill has a byte-order mark before its header: VS Code reads no
// header at all (fm/bom, a safe fix), and its name differs from its folder.
const brokenSkill = "\uFEFF---\nname: pdf-tools\ndescription: Extracts text from PDF files. Use when the user asks about a PDF.\n---\n\n# PDF\n"

// workspace writes a root with two broken skills and one outside file.
func workspace(t *testing.T) (root, outside string) {
	t.Helper()
	base := t.TempDir()
	root = filepath.Join(base, "ws")
	outside = filepath.Join(base, "outside", ".github", "skills", "evil", "SKILL.md")
	write := func(p, text string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	write(filepath.Join(root, ".github", "skills", "pdf", "SKILL.md"), brokenSkill)
	write(filepath.Join(root, ".github", "skills", "other", "SKILL.md"), strings.Replace(brokenSkill, "pdf-tools", "other", 1))
	write(filepath.Join(root, "README.md"), "# not a customization file\n")
	write(outside, brokenSkill)
	return root, outside
}

// connect starts `ahpls mcp` in root over pipes and returns the session.
func connect(t *testing.T, root string, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(ahplsBinary(t), append([]string{"mcp"}, args...)...)
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "ahpls-e2e", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err, "a tool failure must be a tool result, not a protocol error")
	return res
}

// structured decodes a result's structured content into v.
func structured(t *testing.T, res *mcp.CallToolResult, v any) {
	t.Helper()
	require.False(t, res.IsError, "tool error: %s", text(res))
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, v))
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

type finding struct {
	Path      string            `json:"path"`
	Line      int               `json:"line"`
	Severity  string            `json:"severity"`
	Rule      string            `json:"rule"`
	Reactions map[string]string `json:"reactions"`
	Fixes     []struct {
		Title string `json:"title"`
		Safe  bool   `json:"safe"`
	} `json:"fixes"`
}

type checkOut struct {
	Findings   []finding      `json:"findings"`
	Total      int            `json:"total"`
	Counts     map[string]int `json:"counts"`
	NextCursor string         `json:"nextCursor"`
}

func TestInitializeAndListTools(t *testing.T) {
	root, _ := workspace(t)
	cs := connect(t, root)
	init := cs.InitializeResult()
	require.NotNil(t, init)
	assert.Equal(t, "ahpls", init.ServerInfo.Name)
	assert.NotNil(t, init.Capabilities.Tools)
	assert.NotNil(t, init.Capabilities.Resources)
	assert.NotNil(t, init.Capabilities.Prompts)

	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	var names []string
	readOnly := map[string]bool{}
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		require.NotNil(t, tool.Annotations, tool.Name)
		readOnly[tool.Name] = tool.Annotations.ReadOnlyHint
		schema, err := json.Marshal(tool.InputSchema)
		require.NoError(t, err)
		assert.Contains(t, string(schema), `"type":"object"`, tool.Name)
		assert.NotNil(t, tool.OutputSchema, "%s has structured results", tool.Name)
	}
	sort.Strings(names)
	assert.Equal(t, []string{"check", "explain", "fix", "list_customizations"}, names)
	assert.Equal(t, map[string]bool{"check": true, "explain": true, "fix": false, "list_customizations": true}, readOnly)
}

func TestCheckReportsBrokenSkillWithRuleAndFix(t *testing.T) {
	root, _ := workspace(t)
	cs := connect(t, root)
	for _, args := range []map[string]any{
		{}, // the whole root
		{"paths": []string{".github/skills/pdf/SKILL.md"}},
		{"paths": []string{filepath.Join(root, ".github", "skills")}},
	} {
		var out checkOut
		structured(t, call(t, cs, "check", args), &out)
		var bom *finding
		for i, f := range out.Findings {
			if f.Path == ".github/skills/pdf/SKILL.md" && f.Rule == "fm/bom" {
				bom = &out.Findings[i]
			}
		}
		require.NotNil(t, bom, "args %v: %+v", args, out.Findings)
		assert.Equal(t, 1, bom.Line)
		assert.Equal(t, "warning", bom.Severity)
		assert.Equal(t, "lose", bom.Reactions["vscode-agent-host"], "the consumer's reaction is reported")
		require.NotEmpty(t, bom.Fixes)
		assert.True(t, bom.Fixes[0].Safe, "fm/bom's fix is safe")
		assert.Equal(t, out.Total, len(out.Findings))
	}
	// A named file reports only that file.
	var one checkOut
	structured(t, call(t, cs, "check", map[string]any{"paths": []string{".github/skills/pdf/SKILL.md"}}), &one)
	for _, f := range one.Findings {
		assert.Equal(t, ".github/skills/pdf/SKILL.md", f.Path)
	}
}

func TestCheckPages(t *testing.T) {
	root, _ := workspace(t)
	for i := range 5 {
		p := filepath.Join(root, ".claude", "skills", "s"+string(rune('a'+i)), "SKILL.md")
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(brokenSkill), 0o644))
	}
	cs := connect(t, root)
	var all checkOut
	structured(t, call(t, cs, "check", map[string]any{}), &all)
	require.Greater(t, all.Total, 6)
	var got []finding
	cursor, pages := "", 0
	for {
		var page checkOut
		structured(t, call(t, cs, "check", map[string]any{"limit": 3, "cursor": cursor}), &page)
		assert.LessOrEqual(t, len(page.Findings), 3)
		assert.Equal(t, all.Total, page.Total)
		got = append(got, page.Findings...)
		pages++
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
		require.Less(t, pages, 100)
	}
	assert.Equal(t, all.Findings, got, "the pages together are the whole result")
	assert.Equal(t, (all.Total+2)/3, pages)
}

// tree maps every file below root to its content.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = string(b)
		return err
	}))
	return out
}

func TestFixChangesOnlyTheNamedFile(t *testing.T) {
	root, outside := workspace(t)
	cs := connect(t, root)
	before := tree(t, filepath.Dir(root))
	named := filepath.Join(root, ".github", "skills", "pdf", "SKILL.md")

	var out struct {
		Changed []struct {
			Path  string   `json:"path"`
			Fixed int      `json:"fixed"`
			Rules []string `json:"rules"`
		} `json:"changed"`
		Diff      string    `json:"diff"`
		Refused   []string  `json:"refused"`
		Remaining []finding `json:"remaining"`
	}
	structured(t, call(t, cs, "fix", map[string]any{"paths": []string{".github/skills/pdf/SKILL.md"}}), &out)
	require.Len(t, out.Changed, 1)
	assert.Equal(t, ".github/skills/pdf/SKILL.md", out.Changed[0].Path)
	assert.Equal(t, []string{"fm/bom"}, out.Changed[0].Rules)
	assert.Contains(t, out.Diff, "--- .github/skills/pdf/SKILL.md")
	assert.Contains(t, out.Diff, "+---")
	assert.Empty(t, out.Refused)
	for _, f := range out.Remaining {
		assert.NotEqual(t, "fm/bom", f.Rule)
	}

	after := tree(t, filepath.Dir(root))
	assert.Equal(t, strings.TrimPrefix(brokenSkill, "\uFEFF"), after[named], "the BOM is gone, nothing else changed")
	delete(before, named)
	delete(after, named)
	assert.Equal(t, before, after, "no other file changed, the other broken skill and the outside one included")
	assert.Contains(t, after[outside], "\uFEFF")

	// A second run has nothing to do.
	structured(t, call(t, cs, "fix", map[string]any{"paths": []string{named}}), &out)
	assert.Empty(t, out.Changed)

	// dryRun returns the diff and writes nothing.
	other := filepath.Join(root, ".github", "skills", "other", "SKILL.md")
	structured(t, call(t, cs, "fix", map[string]any{"paths": []string{other}, "dryRun": true}), &out)
	require.Len(t, out.Changed, 1)
	assert.Contains(t, out.Diff, "other/SKILL.md")
	b, err := os.ReadFile(other)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(b), "\uFEFF"), "dryRun wrote nothing")
}

func TestPathsOutsideTheRootAreRefused(t *testing.T) {
	root, outside := workspace(t)
	link := filepath.Join(root, ".github", "skills", "link")
	linked := runtime.GOOS != "windows" && os.Symlink(filepath.Dir(outside), link) == nil
	cs := connect(t, root)
	before := tree(t, filepath.Dir(outside))
	paths := []string{outside, "../outside/.github/skills/evil/SKILL.md", filepath.Dir(filepath.Dir(outside))}
	if linked {
		paths = append(paths, ".github/skills/link/SKILL.md")
	}
	for _, p := range paths {
		for _, tool := range []string{"check", "fix"} {
			res := call(t, cs, tool, map[string]any{"paths": []string{p}})
			assert.True(t, res.IsError, "%s %s must be refused", tool, p)
			assert.Contains(t, text(res), "outside the workspace roots", "%s %s", tool, p)
		}
	}
	assert.Equal(t, before, tree(t, filepath.Dir(outside)), "nothing outside the root was written")
}

func TestBadInputIsAToolError(t *testing.T) {
	root, _ := workspace(t)
	cs := connect(t, root)
	for _, c := range []struct {
		tool string
		args any
		want string
	}{
		{"check", map[string]any{"targets": []string{"emacs"}}, `unknown target "emacs"`},
		{"check", map[string]any{"cursor": "zzz"}, `cursor "zzz"`},
		{"check", map[string]any{"limit": 99999}, "limit"},
		{"check", map[string]any{"paths": []string{"nope/SKILL.md"}}, "does not exist"},
		{"check", map[string]any{"paths": 5}, "paths"},
		{"fix", map[string]any{"paths": []string{}}, "name the files"},
		{"fix", map[string]any{"paths": []string{".github"}}, "is a folder"},
		{"explain", map[string]any{"rule": "no/such-rule"}, `unknown rule "no/such-rule"`},
		{"explain", map[string]any{}, "rule"},
	} {
		res := call(t, cs, c.tool, c.args)
		assert.True(t, res.IsError, "%s %v", c.tool, c.args)
		assert.Contains(t, text(res), c.want, "%s %v", c.tool, c.args)
	}
}

func TestExplainResourcesAndPrompt(t *testing.T) {
	root, _ := workspace(t)
	cs := connect(t, root)
	ctx := context.Background()

	var ex struct {
		Rule struct {
			ID       string            `json:"id"`
			Fix      string            `json:"fix"`
			Levels   map[string]string `json:"levels"`
			Evidence []struct {
				Consumer string `json:"consumer"`
			} `json:"evidence"`
		} `json:"rule"`
		Markdown string `json:"markdown"`
	}
	res := call(t, cs, "explain", map[string]any{"rule": "skill/name-dir"})
	structured(t, res, &ex)
	assert.Equal(t, "skill/name-dir", ex.Rule.ID)
	assert.Equal(t, "unsafe", ex.Rule.Fix, "the agent host and Claude Code load a skill under its name: setting it to the folder renames it for them")
	assert.Equal(t, "warning", ex.Rule.Levels["vscode"])
	assert.NotEmpty(t, ex.Rule.Evidence)
	assert.Contains(t, ex.Markdown, "**Evidence:**")
	assert.Contains(t, text(res), "promptValidator.ts")

	// The resource is the same text as the tool and `ahpls check --explain`.
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "ahpls://rules/skill/name-dir"})
	require.NoError(t, err)
	require.Len(t, rr.Contents, 1)
	assert.Equal(t, ex.Markdown, rr.Contents[0].Text)
	cli, err := exec.Command(ahplsBinary(t), "check", "--explain", "skill/name-dir").Output()
	require.NoError(t, err)
	assert.Equal(t, ex.Markdown, string(cli))

	n := 0
	for r, err := range cs.Resources(ctx, nil) {
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(r.URI, "ahpls://rules/"), r.URI)
		n++
	}
	assert.Greater(t, n, 100, "every rule is a resource")
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "ahpls://rules/no/such"})
	assert.Error(t, err)

	p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "review-customizations", Arguments: map[string]string{"path": ".github"}})
	require.NoError(t, err)
	require.Len(t, p.Messages, 1)
	body := p.Messages[0].Content.(*mcp.TextContent).Text
	for _, tool := range []string{"list_customizations", "check", "explain", "fix", `".github"`} {
		assert.Contains(t, body, tool)
	}
}

func TestListCustomizations(t *testing.T) {
	root, outside := workspace(t)
	cs := connect(t, root)
	type item struct {
		Consumer, Category, Name, Source, Status, Reason string
	}
	var out struct {
		Items      []item `json:"items"`
		Total      int    `json:"total"`
		NextCursor string `json:"nextCursor"`
	}
	structured(t, call(t, cs, "list_customizations", map[string]any{}), &out)
	require.Equal(t, out.Total, len(out.Items))
	byConsumer := map[string]item{}
	for _, it := range out.Items {
		if it.Source == ".github/skills/pdf/SKILL.md" {
			byConsumer[it.Consumer] = it
		}
	}
	vs, ok := byConsumer["vscode"]
	require.True(t, ok, "VS Code lists the skill: %+v", out.Items)
	assert.Equal(t, "skills", vs.Category)
	assert.Equal(t, "loads", vs.Status)
	assert.Contains(t, byConsumer, "claude-code", "every consumer says something about the file")

	var one struct {
		Items      []item `json:"items"`
		Total      int    `json:"total"`
		NextCursor string `json:"nextCursor"`
	}
	structured(t, call(t, cs, "list_customizations", map[string]any{"targets": []string{"vscode"}, "category": "skills", "limit": 1}), &one)
	require.Len(t, one.Items, 1)
	assert.Equal(t, "vscode", one.Items[0].Consumer)
	assert.Equal(t, 2, one.Total, "two skills for VS Code")
	assert.Equal(t, "1", one.NextCursor)

	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"category": "themes"}, `unknown category "themes"`},
		{map[string]any{"root": filepath.Dir(outside)}, "outside the workspace roots"},
		{map[string]any{"root": ".github"}, "not one of the workspace roots"},
	} {
		res := call(t, cs, "list_customizations", c.args)
		assert.True(t, res.IsError, "%v", c.args)
		assert.Contains(t, text(res), c.want, "%v", c.args)
	}
}

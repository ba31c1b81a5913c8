package check

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/diagnostics"
)

// TestEveryFileAtAnyDepth (issue #25): a tree twelve folders deep is
// checked to the bottom, `--format json` counts exactly the customization
// files in it by kind, and what .gitignore skips is counted and named, never
// dropped silently; files a consumer loads although ignored are checked.
func TestEveryFileAtAnyDepth(t *testing.T) {
	root := t.TempDir()
	deep := "a1/a2/a3/a4/a5/a6/a7/a8/a9/a10/a11/a12"
	skill := func(name string) string {
		return "---\nname: " + name + "\ndescription: Does one thing well.\n---\nBody.\n"
	}
	custom := map[string]string{ // path → kind
		deep + "/.claude-plugin/plugin.json":       "plugin",
		deep + "/skills/deep-skill/SKILL.md":       "skill",
		deep + "/agents/helper.md":                 "ccagent",
		deep + "/hooks/hooks.json":                 "hooks",
		"d7/l1/l2/l3/l4/l5/bad-folder/SKILL.md":    "skill",
		".github/agents/x.agent.md":                "agent",
		".claude/settings.local.json":              "settings",
		"a1/a2/a3/a4/a5/a6/a7/a8/.mcp.json":        "mcp",
		deep + "/more/.github/skills/s/SKILL.md":   "skill",
		"a1/a2/a3/a4/a5/a6/a7/x.prompt.md":         "prompt",
		"a1/a2/a3/a4/a5/a6/a7/a8/a9/a10/AGENTS.md": "memory",
	}
	texts := map[string]string{
		deep + "/.claude-plugin/plugin.json":       `{"name": "deep"}`,
		deep + "/skills/deep-skill/SKILL.md":       skill("deep-skill"),
		deep + "/agents/helper.md":                 "---\nname: helper\ndescription: Helps.\n---\nHelp.\n",
		deep + "/hooks/hooks.json":                 `{"hooks": {}}`,
		"d7/l1/l2/l3/l4/l5/bad-folder/SKILL.md":    skill("good-name"),
		".github/agents/x.agent.md":                "---\ndescription: X.\n---\nX.\n",
		".claude/settings.local.json":              `{}`,
		"a1/a2/a3/a4/a5/a6/a7/a8/.mcp.json":        `{"mcpServers": {}}`,
		deep + "/more/.github/skills/s/SKILL.md":   skill("s"),
		"a1/a2/a3/a4/a5/a6/a7/x.prompt.md":         "---\ndescription: X.\n---\nX.\n",
		"a1/a2/a3/a4/a5/a6/a7/a8/a9/a10/AGENTS.md": "# Notes\n",
	}
	require.Len(t, texts, len(custom))
	for p, text := range texts {
		write(t, root, p, text)
	}
	// Not customizations, or ignored.
	write(t, root, deep+"/README.md", "# readme\n")
	write(t, root, deep+"/notes.txt", "x\n")
	write(t, root, "dist/skills/z/SKILL.md", skill("wrong"))
	write(t, root, deep+"/build/out.prompt.md", "---\ndescription: X.\n---\n")
	write(t, root, ".gitignore", "dist/\nbuild/\n")
	// A git work tree (an empty index): .gitignore counts only in one.
	write(t, root, ".git/index", "DIRC\x00\x00\x00\x02\x00\x00\x00\x00")
	write(t, root, ".claude/.gitignore", "settings.local.json\n")

	var out, errb bytes.Buffer
	Main([]string{"--format", "json", "--fail-on", "never", root}, &out, &errb, "test", diagnostics.Options{})
	var rep Report
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep), out.String())
	want := map[string]int{}
	for _, k := range custom {
		want[k]++
	}
	got := map[string]int{}
	for k, n := range rep.Checked {
		got[string(k)] = n
	}
	assert.Equal(t, want, got)
	assert.Equal(t, len(custom), rep.Files)
	require.Len(t, rep.Skipped, 2)
	assert.Equal(t, Skipped{Reason: "gitignored", Folders: 2, Examples: []string{deep + "/build", "dist"}}, rep.Skipped[0])
	assert.Equal(t, Skipped{Reason: "excluded", Folders: 1, Examples: []string{".git"}}, rep.Skipped[1])
	var rules []string
	for _, f := range rep.Findings {
		if strings.HasPrefix(f.Rel, "d7/") {
			rules = append(rules, f.Rule)
		}
	}
	assert.Contains(t, rules, "skill/name-dir", "a skill seven folders deep is checked (#25 repro 1)")

	out.Reset()
	errb.Reset()
	Main([]string{"--fail-on", "never", root}, &out, &errb, "test", diagnostics.Options{})
	assert.Contains(t, errb.String(), "ahpls check: checked 11 customization file(s)")
	assert.Contains(t, errb.String(), "skipped 2 folder(s) and 0 file(s) ignored by .gitignore (--no-gitignore to check them): "+deep+"/build, dist")

	out.Reset()
	Main([]string{"--format", "json", "--no-gitignore", "--fail-on", "never", root}, &out, &errb, "test", diagnostics.Options{})
	rep = Report{}
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep))
	assert.Equal(t, len(custom)+2, rep.Files, "--no-gitignore checks the ignored files too")
}

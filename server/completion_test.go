package server

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/uri"
)

func completionLabels(t *testing.T, c *testClient, u uri.URI, text string, line, col int) []string {
	t.Helper()
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(u, 1, text)))
	var list struct {
		Items []struct {
			Label string `json:"label"`
		} `json:"items"`
	}
	require.NoError(t, c.call("textDocument/completion", posParams(u, line, col), &list))
	out := []string{}
	for _, it := range list.Items {
		out = append(out, it.Label)
	}
	return out
}

func TestCompletionKnowsWhereItIs(t *testing.T) {
	root := t.TempDir()
	c := newTestClient(t, clientSetup{folders: []string{root}})
	gh := func(rel string) uri.URI { return uri.File(filepath.Join(root, filepath.FromSlash(rel))) }

	// Keys not yet present, only those the file's targets read: a
	// .github skill (VS Code agent host, Agent Skills) gets no Claude-only keys.
	got := completionLabels(t, c, gh(".github/skills/k/SKILL.md"), "---\nname: k\ndescription: K.\n\n---\n", 3, 0)
	assert.Equal(t, []string{"license", "compatibility", "metadata", "allowed-tools", "argument-hint", "user-invocable", "disable-model-invocation", "context"}, got)
	// The same file under .claude/skills also gets Claude Code's keys.
	got = completionLabels(t, c, gh(".claude/skills/k/SKILL.md"), "---\nname: k\ndescription: K.\n\n---\n", 3, 0)
	assert.Contains(t, got, "when_to_use")
	assert.NotContains(t, got, "name")
	assert.NotContains(t, got, "description")

	// Values: the folder name for `name`, booleans, enums.
	assert.Equal(t, []string{"db-migrate"}, completionLabels(t, c, gh(".github/skills/db-migrate/SKILL.md"), "---\nname: \n---\n", 1, 6))
	assert.Equal(t, []string{"true", "false"}, completionLabels(t, c, gh(".github/skills/b/SKILL.md"), "---\nuser-invocable: \n---\n", 1, 16))
	assert.Equal(t, []string{"vscode", "github-copilot"}, completionLabels(t, c, gh(".github/agents/a.agent.md"), "---\ntarget: \n---\n", 1, 8))

	// Hook event names (not field names) under an agent's `hooks:`.
	got = completionLabels(t, c, gh(".github/agents/h.agent.md"), "---\nhooks:\n  \n---\n", 2, 2)
	assert.Contains(t, got, "PreToolUse")
	assert.NotContains(t, got, "description")

	// Nothing in the body.
	assert.Equal(t, []string{}, completionLabels(t, c, gh(".github/skills/z/SKILL.md"), "---\nname: z\n---\nbody\n", 3, 2))
}

type wireHover struct {
	Contents struct {
		Value string `json:"value"`
	} `json:"contents"`
}

func TestHoverHookEventsAndDiagnostics(t *testing.T) {
	root := t.TempDir()
	c := newTestClient(t, clientSetup{folders: []string{root}})
	hover := func(u uri.URI, line, col int) string {
		t.Helper()
		var raw json.RawMessage
		require.NoError(t, c.call("textDocument/hover", posParams(u, line, col), &raw))
		var h wireHover
		_ = json.Unmarshal(raw, &h)
		return h.Contents.Value
	}
	hooks := uri.File(filepath.Join(root, ".github", "hooks", "h.json"))
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(hooks, 1, "{\n  \"hooks\": {\n    \"PreToolUse\": []\n  }\n}\n")))
	c.waitPublish(hooks, ptr(1), nil)
	got := hover(hooks, 2, 7)
	assert.True(t, strings.HasPrefix(got, "**PreToolUse** (hook event)\n\nRuns before a tool call; can allow, deny or change it.\n\nFired by: "), got)
	assert.Contains(t, got, "Claude Code")

	agent := uri.File(filepath.Join(root, ".github", "agents", "a.agent.md"))
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(agent, 1, "---\ndescription: A.\nhooks:\n  Stop: []\n---\n")))
	c.waitPublish(agent, ptr(1), nil)
	assert.Contains(t, hover(agent, 3, 3), "**Stop** (hook event)")

	// A diagnostic's hover adds what the marker does not show: no message.
	u := skillURI(root, "db-migrate")
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(u, 1, "---\nname: DB Migrate\ndescription: D.\n---\n")))
	p := c.waitPublish(u, ptr(1), func(ds []wireDiag) bool { return len(withCode(ds, "skill/name-charset")) == 1 })
	msg := withCode(p.diags(t), "skill/name-charset")[0].Message
	got = hover(u, 1, 8)
	assert.NotContains(t, got, msg)
	assert.Contains(t, got, fmt.Sprintf("**skill/name-charset** (warning) — [rule documentation](%s)", "https://github.com/ahpls-dev/ahpls/blob/main/docs/rules.md#skillname-charset"))
	assert.Contains(t, got, "| consumer | reaction |")
}

// JSON keys already in the enclosing object are not offered again.
func TestCompletionJSONKeysNotPresent(t *testing.T) {
	root := t.TempDir()
	c := newTestClient(t, clientSetup{folders: []string{root}})
	u := uri.File(filepath.Join(root, "plugins", "p", ".claude-plugin", "plugin.json"))
	text := "{\n  \"name\": \"p\",\n  \"description\": \"d\",\n  \"\"\n}\n"
	got := completionLabels(t, c, u, text, 3, 3)
	assert.NotContains(t, got, "name")
	assert.NotContains(t, got, "description")
	assert.Contains(t, got, "version")
	assert.Equal(t, map[string]bool{"name": true, "description": true}, jsonKeysAround([]byte(text), len("{\n  \"name\": \"p\",\n  \"description\": \"d\",\n  \"")))
	// Keys of nested objects do not count for the outer one, and the other way round.
	nested := `{"author": {"name": "x"}, "na`
	assert.Equal(t, map[string]bool{"author": true}, jsonKeysAround([]byte(nested), len(nested)))
	inner := `{"name": "p", "author": {"`
	assert.Equal(t, map[string]bool{}, jsonKeysAround([]byte(inner), len(inner)))
}

// TestCompletionItemsSayWhatTheyAre: every item an editor lists carries a
// detail line and Markdown documentation (#31), keys, values, the folder
// name and hook events alike, in Markdown headers and JSON files.
func TestCompletionItemsSayWhatTheyAre(t *testing.T) {
	root := t.TempDir()
	// hooks/hooks.json is a plugin's hooks file only with a manifest beside it (#25).
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".claude-plugin"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, ".claude-plugin", "plugin.json"), []byte(`{"name": "p"}`), 0o644))
	c := newTestClient(t, clientSetup{folders: []string{root}})
	gh := func(rel string) uri.URI { return uri.File(filepath.Join(root, filepath.FromSlash(rel))) }
	cases := []struct {
		name      string
		u         uri.URI
		text      string
		line, col int
	}{
		{"skill keys", gh(".claude/skills/k/SKILL.md"), "---\nname: k\ndescription: K.\n\n---\n", 3, 0},
		{"skill name", gh(".github/skills/db-migrate/SKILL.md"), "---\nname: \n---\n", 1, 6},
		{"boolean", gh(".github/skills/b/SKILL.md"), "---\nuser-invocable: \n---\n", 1, 16},
		{"enum", gh(".github/agents/a.agent.md"), "---\ntarget: \n---\n", 1, 8},
		{"hook events in a header", gh(".github/agents/h.agent.md"), "---\nhooks:\n  \n---\n", 2, 2},
		{"hook events in hooks.json", gh(".github/hooks/hooks.json"), "{\n  \"hooks\": {\n    \"\"\n  }\n}\n", 2, 5},
		{"JSON keys", gh(".mcp.json"), "{\n  \n}\n", 1, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, c.notify("textDocument/didOpen", didOpen(tc.u, 1, tc.text)))
			var list struct {
				Items []struct {
					Label         string `json:"label"`
					Detail        string `json:"detail"`
					Documentation *struct {
						Kind  string `json:"kind"`
						Value string `json:"value"`
					} `json:"documentation"`
				} `json:"items"`
			}
			require.NoError(t, c.call("textDocument/completion", posParams(tc.u, tc.line, tc.col), &list))
			require.NotEmpty(t, list.Items)
			for _, it := range list.Items {
				assert.NotEmpty(t, it.Detail, "%s: detail", it.Label)
				if assert.NotNil(t, it.Documentation, "%s: documentation", it.Label) {
					assert.Equal(t, "markdown", it.Documentation.Kind, it.Label)
					assert.NotEmpty(t, strings.TrimSpace(it.Documentation.Value), "%s: documentation", it.Label)
				}
			}
		})
	}
}

// TestCompletionByJSONPosition: the cursor's place in the JSON decides, its
// quotes included (#41: inside the quotes of a new key under "hooks" the
// editor was offered the file's and handlers' keys, not event names).
func TestCompletionByJSONPosition(t *testing.T) {
	root := t.TempDir()
	c := newTestClient(t, clientSetup{folders: []string{root}})
	hooks := uri.File(filepath.Join(root, ".github", "hooks", "hooks.json"))
	settings := uri.File(filepath.Join(root, ".claude", "settings.json"))
	// cursor marks the place with a '|' and returns the text and position.
	cursor := func(s string) (string, int, int) {
		i := strings.IndexByte(s, '|')
		before := s[:i]
		return s[:i] + s[i+1:], strings.Count(before, "\n"), i - (strings.LastIndexByte(before, "\n"[0]) + 1)
	}
	for _, tc := range []struct {
		name      string
		u         uri.URI
		text      string
		want, not []string
	}{
		{"key inside quotes under hooks", hooks, `{"hooks": {"|"}}`, []string{"PreToolUse", "SessionStart"}, []string{"hooks", "type", "command"}},
		{"half-typed key inside quotes", hooks, "{\n  \"hooks\": {\n    \"Pre|\n  }\n}", []string{"PreToolUse"}, []string{"matcher", "command"}},
		{"before the quotes", hooks, `{"hooks": { | }}`, []string{"PreToolUse"}, []string{"command"}},
		{"after another event", hooks, `{"hooks": {"Stop": [], "|"}}`, []string{"PreToolUse"}, []string{"hooks"}},
		{"an event's array: group and handler keys", hooks, `{"hooks": {"PreToolUse": [{"|"}]}}`, []string{"matcher", "hooks", "type", "command"}, []string{"PreToolUse", "version", "description"}},
		{"a group's handlers", hooks, `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "|"}]}]}}`, []string{"command", "timeout"}, []string{"matcher", "hooks", "type", "PreToolUse"}},
		{"the file's top", hooks, `{"|"}`, []string{"hooks", "description"}, []string{"command", "PreToolUse", "matcher"}},
		{"inside a value's quotes", hooks, `{"hooks": {"Stop": [{"command": "ec|"}]}}`, nil, []string{"command", "Stop", "type"}},
		{"settings' hooks", settings, `{"hooks": {"|"}}`, []string{"PreToolUse"}, []string{"enabledPlugins"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, line, col := cursor(tc.text)
			got := completionLabels(t, c, tc.u, text, line, col)
			for _, w := range tc.want {
				assert.Contains(t, got, w)
			}
			for _, n := range tc.not {
				assert.NotContains(t, got, n)
			}
			require.NoError(t, c.notify("textDocument/didClose", `{"textDocument":{"uri":"`+string(tc.u)+`"}}`))
		})
	}
}

func TestJSONPosAt(t *testing.T) {
	text := `{"hooks": {"Pre": [{"matcher": "a\"b", "hooks": [{"type": "command", "x`
	p := jsonPosAt([]byte(text), len(text))
	require.Len(t, p.path, 6)
	assert.True(t, p.inString)
	assert.True(t, p.isKey)
	assert.Equal(t, []string{"", "hooks", "Pre", "", "hooks", ""}, func() []string {
		var ks []string
		for _, f := range p.path {
			ks = append(ks, f.key)
		}
		return ks
	}())
	p = jsonPosAt([]byte(`{"a": "`), 7)
	assert.True(t, p.inString)
	assert.False(t, p.isKey)
	p = jsonPosAt([]byte(`{"a": 1 `), 8)
	assert.True(t, p.isKey, "a value ended: the comma often comes later")
}

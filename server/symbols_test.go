package server

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/uri"
)

// writeFile writes a workspace file, creating its folders.
func writeFile(t *testing.T, root, rel, text string) uri.URI {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return uri.File(p)
}

// compact re-encodes JSON without spaces so results compare as text.
func compact(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(raw, &v), "%s", raw)
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// request sends a request and returns its result as compact JSON.
func (c *testClient) request(method, params string) string {
	c.t.Helper()
	var raw json.RawMessage
	require.NoError(c.t, c.call(method, params, &raw))
	t, ok := c.t.(*testing.T)
	require.True(c.t, ok)
	return compact(t, raw)
}

func docParams(u uri.URI) string { return fmt.Sprintf(`{"textDocument":{"uri":%q}}`, u) }

func posParams(u uri.URI, line, char int) string {
	return fmt.Sprintf(`{"textDocument":{"uri":%q},"position":{"line":%d,"character":%d}}`, u, line, char)
}

// rng writes an LSP range as compact JSON.
func rng(l1, c1, l2, c2 int) string {
	return fmt.Sprintf(`{"end":{"character":%d,"line":%d},"start":{"character":%d,"line":%d}}`, c2, l2, c1, l1)
}

const outlineSkill = "---\nname: db-migrate\ndescription: Runs migrations.\nmetadata:\n  owner: db\n---\n# DB Migrate\n\nIntro.\n\n## Steps\n\n```sh\n# not a heading\n```\n\n## Notes\n"

func TestDocumentSymbolSkill(t *testing.T) {
	root := t.TempDir()
	u := writeFile(t, root, ".github/skills/db-migrate/SKILL.md", outlineSkill)
	c := newTestClient(t, clientSetup{folders: []string{root}})
	got := c.request("textDocument/documentSymbol", docParams(u))
	want := `[` +
		`{"detail":"db-migrate","kind":7,"name":"name","range":` + rng(1, 0, 1, 16) + `,"selectionRange":` + rng(1, 0, 1, 4) + `},` +
		`{"detail":"Runs migrations.","kind":7,"name":"description","range":` + rng(2, 0, 2, 29) + `,"selectionRange":` + rng(2, 0, 2, 11) + `},` +
		`{"children":[{"detail":"db","kind":7,"name":"owner","range":` + rng(4, 2, 4, 11) + `,"selectionRange":` + rng(4, 2, 4, 7) + `}],"kind":19,"name":"metadata","range":` + rng(3, 0, 4, 11) + `,"selectionRange":` + rng(3, 0, 3, 8) + `},` +
		`{"children":[` +
		`{"kind":15,"name":"Steps","range":` + rng(10, 0, 14, 3) + `,"selectionRange":` + rng(10, 3, 10, 8) + `},` +
		`{"kind":15,"name":"Notes","range":` + rng(16, 0, 16, 8) + `,"selectionRange":` + rng(16, 3, 16, 8) + `}` +
		`],"kind":15,"name":"DB Migrate","range":` + rng(6, 0, 16, 8) + `,"selectionRange":` + rng(6, 2, 6, 12) + `}]`
	assert.Equal(t, want, got)
}

const outlineHooks = `{
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/scripts/check.sh"}]}
    ]
  }
}
`

func TestDocumentSymbolHooks(t *testing.T) {
	root := t.TempDir()
	// A plugin's hooks file: a lone hooks/hooks.json is nobody's (#25).
	writeFile(t, root, ".claude-plugin/plugin.json", `{"name": "p"}`)
	u := writeFile(t, root, "hooks/hooks.json", outlineHooks)
	c := newTestClient(t, clientSetup{folders: []string{root}})
	got := c.request("textDocument/documentSymbol", docParams(u))
	names := []string{}
	var walk func(syms []map[string]any, depth int)
	var syms []map[string]any
	require.NoError(t, json.Unmarshal([]byte(got), &syms))
	walk = func(syms []map[string]any, depth int) {
		for _, s := range syms {
			names = append(names, fmt.Sprintf("%s%s/%v", strings.Repeat(".", depth), s["name"], s["kind"]))
			if ch, ok := s["children"].([]any); ok {
				var cs []map[string]any
				for _, x := range ch {
					cs = append(cs, x.(map[string]any))
				}
				walk(cs, depth+1)
			}
		}
	}
	walk(syms, 0)
	assert.Equal(t, []string{
		"hooks/19",
		".PreToolUse/24",
		"..matcher Bash/19",
		"...matcher/15",
		"...hooks/18",
		"....${CLAUDE_PLUGIN_ROOT}/scripts/check.sh/12",
		".....type/15",
		".....command/15",
	}, names)
}

func TestWorkspaceSymbol(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, ".github/skills/db-migrate/SKILL.md", outlineSkill)
	writeFile(t, root, ".github/agents/reviewer.agent.md", "---\ndescription: Reviews.\n---\nBody\n")
	mcp := writeFile(t, root, ".mcp.json", `{"mcpServers": {"docs": {"command": "node", "args": ["server.js"]}}}`)
	writeFile(t, root, "hooks/hooks.json", outlineHooks)
	writeFile(t, root, ".claude-plugin/plugin.json", `{"name": "p"}`)
	c := newTestClient(t, clientSetup{folders: []string{root}})
	// The scan checks every file; wait until the last one is known.
	deadline := 0
	var got string
	for ; deadline < 300; deadline++ {
		got = c.request("workspace/symbol", `{"query":""}`)
		if strings.Count(got, `"name"`) == 5 {
			break
		}
		sleepBriefly()
	}
	skill := uri.File(filepath.Join(root, ".github/skills/db-migrate/SKILL.md"))
	agent := uri.File(filepath.Join(root, ".github/agents/reviewer.agent.md"))
	hooks := uri.File(filepath.Join(root, "hooks/hooks.json"))
	manifest := uri.File(filepath.Join(root, ".claude-plugin/plugin.json"))
	want := `[` +
		fmt.Sprintf(`{"containerName":"plugin · .claude-plugin/plugin.json","kind":4,"location":{"range":%s,"uri":%q},"name":"p"},`, rng(0, 9, 0, 12), manifest) +
		fmt.Sprintf(`{"containerName":"agent · .github/agents/reviewer.agent.md","kind":5,"location":{"range":%s,"uri":%q},"name":"reviewer"},`, rng(0, 0, 0, 0), agent) +
		fmt.Sprintf(`{"containerName":"skill · .github/skills/db-migrate/SKILL.md","kind":12,"location":{"range":%s,"uri":%q},"name":"db-migrate"},`, rng(1, 6, 1, 16), skill) +
		fmt.Sprintf(`{"containerName":"MCP config · .mcp.json","kind":2,"location":{"range":%s,"uri":%q},"name":"docs"},`, rng(0, 16, 0, 22), mcp) +
		fmt.Sprintf(`{"containerName":"hooks · hooks/hooks.json","kind":24,"location":{"range":%s,"uri":%q},"name":"PreToolUse"}`, rng(2, 4, 2, 16), hooks) +
		`]`
	assert.Equal(t, want, got)
	// The query filters by name, characters in order, any case.
	got = c.request("workspace/symbol", `{"query":"DBm"}`)
	assert.Contains(t, got, `"name":"db-migrate"`)
	assert.Equal(t, 1, strings.Count(got, `"name"`), got)
}

func sleepBriefly() { time.Sleep(20 * time.Millisecond) }

// symbolTree flattens an outline to "name/kind" lines, dots for depth.
func symbolTree(t *testing.T, got string) []string {
	t.Helper()
	var syms []map[string]any
	require.NoError(t, json.Unmarshal([]byte(got), &syms))
	var out []string
	var walk func(syms []any, depth int)
	walk = func(syms []any, depth int) {
		for _, x := range syms {
			s := x.(map[string]any)
			out = append(out, fmt.Sprintf("%s%s/%v", strings.Repeat(".", depth), s["name"], s["kind"]))
			if ch, ok := s["children"].([]any); ok {
				walk(ch, depth+1)
			}
		}
	}
	all := make([]any, len(syms))
	for i := range syms {
		all[i] = syms[i]
	}
	walk(all, 0)
	return out
}

func TestDocumentSymbolPluginAndMarketplace(t *testing.T) {
	root := t.TempDir()
	plugin := writeFile(t, root, "plugins/p/.claude-plugin/plugin.json",
		`{"name": "p", "skills": ["./skills/a"], "mcpServers": {"docs": {"command": "node"}}}`)
	market := writeFile(t, root, ".claude-plugin/marketplace.json",
		`{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "p", "source": "./plugins/p"}]}`)
	c := newTestClient(t, clientSetup{folders: []string{root}})
	assert.Equal(t, []string{
		"name/15",
		"skills/3",
		"../skills/a/1",
		"mcpServers/3",
		".docs/2",
		"..command/15",
	}, symbolTree(t, c.request("textDocument/documentSymbol", docParams(plugin))))
	assert.Equal(t, []string{
		"name/15",
		"owner/19",
		".name/15",
		"plugins/18",
		".p/4",
		"..name/15",
		"..source/15",
	}, symbolTree(t, c.request("textDocument/documentSymbol", docParams(market))))
}

// TestWorkspaceSymbolsOnce: each marketplace entry is listed once, whether
// the scan or an open buffer indexed it last (#41).
func TestWorkspaceSymbolsOnce(t *testing.T) {
	root := t.TempDir()
	text := `{"name":"m","owner":{"name":"o"},"plugins":[{"name":"alpha","source":"./a"},{"name":"beta","source":"./b"}]}`
	u := writeFile(t, root, ".claude-plugin/marketplace.json", text)
	c := newTestClient(t, clientSetup{folders: []string{root}})
	count := func(name string) int {
		var syms []struct{ Name string }
		require.NoError(t, json.Unmarshal([]byte(c.request("workspace/symbol", `{"query":""}`)), &syms))
		n := 0
		for _, s := range syms {
			if s.Name == name {
				n++
			}
		}
		return n
	}
	require.Eventually(t, func() bool { return count("alpha") > 0 }, waitLimit, 10*time.Millisecond)
	assert.Equal(t, 1, count("alpha"))
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(u, 1, text)))
	require.NoError(t, c.notify("textDocument/didChange", didChangeFull(u, 2, strings.Replace(text, "beta", "gamma", 1))))
	require.Eventually(t, func() bool { return count("gamma") == 1 }, waitLimit, 10*time.Millisecond)
	assert.Equal(t, 1, count("alpha"))
	assert.Equal(t, 0, count("beta"))
}

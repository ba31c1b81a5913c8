package ahptest

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/ahpschema"
)

func TestFrontmatter(t *testing.T) {
	cases := []struct {
		name, in string
		want     map[string]any
		err      string
	}{
		{"none", "# Title\n", nil, ""},
		{"simple", "---\nname: lint\ndescription: Run it\n---\nbody", map[string]any{"name": "lint", "description": "Run it"}, ""},
		{"crlf and bom", "\ufeff---\r\nname: x\r\n---\r\n", map[string]any{"name": "x"}, ""},
		{"empty", "---\n---\n", nil, ""},
		{"not closed", "---\nname: lint\n", nil, "frontmatter is not closed"},
		{"not yaml", "---\nname: [unclosed\n---\n", nil, "invalid frontmatter"},
		{"dashes later are body", "text\n---\nname: no\n---\n", nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := frontmatter([]byte(tc.in))
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// entryValid checks a parse result, published as the host would, against
// the official schema.
func entryValid(t testing.TB, p *parsedPlugin) {
	e := pluginEntry(clientPlugin{id: "c:p", uri: "virtual://ahpls/x/p", name: "P"}, "c", p.loadState(), p)
	b, err := json.Marshal(e)
	require.NoError(t, err)
	require.NoError(t, ahpschema.Validate("state", "PluginCustomization", b), "%s", b)
}

func FuzzParsePlugin(f *testing.F) {
	f.Add(`{"name":"p"}`, "---\nname: lint\ndescription: d\n---\n", `{"hooks":{"Stop":[]}}`, `{"mcpServers":{"a":{"command":"x"},"b":{}}}`, "agents/a.md")
	f.Add(`{"name":`, "---\n", `[]`, `{"a":1}`, "commands/x/y.md")
	f.Add(`{"name":""}`, "", `null`, `null`, "rules/r.mdc")
	f.Fuzz(func(t *testing.T, manifest, skill, hooks, mcp, extra string) {
		files := map[string][]byte{
			".plugin/plugin.json": []byte(manifest),
			"skills/s/SKILL.md":   []byte(skill),
			"hooks/hooks.json":    []byte(hooks),
			".mcp.json":           []byte(mcp),
			extra:                 []byte(skill),
			"agents/" + extra:     []byte(skill),
			"commands/" + extra:   []byte(skill),
			"rules/" + extra:      []byte(skill),
			"skills/" + extra:     []byte(skill),
		}
		p := parsePlugin("c:p", "virtual://ahpls/x/p", files)
		seen := map[string]bool{}
		for _, c := range p.children {
			id := c["id"].(string)
			assert.False(t, seen[id], "duplicate child id %s", id)
			seen[id] = true
		}
		if p.fatal == "" {
			entryValid(t, p)
		}
	})
}

func TestParsedPluginsValidate(t *testing.T) {
	p := parsePlugin("c:p", "virtual://ahpls/x/p", map[string][]byte{
		".plugin/plugin.json":   []byte(`{"name":"p","version":"2"}`),
		"skills/a/SKILL.md":     []byte("---\nname: a\ndescription: x\n---\n"),
		"agents/r.md":           []byte("---\ntools: read, grep\nmodel: m\n---\n"),
		"rules/go.mdc":          []byte("---\nalwaysApply: true\nglobs: \"*.go, *.mod\"\n---\n"),
		"hooks/hooks.json":      []byte(`{"hooks":{"PreToolUse":[]}}`),
		".mcp.json":             []byte(`{"s":{"url":"https://x"}}`),
		"commands/a/b/c.md":     []byte("x"),
		"skills/a/extra/x.md":   []byte("not a skill"),
		"agents/nested/deep.md": []byte("not an agent"),
	})
	assert.Empty(t, p.fatal)
	assert.Empty(t, p.problems)
	entryValid(t, p)
	var names []string
	for _, c := range p.children {
		names = append(names, c["type"].(string)+":"+c["name"].(string))
	}
	assert.Equal(t, []string{"skill:a", "agent:r", "prompt:a:b:c", "rule:go", "hook:PreToolUse", "mcpServer:s"}, names)
	assert.Equal(t, []any{"*.go", "*.mod"}, p.children[3]["globs"])
	assert.Equal(t, true, p.children[3]["alwaysApply"])
	assert.Equal(t, []any{"read", "grep"}, p.children[1]["tools"])
}

func BenchmarkParsePlugin(b *testing.B) {
	files := map[string][]byte{".plugin/plugin.json": []byte(`{"name":"p"}`)}
	for i := 0; i < 50; i++ {
		files["skills/s"+string(rune('a'+i%26))+string(rune('a'+i/26))+"/SKILL.md"] = []byte("---\nname: s\ndescription: A skill that does things.\n---\n\nBody text.\n")
	}
	files[".mcp.json"] = []byte(`{"mcpServers":{"a":{"command":"x"},"b":{"url":"https://y"}}}`)
	b.ReportAllocs()
	for b.Loop() {
		parsePlugin("c:p", "virtual://ahpls/x/p", files)
	}
}

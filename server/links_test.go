package server

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.lsp.dev/uri"
)

func link(r string, target uri.URI) string {
	return fmt.Sprintf(`{"range":%s,"target":%q}`, r, target)
}

func TestDocumentLinksMarkdown(t *testing.T) {
	root := t.TempDir()
	u := writeFile(t, root, ".github/skills/db-migrate/SKILL.md",
		"---\nname: db-migrate\ndescription: Runs migrations.\n---\nSee [the guide](references/guide.md#setup) and #file:scripts/run.sh.\n"+
			"A [missing](nope.md), a [site](https://example.com), an [anchor](#steps).\n```\n[in code](references/guide.md)\n```\n`[span](references/guide.md)`\n")
	guide := writeFile(t, root, ".github/skills/db-migrate/references/guide.md", "# Guide\n")
	script := writeFile(t, root, ".github/skills/db-migrate/scripts/run.sh", "#!/bin/sh\n")
	c := newTestClient(t, clientSetup{folders: []string{root}})
	got := c.request("textDocument/documentLink", docParams(u))
	assert.Equal(t, "["+link(rng(4, 16, 4, 41), guide)+","+link(rng(4, 53, 4, 67), script)+"]", got)

	// Definition on the link goes to the file; elsewhere there is none.
	got = c.request("textDocument/definition", posParams(u, 4, 20))
	assert.Equal(t, fmt.Sprintf(`[{"range":%s,"uri":%q}]`, rng(0, 0, 0, 0), guide), got)
	assert.Equal(t, `[]`, c.request("textDocument/definition", posParams(u, 4, 2)))
}

func TestDocumentLinksJSON(t *testing.T) {
	root := t.TempDir()
	manifest := writeFile(t, root, "plugins/p/.claude-plugin/plugin.json",
		`{"name": "p", "skills": ["./skills/a"], "hooks": "./hooks/hooks.json", "agents": "./missing"}`)
	skillDir := filepath.Join(root, "plugins/p/skills/a")
	skill := writeFile(t, root, "plugins/p/skills/a/SKILL.md", "---\nname: a\ndescription: A.\n---\n")
	hooks := writeFile(t, root, "plugins/p/hooks/hooks.json",
		`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "bash ${CLAUDE_PLUGIN_ROOT}/scripts/stop.sh --fast"}]}]}}`)
	script := writeFile(t, root, "plugins/p/scripts/stop.sh", "#!/bin/sh\n")
	mcp := writeFile(t, root, ".mcp.json", `{"mcpServers": {"docs": {"command": "node", "args": ["./tools/server.js", "--port", "1"]}}}`)
	server := writeFile(t, root, "tools/server.js", "")
	c := newTestClient(t, clientSetup{folders: []string{root}})

	got := c.request("textDocument/documentLink", docParams(manifest))
	assert.Equal(t, "["+link(rng(0, 26, 0, 36), uri.File(skillDir))+","+link(rng(0, 50, 0, 68), hooks)+"]", got)
	// Definition on a skill folder opens its SKILL.md.
	assert.Equal(t, fmt.Sprintf(`[{"range":%s,"uri":%q}]`, rng(0, 0, 0, 0), skill), c.request("textDocument/definition", posParams(manifest, 0, 28)))

	got = c.request("textDocument/documentLink", docParams(hooks))
	assert.Equal(t, "["+link(rng(0, 68, 0, 105), script)+"]", got)

	got = c.request("textDocument/documentLink", docParams(mcp))
	assert.Equal(t, "["+link(rng(0, 54, 0, 71), server)+"]", got)
}

// A link that leaves the workspace folder is not followed.
func TestDocumentLinksConfined(t *testing.T) {
	parent := t.TempDir()
	root := filepath.Join(parent, "ws")
	writeFile(t, parent, "secret.md", "x")
	u := writeFile(t, root, "AGENTS.md", "[up](../secret.md)\n")
	c := newTestClient(t, clientSetup{folders: []string{root}})
	assert.Equal(t, `[]`, c.request("textDocument/documentLink", docParams(u)))
}

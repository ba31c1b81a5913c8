package server

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFoldingRanges(t *testing.T) {
	root := t.TempDir()
	u := writeFile(t, root, ".github/skills/db-migrate/SKILL.md", outlineSkill)
	j := writeFile(t, root, ".mcp.json", "{\n  \"mcpServers\": {\n    \"docs\": {\"command\": \"node\"}\n  }\n}\n")
	c := newTestClient(t, clientSetup{folders: []string{root}})
	assert.Equal(t, `[{"endLine":5,"kind":"region","startLine":0},{"endLine":16,"startLine":6},{"endLine":14,"startLine":10},{"endLine":14,"kind":"region","startLine":12}]`,
		c.request("textDocument/foldingRange", docParams(u)))
	assert.Equal(t, `[{"endLine":4,"startLine":0},{"endLine":3,"startLine":1}]`, c.request("textDocument/foldingRange", docParams(j)))
}

// TestFixAllSourceAction: fix-all takes the safe fixes only (the BOM), as
// `ahpls check --fix` does; the unsafe rename of the name stays a quick fix.
func TestFixAllSourceAction(t *testing.T) {
	root := t.TempDir()
	c := newTestClient(t, clientSetup{folders: []string{root}})
	u := skillURI(root, "db-migrate")
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(u, 1, "\ufeff---\nname: DB Migrate\ndescription: Runs migrations.\n---\n")))
	c.waitPublish(u, ptr(1), func(ds []wireDiag) bool {
		return len(withCode(ds, "fm/bom")) == 1 && len(withCode(ds, "skill/name-charset")) == 1
	})
	params := func(only string) string {
		return fmt.Sprintf(`{"textDocument":{"uri":%q},"range":%s,"context":{"diagnostics":[],"only":[%s]}}`, u, rng(0, 0, 0, 0), only)
	}
	want := fmt.Sprintf(`[{"edit":{"changes":{%q:[{"newText":"","range":%s}]}},"kind":"source.fixAll.ahpls","title":"Fix the ahpls problem"}]`,
		u, rng(0, 0, 0, 1))
	assert.Equal(t, want, c.request("textDocument/codeAction", params(`"source.fixAll"`)))
	assert.Equal(t, want, c.request("textDocument/codeAction", params(`"source"`)))
	// A quick-fix request does not get it; a request for another kind gets nothing.
	quick := c.request("textDocument/codeAction", params(`"quickfix"`))
	assert.NotContains(t, quick, "source.fixAll")
	assert.Equal(t, `[]`, c.request("textDocument/codeAction", params(`"refactor"`)))
}

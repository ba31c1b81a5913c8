package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The first scan publishes the files that have findings and nothing for
// the clean ones, and workspace/symbol knows every file it checked.
func TestScanPublishesFindingsOnly(t *testing.T) {
	root := t.TempDir()
	bad := writeFile(t, root, ".github/skills/bad/SKILL.md", "---\nname: Bad_Name\ndescription: B.\n---\n")
	clean := writeFile(t, root, ".github/skills/clean/SKILL.md", "---\nname: clean\ndescription: C.\n---\n")
	c := newTestClient(t, clientSetup{folders: []string{root}, caps: `{"window":{"workDoneProgress":true}}`})
	c.waitPublish(bad, nil, func(ds []wireDiag) bool { return len(withCode(ds, "skill/name-charset")) > 0 })
	end := c.waitFor("progress end", func(n note) bool {
		return n.Method == "$/progress" && strings.Contains(string(n.Params), `"end"`)
	})
	assert.Contains(t, string(end.Params), "checked 2 customization files, 1 with findings")
	for _, n := range c.notesCopy() {
		if n.Method == "textDocument/publishDiagnostics" {
			var p wirePublish
			require.NoError(t, json.Unmarshal(n.Params, &p))
			assert.NotEqual(t, string(clean), p.URI, "a clean file needs no publication on the first scan")
		}
	}
	got := c.request("workspace/symbol", `{"query":"cln"}`)
	assert.Contains(t, got, string(clean))
	assert.NotContains(t, got, string(bad))
}

func (c *testClient) notesCopy() []note {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]note(nil), c.notes...)
}

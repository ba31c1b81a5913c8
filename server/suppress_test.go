package server

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSuppressionAndOverrides: the server applies the same suppression
// comments and .ahpls/config.json overrides as `ahpls check` (both run them
// inside diagnostics.Check): a file-wide comment hides md/link in one
// skill, an override turns it off under docs/, an unused comment is a Hint,
// and the other skill keeps its finding.
func TestSuppressionAndOverrides(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, ".ahpls/config.json", `{"overrides": [{"files": [".github/skills/quiet/**"], "rules": {"md/link": "off"}}]}`)
	c := newTestClient(t, clientSetup{folders: []string{root}})
	open := func(name, body string) {
		u := skillURI(root, name)
		require.NoError(t, c.notify("textDocument/didOpen", didOpen(u, 1, "---\nname: "+name+"\ndescription: A skill.\n---\n"+body)))
	}
	open("loud", "[a](missing.md)\n")
	open("hushed", "<!-- ahpls-disable md/link -->\n[a](missing.md)\n<!-- ahpls-disable-next-line skill/name-dir -->\ntext\n")
	open("quiet", "[a](missing.md)\n")
	c.waitPublish(skillURI(root, "loud"), ptr(1), func(ds []wireDiag) bool { return len(withCode(ds, "md/link")) == 1 })
	c.waitPublish(skillURI(root, "hushed"), ptr(1), func(ds []wireDiag) bool {
		return len(withCode(ds, "md/link")) == 0 && len(withCode(ds, "suppress/unused")) == 1 && len(ds) == 1
	})
	c.waitPublish(skillURI(root, "quiet"), ptr(1), func(ds []wireDiag) bool { return len(ds) == 0 })
}

// TestConfigChangeRechecks: writing an override into .ahpls/config.json
// (a watched-file change) re-checks the open files under it.
func TestConfigChangeRechecks(t *testing.T) {
	root := t.TempDir()
	c := newTestClient(t, clientSetup{folders: []string{root}})
	u := skillURI(root, "loud")
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(u, 1, "---\nname: loud\ndescription: A skill.\n---\n[a](missing.md)\n")))
	c.waitPublish(u, ptr(1), func(ds []wireDiag) bool { return len(withCode(ds, "md/link")) == 1 })
	cfg := writeFile(t, root, ".ahpls/config.json", `{"overrides": [{"files": ["**"], "rules": {"md/link": "off"}}]}`)
	require.NoError(t, c.notify("workspace/didChangeWatchedFiles", `{"changes":[{"uri":"`+string(cfg)+`","type":1}]}`))
	c.waitPublish(u, ptr(1), func(ds []wireDiag) bool { return len(withCode(ds, "md/link")) == 0 })
}

// TestDisableQuickFixes: a finding in a Markdown body offers "Disable …
// for this line" (an HTML comment above it) and "… in this file"; in the
// header the line action is a YAML comment.
func TestDisableQuickFixes(t *testing.T) {
	root := t.TempDir()
	c := newTestClient(t, clientSetup{folders: []string{root}})
	u := skillURI(root, "s")
	text := "---\nname: s\ndescription: Use it when: asked.\n---\n[a](missing.md)\n"
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(u, 1, text)))
	c.waitPublish(u, ptr(1), func(ds []wireDiag) bool {
		return len(withCode(ds, "md/link")) == 1 && len(withCode(ds, "yaml/unquoted-special")) == 1
	})
	ask := func(line int) string {
		return c.request("textDocument/codeAction", fmt.Sprintf(`{"textDocument":{"uri":%q},"range":%s,"context":{"diagnostics":[],"only":["quickfix"]}}`, u, rng(line, 0, line, 40)))
	}
	body := ask(4)
	assert.Contains(t, body, `"title":"Disable md/link for this line"`)
	assert.Contains(t, body, `"newText":"\u003c!-- ahpls-disable-next-line md/link --\u003e\n"`)
	assert.Contains(t, body, `"title":"Disable md/link in this file"`)
	head := ask(2)
	assert.Contains(t, head, `"newText":"# ahpls-disable-next-line yaml/unquoted-special\n"`)
}

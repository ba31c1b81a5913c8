package server

import (
	"testing"

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

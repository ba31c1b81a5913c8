package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The marker of a name rule covers the whole value its quick fix replaces:
// `name: DB Migrate` used to underline only `DB M` (#18).
func TestNameMarkerCoversFixedValue(t *testing.T) {
	root := t.TempDir()
	c := newTestClient(t, clientSetup{folders: []string{root}})
	for i, tc := range []struct{ folder, name, code string }{
		{"db-migrate", "DB Migrate", "skill/name-charset"},
		{"my-skill", "my--skill", "skill/name-hyphens"},
		{"deploy", "org:deploy", "skill/name-charset"},
	} {
		u := skillURI(root, tc.folder)
		require.NoError(t, c.notify("textDocument/didOpen", didOpen(u, 1, "---\nname: "+tc.name+"\ndescription: Does it.\n---\n")))
		p := c.waitPublish(u, ptr(1), func(ds []wireDiag) bool { return len(withCode(ds, tc.code)) == 1 })
		d := withCode(p.diags(t), tc.code)[0]
		assert.Equal(t, [4]int{1, 6, 1, 6 + len(tc.name)}, [4]int{d.Range.Start.Line, d.Range.Start.Character, d.Range.End.Line, d.Range.End.Character}, "case %d", i)

		var actions []wireAction
		require.NoError(t, c.call("textDocument/codeAction", fmt.Sprintf(
			`{"textDocument":{"uri":%q},"range":{"start":{"line":1,"character":8},"end":{"line":1,"character":8}},"context":{"diagnostics":[]}}`, u), &actions))
		require.NotEmpty(t, actions)
		for _, a := range actions {
			if strings.HasPrefix(a.Title, "Disable ") {
				continue // the suppression comments insert a line elsewhere
			}
			for _, e := range a.Edit.Changes[string(u)] {
				assert.Equal(t, d.Range.Start, e.Range.Start, a.Title)
				assert.Equal(t, d.Range.End, e.Range.End, a.Title)
			}
		}
	}
}

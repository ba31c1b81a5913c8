package server

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/uri"
)

func notesOf(c *testClient, method string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, n := range c.notes {
		if n.Method == method {
			out = append(out, compactRaw(n.Params))
		}
	}
	return out
}

func compactRaw(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// Notify carries any payload under any method name to the editor, in the
// order sent: the server knows no custom notification of its own (the
// bridge's host status is one).
func TestNotify(t *testing.T) {
	c := newTestClient(t, clientSetup{folders: []string{t.TempDir()}})
	type payload struct {
		State string `json:"state"`
		N     int    `json:"n,omitzero"`
	}
	sent := []payload{{State: "a"}, {State: "b", N: 2}, {State: "c"}}
	for _, p := range sent {
		c.srv.Notify("test/custom", p)
	}
	seen := 0
	c.waitFor("last custom note", func(n note) bool {
		if n.Method == "test/custom" {
			seen++
		}
		return seen == len(sent)
	})
	assert.Equal(t, []string{`{"state":"a"}`, `{"n":2,"state":"b"}`, `{"state":"c"}`}, notesOf(c, "test/custom"))
}

// Without the bridge the server says nothing about an agent host: the
// default "no host" status is the bridge's (package bridge).
func TestNoHostStatusFromTheServer(t *testing.T) {
	c := newTestClient(t, clientSetup{folders: []string{t.TempDir()}})
	// A request after initialized: every notification of initialized is out.
	require.NoError(t, c.call("shutdown", `null`, nil))
	assert.Empty(t, notesOf(c, "ahpls/hostStatus"))
}

// The first scan of the workspace is reported as work-done progress.
func TestScanProgress(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, ".github/skills/a/SKILL.md", "---\nname: a\ndescription: A.\n---\n")
	writeFile(t, root, ".github/skills/b/SKILL.md", "---\nname: b\ndescription: B.\n---\n")
	c := newTestClient(t, clientSetup{folders: []string{root}, caps: `{"window":{"workDoneProgress":true}}`})
	create := c.waitRequest("window/workDoneProgress/create")
	var cp struct{ Token string }
	require.NoError(t, json.Unmarshal(create.Params, &cp))
	end := c.waitFor("progress end", func(n note) bool {
		return n.Method == "$/progress" && strings.Contains(string(n.Params), `"end"`)
	})
	assert.Equal(t, fmt.Sprintf(`{"token":%q,"value":{"kind":"end","message":"checked 2 customization files, 0 with findings"}}`, cp.Token), compactRaw(end.Params))
	begin := c.waitFor("progress begin", func(n note) bool {
		return n.Method == "$/progress" && strings.Contains(string(n.Params), `"begin"`)
	})
	assert.Equal(t, fmt.Sprintf(`{"token":%q,"value":{"cancellable":false,"kind":"begin","message":"scanning the workspace","title":"ahpls"}}`, cp.Token), compactRaw(begin.Params))
}

// The server advertises workspace folders and scans a folder added later.
func TestWorkspaceFoldersAdded(t *testing.T) {
	first, second := t.TempDir(), t.TempDir()
	u := writeFile(t, second, ".github/skills/b/SKILL.md", "---\nname: B\ndescription: B.\n---\n")
	c := newTestClient(t, clientSetup{folders: []string{first}, noInit: true})
	res := c.initialize(clientSetup{folders: []string{first}})
	var init struct {
		Capabilities struct {
			Workspace struct {
				WorkspaceFolders struct {
					Supported           bool `json:"supported"`
					ChangeNotifications bool `json:"changeNotifications"`
				} `json:"workspaceFolders"`
			} `json:"workspace"`
		} `json:"capabilities"`
	}
	require.NoError(t, json.Unmarshal(res, &init))
	assert.True(t, init.Capabilities.Workspace.WorkspaceFolders.Supported)
	assert.True(t, init.Capabilities.Workspace.WorkspaceFolders.ChangeNotifications)
	require.NoError(t, c.notify("workspace/didChangeWorkspaceFolders", fmt.Sprintf(
		`{"event":{"added":[{"uri":%q,"name":"second"}],"removed":[]}}`, uri.File(second))))
	p := c.waitPublish(u, nil, func(ds []wireDiag) bool { return len(withCode(ds, "skill/name-charset")) == 1 })
	assert.Equal(t, string(uri.File(filepath.Join(second, ".github/skills/b/SKILL.md"))), p.URI)
}

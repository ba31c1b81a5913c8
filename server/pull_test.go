package server

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A client that pulls diagnostics gets them by asking, with result ids
// (an unchanged set answers "unchanged"), and none pushed; the workspace
// answer lists the files the scan found with findings.
func TestPullDiagnostics(t *testing.T) {
	root := t.TempDir()
	bad := writeFile(t, root, ".github/skills/bad/SKILL.md", "---\nname: Bad_Name\ndescription: B.\n---\n")
	open := writeFile(t, root, ".github/skills/open/SKILL.md", "---\nname: Open_Name\ndescription: O.\n---\n")
	c := newTestClient(t, clientSetup{folders: []string{root},
		caps: `{"textDocument":{"diagnostic":{}},"workspace":{"diagnostics":{"refreshSupport":true}},"window":{"workDoneProgress":true}}`})
	c.waitFor("scan end", func(n note) bool {
		return n.Method == "$/progress" && json.Valid(n.Params) && contains(n.Params, `"end"`)
	})
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(open, 1, "---\nname: Open_Name\ndescription: O.\n---\n")))

	type report struct {
		Kind     string     `json:"kind"`
		ResultID string     `json:"resultId"`
		Items    []wireDiag `json:"items"`
		URI      string     `json:"uri"`
	}
	var r report
	require.NoError(t, c.call("textDocument/diagnostic", `{"textDocument":{"uri":"`+string(open)+`"}}`, &r))
	assert.Equal(t, "full", r.Kind)
	assert.NotEmpty(t, withCode(r.Items, "skill/name-charset"))
	var again report
	require.NoError(t, c.call("textDocument/diagnostic", `{"textDocument":{"uri":"`+string(open)+`"},"previousResultId":"`+r.ResultID+`"}`, &again))
	assert.Equal(t, report{Kind: "unchanged", ResultID: r.ResultID}, again)

	var ws struct{ Items []report }
	require.NoError(t, c.call("workspace/diagnostic", `{"previousResultIds":[]}`, &ws))
	uris := map[string]string{}
	for _, it := range ws.Items {
		uris[it.URI] = it.Kind
	}
	assert.Equal(t, "full", uris[string(bad)])
	for _, n := range c.notesCopy() {
		assert.NotEqual(t, "textDocument/publishDiagnostics", n.Method, "a pulling client gets no pushes")
	}
}

func contains(b []byte, s string) bool { return strings.Contains(string(b), s) }

// The provider is announced to pulling clients only, and the README lists it.
func TestDiagnosticProviderForPullingClients(t *testing.T) {
	for _, tc := range []struct {
		caps, want string
	}{
		{`{}`, ""},
		{`{"textDocument":{"diagnostic":{}}}`, `{"identifier":"ahpls","interFileDependencies":true,"workspaceDiagnostics":true}`},
	} {
		c := newTestClient(t, clientSetup{noInit: true})
		res := c.initialize(clientSetup{caps: tc.caps})
		var init struct {
			Capabilities map[string]json.RawMessage `json:"capabilities"`
		}
		require.NoError(t, json.Unmarshal(res, &init))
		got := ""
		if raw, ok := init.Capabilities["diagnosticProvider"]; ok {
			got = compact(t, raw)
		}
		assert.Equal(t, tc.want, got, tc.caps)
	}
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	assert.Contains(t, string(readme), "| `diagnosticProvider` |")
}

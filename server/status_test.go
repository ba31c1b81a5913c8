package server

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/uri"
)

func hostStatuses(c *testClient) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, n := range c.notes {
		if n.Method == MethodHostStatus {
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

// With no host configured the server still reports a status (#18): clients
// showed "not reported yet" forever.
func TestHostStatusWithoutHost(t *testing.T) {
	c := newTestClient(t, clientSetup{folders: []string{t.TempDir()}})
	c.waitFor("hostStatus", func(n note) bool { return n.Method == MethodHostStatus })
	// A request after initialized: every notification of initialized is out.
	require.NoError(t, c.call("shutdown", `null`, nil))
	assert.Equal(t, []string{`{"message":"no agent host configured (ahpls.host)","state":"disconnected"}`}, hostStatuses(c))
}

// When the bridge reports during initialization, the default is not sent.
func TestHostStatusFromBridgeWins(t *testing.T) {
	var c *testClient
	opts := Options{OnInitialized: func(context.Context, []string) {
		c.srv.SendHostStatus(HostStatus{State: HostStateConnecting, Host: "ws://127.0.0.1:1"})
	}}
	root := t.TempDir()
	c = newTestClient(t, clientSetup{opts: opts, folders: []string{root}, noInit: true})
	c.initialize(clientSetup{folders: []string{root}})
	c.waitFor("hostStatus", func(n note) bool { return n.Method == MethodHostStatus })
	require.NoError(t, c.call("shutdown", `null`, nil))
	assert.Equal(t, []string{`{"host":"ws://127.0.0.1:1","state":"connecting"}`}, hostStatuses(c))
}

// Every state of the status reaches the client with its fields.
func TestHostStatusEveryState(t *testing.T) {
	c := newTestClient(t, clientSetup{folders: []string{t.TempDir()}})
	c.waitFor("default hostStatus", func(n note) bool { return n.Method == MethodHostStatus })
	sent := []HostStatus{
		{State: HostStateConnecting, Host: "ws://127.0.0.1:1"},
		{State: HostStateConnecting, Host: "ws://127.0.0.1:1", RetryIn: 4, LastError: "dial tcp 127.0.0.1:1: connect: connection refused"},
		{State: HostStateConnected, Host: "ws://127.0.0.1:9", Message: "connected to ws://127.0.0.1:9 (AHP 1.0.0)"},
		{State: HostStateRefused, Host: "ws://127.0.0.1:9", Message: "no common protocol version", HostVersions: []string{"2.0.0"}, ClientVersions: []string{"1.0.0", "0.9.0"}},
		{State: HostStateDisconnected, Message: HostStatusNoHost},
	}
	for _, st := range sent {
		c.srv.SendHostStatus(st)
	}
	want := []string{
		`{"message":"no agent host configured (ahpls.host)","state":"disconnected"}`,
		`{"host":"ws://127.0.0.1:1","state":"connecting"}`,
		`{"host":"ws://127.0.0.1:1","lastError":"dial tcp 127.0.0.1:1: connect: connection refused","retryIn":4,"state":"connecting"}`,
		`{"host":"ws://127.0.0.1:9","message":"connected to ws://127.0.0.1:9 (AHP 1.0.0)","state":"connected"}`,
		`{"clientVersions":["1.0.0","0.9.0"],"host":"ws://127.0.0.1:9","hostVersions":["2.0.0"],"message":"no common protocol version","state":"refused"}`,
		`{"message":"no agent host configured (ahpls.host)","state":"disconnected"}`,
	}
	seen := 0
	c.waitFor("last status", func(n note) bool {
		if n.Method == MethodHostStatus {
			seen++
		}
		return seen == len(want)
	})
	assert.Equal(t, want, hostStatuses(c))
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

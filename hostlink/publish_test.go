package hostlink

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/ahpclient"
	"github.com/ahpls-dev/ahpls/ahptest"
	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/virtualplugin"
)

// The host copies both virtual plugins through reverse requests and gets
// every file byte for byte; one skill edit changes exactly that plugin's
// nonce with exactly one activeClientSet; reverting restores the nonce; a
// change that alters nothing sends nothing.
func TestHostReadsPluginsAndNoncesFollowContent(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		h := newHarness(t, harnessOpts{versions: dl.versions})
		h.published("proj", "tooling")
		h.settled(h.session, "proj", "tooling")

		disk := func(rel string) []byte {
			b, err := os.ReadFile(filepath.Join(h.ws, filepath.FromSlash(rel)))
			require.NoError(t, err)
			return b
		}
		tree := h.readTree(h.pluginURI("proj"))
		assert.Equal(t, []string{".mcp.json", ".plugin/plugin.json", "agents/reviewer.agent.md", "skills/fmt/SKILL.md", "skills/lint/SKILL.md"}, sortedKeys(tree))
		assert.Equal(t, disk(".github/skills/lint/SKILL.md"), tree["skills/lint/SKILL.md"])
		assert.Equal(t, disk(".github/skills/fmt/SKILL.md"), tree["skills/fmt/SKILL.md"])
		assert.Equal(t, disk(".github/agents/reviewer.agent.md"), tree["agents/reviewer.agent.md"])
		assert.Equal(t, disk(".mcp.json"), tree[".mcp.json"], "no server is disabled: .mcp.json is served as is")
		var manifest map[string]any
		require.NoError(t, json.Unmarshal(tree[".plugin/plugin.json"], &manifest))
		assert.Equal(t, "proj", manifest["name"])

		tooling := h.readTree(h.pluginURI("tooling"))
		assert.Equal(t, disk("plugins/tooling/.plugin/plugin.json"), tooling[".plugin/plugin.json"])
		assert.Equal(t, disk("plugins/tooling/skills/release/SKILL.md"), tooling["skills/release/SKILL.md"])
		assert.Len(t, tooling, 2)

		// Ids and URIs are stable; the entry names both plugins.
		p := h.hostPlugin("proj")
		assert.Equal(t, h.pluginURI("proj"), p["uri"])
		assert.Equal(t, "plugin", p["type"])
		h.host.wait(t, "displayName", func(v *ahptest.View) bool { return v.ActiveClient(h.session, h.cid())["displayName"] == "ahpls" })
		st := h.link.Status()
		assert.Equal(t, StatusConnected, st.State)
		assert.Equal(t, []string{h.session}, st.Sessions)
		require.Len(t, st.SessionDetails, 1)
		assert.Equal(t, SessionInfo{URI: h.session, Title: "Fix flaky test", WorkingDirectories: []string{virtualplugin.FolderURI(h.ws)}}, st.SessionDetails[0])
		require.Len(t, st.Plugins, 2)
		assert.Equal(t, h.pluginURI("proj"), st.Plugins[0].URI)
		before := h.nonce("proj")
		toolingBefore := h.nonce("tooling")
		sets := h.host.acSets.Load()

		// Edit one skill: exactly that plugin's nonce moves, with one dispatch.
		h.change(".github/skills/lint/SKILL.md", lintSkill+"\nAlso run `go vet`.\n")
		h.host.wait(t, "a new nonce", func(v *ahptest.View) bool {
			e := entryPlugin(v, h.session, h.cid(), h.pluginID("proj"))
			return e != nil && e["nonce"] != before
		})
		edited := h.nonce("proj")
		assert.NotEqual(t, before, edited)
		assert.Equal(t, toolingBefore, h.nonce("tooling"), "the other plugin's nonce must not move")
		assert.Equal(t, sets+1, h.host.acSets.Load(), "one edit, one activeClientSet")
		assert.Equal(t, h.pluginID("proj"), h.hostPlugin("proj")["id"], "the id never changes with content")
		got, err := h.host.ResourceRead(t.Context(), h.cid(), h.pluginURI("proj")+"/skills/lint/SKILL.md")
		require.NoError(t, err)
		assert.Contains(t, got, "go vet")

		// Revert: the old nonce comes back.
		h.change(".github/skills/lint/SKILL.md", lintSkill)
		h.host.wait(t, "the old nonce", func(v *ahptest.View) bool {
			e := entryPlugin(v, h.session, h.cid(), h.pluginID("proj"))
			return e != nil && e["nonce"] == before
		})
		assert.Equal(t, sets+2, h.host.acSets.Load())

		// A change that alters nothing publishes nothing.
		h.change(".github/skills/lint/SKILL.md", lintSkill)
		h.link.FilesChanged(filepath.Join(h.ws, "src/main.go"))
		h.waitApplied()
		assert.Equal(t, sets+2, h.host.acSets.Load(), "no content change, no activeClientSet")
		assert.Equal(t, before, h.nonce("proj"))
	})
}

// Reverse requests other than reads are refused with the codes of ahp.md
// §6; reads outside our trees are denied, missing paths are not found.
func TestReverseRequestAnswers(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		h := newHarness(t, harnessOpts{versions: dl.versions})
		h.published("proj")
		root := h.pluginURI("proj")
		fileURI := "file://" + filepath.ToSlash(filepath.Join(h.ws, ".mcp.json"))
		cases := []struct {
			name   string
			method string
			params map[string]any
			code   int64 // 0 = success
			result string
		}{
			{"resolve root", "resourceResolve", map[string]any{"uri": root}, 0, `"type":"directory"`},
			{"resolve file", "resourceResolve", map[string]any{"uri": root + "/skills/lint/SKILL.md"}, 0, `"type":"file"`},
			{"resolve missing", "resourceResolve", map[string]any{"uri": root + "/hooks/hooks.json"}, -32008, ""},
			{"list a file", "resourceList", map[string]any{"uri": root + "/.mcp.json"}, -32008, ""},
			{"read utf-8", "resourceRead", map[string]any{"uri": root + "/skills/lint/SKILL.md", "encoding": "utf-8"}, 0, `"encoding":"utf-8"`},
			{"read outside", "resourceRead", map[string]any{"uri": fileURI}, -32009, ""},
			{"read climbing", "resourceRead", map[string]any{"uri": root + "/../tooling/.plugin/plugin.json"}, -32009, ""},
			{"write", "resourceWrite", map[string]any{"uri": root + "/skills/new/SKILL.md", "data": "aGk=", "encoding": "base64", "createOnly": true}, -32009, ""},
			{"delete", "resourceDelete", map[string]any{"uri": root + "/skills", "recursive": true}, -32009, ""},
			{"move", "resourceMove", map[string]any{"source": root + "/skills/lint", "destination": root + "/skills/lint2"}, -32009, ""},
			{"copy", "resourceCopy", map[string]any{"source": root + "/.mcp.json", "destination": "file:///tmp/x.json", "failIfExists": true}, -32009, ""},
			{"mkdir", "resourceMkdir", map[string]any{"uri": root + "/agents"}, -32009, ""},
			{"watch", "createResourceWatch", map[string]any{"uri": root, "recursive": true}, -32601, ""},
			{"request own", "resourceRequest", map[string]any{"uri": root, "read": true}, 0, `{}`},
			{"request other", "resourceRequest", map[string]any{"uri": fileURI, "read": true}, -32009, ""},
			{"request write", "resourceRequest", map[string]any{"uri": root, "write": true}, -32009, ""},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				res, err := h.request(c.method, c.params)
				if c.code == 0 {
					require.NoError(t, err)
					assert.Contains(t, string(res), c.result)
					return
				}
				require.Error(t, err)
				assert.Equal(t, c.code, rpcCode(err), "error %v", err)
			})
		}
	})
}

// toolNames lists the tool names of our entry as the host holds it.
func toolNames(v *ahptest.View, session, cid string) []string {
	var out []string
	l, _ := v.ActiveClient(session, cid)["tools"].([]any)
	for _, t := range l {
		if m, ok := t.(map[string]any); ok {
			out = append(out, m["name"].(string))
		}
	}
	return out
}

// Workspace tools are offered only when trusted, follow edits of the open
// config buffer, and step aside when a server tool takes their name.
func TestToolsInTheEntry(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		ws := workspace(t)
		cfgText := `{"version":1,"tools":[{"name":"echo_words","description":"Echo words","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}},"command":{"argv":["echo","{text}"]}}]}`
		writeFiles(t, ws, map[string]string{".ahpls/tools.json": cfgText})
		h := newHarness(t, harnessOpts{versions: dl.versions, ws: ws, cfg: func(c *Config) { c.TrustWorkspaceTools = true }})
		h.published("proj")
		h.host.wait(t, "the workspace tool", func(v *ahptest.View) bool {
			n := toolNames(v, h.session, h.cid())
			return len(n) == 1 && n[0] == "ahpls_echo_words"
		})

		// An edit in the open buffer (not saved) adds a tool.
		p := filepath.Join(ws, ".ahpls", "tools.json")
		h.ed.mu.Lock()
		h.ed.bufs[p] = []byte(`{"version":1,"tools":[{"name":"echo_words","command":{"argv":["echo","{text}"]},"inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}},{"name":"list","command":{"argv":["ls"]}}]}`)
		h.ed.mu.Unlock()
		h.link.FilesChanged(p)
		h.host.wait(t, "two tools", func(v *ahptest.View) bool { return len(toolNames(v, h.session, h.cid())) == 2 })

		// A server tool with our wanted name: ours is renamed, not dropped.
		h.emit(h.session, `{"type":"session/serverToolsChanged","tools":[{"name":"ahpls_echo_words","description":"the host's own"}]}`)
		h.host.wait(t, "renamed tool", func(v *ahptest.View) bool {
			for _, n := range toolNames(v, h.session, h.cid()) {
				if n == "ahpls_echo_words_2" {
					return true
				}
			}
			return false
		})
		assert.NotEmpty(t, h.link.Status().ToolCollisions)

		// A tool from the settings joins them.
		h.link.SetToolSettings(json.RawMessage(`{"tools":[{"name":"from_settings","command":{"argv":["true"]}}]}`))
		h.host.wait(t, "settings tool", func(v *ahptest.View) bool {
			for _, n := range toolNames(v, h.session, h.cid()) {
				if n == "ahpls_from_settings" {
					return true
				}
			}
			return false
		})

		// Untrusted: command tools are withdrawn.
		h.link.SetTrusted(false)
		h.host.wait(t, "no tools", func(v *ahptest.View) bool { return len(toolNames(v, h.session, h.cid())) == 0 })
	})
}

// A file whose rules report an error is left out of the plugin, with a
// warning on it that says why; fixing it publishes it and clears the
// warning.
func TestExcludedFileDiagnostic(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		ws := workspace(t)
		bad := "---\n- a\n- b\n---\nBody.\n"
		writeFiles(t, ws, map[string]string{".github/skills/broken/SKILL.md": bad})
		h := newHarness(t, harnessOpts{versions: dl.versions, ws: ws})
		h.published("proj")
		p := filepath.Join(ws, ".github/skills/broken/SKILL.md")
		h.ed.wait(t, "exclusion warning", func() bool { return len(h.ed.Diags(p)) > 0 })
		ds := h.ed.Diags(p)
		require.Len(t, ds, 1)
		assert.Equal(t, RuleExcluded, ds[0].Rule)
		assert.Equal(t, model.SeverityWarning, ds[0].Severity)
		assert.Equal(t, model.Span{Start: 0, End: 3}, ds[0].Span)
		assert.True(t, strings.HasPrefix(ds[0].Message, "Not published to agent sessions: "), ds[0].Message)
		_, err := h.host.ResourceRead(t.Context(), h.cid(), h.pluginURI("proj")+"/skills/broken/SKILL.md")
		require.Error(t, err)

		before := h.nonce("proj")
		h.change(".github/skills/broken/SKILL.md", "---\nname: broken\ndescription: Fixed now and ready for publication.\n---\nBody.\n")
		h.ed.wait(t, "warning cleared", func() bool { return len(h.ed.Diags(p)) == 0 })
		h.host.wait(t, "published", func(v *ahptest.View) bool {
			e := entryPlugin(v, h.session, h.cid(), h.pluginID("proj"))
			return e != nil && e["nonce"] != before
		})
		got, err := h.host.ResourceRead(t.Context(), h.cid(), h.pluginURI("proj")+"/skills/broken/SKILL.md")
		require.NoError(t, err)
		assert.Contains(t, got, "Fixed now")
	})
}

// A host that speaks none of our versions refuses for good: Run returns,
// the status says which versions it supports, and nothing retries.
func TestRefusedHostDoesNotLoop(t *testing.T) {
	host := startHost(t, ahptest.Options{ProtocolVersions: []string{"2.0.0"}})
	ws := workspace(t)
	writeFiles(t, ws, map[string]string{".github/skills/broken/SKILL.md": "---\n- a\n---\n"})
	h := newHarness(t, harnessOpts{host: host, ws: ws})
	var err error
	select {
	case err = <-h.runErr:
	case <-time.After(waitTimeout):
		t.Fatal("Run kept going against a refusing host")
	}
	h.cancel = nil
	var uv *ahpclient.UnsupportedVersionError
	require.ErrorAs(t, err, &uv)
	st := h.ed.Statuses()
	require.NotEmpty(t, st)
	last := st[len(st)-1]
	assert.True(t, strings.HasPrefix(last, StatusRefused+": "), last)
	assert.Contains(t, last, "2.0.0")
	assert.Equal(t, 1, host.Accepted(), "no reconnect loop")
	assert.Empty(t, h.ed.AllDiags(), "nothing stays published once the link is over")
}

// An outage longer than the host's grace period costs the entry; once the
// socket is back the full entry is asserted again, unchanged.
func TestEntryReassertedAfterGraceExpired(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		host := startHost(t, dl.with(ahptest.Options{GracePeriod: 50 * time.Millisecond}))
		h := newHarness(t, harnessOpts{host: host})
		h.published("proj", "tooling")
		h.settled(h.session, "proj", "tooling")
		nonce := h.nonce("proj")
		cid := h.cid()

		host.RefuseConnections(true)
		require.NoError(t, host.Drop(cid))
		host.wait(t, "the host dropped our entry", func(v *ahptest.View) bool {
			return v.ActiveClient(h.session, cid) == nil && hostCustomization(v.State(h.session), h.pluginID("proj")) == nil
		})
		sets := host.acSets.Load()
		host.RefuseConnections(false)
		h.published("proj", "tooling")
		assert.Equal(t, nonce, h.nonce("proj"))
		assert.Equal(t, sets+1, host.acSets.Load(), "one activeClientSet re-asserts the whole entry")
		h.settled(h.session, "proj", "tooling")
	})
}

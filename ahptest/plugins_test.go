package ahptest_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/ahpclient"
	"github.com/ahpls-dev/ahpls/ahptest"
)

// pluginServer serves virtual:// plugin trees from in-memory files the way
// ahpls does: resolve, list (direct children), read (SKILL.md files as
// base64, the rest as utf-8). It records every file read.
type pluginServer struct {
	mu     sync.Mutex
	trees  map[string]map[string]string // root → rel path → content
	denied map[string]bool              // full uris whose read fails -32009
	read   map[string]int               // full uri → reads
	// hold, when set, makes the first read of holdURI wait for it (after
	// closing held).
	hold, held chan struct{}
	holdURI    string
}

func newPluginServer() *pluginServer {
	return &pluginServer{trees: map[string]map[string]string{}, denied: map[string]bool{}, read: map[string]int{}}
}

func (s *pluginServer) set(root string, files map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.trees[root] = files
}

func (s *pluginServer) deny(uri string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.denied[uri] = true
}

func (s *pluginServer) readsOf(uri string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.read[uri]
}

// lookup splits a uri into its tree and relative path.
func (s *pluginServer) lookup(uri string) (map[string]string, string, bool) {
	for root, files := range s.trees {
		if uri == root {
			return files, "", true
		}
		if strings.HasPrefix(uri, root+"/") {
			return files, strings.TrimPrefix(uri, root+"/"), true
		}
	}
	return nil, "", false
}

func isDir(files map[string]string, rel string) bool {
	if rel == "" {
		return true
	}
	for p := range files {
		if strings.HasPrefix(p, rel+"/") {
			return true
		}
	}
	return false
}

func notFound(uri string) error { return ahpclient.NewError(-32008, "not found: "+uri, nil) }

func (s *pluginServer) install(c *ahpclient.Client) {
	uriOf := func(raw json.RawMessage) string {
		var p struct {
			URI string `json:"uri"`
		}
		_ = json.Unmarshal(raw, &p)
		return p.URI
	}
	c.Handle("resourceResolve", func(_ context.Context, raw json.RawMessage) (any, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		uri := uriOf(raw)
		files, rel, ok := s.lookup(uri)
		switch {
		case !ok:
			return nil, notFound(uri)
		case isDir(files, rel):
			return map[string]any{"uri": uri, "type": "directory"}, nil
		case files[rel] != "":
			return map[string]any{"uri": uri, "type": "file", "size": len(files[rel])}, nil
		}
		return nil, notFound(uri)
	})
	c.Handle("resourceList", func(_ context.Context, raw json.RawMessage) (any, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		uri := uriOf(raw)
		files, rel, ok := s.lookup(uri)
		if !ok || !isDir(files, rel) {
			return nil, notFound(uri)
		}
		prefix := ""
		if rel != "" {
			prefix = rel + "/"
		}
		seen := map[string]string{}
		for p := range files {
			if !strings.HasPrefix(p, prefix) {
				continue
			}
			name, rest, nested := strings.Cut(strings.TrimPrefix(p, prefix), "/")
			_ = rest
			if nested {
				seen[name] = "directory"
			} else {
				seen[name] = "file"
			}
		}
		names := make([]string, 0, len(seen))
		for n := range seen {
			names = append(names, n)
		}
		sort.Strings(names)
		entries := []any{}
		for _, n := range names {
			entries = append(entries, map[string]any{"name": n, "type": seen[n]})
		}
		return map[string]any{"entries": entries}, nil
	})
	c.Handle("resourceRead", func(_ context.Context, raw json.RawMessage) (any, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		uri := uriOf(raw)
		s.read[uri]++
		if s.hold != nil && uri == s.holdURI && s.read[uri] == 1 {
			hold := s.hold
			close(s.held)
			s.mu.Unlock()
			<-hold
			s.mu.Lock()
		}
		if s.denied[uri] {
			return nil, ahpclient.NewError(-32009, "read access not granted", nil)
		}
		files, rel, ok := s.lookup(uri)
		data, exists := files[rel]
		if !ok || !exists {
			return nil, notFound(uri)
		}
		if strings.HasSuffix(rel, "SKILL.md") {
			return map[string]any{"data": base64.StdEncoding.EncodeToString([]byte(data)), "encoding": "base64"}, nil
		}
		return map[string]any{"data": data, "encoding": "utf-8"}, nil
	})
}

const pluginRoot = "virtual://ahpls/0a1b2c3d/workspace"

func workspaceFiles() map[string]string {
	return map[string]string{
		".plugin/plugin.json":         `{"name":"ahpls-workspace","version":"1.2.0"}`,
		"skills/lint/SKILL.md":        "---\nname: lint\ndescription: Run the linters.\n---\n\nRun `make lint`.\n",
		"skills/fmt/SKILL.md":         "# Format\n\nNo frontmatter: the folder names it.\n",
		"agents/reviewer.agent.md":    "---\ndescription: Reviews pull requests.\nmodel: gpt-5\ntools: [read, grep]\n---\nYou review.\n",
		"commands/deploy.md":          "Deploy the app.\n",
		"commands/db/migrate.md":      "---\ndescription: Run migrations\n---\nGo.\n",
		"rules/go.instructions.md":    "---\napplyTo: \"**/*.go\"\ndescription: Go style\n---\nUse gofmt.\n",
		"hooks/hooks.json":            `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./check.sh"}]}],"Stop":[]}}`,
		".mcp.json":                   `{"mcpServers":{"docs":{"command":"docs-server","args":["--stdio"]},"web":{"type":"http","url":"https://example.com/mcp"},"broken":{"args":["x"]}}}`,
		"README.md":                   "Not a customization.\n",
		"skills/lint/scripts/lint.sh": "#!/bin/sh\nmake lint\n",
	}
}

type pluginRig struct {
	h       *ahptest.Host
	c       *ahpclient.Client
	srv     *pluginServer
	session string

	mu    sync.Mutex
	loads map[string][]string // plugin id → load kinds as customizationUpdated delivered them
}

func newPluginRig(t *testing.T, opts ahptest.Options) *pluginRig {
	h := newHost(t, opts)
	r := &pluginRig{h: h, srv: newPluginServer(), loads: map[string][]string{}}
	r.session = h.CreateSession(ahptest.SessionSpec{WorkingDirectories: []string{folder}})
	// Load kinds are taken from the frames the client reads, not from its
	// events: a lagging listener's state changes coalesce (it may see only
	// the newest of loading → loaded), while every frame is traced.
	c, _ := startClient(t, h, func(o *ahpclient.Options) {
		o.Trace = func(dir ahpclient.FrameDirection, b []byte) {
			var m struct {
				Method string `json:"method"`
				Params struct {
					Action struct {
						Type          string `json:"type"`
						Customization struct {
							ID   string `json:"id"`
							Load struct {
								Kind string `json:"kind"`
							} `json:"load"`
						} `json:"customization"`
					} `json:"action"`
				} `json:"params"`
			}
			if dir != ahpclient.Received || json.Unmarshal(b, &m) != nil || m.Method != "action" || m.Params.Action.Type != "session/customizationUpdated" {
				return
			}
			cust := m.Params.Action.Customization
			r.mu.Lock()
			r.loads[cust.ID] = append(r.loads[cust.ID], cust.Load.Kind)
			r.mu.Unlock()
		}
	})
	r.c = c
	r.srv.install(c)
	wait(t, h, "client joined", func(v *ahptest.View) bool { return v.Subscribed(c.ClientID(), r.session) })
	return r
}

func (r *pluginRig) loadKinds(id string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.loads[id]...)
}

// publish asserts the client's entry with these plugins (displayName forces
// a new activeClientSet even when nothing else changed).
func (r *pluginRig) publish(t *testing.T, display string, plugins ...map[string]any) {
	t.Helper()
	l := []any{}
	for _, p := range plugins {
		l = append(l, p)
	}
	require.NoError(t, r.c.SetActiveClient(map[string]any{"displayName": display, "tools": []any{}, "customizations": l}))
	wait(t, r.h, "activeClientSet "+display+" accepted", func(v *ahptest.View) bool {
		ac := v.ActiveClient(r.session, r.c.ClientID())
		return ac != nil && ac["displayName"] == display
	})
}

func plugin(id, uri, nonce string) map[string]any {
	return map[string]any{"type": "plugin", "id": id, "uri": uri, "name": "Workspace customizations", "enabled": true, "nonce": nonce}
}

func customization(v *ahptest.View, session, id string) map[string]any {
	l, _ := v.State(session)["customizations"].([]any)
	for _, e := range l {
		if m, ok := e.(map[string]any); ok && m["id"] == id {
			return m
		}
	}
	return nil
}

func loadKind(v *ahptest.View, session, id string) string {
	load, _ := customization(v, session, id)["load"].(map[string]any)
	s, _ := load["kind"].(string)
	return s
}

func (r *pluginRig) waitLoad(t *testing.T, id string, kinds ...string) map[string]any {
	t.Helper()
	wait(t, r.h, id+" load "+strings.Join(kinds, "|"), func(v *ahptest.View) bool {
		k := loadKind(v, r.session, id)
		for _, want := range kinds {
			if k == want {
				return true
			}
		}
		return false
	})
	st, _ := r.h.State(r.session)
	for _, e := range st["customizations"].([]any) {
		if m := e.(map[string]any); m["id"] == id {
			return m
		}
	}
	return nil
}

func childSummary(entry map[string]any) []string {
	var out []string
	children, _ := entry["children"].([]any)
	for _, c := range children {
		m := c.(map[string]any)
		s := fmt.Sprintf("%s %s %s", m["type"], m["id"], m["name"])
		if d, ok := m["description"]; ok {
			s += " — " + fmt.Sprint(d)
		}
		out = append(out, s)
	}
	return out
}

func TestClientPluginIsReadAndPublished(t *testing.T) {
	r := newPluginRig(t, ahptest.Options{})
	files := workspaceFiles()
	r.srv.set(pluginRoot, files)
	id := r.c.ClientID() + ":workspace"
	r.publish(t, "v1", plugin(id, pluginRoot, "n1"))

	entry := r.waitLoad(t, id, "loaded", "degraded", "error")
	assert.Equal(t, map[string]any{"kind": "loaded"}, entry["load"])
	assert.Equal(t, r.c.ClientID(), entry["clientId"], "the host marks the plugin as the client's")
	assert.Equal(t, pluginRoot, entry["uri"], "the published uri is kept")
	assert.Equal(t, "Workspace customizations", entry["name"], "the published name is kept")
	assert.Equal(t, "1.2.0", entry["version"])
	assert.Equal(t, []string{
		"skill " + id + "/skill/fmt fmt",
		"skill " + id + "/skill/lint lint — Run the linters.",
		"agent " + id + "/agent/reviewer reviewer — Reviews pull requests.",
		"prompt " + id + "/prompt/db:migrate db:migrate — Run migrations",
		"prompt " + id + "/prompt/deploy deploy",
		"rule " + id + "/rule/go go — Go style",
		"hook " + id + "/hook/PreToolUse PreToolUse",
		"hook " + id + "/hook/Stop Stop",
		"mcpServer " + id + "/mcpServer/broken broken",
		"mcpServer " + id + "/mcpServer/docs docs",
		"mcpServer " + id + "/mcpServer/web web",
	}, childSummary(entry))
	for rel := range files {
		assert.Equal(t, 1, r.srv.readsOf(pluginRoot+"/"+rel), "read once: %s", rel)
	}
	clientWait(t, r.c, "the client saw the result", func() bool { return len(r.loadKinds(id)) >= 2 })
	assert.Equal(t, []string{"loading", "loaded"}, r.loadKinds(id), "the client saw loading, then loaded")

	// MCP servers start: a valid entry becomes ready, one without command
	// or url fails.
	wait(t, r.h, "servers settled", func(v *ahptest.View) bool {
		states := mcpStates(customization(v, r.session, id))
		return states["docs"] == "ready" && states["web"] == "ready" && states["broken"] == "error"
	})
	reads := r.h.Reads(pluginRoot)
	require.Positive(t, reads)

	// Same nonce again (the entry changed elsewhere): no reverse request.
	r.publish(t, "v2", plugin(id, pluginRoot, "n1"))
	assert.Equal(t, reads, r.h.Reads(pluginRoot), "same (uri, nonce): no re-read")
	assert.Equal(t, "loaded", loadKind(viewOf(r.h), r.session, id))

	// A new nonce: everything is read again.
	files["skills/new/SKILL.md"] = "---\nname: new\n---\n"
	r.srv.set(pluginRoot, files)
	r.publish(t, "v3", plugin(id, pluginRoot, "n2"))
	wait(t, r.h, "reloaded with the new skill", func(v *ahptest.View) bool {
		return loadKind(v, r.session, id) == "loaded" && strings.Contains(fmt.Sprint(customization(v, r.session, id)["children"]), "/skill/new")
	})
	assert.Greater(t, r.h.Reads(pluginRoot), reads)
	assert.Equal(t, 2, r.srv.readsOf(pluginRoot+"/.plugin/plugin.json"))
	clientWait(t, r.c, "the client saw the reload", func() bool { return len(r.loadKinds(id)) >= 4 })
	assert.Equal(t, []string{"loading", "loaded", "loading", "loaded"}, r.loadKinds(id))

	// Dropped from the client's entry: the host removes it.
	r.publish(t, "v4")
	wait(t, r.h, "plugin removed", func(v *ahptest.View) bool { return customization(v, r.session, id) == nil })
}

func viewOf(h *ahptest.Host) *ahptest.View {
	var out *ahptest.View
	_ = h.Wait(context.Background(), func(v *ahptest.View) bool { out = v; return true })
	return out
}

func mcpStates(entry map[string]any) map[string]string {
	out := map[string]string{}
	children, _ := entry["children"].([]any)
	for _, c := range children {
		m := c.(map[string]any)
		if m["type"] == "mcpServer" {
			st, _ := m["state"].(map[string]any)
			out[fmt.Sprint(m["name"])] = fmt.Sprint(st["kind"])
		}
	}
	return out
}

func TestClientPluginLoadOutcomes(t *testing.T) {
	r := newPluginRig(t, ahptest.Options{})
	cases := []struct {
		name   string
		edit   func(root string, files map[string]string)
		kind   string
		msg    string // substring of the load message
		nChild int    // children published (-1: absent)
	}{
		{"broken hooks.json", func(_ string, f map[string]string) { f["hooks/hooks.json"] = `{"hooks":` }, "degraded", "hooks/hooks.json: invalid JSON", 9},
		{"unclosed frontmatter", func(_ string, f map[string]string) { f["skills/lint/SKILL.md"] = "---\nname: lint\n" }, "degraded", "skills/lint/SKILL.md: frontmatter is not closed", 10},
		{"invalid manifest", func(_ string, f map[string]string) { f[".plugin/plugin.json"] = `{"name":` }, "error", ".plugin/plugin.json: invalid JSON", -1},
		{"manifest without name", func(_ string, f map[string]string) { f[".plugin/plugin.json"] = `{"version":"1"}` }, "error", ".plugin/plugin.json: manifest has no name", -1},
		{"no manifest", func(_ string, f map[string]string) { delete(f, ".plugin/plugin.json") }, "error", "no plugin manifest", -1},
		{"claude manifest location", func(_ string, f map[string]string) {
			delete(f, ".plugin/plugin.json")
			f[".claude-plugin/plugin.json"] = `{"name":"c"}`
		}, "loaded", "", 11},
		{"unreadable manifest", func(root string, f map[string]string) { r.srv.deny(root + "/.plugin/plugin.json") }, "error", "cannot read " + "%ROOT%/.plugin/plugin.json: ahp error -32009", -1},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := fmt.Sprintf("virtual://ahpls/0a1b2c3d/case%d", i)
			id := fmt.Sprintf("%s:case%d", r.c.ClientID(), i)
			files := workspaceFiles()
			tc.edit(root, files)
			r.srv.set(root, files)
			r.publish(t, tc.name, plugin(id, root, "n1"))
			entry := r.waitLoad(t, id, "loaded", "degraded", "error")
			load := entry["load"].(map[string]any)
			assert.Equal(t, tc.kind, load["kind"])
			assert.Contains(t, fmt.Sprint(load["message"]), strings.ReplaceAll(tc.msg, "%ROOT%", root))
			children, has := entry["children"].([]any)
			if tc.nChild < 0 {
				assert.False(t, has, "no children without a usable manifest")
			} else {
				assert.Len(t, children, tc.nChild)
			}
		})
	}
}

func TestLoadOverrideAndHandDrivenStates(t *testing.T) {
	r := newPluginRig(t, ahptest.Options{})
	r.srv.set(pluginRoot, workspaceFiles())
	id := r.c.ClientID() + ":workspace"
	require.NoError(t, r.h.SetLoadOverride(pluginRoot, map[string]any{"kind": "degraded", "message": "forced by the test"}))
	r.publish(t, "v1", plugin(id, pluginRoot, "n1"))
	entry := r.waitLoad(t, id, "degraded")
	assert.Equal(t, "forced by the test", entry["load"].(map[string]any)["message"])
	assert.Len(t, entry["children"], 11, "children kept under a forced degraded state")

	// The override is used once: a new nonce loads normally.
	r.publish(t, "v2", plugin(id, pluginRoot, "n2"))
	r.waitLoad(t, id, "loaded")

	require.NoError(t, r.h.EmitLoadState(r.session, id, map[string]any{"kind": "error", "message": "copy failed"}))
	entry = r.waitLoad(t, id, "error")
	assert.Equal(t, "copy failed", entry["load"].(map[string]any)["message"])
	clientWait(t, r.c, "the client saw the error", func() bool {
		st, _ := r.c.State(r.session)
		return strings.Contains(fmt.Sprint(st["customizations"]), "copy failed")
	})

	assert.Error(t, r.h.EmitLoadState(r.session, "nope", map[string]any{"kind": "loaded"}))
	assert.Error(t, r.h.EmitLoadState(r.session, id, map[string]any{"kind": "degraded"}), "degraded needs a message")
	assert.Error(t, r.h.SetLoadOverride(pluginRoot, map[string]any{"kind": "fine"}))
}

func TestClientPluginLoadingCanBeTurnedOff(t *testing.T) {
	off := false
	r := newPluginRig(t, ahptest.Options{LoadClientPlugins: &off})
	r.srv.set(pluginRoot, workspaceFiles())
	id := r.c.ClientID() + ":workspace"
	r.publish(t, "v1", plugin(id, pluginRoot, "n1"))
	assert.Zero(t, r.h.Reads(pluginRoot))
	st, _ := r.h.State(r.session)
	assert.Nil(t, st["customizations"])
}

// clientWait waits until cond holds, re-checking after every client event.
func clientWait(t *testing.T, c *ahpclient.Client, what string, cond func() bool) {
	t.Helper()
	ch := make(chan struct{}, 1)
	remove := c.OnEvent(func(ahpclient.Event) {
		select {
		case ch <- struct{}{}:
		default:
		}
	})
	defer remove()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	for !cond() {
		select {
		case <-ch:
		case <-ctx.Done():
			require.FailNow(t, "timed out waiting: "+what)
		}
	}
}

// TestReadInterruptedBySocketLossIsRetried: a plugin whose read failed
// because the socket dropped is read again once the client is back (it
// keeps its entry and would not republish).
func TestReadInterruptedBySocketLossIsRetried(t *testing.T) {
	r := newPluginRig(t, ahptest.Options{})
	r.srv.set(pluginRoot, workspaceFiles())
	r.srv.hold, r.srv.held, r.srv.holdURI = make(chan struct{}), make(chan struct{}), pluginRoot+"/.mcp.json"
	release := sync.OnceFunc(func() { close(r.srv.hold) })
	t.Cleanup(release)
	id := r.c.ClientID() + ":workspace"
	r.publish(t, "v1", plugin(id, pluginRoot, "n1"))
	select {
	case <-r.srv.held:
	case <-time.After(15 * time.Second):
		require.FailNow(t, "the host never read .mcp.json")
	}
	require.NoError(t, r.h.Drop(r.c.ClientID()))
	release()
	entry := r.waitLoad(t, id, "loaded")
	assert.Len(t, entry["children"], 11)
	assert.Equal(t, 2, r.srv.readsOf(pluginRoot+"/.mcp.json"), "read again after the reconnect")
}

// TestSameNonceInTwoSessionsIsReadOnce: a client joined to two sessions
// publishes the same plugin to both; the host reads the tree once.
func TestSameNonceInTwoSessionsIsReadOnce(t *testing.T) {
	var mu sync.Mutex
	var methods []string
	h := newHost(t, ahptest.Options{OnPluginRead: func(_, method, uri string) {
		mu.Lock()
		methods = append(methods, method+" "+uri)
		mu.Unlock()
	}})
	s1 := h.CreateSession(ahptest.SessionSpec{WorkingDirectories: []string{folder}})
	s2 := h.CreateSession(ahptest.SessionSpec{WorkingDirectories: []string{folder}})
	c, _ := startClient(t, h, nil)
	srv := newPluginServer()
	srv.install(c)
	files := workspaceFiles()
	srv.set(pluginRoot, files)
	wait(t, h, "joined both", func(v *ahptest.View) bool { return v.Subscribed(c.ClientID(), s1) && v.Subscribed(c.ClientID(), s2) })
	id := c.ClientID() + ":workspace"
	require.NoError(t, c.SetActiveClient(map[string]any{"tools": []any{}, "customizations": []any{plugin(id, pluginRoot, "n1")}}))
	wait(t, h, "loaded in both", func(v *ahptest.View) bool { return loadKind(v, s1, id) == "loaded" && loadKind(v, s2, id) == "loaded" })
	for rel := range files {
		assert.Equal(t, 1, srv.readsOf(pluginRoot+"/"+rel), "read once: %s", rel)
	}
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, h.Reads(pluginRoot), len(methods))
	assert.Contains(t, methods, "resourceResolve "+pluginRoot)
	assert.Contains(t, methods, "resourceList "+pluginRoot+"/skills/lint")
	assert.Contains(t, methods, "resourceRead "+pluginRoot+"/skills/lint/SKILL.md")
}

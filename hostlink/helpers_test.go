package hostlink

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/ahpclient"
	"github.com/ahpls-dev/ahpls/ahpclient/wire"
	"github.com/ahpls-dev/ahpls/ahptest"
	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/settings"
	"github.com/ahpls-dev/ahpls/virtualplugin"
)

// waitTimeout bounds every wait for a condition (a safety net, not a
// timing assertion).
const waitTimeout = 10 * time.Second

// fakeEditor records what the link reports and serves open buffers.
type fakeEditor struct {
	folders []string

	mu       sync.Mutex
	bufs     map[string][]byte
	diags    map[string][]model.Diagnostic
	clears   map[string]int // empty publications per file
	statuses []string       // "state: message"
	history  []string       // every publication, for failure messages
	changed  chan struct{}
}

func newFakeEditor(folders ...string) *fakeEditor {
	return &fakeEditor{folders: folders, bufs: map[string][]byte{}, diags: map[string][]model.Diagnostic{}, clears: map[string]int{}, changed: make(chan struct{})}
}

func (e *fakeEditor) Folders() []string { return e.folders }

func (e *fakeEditor) Text(p string) ([]byte, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	b, ok := e.bufs[p]
	return b, ok
}

func (e *fakeEditor) notifyLocked() {
	close(e.changed)
	e.changed = make(chan struct{})
}

func (e *fakeEditor) PublishDiagnostics(p string, ds []model.Diagnostic) {
	e.mu.Lock()
	defer e.mu.Unlock()
	msgs := make([]string, len(ds))
	for i, d := range ds {
		msgs[i] = d.Message
	}
	e.history = append(e.history, fmt.Sprintf("%s %q", filepath.Base(p), msgs))
	if len(ds) == 0 {
		delete(e.diags, p)
		e.clears[p]++
	} else {
		e.diags[p] = append([]model.Diagnostic(nil), ds...)
	}
	e.notifyLocked()
}

func (e *fakeEditor) HostStatus(state, msg string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.statuses = append(e.statuses, state+": "+msg)
	e.notifyLocked()
}

func (e *fakeEditor) Log(string) {}

// Diags returns a copy of a file's current diagnostics.
func (e *fakeEditor) Diags(p string) []model.Diagnostic {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]model.Diagnostic(nil), e.diags[p]...)
}

// AllDiags copies everything currently shown.
func (e *fakeEditor) AllDiags() map[string][]model.Diagnostic {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := map[string][]model.Diagnostic{}
	for k, v := range e.diags {
		out[k] = append([]model.Diagnostic(nil), v...)
	}
	return out
}

func (e *fakeEditor) Statuses() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.statuses...)
}

// waitEditor blocks until cond holds, re-checking after every editor call.
func (e *fakeEditor) wait(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(waitTimeout)
	defer deadline.Stop()
	for {
		e.mu.Lock()
		ch := e.changed
		e.mu.Unlock()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			e.mu.Lock()
			hist := strings.Join(e.history, "\n  ")
			e.mu.Unlock()
			t.Fatalf("timed out waiting for %s; statuses %v; publications:\n  %s", what, e.Statuses(), hist)
		}
	}
}

// testHost starts the in-repo host; every schema or protocol violation
// fails the test. acSets counts activeClientSet actions the host accepted.
type testHost struct {
	*ahptest.Host
	acSets atomic.Int64
	// v1: ahpls negotiates a 1.x version with this host (enablement lists,
	// no `enabled` on our plugins); otherwise the 0.8 boolean dialect.
	v1 bool

	mu      sync.Mutex
	entries []map[string]any // every accepted activeClientSet entry
	toggles []map[string]any // every customizationToggled a client sent
}

// Toggles copies the customizationToggled actions clients sent, as sent.
func (h *testHost) Toggles() []map[string]any {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]map[string]any(nil), h.toggles...)
}

// Entries copies the activeClientSet entries accepted so far.
func (h *testHost) Entries() []map[string]any {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]map[string]any(nil), h.entries...)
}

func startHost(t *testing.T, opts ahptest.Options) *testHost {
	t.Helper()
	var done atomic.Bool
	t.Cleanup(func() { done.Store(true) })
	opts.OnViolation = func(err error) {
		if !done.Load() {
			t.Errorf("protocol violation: %v", err)
		}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	h := &testHost{Host: ahptest.New(opts)}
	if v, err := wire.Negotiate(wire.ProtocolVersions(), opts.ProtocolVersions); err == nil {
		h.v1 = wire.IsV1(v)
	}
	_, err := h.Start()
	require.NoError(t, err)
	t.Cleanup(func() { h.Close() })
	h.SetRejectPolicy(func(_, _ string, a map[string]any) string {
		if a["type"] == "session/activeClientSet" {
			h.acSets.Add(1)
			ac, _ := a["activeClient"].(map[string]any)
			h.mu.Lock()
			h.entries = append(h.entries, ac)
			h.mu.Unlock()
		}
		if a["type"] == "session/customizationToggled" {
			h.mu.Lock()
			h.toggles = append(h.toggles, a)
			h.mu.Unlock()
		}
		return ""
	})
	return h
}

// dialect is one AHP dialect the test host can be made to speak. The link
// offers its default list, so the host's list alone picks the dialect.
type dialect struct {
	name     string   // subtest name suffix
	versions []string // the host's ProtocolVersions
}

var dialects = []dialect{
	{name: "0.8", versions: []string{"0.8.0"}},
	// A 1.1 host; ahpclient's own tests also cover a 1.0 host (which
	// negotiates 1.1.0 from the offer but reconnects connection-wide).
	{name: "1.1", versions: []string{"1.1.0", "1.0.0", "0.10.0", "0.9.0"}},
}

// forEachDialect runs an end-to-end test once per dialect, as subtests
// named "dialect=0.8" and "dialect=1.1".
func forEachDialect(t *testing.T, f func(t *testing.T, dl dialect)) {
	for _, d := range dialects {
		t.Run("dialect="+d.name, func(t *testing.T) { f(t, d) })
	}
}

// with sets the host's supported versions to this dialect's.
func (d dialect) with(o ahptest.Options) ahptest.Options {
	o.ProtocolVersions = d.versions
	return o
}

// on is the enabled value our published plugin entry p carries, read in
// the host's dialect: `enabled` and no list in 0.8; in 1.x no `enabled`
// and the Global decision as the only list entry. A plugin spelled for the
// wrong dialect yields a description of the mistake, which equals no bool.
func (h *testHost) on(p map[string]any) any {
	if p == nil {
		return nil
	}
	_, hasEnabled := p["enabled"]
	l, hasList := p["enablement"].([]any)
	if !h.v1 {
		if hasList {
			return "0.8 entry carries an enablement list"
		}
		return p["enabled"]
	}
	if hasEnabled || !hasList || len(l) != 1 {
		return fmt.Sprintf("1.x entry not list-only: %v", p)
	}
	g, _ := l[0].(map[string]any)
	if g["kind"] != "global" {
		return fmt.Sprintf("1.x entry without its global decision: %v", l)
	}
	return g["enabled"]
}

// dialectShaped reports whether our entry's plugin is spelled for the
// host's dialect (0.8: no list; 1.x: no `enabled`).
func (h *testHost) dialectShaped(p map[string]any) bool {
	_, isBool := h.on(p).(bool)
	return isBool
}

// waitHost waits for a host-side condition.
func (h *testHost) wait(t *testing.T, what string, cond func(v *ahptest.View) bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	require.NoError(t, h.Wait(ctx, cond), "waiting for %s", what)
}

// entryPlugin returns our customization with that id from the host's copy
// of our entry, or nil.
func entryPlugin(v *ahptest.View, session, clientID, id string) map[string]any {
	ac := v.ActiveClient(session, clientID)
	l, _ := ac["customizations"].([]any)
	for _, e := range l {
		if m, ok := e.(map[string]any); ok && m["id"] == id {
			return m
		}
	}
	return nil
}

// writeFiles creates files (slash paths relative to root).
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, text := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
}

const lintSkill = "---\nname: lint\ndescription: Run the linters and explain their findings.\n---\n\n# Lint\n\nRun `make lint`.\n"
const fmtSkill = "---\nname: fmt\ndescription: Format the code base with the project's formatter.\n---\n\nRun `make fmt`.\n"
const mcpJSON = "{\n  \"mcpServers\": {\n    \"docs\": {\n      \"command\": \"docs-server\",\n      \"args\": [\"--stdio\"]\n    },\n    \"web\": {\n      \"type\": \"http\",\n      \"url\": \"https://example.com/mcp\"\n    }\n  }\n}\n"
const toolPluginManifest = "{\n  \"name\": \"tooling\",\n  \"version\": \"1.0.0\",\n  \"description\": \"Team tooling\"\n}\n"
const toolPluginSkill = "---\nname: release\ndescription: Cut a release following the team checklist.\n---\n\nSteps.\n"
const reviewerAgent = "---\ndescription: Reviews pull requests for style and correctness.\n---\n\nYou review code.\n"

// workspace builds a folder with loose skills, a root .mcp.json, a plugin
// folder and an agents folder.
func workspace(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	ws := filepath.Join(root, "proj")
	writeFiles(t, ws, map[string]string{
		".github/skills/lint/SKILL.md":            lintSkill,
		".github/skills/fmt/SKILL.md":             fmtSkill,
		".mcp.json":                               mcpJSON,
		"plugins/tooling/.plugin/plugin.json":     toolPluginManifest,
		"plugins/tooling/skills/release/SKILL.md": toolPluginSkill,
		".github/agents/reviewer.agent.md":        reviewerAgent,
		"src/main.go":                             "package main\n",
	})
	return ws
}

// harness is one link against one host session.
type harness struct {
	t       *testing.T
	host    *testHost
	ed      *fakeEditor
	link    *Link
	ws      string
	session string
	state   string
	cancel  context.CancelFunc
	runErr  chan error
	applied chan struct{}
}

type harnessOpts struct {
	host     *testHost
	ws       string
	stateDir string
	session  string
	cfg      func(*Config)
	versions []string // ProtocolVersions of the host started when host is nil
}

func newHarness(t *testing.T, o harnessOpts) *harness {
	t.Helper()
	if o.host == nil {
		o.host = startHost(t, ahptest.Options{ProtocolVersions: o.versions})
	}
	if o.ws == "" {
		o.ws = workspace(t)
	}
	if o.stateDir == "" {
		o.stateDir = t.TempDir()
	}
	if o.session == "" {
		o.session = o.host.CreateSession(ahptest.SessionSpec{Title: "Fix flaky test", WorkingDirectories: []string{virtualplugin.FolderURI(o.ws)}})
	}
	ed := newFakeEditor(o.ws)
	cfg := Config{
		Host:          settings.Host{URL: o.host.URL()},
		StateDir:      o.stateDir,
		DebounceDelay: 10 * time.Millisecond,
		ClientOptions: func(opts *ahpclient.Options) {
			opts.Backoff = ahpclient.Backoff{Initial: 10 * time.Millisecond, Max: 100 * time.Millisecond, Multiplier: 2, Jitter: 0.1}
			opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
		},
	}
	if o.cfg != nil {
		o.cfg(&cfg)
	}
	l, err := New(cfg, ed, slog.New(slog.NewTextHandler(io.Discard, nil)))
	require.NoError(t, err)
	h := &harness{t: t, host: o.host, ed: ed, link: l, ws: o.ws, session: o.session, state: o.stateDir, runErr: make(chan error, 1), applied: make(chan struct{}, 64)}
	l.afterApply = func() { h.applied <- struct{}{} }
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	go func() { h.runErr <- l.Run(ctx) }()
	t.Cleanup(h.stop)
	return h
}

// stop ends Run and waits for it.
func (h *harness) stop() {
	if h.cancel == nil {
		return
	}
	h.cancel()
	h.cancel = nil
	select {
	case <-h.runErr:
	case <-time.After(waitTimeout):
		h.t.Errorf("Run did not return")
	}
}

func (h *harness) cid() string { return h.link.ClientID() }

// key is the folder key of the workspace.
func (h *harness) key() string { return virtualplugin.FolderKey(h.ws) }

// pluginID of a plugin by name in this workspace.
func (h *harness) pluginID(name string) string { return pluginID(h.cid(), h.key(), name) }

func (h *harness) pluginURI(name string) string { return virtualplugin.PluginURI(h.key(), name) }

// published waits until the host has our entry with every named plugin.
func (h *harness) published(names ...string) {
	h.t.Helper()
	h.host.wait(h.t, "our entry with "+strings.Join(names, ", "), func(v *ahptest.View) bool {
		for _, n := range names {
			if entryPlugin(v, h.session, h.cid(), h.pluginID(n)) == nil {
				return false
			}
		}
		return true
	})
}

// settled waits until the host has loaded each named plugin of ours and
// our entry speaks the host's dialect: against 0.8 the host's first load
// teaches the link the boolean dialect, which republishes once (1.x is
// known from the version); counts taken after this are about the test's
// own actions.
func (h *harness) settled(session string, names ...string) {
	h.t.Helper()
	h.host.wait(h.t, "plugins loaded and dialect learnt", func(v *ahptest.View) bool {
		for _, n := range names {
			e := entryPlugin(v, session, h.cid(), h.pluginID(n))
			if e == nil || !h.host.dialectShaped(e) {
				return false
			}
			c := hostCustomization(v.State(session), h.pluginID(n))
			load, _ := c["load"].(map[string]any)
			if load == nil || load["kind"] == "loading" {
				return false
			}
		}
		return true
	})
}

// hostCustomization finds a top-level customization in a session state.
func hostCustomization(st map[string]any, id string) map[string]any {
	l, _ := st["customizations"].([]any)
	for _, c := range l {
		if m, ok := c.(map[string]any); ok && m["id"] == id {
			return m
		}
	}
	return nil
}

// rowID finds the id of a row by type and name.
func (h *harness) rowID(typ, name string) string {
	for _, r := range h.link.Rows(h.session) {
		if r.Type == typ && r.Name == name {
			return r.ID
		}
	}
	return ""
}

// hostPlugin reads our plugin entry as the host holds it.
func (h *harness) hostPlugin(name string) map[string]any {
	var out map[string]any
	h.host.wait(h.t, "plugin "+name, func(v *ahptest.View) bool {
		out = entryPlugin(v, h.session, h.cid(), h.pluginID(name))
		return out != nil
	})
	return out
}

// localNonce is the nonce this link currently publishes for a plugin.
func (h *harness) localNonce(name string) string {
	pubs, _ := h.link.pub.published()
	if p := pubs[h.pluginID(name)]; p != nil {
		return p.nonce
	}
	return ""
}

func (h *harness) nonce(name string) string {
	s, _ := h.hostPlugin(name)["nonce"].(string)
	return s
}

// change writes a file and reports it, then waits until the debounced
// rebuild has run.
func (h *harness) change(rel, text string) {
	h.t.Helper()
	p := filepath.Join(h.ws, filepath.FromSlash(rel))
	require.NoError(h.t, os.WriteFile(p, []byte(text), 0o644))
	h.link.FilesChanged(p)
	h.waitApplied()
}

func (h *harness) waitApplied() {
	h.t.Helper()
	select {
	case <-h.applied:
	case <-time.After(waitTimeout):
		h.t.Fatal("the debounced rebuild never ran")
	}
}

// request sends a reverse request from the host to our client.
func (h *harness) request(method string, params map[string]any) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	return h.host.Request(ctx, h.cid(), method, params)
}

// readTree walks a plugin through resourceList/resourceRead like a host
// copying it, returning every file's bytes by virtual path.
func (h *harness) readTree(uri string) map[string][]byte {
	h.t.Helper()
	out := map[string][]byte{}
	var walk func(u, prefix string)
	walk = func(u, prefix string) {
		raw, err := h.request("resourceList", map[string]any{"uri": u})
		require.NoError(h.t, err, "list %s", u)
		var l struct {
			Entries []struct{ Name, Type string } `json:"entries"`
		}
		require.NoError(h.t, json.Unmarshal(raw, &l))
		for _, e := range l.Entries {
			child := u + "/" + e.Name
			if e.Type == "directory" {
				walk(child, prefix+e.Name+"/")
				continue
			}
			raw, err := h.request("resourceRead", map[string]any{"uri": child, "encoding": "base64"})
			require.NoError(h.t, err, "read %s", child)
			var r struct{ Data, Encoding string }
			require.NoError(h.t, json.Unmarshal(raw, &r))
			require.Equal(h.t, "base64", r.Encoding)
			b, err := base64.StdEncoding.DecodeString(r.Data)
			require.NoError(h.t, err)
			out[prefix+e.Name] = b
		}
	}
	walk(uri, "")
	return out
}

// rpcCode extracts a JSON-RPC error code.
func rpcCode(err error) int64 {
	var re *ahptest.RPCError
	if errors.As(err, &re) {
		return re.Code
	}
	return 0
}

// emit sends a host action and fails the test on a schema error.
func (h *harness) emit(session string, action string) {
	h.t.Helper()
	_, err := h.host.Emit(session, json.RawMessage(action))
	require.NoError(h.t, err, "emit %s", action)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// waitUntil polls a condition that no notification covers (internal link
// state); it is a wait for a condition, never a timing assertion.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		<-tick.C
	}
}

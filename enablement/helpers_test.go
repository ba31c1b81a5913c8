package enablement

import (
	"bytes"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

const (
	sess1     = "ahp://copilot/session-1"
	sess2     = "ahp://copilot/session-2"
	repo      = "file:///repo"
	pluginURI = "file:///plugins/example"
)

var fixture = Target{ID: "plugin-materialized-hash-one", Type: TypePlugin, Source: pluginURI}

func bundled(t Target) Target { t.Bundled = true; return t }

func S(v bool) Decision            { return Decision{Kind: KindSession, Enabled: v} }
func W(v bool) Decision            { return Decision{Kind: KindWorkspace, URI: repo, Enabled: v} }
func Wd(d string, v bool) Decision { return Decision{Kind: KindWorkspace, URI: d, Enabled: v} }
func G(v bool) Decision            { return Decision{Kind: KindGlobal, Enabled: v} }
func L(d ...Decision) List         { return append(List{}, d...) }
func bp(b bool) *bool              { return &b }

// fakeSessions is the host's session state, changed directly by tests.
type fakeSessions struct {
	mu sync.Mutex
	m  map[string]SessionInfo
}

func newSessions() *fakeSessions { return &fakeSessions{m: map[string]SessionInfo{}} }

func (f *fakeSessions) Session(id string) SessionInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.m[id]
}

func (f *fakeSessions) put(id string, info SessionInfo) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.m[id] = info
}

func (f *fakeSessions) on(id string, dirs ...string) {
	f.put(id, SessionInfo{Known: true, WorkingDirectories: dirs})
}

// syncBuf collects log output from concurrent writers.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (s *syncBuf) count(sub string) int { return strings.Count(s.String(), sub) }

func newLog() (*slog.Logger, *syncBuf) {
	b := &syncBuf{}
	return slog.New(slog.NewTextHandler(b, nil)), b
}

// harness is a host overlay over real files in a temp directory.
type harness struct {
	t        *testing.T
	dir      string
	store    *Store
	data     SessionFiles
	sessions *fakeSessions
	ov       *Overlay
	logs     *syncBuf

	mu     sync.Mutex
	events [][]string
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{t: t, dir: t.TempDir(), sessions: newSessions()}
	h.sessions.on(sess1, repo)
	h.open()
	h.ov.InitSession(sess1)
	h.clearEvents()
	return h
}

func (h *harness) open() {
	log, buf := newLog()
	h.logs = buf
	h.store = OpenStore(filepath.Join(h.dir, "enablement.json"), log)
	h.data = SessionFiles{Dir: filepath.Join(h.dir, "sessions")}
	h.ov = NewOverlay(h.store, h.sessions, h.data, log)
	h.ov.OnChange(func(s []string) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.events = append(h.events, slices.Clone(s))
	})
}

// reopen starts a new overlay over the same files, as after a restart.
func (h *harness) reopen() { h.open() }

func (h *harness) clearEvents() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = nil
}

func (h *harness) gotEvents() [][]string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.events)
}

func (h *harness) set(session string, t Target, k Kind, v bool) Resolution {
	h.t.Helper()
	r, err := h.ov.Set(session, t, k, v)
	require.NoError(h.t, err)
	return r
}

func (h *harness) rep(session string, t Target, l List) Resolution {
	h.t.Helper()
	r, err := h.ov.Replace(session, t, l)
	require.NoError(h.t, err)
	return r
}

func (h *harness) base(session string, t Target, v bool) Resolution {
	h.t.Helper()
	r, err := h.ov.ApplyClientGlobal(session, t, L(G(v)))
	require.NoError(h.t, err)
	return r
}

func (h *harness) resolve(session string, t Target) Resolution {
	return h.ov.Resolve(session, t)
}

func (h *harness) durable() Durable { return h.store.Snapshot() }

func (h *harness) sessionMeta(session string) map[string]bool {
	h.t.Helper()
	m, err := h.data.Load(session)
	require.NoError(h.t, err)
	return m
}

func emptyDurable() Durable {
	return Durable{Global: map[string]bool{}, WorkingDirectories: map[string]map[string]bool{}}
}

// clientFixture is one workspace folder with own plugin P bundling "docs".
const folder = "file:///work/proj"

func ownPlugin() ClientPluginSource {
	return ClientPluginSource{ID: "ahpls-1:workspace", URI: PluginURI(folder, "workspace"), Name: "Workspace",
		Nonce: "sha256-abc", Servers: []BundledServer{{Name: "docs"}}}
}

func openClient(t *testing.T, dir string) (*ClientStore, *syncBuf) {
	log, buf := newLog()
	return OpenClientStore(dir, folder, log), buf
}

func slogDiscard() *slog.Logger { return slog.New(slog.DiscardHandler) }

package hostlink

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ahpls-dev/ahpls/ahpclient"
	"github.com/ahpls-dev/ahpls/ahpclient/reduce"
	"github.com/ahpls-dev/ahpls/ahpclient/wire"
	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/enablement"
	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/settings"
	"github.com/ahpls-dev/ahpls/tools"
	"github.com/ahpls-dev/ahpls/virtualplugin"
)

// Host status words reported through Editor.HostStatus.
const (
	StatusDisconnected = "disconnected"
	StatusConnecting   = "connecting"
	StatusConnected    = "connected"
	StatusRefused      = "refused"
)

// DefaultDebounceDelay is how long FilesChanged waits for more changes
// before rebuilding and republishing.
const DefaultDebounceDelay = 200 * time.Millisecond

// Config is the `ahpls.host` part of the settings plus where state lives.
type Config struct {
	// Host is the settings' host keys (package settings), taken whole: URL
	// (required), Headers for the WebSocket upgrade, Sessions to join (none:
	// every session whose working directories cover a workspace folder),
	// TrustWorkspaceTools (command tools from settings and
	// .ahpls/tools.json) and Tools (the `ahpls.tools` setting).
	settings.Host
	// StateDir holds the clientId file and, under "enablement", the
	// per-folder enablement stores. Default: the parent of
	// enablement.DefaultStateDir() (~/.local/state/ahpls).
	StateDir string
	// DebounceDelay for FilesChanged; default DefaultDebounceDelay.
	DebounceDelay time.Duration

	// RuleOptions are the rule settings used to decide whether a file is
	// published (any Error-severity finding leaves it out), when Rules is nil.
	RuleOptions diagnostics.Options
	// Rules, when set, returns the rule settings in effect now (read at each
	// check, so a settings change reaches publication; call RulesChanged to
	// re-decide files that did not change).
	Rules func() diagnostics.Options
	// Findings, when set, returns the findings the language server already
	// has for a file's exact text (ok false: it has none, the link checks
	// itself). One file change then costs one rules run, not two.
	Findings func(absPath string, kind model.Kind, text []byte) (diags []model.Diagnostic, ok bool)
	// Exclude are `ahpls.exclude` globs: matching files are not published,
	// when Excludes is nil. Each folder's .ahpls/config.json adds its own
	// (read at link start, and again when that file changes).
	Exclude []string
	// Excludes, when set, returns the `ahpls.exclude` globs in effect now
	// (read at link start and by ExcludeChanged, so a settings change
	// reaches publication without a restart).
	Excludes func() []string
	// ToolsEditor backs the built-in editor tools (diagnostics, open_file);
	// nil offers none.
	ToolsEditor tools.Editor
	// OnTestDiagnostics receives the failing tests of each ahpls_run_tests
	// call as editor diagnostics by file URI (an empty list clears a file);
	// see tools.Options.OnTestDiagnostics. Optional; it must not block.
	OnTestDiagnostics func(map[string][]tools.Diagnostic)
	// Executor runs the host's calls of our tools (package toolexec); it is
	// started once the client exists and stopped when Run ends. Optional;
	// SetExecutor may set it later, before Run.
	Executor Executor
	// ClientVersion is sent as clientInfo.version (logs only).
	ClientVersion string
	// ClientOptions, when set, adjusts the ahpclient options before the
	// client is created (timeouts, backoff, frame tracing).
	ClientOptions func(*ahpclient.Options)
}

// Editor is what the language server provides.
type Editor interface {
	// Folders are the workspace folders, absolute paths.
	Folders() []string
	// Text is the open buffer of a file, false when it is not open.
	Text(absPath string) ([]byte, bool)
	// PublishDiagnostics replaces this room's diagnostics for a file (spans
	// are byte offsets into the file's current text; empty clears). The
	// server merges them with its rule diagnostics.
	PublishDiagnostics(absPath string, diags []model.Diagnostic)
	// HostStatus reports the connection: disconnected, connecting,
	// connected or refused, with a human-readable message.
	HostStatus(state, message string)
	// Log writes a line to the editor's log (stderr / window/logMessage).
	Log(msg string)
}

// RetryEditor is an Editor that also shows why the last connection attempt
// failed and when the next is due ("retrying in N s", #18). Optional: a
// plain Editor hears StatusConnecting with both in the message.
type RetryEditor interface {
	HostRetrying(retryIn time.Duration, lastError string)
}

// MetaEditor is an Editor that shows what the host's `_meta` says (AHP
// 1.1): its build and whether this client is read-only. Optional; it hears
// it just before each "connected" status, and the message says both too.
type MetaEditor interface {
	HostMeta(build string, readOnly bool)
}

// Executor runs client tool calls for the connection (package toolexec).
// Start is called once per Run with the live client; Stop when Run ends.
type Executor interface {
	Start(ctx context.Context, c *ahpclient.Client)
	Stop()
}

// folder is one workspace folder's publication state.
type folder struct {
	abs     string // as the editor names it
	uri     string // file:// URI
	key     string // virtualplugin.FolderKey
	builder *virtualplugin.Builder
	tools   *tools.Registry
	store   *enablement.ClientStore
}

// Link connects one editor workspace to one agent host. Create with New,
// drive with Run. It runs the lifecycle (connect, first scan, debounce,
// events, close) and wires its parts, each with one job and its own state:
//
//   - folderSet (folders.go): the folders, their builders, registries and
//     stores, and the rules check that gates publication;
//   - publisher (publish.go): the entry, the served trees, what was
//     published;
//   - board (board.go): every diagnostic the link shows, merged per file;
//   - loadReporter (loaddiag.go): the host's load reports as diagnostics;
//   - editorState (editorstate.go): enablement hints, untrusted tools;
//   - toggler (toggle.go, filetoggle.go): rows and toggles;
//   - resources (serve.go): the host's resource* requests;
//   - hostView (hostview.go): reading the host's mirrored state;
//   - changeQueue and statusBox (parts.go).
//
// The lock order is in doc.go.
type Link struct {
	cfg    Config
	ed     Editor
	log    *slog.Logger
	client *ahpclient.Client
	host   hostView

	*folderSet // Checks, ToolRegistry, Registries
	*toggler   // Rows, Toggle, FileRows, FileToggleRow

	pub   *publisher
	board *board
	loads *loadReporter
	es    *editorState

	changes *changeQueue // file changes waiting for the debounce
	status  statusBox    // the connection status shown to the editor

	stopOnce sync.Once
	stop     chan struct{}
	runOnce  sync.Once

	mu sync.Mutex // a leaf: guards executor
	// executor runs the host's calls of our tools (guarded by mu: set by
	// SetExecutor, read by Run and SetTrusted).
	executor Executor

	// afterApply, when set (tests), runs after each debounced rebuild.
	afterApply func()
}

// New prepares a Link for the editor's current folders. Nothing connects
// until Run. logger may be nil (discarded).
func New(cfg Config, ed Editor, logger *slog.Logger) (*Link, error) {
	if cfg.URL == "" {
		return nil, errors.New("hostlink: Config.URL is required")
	}
	if ed == nil {
		return nil, errors.New("hostlink: an Editor is required")
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler) // the caller passes the process's logger
	}
	if cfg.DebounceDelay <= 0 {
		cfg.DebounceDelay = DefaultDebounceDelay
	}
	if cfg.StateDir == "" {
		d, err := enablement.DefaultStateDir()
		if err != nil {
			return nil, fmt.Errorf("hostlink: no state directory: %w", err)
		}
		cfg.StateDir = filepath.Dir(d)
	}
	l := &Link{
		cfg:      cfg,
		ed:       ed,
		log:      logger.With("part", "hostlink"),
		changes:  newChangeQueue(),
		status:   statusBox{state: StatusDisconnected},
		stop:     make(chan struct{}),
		executor: cfg.Executor,
	}
	l.folderSet = &folderSet{cfg: &l.cfg, ed: ed, log: l.log, verdicts: map[string][]byte{}}
	storeDir := filepath.Join(cfg.StateDir, "enablement")
	var uris []string
	seen := map[string]bool{}
	for _, abs := range ed.Folders() {
		abs = filepath.Clean(abs)
		if seen[abs] {
			continue
		}
		seen[abs] = true
		f, err := l.newFolder(abs, storeDir, len(l.folders) == 0)
		if err != nil {
			ed.Log(fmt.Sprintf("ahpls host link: workspace folder %s is not published: %v", abs, err))
			continue
		}
		l.folders = append(l.folders, f)
		uris = append(uris, f.uri)
	}
	sort.Slice(l.folders, func(i, j int) bool { return l.folders[i].key < l.folders[j].key })
	sort.Strings(uris)

	opts := ahpclient.Options{
		URL:          cfg.URL,
		Header:       cfg.Header(),
		StateDir:     cfg.StateDir,
		WorkspaceKey: strings.Join(uris, "\n"),
		ClientInfo:   ahpclient.Implementation{Name: "ahpls", Version: cfg.ClientVersion},
		Logger:       logger,
		Sessions:     cfg.Sessions,
		Auto:         cfg.Auto(),
		Folders:      uris,
		ChatTurns:    1,
	}
	if cfg.ClientOptions != nil {
		cfg.ClientOptions(&opts)
	}
	c, err := ahpclient.New(opts)
	if err != nil {
		return nil, err
	}
	l.client = c
	l.host = hostView{client: c, url: cfg.URL}
	l.pub = newPublisher(c, l.host, l.folders, l.log)
	l.board = newBoard(ed, l.readText)
	l.toggler = &toggler{client: c, host: l.host, set: l.folderSet, pub: l.pub, republish: l.republish}
	l.loads = &loadReporter{client: c, host: l.host, set: l.folderSet, pub: l.pub, board: l.board}
	l.es = &editorState{client: c, host: l.host, set: l.folderSet, pub: l.pub, board: l.board, rows: l.Rows}
	resources{served: l.pub.served, folders: l.folders}.register(c)
	c.OnEvent(l.onEvent)
	return l, nil
}

// RulesChanged re-decides which files are published after the rule
// settings changed: every file's verdict is dropped and the folders are
// rebuilt (debounced, like a file change) and republished.
func (l *Link) RulesChanged() {
	paths := make([]string, 0, len(l.folders))
	for _, f := range l.folders {
		f.builder.Recheck()
		paths = append(paths, f.abs)
	}
	l.FilesChanged(paths...)
}

// ExcludeChanged applies the `ahpls.exclude` globs in effect now
// (Config.Excludes) and each folder's .ahpls/config.json to the running
// link: every folder is walked again, so a newly excluded file stops being
// published and served, and one no longer excluded comes back.
func (l *Link) ExcludeChanged() {
	paths := make([]string, 0, len(l.folders))
	for _, f := range l.folders {
		l.reexclude(f)
		paths = append(paths, f.abs)
	}
	l.FilesChanged(paths...)
}

// Client is the AHP client (for the tool executor and diagnostics views).
func (l *Link) Client() *ahpclient.Client { return l.client }

// ClientID is the clientId this link uses with the host.
func (l *Link) ClientID() string { return l.client.ClientID() }

// SetExecutor plugs in the tool executor; call before Run.
func (l *Link) SetExecutor(e Executor) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.executor = e
}

// SetTrusted switches command tools on or off in every folder and
// republishes.
func (l *Link) SetTrusted(trusted bool) {
	if !trusted {
		// Runs of command tools end now, each with a cancelled
		// completion; the lookup needs the tools still offered.
		l.mu.Lock()
		ex := l.executor
		l.mu.Unlock()
		if c, ok := ex.(interface{ cancelUntrusted() }); ok {
			c.cancelUntrusted()
		}
	}
	for _, f := range l.folders {
		f.tools.SetTrusted(trusted)
		l.loadToolConfig(f)
	}
	l.republish()
}

// SetToolSettings replaces the `ahpls.tools` setting ({"tools":[…]} JSON;
// nil clears it) in every folder and republishes.
func (l *Link) SetToolSettings(settings json.RawMessage) {
	for _, f := range l.folders {
		for _, p := range f.tools.SetSettings(settings) {
			l.log.Warn("ahpls.tools setting", "problem", p.Message, "path", p.Path)
		}
	}
	l.republish()
}

// Status is a snapshot of the link for status views.
type Status struct {
	State           string            `json:"state"`
	Message         string            `json:"message,omitempty"`
	URL             string            `json:"url"`
	ClientID        string            `json:"clientId"`
	ProtocolVersion string            `json:"protocolVersion,omitempty"`
	Dialect         string            `json:"dialect"`
	Sessions        []string          `json:"sessions"` // joined session URIs
	SessionDetails  []SessionInfo     `json:"sessionDetails"`
	Plugins         []PublishedPlugin `json:"plugins"`
	ToolCollisions  []string          `json:"toolCollisions,omitempty"`
}

// SessionInfo is one joined session.
type SessionInfo struct {
	URI                string   `json:"uri"`
	Title              string   `json:"title,omitempty"`
	WorkingDirectories []string `json:"workingDirectories,omitempty"`
}

// PublishedPlugin is one virtual plugin in the current entry.
type PublishedPlugin struct {
	ID     string `json:"id"`
	URI    string `json:"uri"`
	Name   string `json:"name"`
	Nonce  string `json:"nonce"`
	Folder string `json:"folder"`
	// Omitted are bundled MCP servers left out of the served .mcp.json
	// (disabled here, and the host's dialect has no field for that).
	Omitted []string `json:"omitted,omitempty"`
}

// Status reports the connection and what is published.
func (l *Link) Status() Status {
	state, msg := l.status.get()
	plugins, coll, dialect := l.pub.status()
	s := Status{State: state, Message: msg, URL: redactURL(l.cfg.URL), ClientID: l.client.ClientID(), Dialect: string(dialect), Plugins: plugins, ToolCollisions: coll}
	s.ProtocolVersion = l.client.ProtocolVersion()
	s.Sessions = l.client.Joined()
	s.SessionDetails = []SessionInfo{}
	for _, uri := range s.Sessions {
		si := SessionInfo{URI: uri}
		if st, ok := l.client.State(uri); ok {
			si.Title, _ = st["title"].(string)
			si.WorkingDirectories = (wire.V08{}).WorkingDirectories(st)
		}
		s.SessionDetails = append(s.SessionDetails, si)
	}
	return s
}

// Close stops Run (which clears everything this link published).
func (l *Link) Close() {
	l.stopOnce.Do(func() { close(l.stop) })
}

// Run connects, publishes and follows the host until ctx ends, Close is
// called, or the host refuses the handshake for good (then the refusal is
// returned and nothing retries). Every diagnostic this link published is
// cleared before it returns. Run may be called once.
func (l *Link) Run(ctx context.Context) error {
	first := false
	l.runOnce.Do(func() { first = true })
	if !first {
		return errors.New("hostlink: Run called twice")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-l.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	l.setStatus(StatusConnecting, "connecting to "+redactURL(l.cfg.URL))
	errc := make(chan error, 1)
	go func() { errc <- l.client.Run(ctx) }()

	// The first scan runs while the socket opens; nothing is published
	// before it is done (enablement C11).
	for _, f := range l.folders {
		l.loadToolConfig(f)
	}
	for _, f := range l.folders {
		l.buildFolder(f)
	}
	l.pub.markReady()
	l.republish()

	done := make(chan struct{})
	go l.debounceLoop(ctx, done)

	l.mu.Lock()
	ex := l.executor
	l.mu.Unlock()
	if ex != nil {
		ex.Start(ctx, l.client)
	}

	err := <-errc
	cancel()
	<-done
	if ex != nil {
		ex.Stop()
	}
	l.client.Close()
	l.clearAll()

	var uv *ahpclient.UnsupportedVersionError
	var ie *ahpclient.InitializeError
	switch {
	case errors.As(err, &uv):
		// Its message is written for the user: the host's versions, ours,
		// and which side to upgrade.
		l.setStatus(StatusRefused, uv.Error())
		return err
	case errors.As(err, &ie):
		l.setStatus(StatusRefused, "the agent host refused the connection: "+ie.Err.Message)
		return err
	}
	l.setStatus(StatusDisconnected, "closed")
	return nil
}

func (l *Link) setStatus(state, msg string) {
	if l.status.set(state, msg) {
		l.ed.HostStatus(state, msg)
	}
}

// redactURL drops user info and query (tokens) from a URL for messages.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "the agent host"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

// onEvent follows the connection; it runs on ahpclient's event goroutine,
// one event at a time.
func (l *Link) onEvent(e ahpclient.Event) {
	if l.pub.closed() {
		return // the link is over: late events must not bring anything back
	}
	switch e.Kind {
	case ahpclient.EventConnected:
		if !e.Resumed {
			// A fresh initialize may reach a different host build: learn
			// its enablement dialect again.
			l.pub.forgetDialect()
		}
		msg := "connected to " + l.host.name()
		if v := l.client.ProtocolVersion(); v != "" {
			msg += " (AHP " + v + ")"
		}
		meta := l.client.HostMeta()
		if meta.Build != "" {
			msg += ", host build " + meta.Build
		}
		if meta.ReadOnly {
			msg += ", read-only: ahpls publishes nothing and toggles nothing"
		}
		if me, ok := l.ed.(MetaEditor); ok {
			me.HostMeta(meta.Build, meta.ReadOnly)
		}
		l.setStatus(StatusConnected, msg)
		l.republish()
	case ahpclient.EventDisconnected:
		select {
		case <-l.stop:
			return
		default:
		}
		msg := "connection lost; reconnecting"
		if e.Err != nil {
			msg += " (" + e.Err.Error() + ")"
		}
		l.setStatus(StatusDisconnected, msg)
	case ahpclient.EventRetrying:
		select {
		case <-l.stop:
			return
		default:
		}
		lastErr := "connection ended"
		if e.Err != nil {
			// The URL may carry a token in its query: never show it (the
			// dial error names it with its http scheme).
			lastErr = e.Err.Error()
			safe := redactURL(l.cfg.URL)
			for _, u := range []string{l.cfg.URL, "http" + strings.TrimPrefix(l.cfg.URL, "ws")} {
				lastErr = strings.ReplaceAll(lastErr, u, "http"+strings.TrimPrefix(safe, "ws"))
			}
		}
		secs := int((e.RetryIn + time.Second - 1) / time.Second)
		msg := fmt.Sprintf("retrying in %d s", secs)
		l.status.set(StatusConnecting, msg)
		if re, ok := l.ed.(RetryEditor); ok {
			re.HostRetrying(e.RetryIn, lastErr)
		} else {
			l.ed.HostStatus(StatusConnecting, msg+" ("+lastErr+")")
		}
	case ahpclient.EventStateChanged:
		if e.ChannelKind == reduce.Session {
			l.sessionChanged()
		}
	case ahpclient.EventSessionJoined, ahpclient.EventSessionLeft, ahpclient.EventChannelDropped:
		l.sessionChanged()
	}
}

// sessionChanged re-reads what the host says: its dialect and other tools
// (which may change the entry) and load states (diagnostics).
func (l *Link) sessionChanged() {
	l.republish()
	l.loads.refresh()
}

// FilesChanged takes every file and buffer change from the server's funnel
// (absolute paths of files or folders created, changed, deleted, opened or
// closed). The rebuild is debounced; the entry is republished only when it
// changed.
func (l *Link) FilesChanged(absPaths ...string) {
	if len(absPaths) > 0 {
		l.changes.add(absPaths...)
	}
}

// debounceLoop applies queued changes (changeQueue.loop) until ctx ends.
func (l *Link) debounceLoop(ctx context.Context, done chan<- struct{}) {
	defer close(done)
	l.changes.loop(ctx, l.cfg.DebounceDelay, l.applyPending)
}

// applyPending feeds pending paths to the builders and tool registries,
// rebuilds the folders concerned and republishes.
func (l *Link) applyPending() {
	if l.afterApply != nil {
		defer l.afterApply()
	}
	paths := l.changes.take()
	if len(paths) == 0 {
		return
	}
	var touched []*folder
	for _, f := range l.folders {
		var mine []string
		toolsCfg, testCfg, folderCfg := false, false, false
		for _, p := range paths {
			if p == f.abs || strings.HasPrefix(p, f.abs+string(filepath.Separator)) {
				mine = append(mine, p)
				testCfg = testCfg || testProjectFiles[filepath.Base(p)]
				if rel, err := filepath.Rel(f.abs, p); err == nil {
					rel = filepath.ToSlash(rel)
					toolsCfg = toolsCfg || rel == tools.ConfigFile || rel == path.Dir(tools.ConfigFile)
					folderCfg = folderCfg || rel == settings.ConfigFile || rel == path.Dir(settings.ConfigFile)
				}
			}
		}
		if len(mine) == 0 {
			continue
		}
		if folderCfg {
			// Its exclude globs may have changed: walk the folder again.
			l.reexclude(f)
		}
		f.builder.Changed(mine...)
		if toolsCfg {
			l.loadToolConfig(f)
		}
		if testCfg {
			// A new or removed module, package.json or pytest setup changes
			// what ahpls_run_tests offers; republish below carries it.
			f.tools.RefreshTestProjects()
		}
		touched = append(touched, f)
	}
	if len(touched) == 0 {
		return
	}
	if l.pub.ready() {
		for _, f := range touched {
			l.buildFolder(f)
		}
	}
	l.republish()
	// Spans of host diagnostics follow the file's new text.
	l.loads.refresh()
}

// testProjectFiles are the files whose change can change the test projects
// the built-in test runner detects (tools.DetectTestProjects).
var testProjectFiles = map[string]bool{
	"go.mod": true, "package.json": true, "Cargo.toml": true, "Makefile": true, "makefile": true, "GNUmakefile": true,
	"pytest.ini": true, "conftest.py": true, "pyproject.toml": true, "setup.cfg": true, "tox.ini": true,
}

// republish recomputes the entry (publisher.publish), sends the
// diagnostics its inputs made dirty, and then refreshes the editor state:
// every input of that state (host state, store, files, trust) comes
// through here, and it reads open buffers through the Editor, so it runs
// once the publisher's lock is released.
func (l *Link) republish() {
	defer l.es.refresh()
	l.pub.publish(func() { l.board.publish(l.board.drain()) })
}

// buildFolder rebuilds one folder's snapshot and its exclusion
// diagnostics. It runs under buildMu, not the publisher's lock: building
// reads open buffers through the Editor, which must never wait on a lock
// the server's own calls into this link (Rows, Toggle) could be holding up.
func (l *Link) buildFolder(f *folder) {
	l.buildMu.Lock()
	defer l.buildMu.Unlock()
	snap, excl, sums := l.scan(f)
	l.board.setExclusions(f.abs+string(filepath.Separator), excl, sums)
	l.pub.setSnapshot(f.key, snap)
}

// clearAll ends publication and withdraws every diagnostic this link
// published.
func (l *Link) clearAll() {
	l.pub.close()
	l.loads.mu.Lock() // no host refresh lands after the board closes
	defer l.loads.mu.Unlock()
	l.board.close()
}

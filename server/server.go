package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/settings"
)

// DefaultDebounce is how long the server waits after a file-watcher event
// before checking, so a branch switch costs one check per file.
const DefaultDebounce = 150 * time.Millisecond

// CommandFunc runs one workspace/executeCommand. It runs released from the
// read loop (jsonrpc2.Async), so it may call back into the client (for
// example Server.ShowDocument) without deadlocking.
type CommandFunc func(ctx context.Context, args []json.RawMessage) (any, error)

// Options configure a Server. The zero value works (no debounce, one worker
// per CPU, logs discarded); cmd/ahpls uses DefaultOptions.
type Options struct {
	Name    string // serverInfo.name; default "ahpls"
	Version string // serverInfo.version

	// Logger is the process's one logger. Give it a LogHandler (see
	// NewLogHandler) and the server routes it: records below WARN reach the
	// editor as window/logMessage (and $/logTrace), warnings and errors go
	// to the handler's stderr (never stdout, which carries the protocol).
	// Each part enriches it with its name ("part"=server, bridge, hostlink,
	// ahpclient, toolexec). Nil: a LogHandler that sends records to the
	// editor and discards warnings and errors.
	Logger *slog.Logger
	// Debounce delays checks caused by file-watcher events and turns on the
	// pacing of checks during bursts of edits (an edit on an idle file is
	// checked at once either way); 0 checks every event at once (tests).
	Debounce time.Duration
	// Workers bounds concurrent checks; 0 means GOMAXPROCS.
	Workers int
	// NoFSNotify turns the server's own file watcher off whatever
	// `ahpls.fileWatcher` says (fswatch.go): disk changes then reach it only
	// through the editor.
	NoFSNotify bool

	// OnSettings is called with the settings before and after each change of
	// the `ahpls` section (the one decoded Settings value; the AHP side reads
	// `host`, `sessions`, `trustWorkspaceTools` and the rule options from
	// it). It runs after the new settings are in effect (Server.Settings
	// returns them). It may run on the read loop (settings from
	// initializationOptions or a didChangeConfiguration push): it must not
	// block or call the client; hand the value to a goroutine of yours.
	OnSettings func(old, cur settings.Settings)
	// Commands adds or replaces workspace/executeCommand handlers; a name
	// equal to a built-in command replaces it.
	Commands map[string]CommandFunc
	// OnInitialized runs after the initialized notification, released from
	// the read loop, with the workspace folders' file paths.
	OnInitialized func(ctx context.Context, folders []string)
	// OnExit runs once when the connection ends.
	OnExit func()
	// OnPathChanged, when set, hears every file change the server learns of
	// (buffer edits, saves, watched-file and fsnotify events) as an absolute
	// path, including files that are not customizations themselves (a
	// skill's scripts). It must not block.
	OnPathChanged func(path string)
	// OnFoldersChanged, when set, hears the workspace folders (absolute
	// paths) after the editor added or removed some. It must not block.
	OnFoldersChanged func(folders []string)
	// ToolsConfig validates the client tool config (package tools'
	// ConfigProblems, which the server does not import); nil leaves
	// .ahpls/tools.json unchecked.
	ToolsConfig diagnostics.ToolsValidator
}

// DefaultOptions is what `ahpls serve` uses.
func DefaultOptions() Options {
	return Options{Name: "ahpls", Logger: slog.New(NewLogHandler(os.Stderr, nil)), Debounce: DefaultDebounce}
}

type lifecycle int

const (
	stateNew lifecycle = iota
	stateInitialized
	stateShutdown
)

// Server is one LSP session. Construct it with New and run it with Serve.
// Its exported methods are safe for concurrent use from any goroutine.
type Server struct {
	opts Options
	log  *slog.Logger

	// views caches what each agent sees per folder (view.go).
	views viewCache
	// symbols is the workspace/symbol index (index.go).
	symbols symbolIndex

	conn   jsonrpc2.Conn
	client protocol.Client
	pub    *publisher

	// ctx lives as long as the session; background work hangs off it.
	ctx    context.Context
	cancel context.CancelFunc

	exitOnce sync.Once
	exitCh   chan struct{}

	// exMu guards exCache alone (a leaf: nothing else is locked under it).
	exMu    sync.Mutex
	exCache map[string]exEntry // workspace folder → its exclude matcher

	// mu guards the fields from state to recheckTimer. sem, checks and
	// checkHook below it are not under mu (a channel, an atomic, and a hook
	// set before Serve).
	mu sync.Mutex
	// state moves forward only: new → initialized (after initialize) → shutdown.
	state      lifecycle
	exitCode   int
	enc        model.Encoding
	caps       clientCaps
	folders    []folder
	settings   settings.Settings
	settingsOK bool // at least one settings source was read
	// scanStarted: the first workspace scan began (settings that change
	// the excludes before it need no rescan of their own).
	scanStarted bool
	// scansRunning counts scans under way (runScan).
	scansRunning int
	// rulesGen counts workspace-wide re-checks (settings or files on disk
	// changed); a memoized check is reused only under the generation it
	// was made with.
	rulesGen uint64
	docs     map[uri.URI]*document
	files    map[uri.URI]*fileState
	commands map[string]CommandFunc
	inflight map[string]context.CancelFunc // by fmt.Sprint(request id)
	// recheckTimer debounces workspace-wide re-checks (scheduleRecheckAll);
	// rechecksDue counts those scheduled and not yet sent through the funnel.
	recheckTimer *time.Timer
	rechecksDue  int
	// refreshTimer gathers diagnostics changes into one
	// workspace/diagnostic/refresh (pull.go).
	refreshTimer *time.Timer
	// owed lists URIs a pulling client may show findings for that it will
	// not ask about again: each is answered in full in the next
	// workspace/diagnostic answers (pull.go, owedAnswers).
	owed map[uri.URI]owedState
	// wsWake is closed when a set changes for a pulling client
	// (refreshPull): held workspace/diagnostic requests answer then.
	wsWake chan struct{}
	// readEnded is closed when the connection stops reading (stream.go).
	readEnded <-chan struct{}

	// fsw is the server's own file watcher and the gate of both watchers'
	// events (fswatch.go, watched.go); it has its own locks.
	fsw fsWatchState

	sem    chan struct{} // bounds concurrent checks
	checks atomic.Int64  // rules runs, see Checks
	// checkHook, set by tests before Serve, hears each check of a file
	// start (+1) and end (-1).
	checkHook func(u uri.URI, delta int)
	// scanHook, set by tests before Serve, hears the scan reach a file
	// (its path relative to the folder) before checking it.
	scanHook func(rel string)

	// The parts of the server with one job each (parts.go); their methods
	// are the Server's by promotion.
	outbound
	renamer
	folderViews
	workspace
	watching
	funnel
	ruleRuns
	externals
	pulling
}

// clientCaps is the part of the client's capabilities that changes what we do.
type clientCaps struct {
	configuration bool // workspace/configuration
	watchDynamic  bool // dynamic registration of workspace/didChangeWatchedFiles
	watchRelative bool
	showDocument  bool
	workDone      bool
	renameFiles   bool // workspace edits may rename files and folders (rename.go)
	// changeAnnotations: workspace edits may carry change annotations
	// (a rename's reference updates ask for confirmation).
	changeAnnotations bool
	// pull: the client pulls diagnostics (pull.go); pullRefresh: it
	// accepts workspace/diagnostic/refresh.
	pull, pullRefresh bool
}

// New returns a server that is not yet connected.
func New(opts Options) *Server {
	if opts.Name == "" {
		opts.Name = "ahpls"
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(NewLogHandler(nil, nil))
		opts.Logger = log
	}
	log = log.With("part", "server")
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	s := &Server{
		opts:     opts,
		log:      log,
		exitCh:   make(chan struct{}),
		exitCode: 1,
		enc:      model.UTF16,
		settings: settings.Default(),
		docs:     map[uri.URI]*document{},
		files:    map[uri.URI]*fileState{},
		sem:      make(chan struct{}, workers),
	}
	s.outbound, s.renamer, s.folderViews, s.workspace, s.watching = outbound{s}, renamer{s}, folderViews{s}, workspace{s}, watching{s}
	s.funnel, s.ruleRuns, s.externals, s.pulling = funnel{s}, ruleRuns{s}, externals{s}, pulling{s}
	// The host commands are the bridge's (package bridge); the server's own
	// is the list view (what each consumer loads), others come with
	// opts.Commands.
	s.commands = map[string]CommandFunc{CommandListView: s.listView}
	for name, f := range opts.Commands {
		s.commands[name] = f
	}
	return s
}

// RegisterCommand adds or replaces a workspace/executeCommand handler.
// Register before Serve: the command list is announced in the initialize
// result, and editors only offer announced commands.
func (s *Server) RegisterCommand(name string, f CommandFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.commands[name] = f
}

// Serve runs the session over rwc (stdin/stdout in production) until the
// client sends exit, the input ends, or ctx is cancelled. The exit code
// follows the LSP spec: 0 when shutdown came before exit, 1 otherwise.
func (s *Server) Serve(ctx context.Context, rwc io.ReadWriteCloser) (exitCode int) {
	s.ctx, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	defer s.cancel()
	if h, ok := s.log.Handler().(*LogHandler); ok {
		// Records below WARN go to this editor from now on.
		h.attach(s)
		defer h.detach(s)
	}
	stream := newLSPStream(rwc, s.log)
	s.readEnded = stream.ended
	// Our own wiring instead of protocol.NewServer: no AsyncHandler (it
	// reorders didChange, trap 1), our codec, and a guard that keeps handler
	// errors and panics from closing the connection (trap 3).
	s.conn = jsonrpc2.NewConn(stream, jsonrpc2.WithCodec(lspCodec{}))
	s.client = protocol.ClientDispatcher(s.conn)
	s.pub = newPublisher(s.ctx, s.conn, s.log)
	go s.pub.run()
	// Not protocol.CancelHandler: it derives a context.WithCancel from the
	// pooled per-request context, whose propagation goroutine can touch the
	// request after jsonrpc2 recycled it (a nil-parent panic seen under
	// load). guard implements $/cancelRequest with contexts it owns.
	inner := protocol.ServerHandler(&lspServer{s: s}, jsonrpc2.MethodNotFoundHandler)
	s.conn.Go(s.ctx, s.guard(inner))

	select {
	case <-s.exitCh:
	case <-s.conn.Done():
	case <-ctx.Done():
	}
	s.cancel()
	s.pub.close()
	// Close can wait for the read loop, which may sit in a blocking read of
	// stdin that closing does not interrupt (Neovim keeps stdin open after
	// exit). The process is about to end anyway: wait briefly, not forever.
	closed := make(chan struct{})
	go func() { _ = s.conn.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(200 * time.Millisecond):
	}
	s.mu.Lock()
	code := s.exitCode
	s.mu.Unlock()
	s.stopFSWatch(true)
	if s.opts.OnExit != nil {
		s.opts.OnExit()
	}
	if err := s.conn.Err(); err != nil {
		s.log.Warn("connection ended", "error", err)
	}
	return code
}

// guard is the outermost handler. It enforces the lifecycle (requests before
// initialize get ServerNotInitialized, requests after shutdown get
// InvalidRequest), turns param decoding failures into InvalidParams, recovers
// panics, and never lets a notification return an error: jsonrpc2 v1 closes
// the whole connection when one does.
func (s *Server) guard(next jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (result any, err error) {
		method := req.Method()
		isCall := req.IsCall()
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("handler panic", "method", method, "panic", p, "stack", string(debug.Stack()))
				s.logToClient(protocol.MessageTypeError, fmt.Sprintf("ahpls: internal error handling %s: %v", method, p))
				result = nil
				err = nil
				if isCall {
					err = jsonrpc2.Errorf(jsonrpc2.InternalError, "internal error handling %s: %v", method, p)
				}
			}
		}()
		s.mu.Lock()
		st := s.state
		s.mu.Unlock()
		if method == protocol.MethodExit {
			s.exit()
			return nil, nil
		}
		switch {
		case st == stateNew && method != protocol.MethodInitialize:
			if isCall {
				return nil, jsonrpc2.NewError(jsonrpc2.ServerNotInitialized, "server not initialized: send initialize first")
			}
			return nil, nil
		case st == stateShutdown:
			if isCall {
				return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "server is shut down: only exit is accepted")
			}
			return nil, nil
		case st != stateNew && method == protocol.MethodInitialize:
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize was already called")
		}
		if method == protocol.MethodCancelRequest {
			s.cancelRequest(req.Params())
			return nil, nil
		}
		if isCall {
			rc, done := s.track(ctx, req.ID())
			defer done()
			ctx = rc
		}
		result, err = next(ctx, req)
		if err != nil && isCall && ctx.Err() != nil {
			err = protocol.ErrRequestCancelled // cancelled by $/cancelRequest
		}
		if err != nil && errors.Is(err, jsonrpc2.ErrParse) {
			err = jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params for %s: %v", method, err)
		}
		if !isCall {
			if err != nil {
				s.log.Warn("notification failed", "method", method, "error", err)
				s.logToClient(protocol.MessageTypeWarning, fmt.Sprintf("ahpls: %s: %v", method, err))
			}
			return nil, nil
		}
		return result, validError(err)
	}
}

// reqCtx is a request's context: cancellation and deadline from a context
// the server owns, values (jsonrpc2's Async release token) from the
// connection's request context. It must not be used after the handler
// returns, like the request context it wraps.
type reqCtx struct {
	context.Context
	req context.Context
}

func (c reqCtx) Value(key any) any {
	if v := c.Context.Value(key); v != nil {
		return v
	}
	return c.req.Value(key)
}

// track registers an in-flight call for $/cancelRequest.
func (s *Server) track(ctx context.Context, id jsonrpc2.ID) (context.Context, func()) {
	own, cancel := context.WithCancel(s.ctx)
	key := fmt.Sprint(id)
	s.mu.Lock()
	if s.inflight == nil {
		s.inflight = map[string]context.CancelFunc{}
	}
	s.inflight[key] = cancel
	s.mu.Unlock()
	return reqCtx{Context: own, req: ctx}, func() {
		s.mu.Lock()
		delete(s.inflight, key)
		s.mu.Unlock()
		cancel()
	}
}

func (s *Server) cancelRequest(params []byte) {
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	var key string
	var n int64
	var str string
	switch {
	case json.Unmarshal(p.ID, &n) == nil:
		key = fmt.Sprint(jsonrpc2.NewNumberID(n))
	case json.Unmarshal(p.ID, &str) == nil:
		key = fmt.Sprint(jsonrpc2.NewStringID(str))
	default:
		return
	}
	s.mu.Lock()
	cancel := s.inflight[key]
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

func (s *Server) exit() {
	s.exitOnce.Do(func() {
		s.mu.Lock()
		if s.state == stateShutdown {
			s.exitCode = 0
		}
		s.mu.Unlock()
		close(s.exitCh)
	})
}

// lspCodec marshals payloads with the protocol package's union-aware codec
// (protocol.NewServer's codec is unexported, so we supply our own).
type lspCodec struct{}

func (lspCodec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case nil:
		return []byte("null"), nil
	case jsonrpc2.RawMessage:
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	case json.RawMessage:
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	}
	return protocol.Marshal(v)
}

func (lspCodec) Unmarshal(data []byte, v any) error {
	if p, ok := v.(*jsonrpc2.RawMessage); ok {
		*p = append(jsonrpc2.RawMessage(nil), data...)
		return nil
	}
	return protocol.Unmarshal(data, v)
}

// Encoding is the negotiated position encoding.
func (s *Server) Encoding() model.Encoding {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.enc
}

// Folders returns the workspace folders' file paths.
func (s *Server) Folders() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, len(s.folders))
	for i, f := range s.folders {
		out[i] = f.path
	}
	return out
}

func joinMessages(ms []string) string { return strings.Join(ms, "; ") }

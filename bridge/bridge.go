// Package bridge joins the language server (package server) to the agent
// host: it follows the `ahpls.host…` settings, starts, restarts and stops
// the host link (package hostlink) with its tool executor (package
// toolexec), answers the three host commands, and adapts the server to the
// link's Editor, the tools' Editor and the executor's Observer. It owns the
// `ahpls/hostStatus` notification (status.go), which the server carries
// without knowing it (server.Notify).
//
// Start at NewServer: it returns the server `ahpls serve` runs, with the
// bridge installed. Settings are decoded once, by the server, into one
// settings.Settings value; the bridge hands its host keys (settings.Host)
// whole to the link, restarting it when they change, and reads the rule
// options live for the files it publishes. The host commands are named and
// answered here (commands.go): the server knows none of them. The
// link asks the server for findings it already has (server.Findings)
// instead of checking a changed file a second time.
package bridge

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"reflect"
	"slices"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/hostlink"
	"github.com/ahpls-dev/ahpls/server"
	"github.com/ahpls-dev/ahpls/settings"
	"github.com/ahpls-dev/ahpls/tools"
)

// Source is the source name of the link's diagnostics in the editor.
const Source = "ahpls-host"

// Config configures the bridge. The zero value is what `ahpls serve` uses.
type Config struct {
	// Log is the process's logger (nil: the server's Options.Logger, else
	// discarded); the bridge, the link, the AHP client and the tool
	// executor each enrich it with their "part".
	Log *slog.Logger
	// Getenv reads AHPLS_HOST and AHPLS_HOST_AUTHORIZATION (nil: os.Getenv).
	Getenv func(string) string
	// StateDir is the link's state directory (clientId, enablement stores);
	// empty: hostlink's default.
	StateDir string
	// LinkDebounce is the link's rebuild debounce; 0: hostlink's default.
	LinkDebounce time.Duration
	// ClientVersion is sent to the host as clientInfo.version.
	ClientVersion string
}

// Bridge owns the server's hostlink.Link: it starts one when the settings
// (or AHPLS_HOST) name a host, restarts it when they change, and stops it
// when the connection ends.
type Bridge struct {
	cfg    Config
	srv    *server.Server
	log    *slog.Logger
	status statusSender // ahpls/hostStatus (status.go)

	applyMu sync.Mutex // one settings/folder change at a time
	mu      sync.Mutex
	ctx     context.Context
	cur     settings.Host // the host keys the running link was made with
	applied bool          // cur describes the running (or deliberately absent) link
	// hostBuild and readOnly: what the host's _meta said at the last
	// connect (hostlink.MetaEditor), shown with the "connected" status;
	// guarded by metaMu (a leaf lock).
	metaMu    sync.Mutex
	hostBuild string
	readOnly  bool
	link      *hostlink.Link
	cancel    context.CancelFunc
	done      chan struct{}
	progress  map[string]*server.Progress
	shown     map[string]bool // files with host diagnostics
	tested    map[string]bool // file URIs with failing-test diagnostics
}

// NewServer returns a language server with the bridge installed. opts'
// host hooks (OnSettings, OnInitialized, OnPathChanged, OnFoldersChanged,
// OnExit) and the host commands are the bridge's; other commands in opts
// are kept.
func NewServer(opts server.Options, cfg Config) (*server.Server, *Bridge) {
	if cfg.Log == nil {
		cfg.Log = opts.Logger
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Getenv == nil {
		cfg.Getenv = os.Getenv
	}
	b := &Bridge{cfg: cfg, log: cfg.Log.With("part", "bridge"), progress: map[string]*server.Progress{}, shown: map[string]bool{}, tested: map[string]bool{}}
	// The client tool config (.ahpls/tools.json) is validated by package
	// tools; the server and the publisher report it as tools/config.
	if opts.ToolsConfig == nil {
		opts.ToolsConfig = tools.ConfigProblems
	}
	opts.OnSettings = b.settingsChanged
	opts.OnInitialized = func(ctx context.Context, folders []string) { b.started(ctx) }
	opts.OnPathChanged = b.pathChanged
	opts.OnFoldersChanged = b.foldersChanged
	opts.OnExit = b.stop
	cmds := map[string]server.CommandFunc{}
	for name, f := range opts.Commands {
		cmds[name] = f
	}
	cmds[CommandShowHostConnection] = b.showHostConnection
	cmds[CommandToggleCustomization] = b.toggleCustomization
	cmds[CommandListCustomizations] = b.listCustomizations
	opts.Commands = cmds
	b.srv = server.New(opts)
	b.status.notify = b.srv.Notify
	return b.srv, b
}

// Link is the running host link, nil when none is configured.
func (b *Bridge) Link() *hostlink.Link {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.link
}

// host is the settings' host keys with what the environment supplies
// (AHPLS_HOST, AHPLS_HOST_AUTHORIZATION).
func (b *Bridge) host() settings.Host {
	return b.srv.Settings().Host.WithEnv(b.cfg.Getenv)
}

// settingsChanged runs on the server's read loop: hand off.
func (b *Bridge) settingsChanged(old, cur settings.Settings) {
	rules := !settings.SameFindings(old, cur)
	exclude := !slices.Equal(old.Exclude, cur.Exclude)
	go func() {
		if !b.apply() && rules {
			// The same link goes on: it reads the rules and the exclude
			// globs live, but files that did not change keep their
			// publication verdict, and the folders their walk, until told.
			if l := b.Link(); l != nil {
				if exclude {
					l.ExcludeChanged()
				}
				l.RulesChanged()
			}
		}
	}()
}

// started is called once the server is initialized (its context lives as
// long as the connection).
func (b *Bridge) started(ctx context.Context) {
	b.mu.Lock()
	b.ctx = ctx
	b.mu.Unlock()
	b.apply()
	b.status.ensure()
}

// foldersChanged restarts the link: its folders (and so its clientId and
// published plugins) are fixed when it is created.
func (b *Bridge) foldersChanged(folders []string) {
	b.mu.Lock()
	b.applied = false
	b.mu.Unlock()
	go b.apply()
}

// apply brings the link in line with the settings; it reports whether it
// (re)started or stopped the link.
func (b *Bridge) apply() bool {
	b.applyMu.Lock()
	defer b.applyMu.Unlock()
	host := b.host()
	b.mu.Lock()
	same := b.applied && reflect.DeepEqual(host, b.cur)
	// Trust and the tools setting change on the running link: a restart
	// would end running calls without their completion.
	live := b.applied && b.link != nil && !same && sameLink(host, b.cur)
	link, was := b.link, b.cur
	ctx := b.ctx
	if ctx != nil && ctx.Err() == nil {
		b.cur, b.applied = host, true
	}
	b.mu.Unlock()
	if same || ctx == nil || ctx.Err() != nil {
		return false // unchanged, not initialized yet, or the connection has ended
	}
	if live {
		if host.TrustWorkspaceTools != was.TrustWorkspaceTools {
			link.SetTrusted(host.TrustWorkspaceTools)
		}
		if !bytes.Equal(host.Tools, was.Tools) {
			link.SetToolSettings(host.Tools)
		}
		return false
	}
	b.stop()
	if host.URL == "" {
		b.status.send(HostStatus{State: HostStateDisconnected, Message: HostStatusNoHost})
		return true
	}
	cfg := hostlink.Config{
		Host: host, ToolsEditor: editorTools{b}, OnTestDiagnostics: b.testDiagnostics,
		StateDir: b.cfg.StateDir, DebounceDelay: b.cfg.LinkDebounce, ClientVersion: b.cfg.ClientVersion,
		// One settings value, read live: a change of ahpls.rules or
		// ahpls.targets reaches publication without a restart.
		Rules:    func() diagnostics.Options { return b.srv.RuleOptions() },
		Findings: b.srv.Findings,
		Excludes: func() []string { return b.srv.Settings().Exclude },
	}
	link, err := hostlink.New(cfg, linkEditor{b}, b.cfg.Log)
	if err != nil {
		b.mu.Lock()
		b.applied = false // the same settings may be retried
		b.mu.Unlock()
		b.srv.ShowMessage(protocol.MessageTypeError, "ahpls cannot connect to the agent host: "+err.Error())
		return true
	}
	link.SetExecutor(hostlink.NewToolExecutor(link, observer{b}, b.cfg.Log))
	// Report at once (the link's own first report comes from its
	// goroutine), so the server's "no host" default never shows (#18).
	b.status.send(HostStatus{State: HostStateConnecting, Host: host.URL})
	lctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	b.mu.Lock()
	b.link, b.cancel, b.done = link, cancel, done
	b.mu.Unlock()
	go func() {
		defer close(done)
		if err := link.Run(lctx); err != nil && !errors.Is(err, context.Canceled) {
			b.srv.ShowMessage(protocol.MessageTypeError, "ahpls: agent host: "+err.Error())
		}
	}()
	return true
}

// sameLink reports whether a and b differ at most in what a running link
// takes live (trust, the tools setting).
func sameLink(a, b settings.Host) bool {
	a.TrustWorkspaceTools, a.Tools = b.TrustWorkspaceTools, b.Tools
	return reflect.DeepEqual(a, b)
}

// stop ends the link and withdraws what it showed in the editor.
func (b *Bridge) stop() {
	b.mu.Lock()
	link, cancel, done := b.link, b.cancel, b.done
	b.link, b.cancel, b.done = nil, nil, nil
	shown, tested := b.shown, b.tested
	b.shown, b.tested = map[string]bool{}, map[string]bool{}
	b.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
	if link != nil {
		link.Close()
	}
	for p := range shown {
		b.srv.SetExternalFindings(Source, p, nil)
	}
	// The failures belong to the stopped link's test runs.
	for u := range tested {
		b.srv.SetExternalDiagnostics(tools.TestDiagnosticsSource, uri.URI(u), nil)
	}
}

// pathChanged feeds every file change to the link.
func (b *Bridge) pathChanged(p string) {
	if l := b.Link(); l != nil {
		l.FilesChanged(p)
	}
}

// Package lspeditor is an editor stand-in that speaks LSP over an
// in-process pipe to the server `ahpls serve` runs (package server with the
// agent-host bridge). `ahpls demo` drives the product through it and the
// bridge's tests use it as their editor, so it lives apart from both: tests
// of the bridge do not import the demo.
package lspeditor

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/bridge"
	"github.com/ahpls-dev/ahpls/internal/loopback"
	"github.com/ahpls-dev/ahpls/server"
)

// Editor is an editor stand-in that speaks LSP, over an in-process pipe, to
// the server `ahpls serve` runs (package server with the agent-host bridge
// of package bridge). The demo drives the product through it, so it
// exercises what ships; tests of the bridge use it too.
type Editor struct {
	Server *server.Server
	Bridge *bridge.Bridge

	conn jsonrpc2.Conn
	code chan int

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced on every notification
	last     map[string]Published
	history  []Published
	statuses []bridge.HostStatus
	onShow   func(uri string) // EditorOptions.OnShowDocument
}

// EditorOptions configure StartEditor.
type EditorOptions struct {
	// Folders are the workspace folders (absolute paths).
	Folders []string
	// Settings are the `ahpls` settings sent as initializationOptions.
	Settings any
	// Server are the server's options (default: server.DefaultOptions
	// without logs, so the demo's output stays the transcript).
	Server *server.Options
	// Bridge configures the agent-host bridge.
	Bridge bridge.Config
	// OnShowDocument hears window/showDocument requests.
	OnShowDocument func(uri string)
}

// Published is one textDocument/publishDiagnostics as the editor got it.
type Published struct {
	Path        string
	Version     *int32
	Diagnostics []PublishedDiagnostic
}

// PublishedDiagnostic is the part of an LSP diagnostic the stand-in reads.
type PublishedDiagnostic struct {
	Code     string `json:"code"`
	Source   string `json:"source"`
	Message  string `json:"message"`
	Severity int    `json:"severity"`
	Range    struct {
		Start struct {
			Line int `json:"line"`
		} `json:"start"`
	} `json:"range"`
}

// Has reports whether the set carries a diagnostic with this code.
func (p Published) Has(code string) bool {
	for _, d := range p.Diagnostics {
		if d.Code == code {
			return true
		}
	}
	return false
}

// StartEditor starts a server with the bridge, connects to it over a pipe
// and initializes the session with the given folders and settings.
func StartEditor(ctx context.Context, o EditorOptions) (*Editor, error) {
	opts := server.DefaultOptions()
	opts.Logger = nil // the demo's output stays the transcript
	if o.Server != nil {
		opts = *o.Server
	}
	srv, br := bridge.NewServer(opts, o.Bridge)
	a, b, err := loopback.Pair()
	if err != nil {
		return nil, err
	}
	e := &Editor{Server: srv, Bridge: br, code: make(chan int, 1), changed: make(chan struct{}), last: map[string]Published{}, onShow: o.OnShowDocument}
	go func() { e.code <- srv.Serve(context.Background(), a) }()
	e.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(b))
	e.conn.Go(context.Background(), e.handle)
	var folders []map[string]string
	for _, f := range o.Folders {
		folders = append(folders, map[string]string{"uri": string(uri.File(f)), "name": f})
	}
	init := map[string]any{
		"processId": nil, "rootUri": nil, "workspaceFolders": folders,
		"capabilities": map[string]any{"window": map[string]any{"showDocument": map[string]any{"support": true}, "workDoneProgress": true}},
	}
	if o.Settings != nil {
		init["initializationOptions"] = o.Settings
	}
	if err := e.Call(ctx, "initialize", init, nil); err != nil {
		e.Close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if err := e.Notify(ctx, "initialized", map[string]any{}); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

func (e *Editor) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	switch req.Method() {
	case "textDocument/publishDiagnostics":
		var p struct {
			URI         string                `json:"uri"`
			Version     *int32                `json:"version"`
			Diagnostics []PublishedDiagnostic `json:"diagnostics"`
		}
		if json.Unmarshal(req.Params(), &p) == nil {
			pub := Published{Version: p.Version, Diagnostics: p.Diagnostics}
			if u, err := uri.Parse(p.URI); err == nil {
				pub.Path = u.FsPath()
			}
			e.mu.Lock()
			e.last[pub.Path] = pub
			e.history = append(e.history, pub)
			e.mu.Unlock()
		}
	case bridge.MethodHostStatus:
		var st bridge.HostStatus
		if json.Unmarshal(req.Params(), &st) == nil {
			e.mu.Lock()
			e.statuses = append(e.statuses, st)
			e.mu.Unlock()
		}
	case "window/showDocument":
		var p struct {
			URI string `json:"uri"`
		}
		_ = json.Unmarshal(req.Params(), &p)
		if e.onShow != nil {
			e.onShow(p.URI)
		}
		return map[string]bool{"success": true}, nil
	}
	e.mu.Lock()
	close(e.changed)
	e.changed = make(chan struct{})
	e.mu.Unlock()
	return nil, nil
}

// Call sends a request and decodes its result into result (may be nil).
func (e *Editor) Call(ctx context.Context, method string, params, result any) error {
	var raw json.RawMessage
	if _, err := e.conn.Call(ctx, method, params, &raw); err != nil {
		return err
	}
	if result == nil {
		return nil
	}
	return json.Unmarshal(raw, result)
}

// Notify sends a notification.
func (e *Editor) Notify(ctx context.Context, method string, params any) error {
	return e.conn.Notify(ctx, method, params)
}

// Command runs workspace/executeCommand.
func (e *Editor) Command(ctx context.Context, name string, result any, args ...any) error {
	p := map[string]any{"command": name}
	if len(args) > 0 {
		p["arguments"] = args
	}
	return e.Call(ctx, "workspace/executeCommand", p, result)
}

// HostStatus is ahpls.showHostConnection's answer.
func (e *Editor) HostStatus(ctx context.Context) (HostConnection, error) {
	var st HostConnection
	err := e.Command(ctx, bridge.CommandShowHostConnection, &st)
	return st, err
}

// HostConnection is the part of the host link's status the stand-in reads.
type HostConnection struct {
	State    string   `json:"state"`
	ClientID string   `json:"clientId"`
	Sessions []string `json:"sessions"`
	Plugins  []struct {
		ID    string `json:"id"`
		URI   string `json:"uri"`
		Name  string `json:"name"`
		Nonce string `json:"nonce"`
	} `json:"plugins"`
}

// Open sends didOpen; Change sends a full-text didChange.
func (e *Editor) Open(ctx context.Context, path, text string, version int32) error {
	return e.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": string(uri.File(path)), "languageId": "markdown", "version": version, "text": text}})
}

// Change replaces an open document's text.
func (e *Editor) Change(ctx context.Context, path, text string, version int32) error {
	return e.Notify(ctx, "textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": string(uri.File(path)), "version": version},
		"contentChanges": []map[string]any{{"text": text}}})
}

// Configure pushes new `ahpls` settings (workspace/didChangeConfiguration).
func (e *Editor) Configure(ctx context.Context, settings any) error {
	return e.Notify(ctx, "workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ahpls": settings}})
}

// Diagnostics is the last set published for a file.
func (e *Editor) Diagnostics(path string) (Published, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	p, ok := e.last[path]
	return p, ok
}

// HostStatuses is every ahpls/hostStatus notification so far, in order.
func (e *Editor) HostStatuses() []bridge.HostStatus {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]bridge.HostStatus(nil), e.statuses...)
}

// History is every publication so far, in arrival order.
func (e *Editor) History() []Published {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Published(nil), e.history...)
}

// Excluded lists the files whose last diagnostics say they are left out of
// publication, with the reason.
func (e *Editor) Excluded() map[string]string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := map[string]string{}
	for p, pub := range e.last {
		for _, d := range pub.Diagnostics {
			if d.Code == "publish/excluded" {
				out[p] = strings.TrimPrefix(d.Message, "Not published to agent sessions: ")
			}
		}
	}
	return out
}

// Wait returns once cond holds (checked after every notification and at
// least every 50 ms, for conditions on server-side state) or ctx ends.
func (e *Editor) Wait(ctx context.Context, cond func() bool) error {
	for {
		e.mu.Lock()
		ch := e.changed
		e.mu.Unlock()
		if cond() {
			return nil
		}
		select {
		case <-ch:
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Close ends the session: shutdown, exit, and the server's return.
func (e *Editor) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = e.Call(ctx, "shutdown", nil, nil)
	_ = e.Notify(ctx, "exit", nil)
	select {
	case <-e.code:
	case <-ctx.Done():
	}
	_ = e.conn.Close()
}

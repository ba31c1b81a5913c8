package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"reflect"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/enablement"
	"github.com/ahpls-dev/ahpls/hostlink"
	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/server"
	"github.com/ahpls-dev/ahpls/toolexec"
	"github.com/ahpls-dev/ahpls/tools"
)

// hostSource is the source name of the link's diagnostics in the editor.
const hostSource = "ahpls-host"

// hostSettings are the parts of the `ahpls` settings that concern the agent
// host. A change of any of them restarts the link.
type hostSettings struct {
	Host string `json:"host"`
	// HostHeaders are sent with the WebSocket upgrade (connection auth,
	// e.g. {"Authorization": "Bearer …"}); AHPLS_HOST_AUTHORIZATION sets
	// the Authorization header when the settings give none.
	HostHeaders map[string]string `json:"hostHeaders"`
	Sessions    json.RawMessage   `json:"sessions"` // "auto" (default) or ["ahp-session:/…", …]
	Trust       bool              `json:"trustWorkspaceTools"`
	Tools       json.RawMessage   `json:"tools"`
}

// hostManager owns the server's hostlink.Link: it starts one when the
// settings (or AHPLS_HOST) name a host, restarts it when they change, and
// stops it when the connection ends. It is also the link's Editor, the
// tools' Editor and the tool executor's Observer, all backed by the server.
type hostManager struct {
	srv *server.Server
	log *slog.Logger

	applyMu  sync.Mutex // one settings/folder change at a time
	mu       sync.Mutex
	ctx      context.Context
	cur      hostSettings
	link     *hostlink.Link
	cancel   context.CancelFunc
	done     chan struct{}
	progress map[string]*server.Progress
	shown    map[string]bool // files with host diagnostics
}

func newHostManager(log *slog.Logger) *hostManager {
	return &hostManager{log: log, progress: map[string]*server.Progress{}, shown: map[string]bool{}}
}

// settingsChanged runs on the server's read loop: decode and hand off.
func (m *hostManager) settingsChanged(raw json.RawMessage) {
	var st hostSettings
	section := raw
	var wrapped struct {
		Ahpls json.RawMessage `json:"ahpls"`
	}
	if json.Unmarshal(raw, &wrapped) == nil && len(wrapped.Ahpls) > 0 {
		section = wrapped.Ahpls
	}
	_ = json.Unmarshal(section, &st)
	if st.Host == "" {
		st.Host = os.Getenv("AHPLS_HOST")
	}
	go m.apply(st)
}

// started is called once the server is initialized (its context lives as
// long as the connection).
func (m *hostManager) started(ctx context.Context) {
	m.mu.Lock()
	m.ctx = ctx
	st := m.cur
	m.mu.Unlock()
	if st.Host == "" {
		st.Host = os.Getenv("AHPLS_HOST")
	}
	m.apply(st)
}

// foldersChanged restarts the link: its folders (and so its clientId and
// published plugins) are fixed when it is created.
func (m *hostManager) foldersChanged(folders []string) {
	m.mu.Lock()
	st := m.cur
	m.cur = hostSettings{} // force apply to rebuild
	m.mu.Unlock()
	go m.apply(st)
}

func (m *hostManager) apply(st hostSettings) {
	m.applyMu.Lock()
	defer m.applyMu.Unlock()
	m.mu.Lock()
	same := reflect.DeepEqual(st, m.cur) && (m.link != nil || st.Host == "")
	m.cur = st
	ctx := m.ctx
	m.mu.Unlock()
	if same || ctx == nil || ctx.Err() != nil {
		return // unchanged, not initialized yet, or the connection has ended
	}
	m.stop()
	if st.Host == "" {
		m.srv.SendHostStatus(server.HostStatus{State: "disconnected", Message: "no agent host configured (ahpls.host)"})
		return
	}
	cfg := hostlink.Config{URL: st.Host, Auto: true, TrustWorkspaceTools: st.Trust, ToolSettings: st.Tools, ToolsEditor: m, Header: http.Header{}}
	for k, v := range st.HostHeaders {
		cfg.Header.Set(k, v)
	}
	if auth := os.Getenv("AHPLS_HOST_AUTHORIZATION"); auth != "" && cfg.Header.Get("Authorization") == "" {
		cfg.Header.Set("Authorization", auth)
	}
	if s := bytes.TrimSpace(st.Sessions); len(s) > 0 && s[0] == '[' {
		var list []string
		if err := json.Unmarshal(s, &list); err == nil && len(list) > 0 {
			cfg.Sessions, cfg.Auto = list, false
		}
	}
	opts := m.srv.Settings().Options()
	opts.Checkers = []diagnostics.Checker{tools.Checker()}
	cfg.RuleOptions = opts
	link, err := hostlink.New(cfg, m, m.log)
	if err != nil {
		m.srv.ShowMessage(protocol.MessageTypeError, "ahpls cannot connect to the agent host: "+err.Error())
		return
	}
	link.SetExecutor(hostlink.NewToolExecutor(link, m, m.log))
	lctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	m.mu.Lock()
	m.link, m.cancel, m.done = link, cancel, done
	m.mu.Unlock()
	go func() {
		defer close(done)
		if err := link.Run(lctx); err != nil && !errors.Is(err, context.Canceled) {
			m.srv.ShowMessage(protocol.MessageTypeError, "ahpls: agent host: "+err.Error())
		}
	}()
}

func (m *hostManager) stop() {
	m.mu.Lock()
	link, cancel, done := m.link, m.cancel, m.done
	m.link, m.cancel, m.done = nil, nil, nil
	shown := m.shown
	m.shown = map[string]bool{}
	m.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
	if link != nil {
		link.Close()
	}
	for p := range shown {
		m.srv.SetExternalFindings(hostSource, p, nil)
	}
}

func (m *hostManager) current() *hostlink.Link {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.link
}

// pathChanged feeds every file change to the link.
func (m *hostManager) pathChanged(p string) {
	if l := m.current(); l != nil {
		l.FilesChanged(p)
	}
}

// --- hostlink.Editor ---

func (m *hostManager) Folders() []string { return m.srv.Folders() }

func (m *hostManager) Text(absPath string) ([]byte, bool) {
	snap, ok := m.srv.DocumentSnapshot(uri.File(absPath))
	if !ok {
		return nil, false
	}
	return snap.Text, true
}

func (m *hostManager) PublishDiagnostics(absPath string, diags []model.Diagnostic) {
	m.mu.Lock()
	if len(diags) == 0 {
		delete(m.shown, absPath)
	} else {
		m.shown[absPath] = true
	}
	m.mu.Unlock()
	m.srv.SetExternalFindings(hostSource, absPath, diags)
}

func (m *hostManager) HostStatus(state, message string) {
	m.mu.Lock()
	host := m.cur.Host
	m.mu.Unlock()
	m.srv.SendHostStatus(server.HostStatus{State: state, Message: message, Host: host})
	if state == "refused" {
		m.srv.ShowMessage(protocol.MessageTypeError, "ahpls: the agent host refused the connection: "+message)
	}
}

func (m *hostManager) Log(msg string) { m.srv.LogMessage(protocol.MessageTypeInfo, msg) }

// --- tools.Editor ---

func (m *hostManager) Diagnostics(ctx context.Context, u string) ([]tools.Diagnostic, error) {
	var out []tools.Diagnostic
	for _, f := range m.srv.Diagnostics() {
		if u != "" && string(f.URI) != u {
			continue
		}
		for _, d := range f.Diagnostics {
			code := ""
			switch c := d.Code.(type) {
			case protocol.String:
				code = string(c)
			case nil:
			default:
				code = fmt.Sprint(c)
			}
			source, _ := d.Source.Get()
			out = append(out, tools.Diagnostic{
				URI: string(f.URI),
				Range: tools.Range{
					Start: tools.Position{Line: int(d.Range.Start.Line), Character: int(d.Range.Start.Character)},
					End:   tools.Position{Line: int(d.Range.End.Line), Character: int(d.Range.End.Character)},
				},
				Severity: model.Severity(d.Severity).String(), Message: messageText(d.Message), Source: source, Code: code,
			})
		}
	}
	return out, nil
}

func messageText(m protocol.InlayHintTooltip) string {
	switch v := m.(type) {
	case protocol.String:
		return string(v)
	case *protocol.MarkupContent:
		return v.Value
	}
	return ""
}

func (m *hostManager) ShowDocument(ctx context.Context, u string, rng *tools.Range) error {
	focus := true
	p := &protocol.ShowDocumentParams{URI: uri.URI(u), TakeFocus: &focus}
	if rng != nil {
		p.Selection = &protocol.Range{
			Start: protocol.Position{Line: uint32(rng.Start.Line), Character: uint32(rng.Start.Character)},
			End:   protocol.Position{Line: uint32(rng.End.Line), Character: uint32(rng.End.Character)},
		}
	}
	res, err := m.srv.ShowDocument(ctx, p)
	if err != nil {
		return err
	}
	if res != nil && !res.Success {
		return fmt.Errorf("the editor did not open %s", u)
	}
	return nil
}

// --- toolexec.Observer: a running tool is LSP work-done progress ---

func (m *hostManager) Started(call toolexec.CallInfo) {
	m.srv.LogMessage(protocol.MessageTypeInfo, fmt.Sprintf("agent runs %s (%s, %s)", call.ToolName, call.Chat, call.ToolCallID))
	p := m.srv.StartProgress(context.Background(), "ahpls: "+call.DisplayName, call.Invocation)
	m.mu.Lock()
	m.progress[call.Token()] = p
	m.mu.Unlock()
}

func (m *hostManager) Progress(call toolexec.CallInfo, text string) {
	m.mu.Lock()
	p := m.progress[call.Token()]
	m.mu.Unlock()
	if p != nil {
		p.Report(text, -1)
	}
}

func (m *hostManager) Finished(call toolexec.CallInfo, res tools.Result) {
	m.mu.Lock()
	p := m.progress[call.Token()]
	delete(m.progress, call.Token())
	m.mu.Unlock()
	if p != nil {
		p.End(res.PastTenseMessage)
	}
	m.srv.LogMessage(protocol.MessageTypeInfo, fmt.Sprintf("%s: %s", call.ToolName, res.PastTenseMessage))
}

// --- LSP commands ---

func (m *hostManager) showHostConnection(ctx context.Context, args []json.RawMessage) (any, error) {
	l := m.current()
	if l == nil {
		return map[string]any{"state": "disconnected", "message": "no agent host configured (ahpls.host)"}, nil
	}
	return l.Status(), nil
}

// toggleArgs is ahpls.toggleCustomization's argument: the item by its row
// id, or a workspace file by URI (hostlink.FileToggleRow: the file's own
// leaf, a manifest's plugin, a .mcp.json's one server).
type toggleArgs struct {
	Session string          `json:"session"`
	ID      string          `json:"id"`
	URI     string          `json:"uri"`
	Scope   enablement.Kind `json:"scope"`
	Enabled *bool           `json:"enabled"`
}

// toggleUsage is the argument shape, repeated in every argument error.
const toggleUsage = `ahpls.toggleCustomization takes one argument: {"id": "<customization id>" or "uri": "<file URI>", "scope": "session"|"workspace"|"global" (default "session"), "enabled": true|false, "session": "<session URI>" (optional when one session is joined)}`

func (m *hostManager) toggleCustomization(ctx context.Context, args []json.RawMessage) (any, error) {
	l := m.current()
	if l == nil {
		return nil, errors.New("no agent host connected (set ahpls.host)")
	}
	if len(args) != 1 {
		return nil, errors.New(toggleUsage)
	}
	var a toggleArgs
	if err := json.Unmarshal(args[0], &a); err != nil {
		return nil, fmt.Errorf("%s: %v", toggleUsage, err)
	}
	switch {
	case a.Enabled == nil:
		return nil, fmt.Errorf(`%s: "enabled" is missing`, toggleUsage)
	case a.ID == "" && a.URI == "":
		return nil, fmt.Errorf(`%s: give "id" or "uri"`, toggleUsage)
	}
	if a.Scope == "" {
		a.Scope = enablement.KindSession
	}
	switch a.Scope {
	case enablement.KindSession, enablement.KindWorkspace, enablement.KindGlobal:
	default:
		return nil, fmt.Errorf("%s: unknown scope %q", toggleUsage, a.Scope)
	}
	if a.Session == "" {
		sessions := l.Status().Sessions
		if len(sessions) != 1 {
			return nil, fmt.Errorf("%s: name the session (joined: %v)", toggleUsage, sessions)
		}
		a.Session = sessions[0]
	}
	if a.ID == "" {
		u, err := uri.Parse(a.URI)
		path := ""
		if err == nil && u.IsFile() {
			path = u.FsPath()
		}
		if path == "" {
			return nil, fmt.Errorf("%s: %q is not a file URI", toggleUsage, a.URI)
		}
		row, err := l.FileToggleRow(a.Session, path)
		if err != nil {
			return nil, fmt.Errorf("ahpls.toggleCustomization: %w", err)
		}
		a.ID = row.ID
	}
	if err := l.Toggle(ctx, a.Session, a.ID, a.Scope, *a.Enabled); err != nil {
		return nil, err
	}
	return l.Rows(a.Session), nil
}

func (m *hostManager) listCustomizations(ctx context.Context, args []json.RawMessage) (any, error) {
	l := m.current()
	if l == nil {
		return map[string]any{}, nil
	}
	out := map[string][]enablement.Row{}
	for _, s := range l.Status().Sessions {
		out[s] = l.Rows(s)
	}
	return out, nil
}

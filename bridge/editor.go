package bridge

import (
	"context"
	"fmt"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/toolexec"
	"github.com/ahpls-dev/ahpls/tools"
)

// linkEditor is the server as the host link's hostlink.Editor.
type linkEditor struct{ b *Bridge }

func (e linkEditor) Folders() []string { return e.b.srv.Folders() }

func (e linkEditor) Text(absPath string) ([]byte, bool) {
	snap, ok := e.b.srv.DocumentSnapshot(uri.File(absPath))
	if !ok {
		return nil, false
	}
	return snap.Text, true
}

func (e linkEditor) PublishDiagnostics(absPath string, diags []model.Diagnostic) {
	e.remember(absPath, diags)
	e.b.srv.SetExternalFindings(Source, absPath, diags)
}

// PublishDiagnosticsFor (hostlink.SumEditor): the server shows the set only
// with the text it was computed from.
func (e linkEditor) PublishDiagnosticsFor(absPath string, sum [32]byte, diags []model.Diagnostic) {
	e.remember(absPath, diags)
	e.b.srv.SetExternalFindingsFor(Source, absPath, sum, diags)
}

func (e linkEditor) remember(absPath string, diags []model.Diagnostic) {
	b := e.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(diags) == 0 {
		delete(b.shown, absPath)
	} else {
		b.shown[absPath] = true
	}
}

// HostMeta (hostlink.MetaEditor) keeps the host's build and role for the
// "connected" status that follows.
func (e linkEditor) HostMeta(build string, readOnly bool) {
	e.b.metaMu.Lock()
	e.b.hostBuild, e.b.readOnly = build, readOnly
	e.b.metaMu.Unlock()
}

func (e linkEditor) HostStatus(state, message string) {
	b := e.b
	st := HostStatus{State: state, Message: message, Host: b.host().URL}
	if state == HostStateConnected {
		b.metaMu.Lock()
		st.HostBuild, st.ReadOnly = b.hostBuild, b.readOnly
		b.metaMu.Unlock()
	}
	b.status.send(st)
	if state == HostStateRefused {
		b.srv.ShowMessage(protocol.MessageTypeError, "ahpls: the agent host refused the connection: "+message)
	}
}

// HostRetrying (hostlink.RetryEditor): "connecting" with the wait before
// the next attempt (whole seconds, at least 1) and why the last failed. The
// message says both too: the editors show the message, not yet the fields.
func (e linkEditor) HostRetrying(retryIn time.Duration, lastError string) {
	secs := max(int((retryIn+time.Second-1)/time.Second), 1)
	e.b.status.send(HostStatus{
		State: HostStateConnecting, Message: fmt.Sprintf("retrying in %d s (%s)", secs, lastError), Host: e.b.host().URL,
		RetryIn: secs, LastError: lastError,
	})
}

func (e linkEditor) Log(msg string) { e.b.srv.LogMessage(protocol.MessageTypeInfo, msg) }

// testDiagnostics shows the failing tests of an ahpls_run_tests call in
// the editor (source tools.TestDiagnosticsSource) and clears files whose
// tests pass again. The runner gives line positions, which LSP takes as
// they are: no byte spans, so no text to read.
func (b *Bridge) testDiagnostics(byURI map[string][]tools.Diagnostic) {
	for u, ds := range byURI {
		out := make([]protocol.Diagnostic, 0, len(ds))
		for _, d := range ds {
			sev := protocol.DiagnosticSeverityError
			if d.Severity == "warning" {
				sev = protocol.DiagnosticSeverityWarning
			}
			pd := protocol.Diagnostic{
				Range: protocol.Range{
					Start: protocol.Position{Line: uint32(max(d.Range.Start.Line, 0)), Character: uint32(max(d.Range.Start.Character, 0))},
					End:   protocol.Position{Line: uint32(max(d.Range.End.Line, 0)), Character: uint32(max(d.Range.End.Character, 0))},
				},
				Severity: sev,
				Source:   protocol.NewOptional(d.Source),
				Message:  protocol.String(d.Message),
			}
			if d.Code != "" {
				pd.Code = protocol.String(d.Code)
			}
			out = append(out, pd)
		}
		b.mu.Lock()
		if len(out) == 0 {
			delete(b.tested, u)
		} else {
			b.tested[u] = true
		}
		b.mu.Unlock()
		b.srv.SetExternalDiagnostics(tools.TestDiagnosticsSource, uri.URI(u), out)
	}
}

// editorTools is the server as the built-in tools' tools.Editor.
type editorTools struct{ b *Bridge }

func (e editorTools) Diagnostics(ctx context.Context, u string) ([]tools.Diagnostic, error) {
	var out []tools.Diagnostic
	for _, f := range e.b.srv.Diagnostics() {
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

func (e editorTools) ShowDocument(ctx context.Context, u string, rng *tools.Range) error {
	focus := true
	p := &protocol.ShowDocumentParams{URI: uri.URI(u), TakeFocus: &focus}
	if rng != nil {
		p.Selection = &protocol.Range{
			Start: protocol.Position{Line: uint32(rng.Start.Line), Character: uint32(rng.Start.Character)},
			End:   protocol.Position{Line: uint32(rng.End.Line), Character: uint32(rng.End.Character)},
		}
	}
	res, err := e.b.srv.ShowDocument(ctx, p)
	if err != nil {
		return err
	}
	if res != nil && !res.Success {
		return fmt.Errorf("the editor did not open %s", u)
	}
	return nil
}

// observer shows a running tool as LSP work-done progress
// (toolexec.Observer).
type observer struct{ b *Bridge }

func (o observer) Started(call toolexec.CallInfo) {
	b := o.b
	b.srv.LogMessage(protocol.MessageTypeInfo, fmt.Sprintf("agent runs %s (%s, %s)", call.ToolName, call.Chat, call.ToolCallID))
	b.mu.Lock()
	ctx := b.ctx // the connection's context (started)
	b.mu.Unlock()
	if ctx == nil {
		ctx = context.Background()
	}
	p := b.srv.StartProgress(ctx, "ahpls: "+call.DisplayName, call.Invocation)
	b.mu.Lock()
	b.progress[call.Token()] = p
	b.mu.Unlock()
}

func (o observer) Progress(call toolexec.CallInfo, text string) {
	b := o.b
	b.mu.Lock()
	p := b.progress[call.Token()]
	b.mu.Unlock()
	if p != nil {
		p.Report(text, -1)
	}
}

func (o observer) Finished(call toolexec.CallInfo, res tools.Result) {
	b := o.b
	b.mu.Lock()
	p := b.progress[call.Token()]
	delete(b.progress, call.Token())
	b.mu.Unlock()
	if p != nil {
		p.End(res.PastTenseMessage)
	}
	b.srv.LogMessage(protocol.MessageTypeInfo, fmt.Sprintf("%s: %s", call.ToolName, res.PastTenseMessage))
}

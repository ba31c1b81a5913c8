package server

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// publisher is the one goroutine that sends server→client notifications.
// Callers enqueue and return at once, so a handler on the read loop never
// waits on the editor reading its input. Diagnostics are coalesced per URI:
// if a newer set arrives before the older one was written, only the newer
// one goes out (it carries the newer version anyway).
type publisher struct {
	ctx  context.Context
	conn jsonrpc2.Conn
	log  *slog.Logger

	mu     sync.Mutex
	cond   *sync.Cond
	queue  []outMsg
	diags  map[uri.URI]*protocol.PublishDiagnosticsParams
	closed bool
	done   chan struct{}
	// ready: the client has the initialize answer (it sent initialized).
	// Before that only log and message notifications go out (the LSP
	// spec's rule): VS Code's client installs its publishDiagnostics
	// handler when it gets the answer and drops any set that came before,
	// and a dropped set is not sent again while the findings stay the same.
	ready bool
}

// earlyMethods may be sent while initialize is still being answered.
var earlyMethods = map[string]bool{
	protocol.MethodWindowLogMessage:  true,
	protocol.MethodWindowShowMessage: true,
	protocol.MethodLogTrace:          true,
	protocol.MethodTelemetryEvent:    true,
}

// open lets every queued and future notification go out.
func (p *publisher) open() {
	p.mu.Lock()
	p.ready = true
	p.cond.Signal()
	p.mu.Unlock()
}

// nextLocked takes the first message that may go out now, if any.
func (p *publisher) nextLocked() (outMsg, bool) {
	for i, m := range p.queue {
		if !p.ready && (m.diag != "" || !earlyMethods[m.method]) {
			continue
		}
		if i == 0 {
			p.queue[0] = outMsg{}
			p.queue = p.queue[1:]
		} else {
			p.queue = append(p.queue[:i], p.queue[i+1:]...)
		}
		return m, true
	}
	return outMsg{}, false
}

type outMsg struct {
	method string
	params any
	diag   uri.URI // set: take the pending diagnostics of this URI
}

func newPublisher(ctx context.Context, conn jsonrpc2.Conn, log *slog.Logger) *publisher {
	p := &publisher{ctx: ctx, conn: conn, log: log, diags: map[uri.URI]*protocol.PublishDiagnosticsParams{}, done: make(chan struct{})}
	p.cond = sync.NewCond(&p.mu)
	return p
}

func (p *publisher) notify(method string, params any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.queue = append(p.queue, outMsg{method: method, params: params})
	p.cond.Signal()
}

func (p *publisher) publish(params *protocol.PublishDiagnosticsParams) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	if _, queued := p.diags[params.URI]; !queued {
		p.queue = append(p.queue, outMsg{diag: params.URI})
	}
	p.diags[params.URI] = params
	p.cond.Signal()
}

func (p *publisher) run() {
	defer close(p.done)
	for {
		p.mu.Lock()
		var m outMsg
		for {
			if p.closed {
				p.mu.Unlock()
				return
			}
			var ok bool
			if m, ok = p.nextLocked(); ok {
				break
			}
			p.cond.Wait()
		}
		if m.diag != "" {
			m.method = protocol.MethodTextDocumentPublishDiagnostics
			m.params = p.diags[m.diag]
			delete(p.diags, m.diag)
		}
		p.mu.Unlock()
		if err := p.conn.Notify(p.ctx, m.method, m.params); err != nil {
			p.log.DebugContext(withoutClient(p.ctx), "notify failed", "method", m.method, "error", err)
		}
	}
}

func (p *publisher) close() {
	p.mu.Lock()
	p.closed = true
	p.cond.Broadcast()
	p.mu.Unlock()
}

// logToClient mirrors a log line to window/logMessage (the server's own log
// already went to stderr).
func (part outbound) logToClient(t protocol.MessageType, msg string) {
	s := part.s
	if s.pub != nil {
		s.pub.notify(protocol.MethodWindowLogMessage, &protocol.LogMessageParams{Type: t, Message: msg})
	}
}

// LogMessage logs msg at the level matching t: errors and warnings to
// stderr, the rest to the editor's output (window/logMessage). With a logger
// that is not a LogHandler the message goes to both, as before.
func (part outbound) LogMessage(t protocol.MessageType, msg string) {
	s := part.s
	level := slog.LevelInfo
	switch t {
	case protocol.MessageTypeError:
		level = slog.LevelError
	case protocol.MessageTypeWarning:
		level = slog.LevelWarn
	case protocol.MessageTypeLog, protocol.MessageTypeDebug:
		level = slog.LevelDebug
	}
	s.log.Log(context.Background(), level, msg)
	if _, routed := s.log.Handler().(*LogHandler); !routed {
		s.logToClient(t, msg)
	}
}

// ShowMessage shows msg to the user (window/showMessage).
func (part outbound) ShowMessage(t protocol.MessageType, msg string) {
	s := part.s
	s.log.Info("showMessage", "message", msg)
	if s.pub != nil {
		s.pub.notify(protocol.MethodWindowShowMessage, &protocol.ShowMessageParams{Type: t, Message: msg})
	}
}

// Notify queues a notification the server itself knows nothing about
// (method and params as given), in order with the server's own: a part
// installed around the server (package bridge) talks
// to its editor extension this way without the server learning its
// protocol. Use a method name of your own namespace ("ahpls/…"). Safe from
// any goroutine; before the connection exists nothing is sent.
func (part outbound) Notify(method string, params any) {
	s := part.s
	if s.pub != nil {
		s.pub.notify(method, params)
	}
}

// Client returns the typed client dispatcher for requests the server makes.
// Never call a request method from inside a handler that has not released
// the read loop with jsonrpc2.Async: the reply could never be read (trap 2).
func (part outbound) Client() protocol.Client {
	s := part.s
	return s.client
}

// ShowDocument asks the editor to open a document (window/showDocument). Call
// it from a goroutine of your own or a command handler, never from the read
// loop. It returns an error when the client did not announce support.
func (part outbound) ShowDocument(ctx context.Context, params *protocol.ShowDocumentParams) (*protocol.ShowDocumentResult, error) {
	s := part.s
	s.mu.Lock()
	ok := s.caps.showDocument
	s.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("the editor does not support window/showDocument")
	}
	return s.client.ShowDocument(ctx, params)
}

// Progress is one work-done progress report started with StartProgress.
// When the client does not support work-done progress, its methods do
// nothing.
type Progress struct {
	s     *Server
	token protocol.ProgressToken
	ended atomic.Bool
}

var progressSeq atomic.Int64

// StartProgress creates a work-done progress token on the client
// (window/workDoneProgress/create) and sends the begin report. Call it from a
// goroutine of your own, never from the read loop.
func (part outbound) StartProgress(ctx context.Context, title, message string) *Progress {
	s := part.s
	s.mu.Lock()
	ok := s.caps.workDone
	s.mu.Unlock()
	p := &Progress{s: s}
	if !ok {
		p.ended.Store(true)
		return p
	}
	p.token = protocol.String(fmt.Sprintf("ahpls-%d", progressSeq.Add(1)))
	if err := s.client.WorkDoneProgressCreate(ctx, &protocol.WorkDoneProgressCreateParams{Token: p.token}); err != nil {
		s.log.Debug("progress create failed", "error", err)
		p.ended.Store(true)
		return p
	}
	p.send(map[string]any{"kind": "begin", "title": title, "message": message, "cancellable": false})
	return p
}

// Report updates the progress message and percentage (0–100, or <0 for none).
func (p *Progress) Report(message string, percent int) {
	if p.ended.Load() {
		return
	}
	v := map[string]any{"kind": "report", "message": message}
	if percent >= 0 {
		v["percentage"] = percent
	}
	p.send(v)
}

// End finishes the progress report.
func (p *Progress) End(message string) {
	if p.ended.Swap(true) {
		return
	}
	p.send(map[string]any{"kind": "end", "message": message})
}

func (p *Progress) send(value map[string]any) {
	raw, err := jsonMarshal(value)
	if err != nil {
		return
	}
	p.s.pub.notify(protocol.MethodProgress, &protocol.ProgressParams{Token: p.token, Value: protocol.LSPAny(raw)})
}

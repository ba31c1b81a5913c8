package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Pull diagnostics (LSP 3.17): when the client can ask for them
// (textDocument.diagnostic in its capabilities), the server announces a
// diagnostic provider and pushes nothing; the editor asks for what it
// shows, with the result id of what it has, and a file whose findings
// did not change answers "unchanged" (#30: 10,000 pushes at start become
// one workspace answer). When findings change for a reason the editor did
// not cause (another file, the settings, the scan), the server asks it to
// pull again with workspace/diagnostic/refresh, when the client supports
// that. Clients without pull support get pushes, as before.

// pullRefreshDelay gathers the changes of a burst (a scan, a branch
// switch) into one refresh request.
const pullRefreshDelay = 200 * time.Millisecond

// owedAnswers is how many workspace/diagnostic answers list a closed
// document in full (see oweLocked).
const owedAnswers = 2

// owedState is what the server still owes a pulling client for one URI.
type owedState struct {
	left    int  // answers that still list it in full
	pending bool // not yet in an answer since it was owed: that answer is news
}

// oweLocked marks u as owed to a pulling client (s.mu held): a document
// it closed, or one it pulled while not open.
//
// vscode-languageclient 9-11 (client/src/common/diagnostic.ts,
// DiagnosticRequestor.forgetDocument, in microsoft/vscode-languageserver-node)
// handles a closed document, with a provider that has workspaceDiagnostics,
// by pulling it a last time and dropping its workspace result id. It keeps
// that last answer only while the document is still visible
// (pullAsync returns early for a document no tab shows), so a document whose
// tab went away (an F2 rename moves the tab to the new path) keeps the
// findings of its last pull in Problems. The client then relies on the next
// workspace answer to report the URI, but no longer names it in
// previousResultIds, and a file without findings was left out: the findings
// of the old path stayed for good (#41). An owed URI is answered in full,
// even when the client names it with the id of the same set: that id can
// come from a workspace answer the client skipped because the document was
// still tracked by its document pull (the last document pull owes it again).
func (part pulling) oweLocked(u uri.URI) {
	s := part.s
	if !s.caps.pull {
		return
	}
	if s.owed == nil {
		s.owed = map[uri.URI]owedState{}
	}
	s.owed[u] = owedState{left: owedAnswers, pending: true}
	s.pulledLocked() // wakes a held workspace request, after the settle delay
}

// readPullCaps notes whether the client pulls diagnostics.
func readPullCaps(p *protocol.InitializeParams, c *clientCaps) {
	if t := p.Capabilities.TextDocument; t != nil && t.Diagnostic != nil {
		c.pull = true
	}
	if w := p.Capabilities.Workspace; w != nil && w.Diagnostics != nil && w.Diagnostics.RefreshSupport != nil {
		c.pullRefresh = *w.Diagnostics.RefreshSupport
	}
}

// resultID names a published set: equal sets, equal ids.
func resultID(fingerprint string) string {
	sum := sha256.Sum256([]byte(fingerprint))
	return hex.EncodeToString(sum[:8])
}

// pulledLocked records a changed set for a pulling client in place of a
// push (s.mu held) and schedules a refresh (and the wake-up of a held
// workspace request).
func (part pulling) pulledLocked() {
	s := part.s
	if !s.caps.pull || s.ctx == nil || s.ctx.Err() != nil {
		return
	}
	if s.refreshTimer == nil {
		s.refreshTimer = time.AfterFunc(pullRefreshDelay, s.refreshPull)
	}
}

// refreshPull wakes the held workspace requests and asks the client to pull
// again (from a timer goroutine, so the request never waits on the read
// loop).
func (part pulling) refreshPull() {
	s := part.s
	s.mu.Lock()
	if s.scansRunning > 0 {
		// One refresh when the scan ends, not one per delay during it.
		s.refreshTimer = time.AfterFunc(pullRefreshDelay, s.refreshPull)
		s.mu.Unlock()
		return
	}
	s.refreshTimer = nil
	if s.wsWake != nil {
		close(s.wsWake)
		s.wsWake = nil
	}
	refresh := s.caps.pullRefresh
	s.mu.Unlock()
	if !refresh {
		return
	}
	ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
	defer cancel()
	if err := s.client.DiagnosticRefresh(ctx); err != nil {
		s.log.Debug("workspace/diagnostic/refresh failed", "error", err)
	}
}

// Diagnostic answers textDocument/diagnostic with the findings of the
// document's current text (a pending check runs first).
func (l *lspServer) Diagnostic(ctx context.Context, p *protocol.DocumentDiagnosticParams) (protocol.DocumentDiagnosticReport, error) {
	s := l.s
	u := uri.URI(strings.Clone(string(p.TextDocument.URI)))
	s.flush(u)
	s.mu.Lock()
	if _, open := s.docs[u]; !open {
		s.oweLocked(u) // a closed document's last pull: its answer may be dropped
	}
	var all []protocol.Diagnostic
	if fs := s.files[u]; fs != nil {
		all = s.mergedLocked(fs)
	}
	s.mu.Unlock()
	if all == nil {
		all = []protocol.Diagnostic{}
	}
	id := resultID(string(fingerprint(all)))
	if p.PreviousResultID != nil && *p.PreviousResultID == id {
		return &protocol.RelatedUnchangedDocumentDiagnosticReport{UnchangedDocumentDiagnosticReport: protocol.UnchangedDocumentDiagnosticReport{
			Kind: "unchanged", ResultID: id}}, nil
	}
	return &protocol.RelatedFullDocumentDiagnosticReport{FullDocumentDiagnosticReport: protocol.FullDocumentDiagnosticReport{
		Kind: "full", ResultID: &id, Items: all}}, nil
}

// workspaceHold is how long a workspace/diagnostic request that streams
// its reports is held open before it is answered.
const workspaceHold = 5 * time.Minute

// DiagnosticWorkspace answers workspace/diagnostic with what the checks so
// far found: every file with findings, every file the client named in
// previousResultIds (unchanged, or full and perhaps empty), and the owed
// files (closed documents, see oweLocked), in full.
//
// A client that passes a partialResultToken (vscode-languageclient does,
// Neovim does not) gets the reports streamed: the request is held open for
// workspaceHold, and what is new to the client is sent as a partial result
// ($/progress with the token) at once and then after each change
// (refreshPull, pullRefreshDelay after it). vscode-languageclient asks
// again 2 s after each answer (DiagnosticRequestor.pullWorkspace) and
// pulls only open documents on workspace/diagnostic/refresh, so answered at
// once, a closed file's change (a folder moved in a shell) reached Problems
// only at its next round, up to 2 s later (#41). A client without a token
// is answered at once.
func (l *lspServer) DiagnosticWorkspace(ctx context.Context, p *protocol.WorkspaceDiagnosticParams) (*protocol.WorkspaceDiagnosticReport, error) {
	s := l.s
	prev := make(map[uri.URI]string, len(p.PreviousResultIds))
	for _, r := range p.PreviousResultIds {
		// Cloned: the decoded strings may alias the message buffer (trap 4).
		prev[uri.URI(strings.Clone(string(r.URI)))] = strings.Clone(r.Value)
	}
	token := p.PartialResultToken
	if token == nil {
		out, _, owed, err := s.workspaceAnswer(ctx, prev)
		if err != nil {
			return nil, err
		}
		s.answeredOwed(owed, false)
		return out, nil
	}
	if t, ok := token.(protocol.String); ok {
		token = protocol.String(strings.Clone(string(t)))
	}
	jsonrpc2.Async(ctx) // held: release the read loop
	deadline := time.NewTimer(workspaceHold)
	defer deadline.Stop()
	for {
		out, wake, _, err := s.workspaceAnswer(ctx, prev)
		if err != nil {
			return nil, err
		}
		if news, owed := newsOf(out, prev, s.pendingOwed()); len(news) > 0 {
			raw, err := protocol.Marshal(&protocol.WorkspaceDiagnosticReportPartialResult{Items: news})
			if err != nil {
				return nil, err
			}
			s.pub.notify(protocol.MethodProgress, &protocol.ProgressParams{Token: token, Value: protocol.LSPAny(raw)})
			s.answeredOwed(owed, true)
		}
		select {
		case <-wake:
		case <-deadline.C:
			// The answer ends the stream; the client asks again.
			return &protocol.WorkspaceDiagnosticReport{Items: []protocol.WorkspaceDocumentDiagnosticReport{}}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-s.readEnded:
			return nil, jsonrpc2.ErrServerClosing
		}
	}
}

// pendingOwed is the set of owed URIs no report listed yet.
func (part pulling) pendingOwed() map[uri.URI]bool {
	s := part.s
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[uri.URI]bool{}
	for u, o := range s.owed {
		if o.pending {
			out[u] = true
		}
	}
	return out
}

// newsOf picks from an answer the reports the client does not have (a set
// other than the one prev names, or an owed URI not yet reported) and
// records them in prev, as the client will once it has the partial result.
func newsOf(out *protocol.WorkspaceDiagnosticReport, prev map[uri.URI]string, pending map[uri.URI]bool) (news []protocol.WorkspaceDocumentDiagnosticReport, owed []uri.URI) {
	for _, it := range out.Items {
		full, ok := it.(*protocol.WorkspaceFullDocumentDiagnosticReport)
		if !ok || full.ResultID == nil {
			continue
		}
		id := *full.ResultID
		if prev[full.URI] == id && !pending[full.URI] {
			continue
		}
		prev[full.URI] = id
		news = append(news, full)
		if pending[full.URI] {
			owed = append(owed, full.URI)
		}
	}
	return news, owed
}

// answeredOwed counts an answer against the owed URIs it listed; a
// streamed report settles them (later changes stream anyway).
func (part pulling) answeredOwed(us []uri.URI, settle bool) {
	s := part.s
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, u := range us {
		o, ok := s.owed[u]
		if !ok {
			continue
		}
		if settle || o.left <= 1 {
			delete(s.owed, u)
			continue
		}
		s.owed[u] = owedState{left: o.left - 1}
	}
}

// workspaceAnswer computes one workspace/diagnostic answer against the
// client's previous result ids. wake is closed at the next change; owed
// are the owed URIs the answer lists.
func (part pulling) workspaceAnswer(ctx context.Context, prev map[uri.URI]string) (out *protocol.WorkspaceDiagnosticReport, wake <-chan struct{}, owed []uri.URI, err error) {
	s := part.s
	type entry struct {
		u       uri.URI
		all     []protocol.Diagnostic
		version *int32
		full    bool // owed: never "unchanged"
	}
	var es []entry
	s.mu.Lock()
	if s.wsWake == nil {
		s.wsWake = make(chan struct{})
	}
	wake = s.wsWake
	for u, fs := range s.files {
		all := s.mergedLocked(fs)
		_, asked := prev[u]
		_, isOwed := s.owed[u]
		if len(all) == 0 && !asked && !isOwed {
			continue
		}
		e := entry{u: u, all: all, full: isOwed}
		if fs.snap.Open {
			v := fs.snap.Version
			e.version = &v
		}
		es = append(es, e)
	}
	for u := range prev {
		if s.files[u] == nil {
			_, isOwed := s.owed[u]
			es = append(es, entry{u: u, all: []protocol.Diagnostic{}, full: isOwed})
		}
	}
	for u := range s.owed {
		if _, asked := prev[u]; s.files[u] == nil && !asked {
			es = append(es, entry{u: u, all: []protocol.Diagnostic{}, full: true})
		}
	}
	s.mu.Unlock()
	sort.Slice(es, func(i, j int) bool { return es[i].u < es[j].u })
	out = &protocol.WorkspaceDiagnosticReport{Items: make([]protocol.WorkspaceDocumentDiagnosticReport, 0, len(es))}
	for i, e := range es {
		if i%1024 == 0 && ctx.Err() != nil {
			return nil, nil, nil, ctx.Err()
		}
		if e.full {
			owed = append(owed, e.u)
		}
		id := resultID(string(fingerprint(e.all)))
		same := prev[e.u] == id
		if same && !e.full {
			out.Items = append(out.Items, &protocol.WorkspaceUnchangedDocumentDiagnosticReport{
				UnchangedDocumentDiagnosticReport: protocol.UnchangedDocumentDiagnosticReport{Kind: "unchanged", ResultID: id},
				URI:                               e.u, Version: e.version})
			continue
		}
		out.Items = append(out.Items, &protocol.WorkspaceFullDocumentDiagnosticReport{
			FullDocumentDiagnosticReport: protocol.FullDocumentDiagnosticReport{Kind: "full", ResultID: &id, Items: e.all},
			URI:                          e.u, Version: e.version})
	}
	return out, wake, owed, nil
}

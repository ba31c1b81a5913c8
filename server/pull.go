package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
	"time"

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
// document in full (see oweLocked). vscode-languageclient pulls the
// workspace again 2 s after each answer, so three cover about 6 s.
const owedAnswers = 3

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
// still tracked by its document pull.
func (s *Server) oweLocked(u uri.URI) {
	if !s.caps.pull {
		return
	}
	if s.owed == nil {
		s.owed = map[uri.URI]int{}
	}
	s.owed[u] = owedAnswers
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
// push (s.mu held) and schedules a refresh.
func (s *Server) pulledLocked() {
	if !s.caps.pullRefresh || s.ctx == nil || s.ctx.Err() != nil {
		return
	}
	if s.refreshTimer == nil {
		s.refreshTimer = time.AfterFunc(pullRefreshDelay, s.refreshPull)
	}
}

// refreshPull asks the client to pull again (from a timer goroutine, so
// the request never waits on the read loop).
func (s *Server) refreshPull() {
	s.mu.Lock()
	if s.scansRunning > 0 {
		// One refresh when the scan ends, not one per delay during it.
		s.refreshTimer = time.AfterFunc(pullRefreshDelay, s.refreshPull)
		s.mu.Unlock()
		return
	}
	s.refreshTimer = nil
	s.mu.Unlock()
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

// DiagnosticWorkspace answers workspace/diagnostic at once with what the
// checks so far found: every file with findings, every file the client
// named in previousResultIds (unchanged, or full and perhaps empty), and
// the owed files (closed documents, see oweLocked), in full. It does not
// hold the request open; a refresh follows new findings.
func (l *lspServer) DiagnosticWorkspace(ctx context.Context, p *protocol.WorkspaceDiagnosticParams) (*protocol.WorkspaceDiagnosticReport, error) {
	s := l.s
	prev := map[uri.URI]string{}
	for _, r := range p.PreviousResultIds {
		prev[r.URI] = r.Value
	}
	type entry struct {
		u       uri.URI
		all     []protocol.Diagnostic
		version *int32
		full    bool // owed: never "unchanged"
	}
	var es []entry
	s.mu.Lock()
	for u, fs := range s.files {
		all := s.mergedLocked(fs)
		_, asked := prev[u]
		_, owed := s.owed[u]
		if len(all) == 0 && !asked && !owed {
			continue
		}
		e := entry{u: u, all: all, full: owed}
		if fs.snap.Open {
			v := fs.snap.Version
			e.version = &v
		}
		es = append(es, e)
	}
	for u := range prev {
		if s.files[u] == nil {
			_, owed := s.owed[u]
			es = append(es, entry{u: u, all: []protocol.Diagnostic{}, full: owed})
		}
	}
	for u, n := range s.owed {
		if _, asked := prev[u]; s.files[u] == nil && !asked {
			es = append(es, entry{u: u, all: []protocol.Diagnostic{}, full: true})
		}
		if n <= 1 {
			delete(s.owed, u)
		} else {
			s.owed[u] = n - 1
		}
	}
	s.mu.Unlock()
	sort.Slice(es, func(i, j int) bool { return es[i].u < es[j].u })
	out := &protocol.WorkspaceDiagnosticReport{Items: make([]protocol.WorkspaceDocumentDiagnosticReport, 0, len(es))}
	for i, e := range es {
		if i%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		id := resultID(string(fingerprint(e.all)))
		if prev[e.u] == id && !e.full {
			out.Items = append(out.Items, &protocol.WorkspaceUnchangedDocumentDiagnosticReport{
				UnchangedDocumentDiagnosticReport: protocol.UnchangedDocumentDiagnosticReport{Kind: "unchanged", ResultID: id},
				URI:                               e.u, Version: e.version})
			continue
		}
		out.Items = append(out.Items, &protocol.WorkspaceFullDocumentDiagnosticReport{
			FullDocumentDiagnosticReport: protocol.FullDocumentDiagnosticReport{Kind: "full", ResultID: &id, Items: e.all},
			URI:                          e.u, Version: e.version})
	}
	return out, nil
}

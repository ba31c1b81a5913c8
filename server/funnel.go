package server

import (
	"context"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"sort"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

// Cause says why a file entered the funnel.
type Cause int

const (
	CauseOpen    Cause = iota + 1 // textDocument/didOpen
	CauseChange                   // textDocument/didChange
	CauseClose                    // textDocument/didClose
	CauseSave                     // textDocument/didSave
	CauseCreated                  // watched file created (editor or fsnotify)
	CauseChanged                  // watched file changed on disk
	CauseDeleted                  // watched file deleted (or renamed away)
	CauseScan                     // found by the workspace scan
	CauseConfig                   // settings changed: re-check
)

var causeNames = map[Cause]string{CauseOpen: "open", CauseChange: "change", CauseClose: "close", CauseSave: "save",
	CauseCreated: "created", CauseChanged: "changed", CauseDeleted: "deleted", CauseScan: "scan", CauseConfig: "config"}

func (c Cause) String() string { return causeNames[c] }

// fileState is everything the server remembers about one URI it has checked
// or published for.
type fileState struct {
	// gen increases with every funnel event; a check publishes only if gen is
	// unchanged when it finishes (stale results are dropped).
	gen    uint64
	cancel context.CancelFunc
	timer  *time.Timer

	// Last finished check: the exact text the rules saw, so quick fixes and
	// hovers convert spans with the right LineIndex.
	snap  Snapshot
	kind  model.Kind
	rel   string
	diags []model.Diagnostic
	lsp   []protocol.Diagnostic // rule diagnostics in the negotiated encoding

	external map[string][]protocol.Diagnostic // by source, see SetExternalDiagnostics

	// published is the JSON of the last set sent; "" = never published.
	published string
	onDisk    bool // a customization file on disk (re-checked on config change)
}

func (s *Server) stateFor(u uri.URI) *fileState {
	fs := s.files[u]
	if fs == nil {
		fs = &fileState{}
		s.files[u] = fs
	}
	return fs
}

// fileEvent is the one funnel every file change goes through. Open buffers
// win over disk: disk events for an open document are ignored until it is
// closed.
func (s *Server) fileEvent(u uri.URI, cause Cause) {
	if cause != CauseScan && cause != CauseConfig {
		s.notifyPath(u)
	}
	s.mu.Lock()
	_, open := s.docs[u]
	if open && (cause == CauseCreated || cause == CauseChanged || cause == CauseDeleted || cause == CauseScan) {
		s.mu.Unlock()
		return
	}
	fs := s.stateFor(u)
	fs.gen++
	gen := fs.gen
	if fs.cancel != nil {
		fs.cancel()
	}
	if fs.timer != nil {
		fs.timer.Stop()
		fs.timer = nil
	}
	if s.ctx == nil || s.ctx.Err() != nil {
		s.mu.Unlock()
		return
	}
	ctx, cancel := context.WithCancel(s.ctx)
	fs.cancel = cancel
	delay := time.Duration(0)
	switch cause {
	case CauseChange, CauseCreated, CauseChanged, CauseDeleted:
		delay = s.opts.Debounce
	}
	if delay > 0 {
		fs.timer = time.AfterFunc(delay, func() { s.check(ctx, u, gen, cause) })
	} else {
		go s.check(ctx, u, gen, cause)
	}
	s.mu.Unlock()
}

// recheckAll sends every open or known file through the funnel again.
func (s *Server) recheckAll(cause Cause) {
	s.mu.Lock()
	var us []uri.URI
	for u := range s.docs {
		us = append(us, u)
	}
	for u, fs := range s.files {
		if _, open := s.docs[u]; !open && fs.onDisk {
			us = append(us, u)
		}
	}
	s.mu.Unlock()
	for _, u := range us {
		s.fileEvent(u, cause)
	}
}

// scheduleRecheckAll re-checks every file once after a burst of saves or
// disk events has settled (one timer, reset by each trigger), so a branch
// switch that touches 500 files costs one workspace re-check, not 500.
func (s *Server) scheduleRecheckAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.recheckTimer != nil {
		s.recheckTimer.Stop()
	}
	delay := s.opts.Debounce
	if delay <= 0 {
		s.recheckTimer = nil
		go s.recheckAll(CauseChanged)
		return
	}
	s.recheckTimer = time.AfterFunc(delay, func() { s.recheckAll(CauseChanged) })
}

// Recheck sends every open and known workspace file through the funnel
// again, for when something outside the files changed what the rules say.
func (s *Server) Recheck() { s.recheckAll(CauseConfig) }

// forgetUnder drops knowledge of files below a removed folder.
func (s *Server) forgetUnder(dir string) {
	prefix := dir + string(filepath.Separator)
	s.mu.Lock()
	var us []uri.URI
	for u, fs := range s.files {
		if p, ok := uriPath(u); ok && fs.onDisk && len(p) > len(prefix) && p[:len(prefix)] == prefix {
			us = append(us, u)
		}
	}
	s.mu.Unlock()
	for _, u := range us {
		s.fileEvent(u, CauseDeleted)
	}
}

// check runs the rules for one URI on a bounded worker and publishes the
// result if it is still current.
func (s *Server) check(ctx context.Context, u uri.URI, gen uint64, cause Cause) {
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return
	}
	defer func() { <-s.sem }()
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("check panicked", "uri", u, "panic", p)
		}
	}()
	if ctx.Err() != nil {
		return
	}

	snap, open := s.DocumentSnapshot(u)
	loc, located := s.locate(u)
	var kind model.Kind
	var diags []model.Diagnostic
	onDisk := false
	if located {
		var layout model.Layout
		var wfs diagnostics.WorkspaceFS
		if loc.root != "" {
			layout = &wsLayout{s: s, root: loc.root}
			wfs = wsFS{s: s, root: loc.root}
		}
		kind = model.Classify(loc.rel, layout)
		if !open && kind != model.KindNone {
			// Closed or never opened: the disk is the truth, and only files
			// inside a workspace folder are ours to report.
			if b, err := readLimited(loc.path); err == nil && loc.root != "" {
				snap = Snapshot{URI: u, Text: b}
				onDisk = true
			} else {
				kind = model.KindNone
			}
		}
		if kind != model.KindNone {
			diags = diagnostics.Check(diagnostics.File{Path: loc.rel, Kind: kind, Text: snap.Text, FS: wfs, Layout: layout}, s.ruleOptions())
		}
	}
	enc := s.Encoding()
	lsp := s.toLSP(u, loc, snap.Text, diags, enc)

	s.mu.Lock()
	defer s.mu.Unlock()
	fs := s.files[u]
	if fs == nil || fs.gen != gen || ctx.Err() != nil {
		return // a newer event superseded this check
	}
	fs.cancel, fs.timer = nil, nil
	fs.snap, fs.kind, fs.rel, fs.diags, fs.lsp = snap, kind, loc.rel, diags, lsp
	fs.onDisk = onDisk
	s.publishLocked(u, fs, open)
	if kind == model.KindNone && len(fs.external) == 0 && fs.published == "[]" && !open {
		delete(s.files, u)
	}
	_ = cause
}

// publishLocked sends the merged diagnostics of u if they differ from what
// the editor has. Open documents always get a first publication (even []),
// so the editor knows the file was checked.
func (s *Server) publishLocked(u uri.URI, fs *fileState, open bool) {
	all := s.mergedLocked(fs)
	b, _ := json.Marshal(fingerprint(all))
	fp := string(b)
	last := fs.published
	if last == "" && !open {
		last = "[]"
	}
	if fp == last {
		return
	}
	fs.published = fp
	p := &protocol.PublishDiagnosticsParams{URI: u, Diagnostics: all}
	if open && fs.snap.Open {
		p.Version = protocol.NewOptional(fs.snap.Version)
	}
	if s.pub != nil {
		s.pub.publish(p)
	}
}

func (s *Server) mergedLocked(fs *fileState) []protocol.Diagnostic {
	all := make([]protocol.Diagnostic, 0, len(fs.lsp))
	all = append(all, fs.lsp...)
	sources := make([]string, 0, len(fs.external))
	for src := range fs.external {
		sources = append(sources, src)
	}
	sort.Strings(sources)
	for _, src := range sources {
		all = append(all, fs.external[src]...)
	}
	return all
}

// fingerprint is what decides "the set changed": the diagnostics as JSON.
// Marshal through the protocol codec, which knows the union types.
func fingerprint(ds []protocol.Diagnostic) json.RawMessage {
	b, err := protocol.Marshal(ds)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}

// SetExternalDiagnostics replaces the diagnostics that source (for example
// "ahpls-host") contributes to u and republishes u's merged set (rule
// diagnostics first, then external ones by source name). An empty diags
// removes the source's contribution. Safe from any goroutine. Ranges must be
// in the negotiated encoding (see Server.Encoding).
func (s *Server) SetExternalDiagnostics(source string, u uri.URI, diags []protocol.Diagnostic) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fs := s.stateFor(u)
	if len(diags) == 0 {
		delete(fs.external, source)
	} else {
		if fs.external == nil {
			fs.external = map[string][]protocol.Diagnostic{}
		}
		fs.external[source] = append([]protocol.Diagnostic(nil), diags...)
	}
	_, open := s.docs[u]
	s.publishLocked(u, fs, open)
}

// FileDiagnostics is one file's current findings, for the built-in
// `diagnostics` client tool.
type FileDiagnostics struct {
	URI  uri.URI
	Path string // file path on disk
	Rel  string // relative to its workspace folder (slash-separated)
	// Version is the editor buffer's version, or nil for a file read from disk.
	Version *int32
	// Text is the text the rules saw (positions in Diagnostics refer to it).
	Text        []byte
	Diagnostics []protocol.Diagnostic // merged: rules and external sources
	Findings    []model.Diagnostic    // the rule findings with byte spans, verdicts and fixes
}

// Diagnostics returns the current findings of every file that has any,
// sorted by path.
func (s *Server) Diagnostics() []FileDiagnostics {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []FileDiagnostics
	for u, fs := range s.files {
		all := s.mergedLocked(fs)
		if len(all) == 0 {
			continue
		}
		p, _ := uriPath(u)
		fd := FileDiagnostics{URI: u, Path: p, Rel: fs.rel, Text: fs.snap.Text, Diagnostics: all, Findings: fs.diags}
		if fs.snap.Open {
			v := fs.snap.Version
			fd.Version = &v
		}
		out = append(out, fd)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URI < out[j].URI })
	return out
}

// lastCheck returns the last finished check of u.
func (s *Server) lastCheck(u uri.URI) (*fileState, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fs, ok := s.files[u]
	if !ok {
		return nil, false
	}
	cp := *fs
	return &cp, true
}

// relatedURI turns a path relative to the diagnosed file's workspace folder
// into a URI; an empty path is the file itself.
func relatedURI(self uri.URI, loc location, rel string) uri.URI {
	if rel == "" {
		return self
	}
	if loc.root == "" {
		return uri.File(filepath.Join(filepath.Dir(loc.path), filepath.FromSlash(path.Base(rel))))
	}
	return uri.File(filepath.Join(loc.root, filepath.FromSlash(rel)))
}

// textOf returns the text for u from an open buffer or disk.
func (s *Server) textOf(u uri.URI) []byte {
	if snap, ok := s.DocumentSnapshot(u); ok {
		return snap.Text
	}
	if p, ok := uriPath(u); ok {
		if b, err := os.ReadFile(p); err == nil {
			return b
		}
	}
	return nil
}

// notifyPath tells OnPathChanged about a change.
func (s *Server) notifyPath(u uri.URI) {
	if s.opts.OnPathChanged == nil {
		return
	}
	if p, ok := uriPath(u); ok {
		s.opts.OnPathChanged(p)
	}
}

// SetExternalFindings publishes another source's findings for a file (the
// agent-host link's load failures and publication notes), converting their
// byte spans against the file's current text: the open buffer, else the
// disk. Empty clears that source.
func (s *Server) SetExternalFindings(source, path string, diags []model.Diagnostic) {
	u := uri.File(path)
	if len(diags) == 0 {
		s.SetExternalDiagnostics(source, u, nil)
		return
	}
	var text []byte
	if snap, ok := s.DocumentSnapshot(u); ok {
		text = snap.Text
	} else {
		text, _ = readLimited(path)
	}
	loc, _ := s.locate(u)
	s.SetExternalDiagnostics(source, u, s.toLSP(u, loc, text, diags, s.Encoding()))
}

// flush runs a pending (debounced) check of u now, so a request that needs
// the findings of the text the editor has (a code action right after
// typing) does not see none. It is a no-op when nothing is pending.
func (s *Server) flush(u uri.URI) {
	s.mu.Lock()
	fs := s.files[u]
	if fs == nil || s.ctx == nil || s.ctx.Err() != nil || fs.timer == nil && fs.cancel == nil {
		s.mu.Unlock()
		return
	}
	if fs.timer != nil {
		fs.timer.Stop()
		fs.timer = nil
	}
	gen, ctx := fs.gen, s.ctx
	s.mu.Unlock()
	s.check(ctx, u, gen, CauseChange)
}

package server

import (
	"crypto/sha256"
	"sort"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/model"
)

// Findings other sources add to a file, and every file's merged findings
// read back (part externals). A source's set is merged after the rules'
// and published through the funnel's decision (publishLocked).

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

// SetExternalDiagnostics replaces the diagnostics that source (for example
// "ahpls-host") contributes to u and republishes u's merged set (rule
// diagnostics first, then external ones by source name). An empty diags
// removes the source's contribution. Safe from any goroutine. Ranges must be
// in the negotiated encoding (see Server.Encoding).
func (part externals) SetExternalDiagnostics(source string, u uri.URI, diags []protocol.Diagnostic) {
	s := part.s
	s.setExternal(source, u, diags, nil)
}

func (part externals) setExternal(source string, u uri.URI, diags []protocol.Diagnostic, sum *textSum) {
	s := part.s
	s.mu.Lock()
	defer s.mu.Unlock()
	fs := s.stateFor(u)
	delete(fs.externalSum, source)
	if sum != nil && len(diags) > 0 {
		if fs.externalSum == nil {
			fs.externalSum = map[string]textSum{}
		}
		fs.externalSum[source] = *sum
	}
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

// SetExternalFindings publishes another source's findings for a file (the
// agent-host link's load failures and publication notes), converting their
// byte spans against the file's current text: the open buffer, else the
// disk. Empty clears that source.
func (part externals) SetExternalFindings(source, path string, diags []model.Diagnostic) {
	s := part.s
	u := uri.File(path)
	if len(diags) == 0 {
		s.SetExternalDiagnostics(source, u, nil)
		return
	}
	var text []byte
	if snap, ok := s.DocumentSnapshot(u); ok {
		text = snap.Text
	} else {
		text, _ = s.readPath(path)
	}
	loc, _ := s.locate(u)
	s.SetExternalDiagnostics(source, u, s.toLSP(u, loc, text, diags, s.Encoding()))
}

// SetExternalFindingsFor is SetExternalFindings for findings computed from
// the text whose SHA-256 is sum: they are shown only with that text. A set
// for a text the file no longer has is dropped at once (its computer sends
// a new one for the new text); one for the buffer's newest text waits, if
// need be, until the server's own check of that text is published, so a
// publication never pairs a version with findings of another text.
func (part externals) SetExternalFindingsFor(source, path string, sum [32]byte, diags []model.Diagnostic) {
	s := part.s
	u := uri.File(path)
	if len(diags) == 0 {
		s.setExternal(source, u, nil, nil)
		return
	}
	var text []byte
	if snap, ok := s.DocumentSnapshot(u); ok {
		text = snap.Text
	} else {
		text, _ = s.readPath(path)
	}
	if sha256.Sum256(text) != sum {
		s.setExternal(source, u, nil, nil)
		return
	}
	ts := sumOf(text)
	loc, _ := s.locate(u)
	lsp := s.toLSP(u, loc, text, diags, s.Encoding())
	s.mu.Lock()
	fs := s.files[u]
	// A file the server holds no checked text for (not a customization it
	// checks) has nothing to compare with: its set is shown as is.
	tagged := fs != nil && (fs.snap.Text != nil || fs.snap.Open || fs.textDropped)
	s.mu.Unlock()
	if !tagged {
		s.setExternal(source, u, lsp, nil)
		return
	}
	s.setExternal(source, u, lsp, &ts)
}

// Diagnostics returns the current findings of every file that has any,
// sorted by path.
func (part externals) Diagnostics() []FileDiagnostics {
	s := part.s
	out := s.diagnosticsLocked()
	for i := range out {
		if out[i].Text == nil && out[i].Version == nil {
			out[i].Text, _ = s.readPath(out[i].Path) // dropped after the check
		}
	}
	return out
}

func (part externals) diagnosticsLocked() []FileDiagnostics {
	s := part.s
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

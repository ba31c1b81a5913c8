package server

import (
	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/wsfs"
)

// The rules memo (part ruleRuns): one rules run per text, kind, rules
// generation and folder config, shared by the funnel's checks and the
// agent-host publisher.

// checkMemo is one rules run: the text (by its textSum, so the memo does
// not hold a closed file's text), the kind and the rules generation it ran
// under, and what it found.
type checkMemo struct {
	ok    bool
	sum   textSum
	kind  model.Kind
	rules uint64
	cfg   string // the folder config key (exEntry.key) the overrides came from
	diags []model.Diagnostic
}

// memoRun is a rules run in progress; done is closed when diags is set.
type memoRun struct {
	checkMemo
	done chan struct{}
}

// rulesFor runs the rules over one file's text, or returns the findings of
// the last run over the same text, kind and settings. Both the server's own
// checks and the agent-host publisher (Findings) come through here, so one
// file change costs one rules run whoever asks first.
func (part ruleRuns) rulesFor(u uri.URI, rel string, kind model.Kind, text []byte, wfs diagnostics.WorkspaceFS, layout model.Layout) []model.Diagnostic {
	s := part.s
	d, _ := s.rulesSum(u, rel, kind, text, wfs, layout, nil)
	return d
}

// rulesSum is rulesFor that also returns the textSum of text. folder is
// the file's folder config when the caller has it (a scan reads it once
// for the whole walk); nil reads it here.
func (part ruleRuns) rulesSum(u uri.URI, rel string, kind model.Kind, text []byte, wfs diagnostics.WorkspaceFS, layout model.Layout, folder *exEntry) ([]model.Diagnostic, textSum) {
	s := part.s
	sum := sumOf(text)
	// The folder's .ahpls/config.json overrides (cached with its
	// excludes, rebuilt when the file changes); the memo keeps the key
	// they were read under, so an edited config re-runs the rules.
	var ex exEntry
	if folder != nil {
		ex = *folder
	} else if loc, ok := s.locate(u); ok && loc.root != "" {
		ex = s.excludes(loc.root)
	}
	s.mu.Lock()
	gen, opts := s.rulesGen, s.settings.Options()
	opts.ToolsConfig = s.opts.ToolsConfig
	opts.Overrides = ex.overrides
	fs := s.stateFor(u)
	if m := fs.memo; m.ok && m.rules == gen && m.cfg == ex.key && m.kind == kind && m.sum == sum {
		s.mu.Unlock()
		return m.diags, sum
	}
	if r := fs.running1; r != nil && r.rules == gen && r.cfg == ex.key && r.kind == kind && r.sum == sum {
		// The same run is under way (the server's check and the
		// publisher asked at once): wait for it rather than run twice.
		s.mu.Unlock()
		<-r.done
		return r.diags, sum
	}
	r := &memoRun{checkMemo: checkMemo{ok: true, sum: sum, kind: kind, rules: gen, cfg: ex.key}, done: make(chan struct{})}
	fs.running1 = r
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if fs.running1 == r {
			fs.running1 = nil
		}
		s.mu.Unlock()
		close(r.done)
	}()
	r.diags = diagnostics.Check(diagnostics.File{Path: rel, Kind: kind, Text: text, FS: wfs, Layout: layout}, opts)
	s.checks.Add(1)
	s.mu.Lock()
	if s.rulesGen == gen {
		if cur := s.files[u]; cur != nil {
			cur.memo = r.checkMemo
		}
	}
	s.mu.Unlock()
	return r.diags, sum
}

// Checks is how many times the server has run the rules over a file since
// it started (memoized answers not counted): a cost meter for tests and
// benchmarks.
func (part ruleRuns) Checks() int64 { return part.s.checks.Load() }

// Findings returns the rule findings for the file at path (absolute, inside
// a workspace folder) with exactly this text, when the server classifies it
// as kind. The agent-host publisher asks here instead of running the rules
// again: the server has normally checked the same content already (every
// change goes through its funnel first); if not, the run made now is
// remembered for the server's own check. ok is false when the server does
// not see the file as a kind customization inside a workspace folder.
func (part ruleRuns) Findings(path string, kind model.Kind, text []byte) (diags []model.Diagnostic, ok bool) {
	s := part.s
	u := uri.File(path)
	loc, located := s.locate(u)
	if !located || loc.root == "" {
		return nil, false
	}
	// One root for the whole check of this text: its folders are resolved
	// once, not once per read (a fresh root per read resolved the
	// workspace folder's path each time).
	r := wsfs.NewRoot(loc.root)
	layout := &wsLayout{s: s, root: loc.root, r: r}
	if model.Classify(loc.rel, layout) != kind {
		return nil, false
	}
	return s.rulesFor(u, loc.rel, kind, text, wsFS{s: s, root: loc.root, r: r}, layout), true
}

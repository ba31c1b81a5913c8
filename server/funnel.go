package server

import (
	"context"
	"encoding/json"
	"path"
	"path/filepath"
	"sort"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/wsfs"
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
	cancel context.CancelFunc // of the running check
	timer  *time.Timer        // a debounced check waiting to start
	// timerSeq tells a timer that fired late from the current one.
	timerSeq uint64
	// running: a check of this file is in flight (never more than one);
	// again: events arrived meanwhile, run one follow-up with againCause.
	running    bool
	again      bool
	againCause Cause
	// lastEdit is when the last buffer edit arrived, lastStart when the
	// last check started (edit pacing, see editDelayLocked).
	lastEdit, lastStart time.Time
	// idle is closed when the checks in flight (and their follow-ups) are
	// done; nil when none runs.
	idle chan struct{}

	// Last finished check: the exact text the rules saw, so quick fixes and
	// hovers convert spans with the right LineIndex.
	snap  Snapshot
	kind  model.Kind
	rel   string
	diags []model.Diagnostic
	lsp   []protocol.Diagnostic // rule diagnostics in the negotiated encoding

	external map[string][]protocol.Diagnostic // by source, see SetExternalDiagnostics
	// externalSum tags a source's set with the hash of the text it was
	// computed from (SetExternalFindingsFor); it is merged only while the
	// published text (snap) has that hash. Untagged sets always merge.
	externalSum map[string]textSum
	snapSum     textSum // sumOf(snap.Text) when snapSumOK
	snapSumOK   bool
	// textDropped: snap.Text was let go (a closed file on disk, see
	// dropTextLocked); read the disk for it.
	textDropped bool

	// memo is the last rules run on this file's content, running1 the one
	// under way (see rulesFor).
	memo     checkMemo
	running1 *memoRun

	// published is the JSON of the last set sent; "" = never published.
	published string
	onDisk    bool // a customization file on disk (re-checked on config change)
}

func (part funnel) stateFor(u uri.URI) *fileState {
	s := part.s
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
//
// Buffer edits are checked on the leading edge: a keystroke on an idle file
// starts its check at once, so the editor hears back within the check's own
// cost (tens of µs) instead of after a debounce; during a burst of typing
// checks are paced (editDelayLocked). At most one check per file is in
// flight; events that arrive meanwhile make the running check stale (it
// publishes nothing, its gen is old) and coalesce into one follow-up check
// of the newest text when it ends. Disk events (a branch switch touches
// hundreds of files) and workspace-wide re-checks stay debounced.
func (part funnel) fileEvent(u uri.URI, cause Cause) {
	s := part.s
	s.views.invalidate()
	if cause != CauseScan && cause != CauseConfig {
		s.notifyPath(u)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, open := s.docs[u]
	if open && (cause == CauseCreated || cause == CauseChanged || cause == CauseDeleted || cause == CauseScan) {
		return
	}
	fs := s.stateFor(u)
	fs.gen++
	if fs.cancel != nil {
		fs.cancel() // the running check, if any, is stale now
		fs.cancel = nil
	}
	if fs.timer != nil {
		fs.timer.Stop()
		fs.timer = nil
	}
	if s.ctx == nil || s.ctx.Err() != nil {
		return
	}
	delay := time.Duration(0)
	switch cause {
	case CauseCreated, CauseChanged, CauseDeleted:
		delay = s.opts.Debounce
	case CauseChange:
		delay = s.editDelayLocked(fs)
	}
	if delay <= 0 {
		s.startCheckLocked(u, fs, cause)
		return
	}
	fs.timerSeq++
	seq := fs.timerSeq
	fs.timer = time.AfterFunc(delay, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if fs := s.files[u]; fs != nil && fs.timer != nil && fs.timerSeq == seq {
			fs.timer = nil
			s.startCheckLocked(u, fs, cause)
		}
	})
}

// Pacing of checks while the user types (only when Options.Debounce > 0,
// as in production). An edit on an idle file is checked at once (the
// leading edge). Edits less than burstQuiet apart form a burst: during one,
// a file is checked at most once per burstInterval, and once more
// burstQuiet after its last edit, so the final text reaches the editor
// about burstQuiet after the last key. A check that started less than
// leadGap ago also makes the next edit wait: a pause in a burst (a late
// keystroke) then costs one extra check, not two. A 50-keystroke burst at
// 10 ms costs about 5 checks.
const (
	burstQuiet    = 14 * time.Millisecond
	burstInterval = 150 * time.Millisecond
	leadGap       = 50 * time.Millisecond
)

// editDelayLocked is how long a buffer edit waits before its check: 0 on an
// idle file (the leading edge), else the pacing above.
func (part funnel) editDelayLocked(fs *fileState) time.Duration {
	s := part.s
	return editDelay(fs, time.Now(), s.opts.Debounce > 0)
}

// editDelay is editDelayLocked at a given time (paced: Debounce > 0).
func editDelay(fs *fileState, now time.Time, paced bool) time.Duration {
	burst := !fs.lastEdit.IsZero() && now.Sub(fs.lastEdit) < burstQuiet
	fs.lastEdit = now
	if !paced {
		return 0
	}
	if !burst && (fs.lastStart.IsZero() || now.Sub(fs.lastStart) >= leadGap) {
		return 0
	}
	at := now.Add(burstQuiet)
	if next := fs.lastStart.Add(burstInterval); next.Before(at) {
		at = next
	}
	return max(at.Sub(now), time.Nanosecond)
}

// startCheckLocked starts a check of u's current generation, or, when one
// is already running, asks for one follow-up check after it.
func (part funnel) startCheckLocked(u uri.URI, fs *fileState, cause Cause) {
	s := part.s
	if s.ctx == nil || s.ctx.Err() != nil {
		return
	}
	if fs.running {
		fs.again, fs.againCause = true, cause
		return
	}
	fs.running = true
	if fs.idle == nil {
		fs.idle = make(chan struct{})
	}
	fs.lastStart = time.Now()
	ctx, cancel := context.WithCancel(s.ctx)
	fs.cancel = cancel
	go s.check(ctx, u, fs.gen, cause)
}

// checkDone ends a check's turn: the follow-up check, if events came in
// while it ran, starts now.
func (part funnel) checkDone(u uri.URI) {
	s := part.s
	s.mu.Lock()
	defer s.mu.Unlock()
	fs := s.files[u]
	if fs == nil {
		return
	}
	fs.running = false
	if fs.cancel != nil {
		fs.cancel() // release the check's context
		fs.cancel = nil
	}
	if fs.again {
		fs.again = false
		s.startCheckLocked(u, fs, fs.againCause)
		if fs.running {
			return // fs.idle waits for the follow-up
		}
	}
	if fs.idle != nil {
		close(fs.idle)
		fs.idle = nil
	}
}

// recheckAll sends every open or known file through the funnel again. It
// starts a new memo generation: what changed (settings, other files on
// disk) can change findings of unchanged text.
func (part funnel) recheckAll(cause Cause) {
	s := part.s
	s.mu.Lock()
	s.rulesGen++
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
func (part funnel) scheduleRecheckAll() {
	s := part.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.recheckTimer != nil && s.recheckTimer.Stop() {
		s.rechecksDue-- // the one it replaces
	}
	// CauseConfig, not CauseChanged: what changed is other files, so open
	// buffers are re-checked too (a disk event for an open file is
	// ignored), and an open marketplace learns that the folder it lists
	// moved (#41).
	s.rechecksDue++
	run := func() {
		s.recheckAll(CauseConfig)
		s.mu.Lock()
		s.rechecksDue--
		s.mu.Unlock()
	}
	delay := s.opts.Debounce
	if delay <= 0 {
		s.recheckTimer = nil
		go run()
		return
	}
	s.recheckTimer = time.AfterFunc(delay, run)
}

// Recheck sends every open and known workspace file through the funnel
// again, for when something outside the files changed what the rules say.
func (part funnel) Recheck() { part.recheckAll(CauseConfig) }

// forgetUnder drops knowledge of files below a removed folder.
func (part funnel) forgetUnder(dir string) {
	s := part.s
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
func (part funnel) check(ctx context.Context, u uri.URI, gen uint64, cause Cause) {
	s := part.s
	defer s.checkDone(u)
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

	if s.checkHook != nil {
		s.checkHook(u, +1)
		defer s.checkHook(u, -1)
	}
	snap, open := s.DocumentSnapshot(u)
	loc, located := s.locate(u)
	var kind model.Kind
	var diags []model.Diagnostic
	var sum textSum
	summed := false
	onDisk := false
	if located {
		var layout model.Layout
		var wfs diagnostics.WorkspaceFS
		if loc.root != "" {
			r := wsfs.NewRoot(loc.root) // one per edit, shared by every read of it
			layout = &wsLayout{s: s, root: loc.root, r: r}
			wfs = wsFS{s: s, root: loc.root, r: r}
		}
		kind = model.Classify(loc.rel, layout)
		if kind != model.KindNone && s.excluded(loc) {
			kind = model.KindNone // excluded by the user or the workspace: no findings
		}
		if !open && kind != model.KindNone {
			// Closed or never opened: the disk is the truth, and only files
			// inside a workspace folder are ours to report.
			if b, err := readLoc(loc); err == nil && loc.root != "" {
				snap = Snapshot{URI: u, Text: b}
				onDisk = true
			} else {
				kind = model.KindNone
			}
		}
		if kind != model.KindNone {
			diags, sum = s.rulesSum(u, loc.rel, kind, snap.Text, wfs, layout, nil)
			summed = true
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
	fs.snap, fs.kind, fs.rel, fs.diags, fs.lsp = snap, kind, loc.rel, diags, lsp
	fs.snapSum, fs.snapSumOK = sum, summed
	fs.textDropped = false
	fs.onDisk = onDisk
	s.indexLocked(u, fs)
	s.publishLocked(u, fs, open)
	s.dropTextLocked(fs)
	if kind == model.KindNone && len(fs.external) == 0 && fs.published == "[]" && !open && !fs.again && fs.timer == nil {
		if fs.cancel != nil {
			fs.cancel()
		}
		if fs.idle != nil {
			close(fs.idle)
		}
		delete(s.files, u)
	}
	_ = cause
}

// publishLocked sends the merged diagnostics of u if they differ from what
// the editor has. Open documents always get a first publication (even []),
// so the editor knows the file was checked.
func (part funnel) publishLocked(u uri.URI, fs *fileState, open bool) {
	s := part.s
	all := s.mergedLocked(fs)
	s.sendLocked(u, fs, open, all, fingerprintOf(all))
}

// publishRulesLocked is publishLocked for a file whose set may be its rule
// diagnostics alone, with their fingerprint fp computed before s.mu was
// taken (the scan's check): marshalling it under the lock made every
// request wait for it.
func (part funnel) publishRulesLocked(u uri.URI, fs *fileState, open bool, fp string) {
	s := part.s
	if len(fs.external) > 0 {
		s.publishLocked(u, fs, open)
		return
	}
	s.sendLocked(u, fs, open, rulesSet(fs.lsp), fp)
}

// rulesSet is lsp as mergedLocked returns it without external sources:
// never nil, so an empty set is "[]" on the wire and in fingerprints.
func rulesSet(lsp []protocol.Diagnostic) []protocol.Diagnostic {
	if lsp == nil {
		return []protocol.Diagnostic{}
	}
	return lsp
}

// fingerprintOf is the string a publication is compared by.
func fingerprintOf(all []protocol.Diagnostic) string {
	return string(fingerprint(all))
}

// sendLocked publishes all, whose fingerprint is fp, unless the editor
// has it already.
func (part funnel) sendLocked(u uri.URI, fs *fileState, open bool, all []protocol.Diagnostic, fp string) {
	s := part.s
	last := fs.published
	if last == "" && !open {
		last = "[]"
	}
	if fp == last {
		return
	}
	fs.published = fp
	if s.caps.pull {
		s.pulledLocked() // the editor asks; tell it to ask again
		return
	}
	p := &protocol.PublishDiagnosticsParams{URI: u, Diagnostics: all}
	if open && fs.snap.Open {
		p.Version = protocol.NewOptional(fs.snap.Version)
	}
	if s.pub != nil {
		s.pub.publish(p)
	}
}

func (part funnel) mergedLocked(fs *fileState) []protocol.Diagnostic {
	s := part.s
	all := make([]protocol.Diagnostic, 0, len(fs.lsp))
	all = append(all, fs.lsp...)
	sources := make([]string, 0, len(fs.external))
	for src := range fs.external {
		sources = append(sources, src)
	}
	sort.Strings(sources)
	for _, src := range sources {
		if sum, tagged := fs.externalSum[src]; tagged && sum != s.snapSumLocked(fs) {
			continue // computed from another text than the one published
		}
		all = append(all, fs.external[src]...)
	}
	return all
}

// dropTextLocked lets go of the text of a closed file's last check once
// it is indexed and published: the disk holds it, and keeping every
// file's text made a 10,000-skill workspace cost 220 MB and the page
// faults of that heap (#30). Its hash stays (external findings are
// matched by it); lastCheck and the other readers read the disk again.
func (part funnel) dropTextLocked(fs *fileState) {
	s := part.s
	if fs.snap.Open || fs.snap.Text == nil || !fs.onDisk {
		return
	}
	s.snapSumLocked(fs)
	fs.snap.Text = nil
	fs.textDropped = true
}

// snapSumLocked is the hash of the text of fs's last check.
func (funnel) snapSumLocked(fs *fileState) textSum {
	if !fs.snapSumOK {
		fs.snapSum, fs.snapSumOK = sumOf(fs.snap.Text), true
	}
	return fs.snapSum
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

// lastCheck returns the last finished check of u.
func (part funnel) lastCheck(u uri.URI) (*fileState, bool) {
	s := part.s
	s.mu.Lock()
	fs, ok := s.files[u]
	if !ok {
		s.mu.Unlock()
		return nil, false
	}
	cp := *fs
	s.mu.Unlock()
	s.fillText(&cp)
	return &cp, true
}

// fillText reads a dropped text back from disk into a copy of a file's
// state (outside s.mu). The disk may have moved on since the check; a
// re-check of it is then on its way.
func (part funnel) fillText(fs *fileState) {
	s := part.s
	if !fs.textDropped || fs.snap.Text != nil {
		return
	}
	if p, ok := uriPath(fs.snap.URI); ok {
		if b, err := s.readPath(p); err == nil {
			fs.snap.Text = b
		}
	}
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

// notifyPath tells OnPathChanged about a change.
func (part funnel) notifyPath(u uri.URI) {
	s := part.s
	if s.opts.OnPathChanged == nil {
		return
	}
	if p, ok := uriPath(u); ok {
		s.opts.OnPathChanged(p)
	}
}

// flush makes sure the findings of u's current text are in: it starts a
// pending (debounced or paced) check now and waits for the check in
// flight, so a request that needs them (a code action right after typing)
// does not answer from stale or no findings.
func (part funnel) flush(u uri.URI) {
	s := part.s
	s.mu.Lock()
	fs := s.files[u]
	if fs == nil || s.ctx == nil || s.ctx.Err() != nil {
		s.mu.Unlock()
		return
	}
	if fs.timer != nil {
		fs.timer.Stop()
		fs.timer = nil
		s.startCheckLocked(u, fs, CauseChange)
	}
	idle, ctx := fs.idle, s.ctx
	s.mu.Unlock()
	if idle == nil {
		return
	}
	select {
	case <-idle:
	case <-ctx.Done():
	}
}

package server

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/wsfolder"
	"github.com/ahpls-dev/ahpls/wsfs"
)

// The workspace scan walks and checks at once, as `ahpls check` does
// (#30): wsfolder.Folder.Walk (wsfs.WalkParallel) with one worker per allowed check, each worker
// listing a folder and checking its customization files inline, so
// listing and rules overlap on every core and no goroutine or timer waits
// per file. A file is published as soon as its check ends; one with
// nothing to report and never published before needs no publication. The
// scan does not take the funnel's check slots (Server.sem): an opened
// file, a keystroke or a request's flush is checked at once while the
// scan runs.

// scanCount counts one scan's progress for the $/progress report.
type scanCount struct {
	found, checked, withFindings atomic.Int64
}

// scanFolder scans a whole workspace folder (see scanUnder).
func (part workspace) scanFolder(root string) {
	s := part.s
	s.scanUnder(root, root)
}

// scanUnder walks the part of workspace folder root below start for
// customization files (wsfs.WalkParallel: any depth, default and
// configured excludes, .gitignore as `ahpls check` honours it, symlinked
// folders never entered) and checks each, in the background: its callers
// (a changed .gitignore, new excludes, a new folder) may be on the read
// loop, and checking a whole folder there would hold every request.
func (part workspace) scanUnder(root, start string) {
	s := part.s
	s.mu.Lock()
	s.scansRunning++
	s.mu.Unlock()
	go func() {
		defer func() {
			s.mu.Lock()
			s.scansRunning--
			s.mu.Unlock()
		}()
		s.scan(root, start, nil)
	}()
}

func (part workspace) scan(root, start string, count *scanCount) int {
	s := part.s
	if count == nil {
		count = &scanCount{}
	}
	under := ""
	if start != root {
		r, err := filepath.Rel(root, start)
		if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return 0
		}
		under = filepath.ToSlash(r)
	}
	ex := s.excludes(root)
	f := wsfolder.New(root, ex.m, s.bufferIn(root))
	run := &scanRun{root: root, r: f.Root, layout: f.Layout, wfs: f.FS, folder: ex}
	opt := wsfolder.WalkOptions{Exclude: ex.m, Under: under, GitIgnore: !ex.noGitIgnore, Workers: s.scanWorkers(), Ctx: s.ctx}
	var n atomic.Int64
	_ = f.Walk(opt, func(e wsfs.Entry, _ model.Kind) error {
		if !e.Type.IsRegular() && e.Type&fs.ModeSymlink == 0 {
			return nil // FIFOs and devices are not files to check
		}
		n.Add(1)
		count.found.Add(1)
		u := uri.File(filepath.Join(root, filepath.FromSlash(e.Rel)))
		if e.Type&fs.ModeSymlink != 0 {
			// Rare: the funnel's check resolves it inside the folder.
			s.fileEvent(u, CauseScan)
			count.checked.Add(1)
			return nil
		}
		if s.scanCheck(u, e, run) {
			count.withFindings.Add(1)
		}
		count.checked.Add(1)
		return nil
	})
	return int(n.Load())
}

// scanRun is what the walkers of one scan share: the folder, its reader
// and layout (which answer from the walk's record), the folder config read
// once for the whole walk, and read buffers (a text the scan lets go of
// once it is published is read over by the next file).
type scanRun struct {
	root   string
	r      *wsfs.Root
	layout *wsfolder.Layout
	wfs    wsfolder.FS
	folder exEntry
	bufs   sync.Pool
}

// scanCheck checks one file the scan found, on the walker's goroutine,
// and publishes the result if no event about the file came meanwhile. An
// open file, or one whose check is already queued or running, is left to
// the funnel. It reports whether the file has findings.
func (part funnel) scanCheck(u uri.URI, e wsfs.Entry, run *scanRun) bool {
	s := part.s
	if s.scanHook != nil {
		s.scanHook(e.Rel)
	}
	s.views.invalidate()
	s.mu.Lock()
	if _, open := s.docs[u]; open {
		s.mu.Unlock()
		return false
	}
	fs := s.stateFor(u)
	if fs.running || fs.timer != nil {
		s.mu.Unlock()
		return false
	}
	fs.gen++
	gen := fs.gen
	s.mu.Unlock()

	var into []byte
	if b, ok := run.bufs.Get().(*[]byte); ok {
		into = *b
	}
	text, err := run.r.ReadEntryInto(e, diagnostics.MaxFileSize+1, into)
	// Nothing the rules, the conversion or the index make keeps a slice
	// of text (they copy what they keep into strings), so once the file's
	// state lets go of it the buffer serves the next file.
	held := false
	defer func() {
		if !held && cap(text) > 0 {
			text = text[:0]
			run.bufs.Put(&text)
		}
	}()
	if err != nil {
		// Gone or not readable now: the funnel decides (it publishes
		// file/unreadable or forgets the file).
		s.fileEvent(u, CauseScan)
		return false
	}
	kind := model.Classify(e.Rel, run.layout)
	var diags []model.Diagnostic
	var sum textSum
	if kind != model.KindNone {
		diags, sum = s.rulesSum(u, e.Rel, kind, text, run.wfs, run.layout, &run.folder)
	}
	loc := location{root: run.root, rel: e.Rel, path: filepath.Join(run.root, filepath.FromSlash(e.Rel))}
	enc := s.Encoding()
	lsp := s.toLSP(u, loc, text, diags, enc)
	// What the lock would otherwise compute: every request waits while
	// the scan holds s.mu, and a walker descheduled in it holds them all.
	fp := fingerprintOf(rulesSet(lsp))
	syms := symbolsOf(kind, e.Rel, text, enc)

	s.mu.Lock()
	defer s.mu.Unlock()
	fs = s.files[u]
	if fs == nil || fs.gen != gen {
		return false // an event superseded this check; its own check publishes
	}
	if _, open := s.docs[u]; open {
		return false
	}
	fs.snap, fs.kind, fs.rel, fs.diags, fs.lsp = Snapshot{URI: u, Text: text}, kind, e.Rel, diags, lsp
	fs.snapSum, fs.snapSumOK = sum, kind != model.KindNone
	fs.textDropped = false
	fs.onDisk = kind != model.KindNone
	s.symbols.set(u, syms)
	s.publishRulesLocked(u, fs, false, fp)
	s.dropTextLocked(fs)
	held = fs.snap.Text != nil
	return len(lsp) > 0
}

// scanWithProgress scans workspace folders in the background and, when
// the editor supports work-done progress, reports it with $/progress
// (begin, counts as files are checked, end) (#18, #30). It returns at
// once; requests are answered while the scan runs. then, if not nil, runs
// when the scan is over (not when it was stopped).
func (part workspace) scanWithProgress(ctx context.Context, roots []string, then func()) {
	s := part.s
	s.mu.Lock()
	s.scanStarted = true
	s.scansRunning++
	s.mu.Unlock()
	go s.runScan(ctx, roots, then)
}

func (part workspace) runScan(ctx context.Context, roots []string, then func()) {
	s := part.s
	defer func() {
		s.mu.Lock()
		s.scansRunning--
		s.mu.Unlock()
		if then != nil && ctx.Err() == nil {
			then()
		}
	}()
	var p *Progress
	if len(roots) > 0 {
		p = s.StartProgress(ctx, "ahpls", "scanning the workspace")
	}
	count := &scanCount{}
	stop := make(chan struct{})
	reported := make(chan struct{})
	go func() {
		defer close(reported)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		last := int64(-1)
		for {
			select {
			case <-stop:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			if c := count.checked.Load(); c != last && p != nil {
				last = c
				p.Report(fmt.Sprintf("checked %d of %d files found so far", c, count.found.Load()), -1)
			}
		}
	}()
	start := time.Now()
	for _, r := range roots {
		n := s.scan(r, r, count)
		s.LogMessage(protocol.MessageTypeInfo, fmt.Sprintf("ahpls: %d customization files in %s", n, r))
	}
	close(stop)
	<-reported
	s.log.Info("scan done", "files", count.found.Load(), "withFindings", count.withFindings.Load(), "took", time.Since(start))
	if p != nil {
		if ctx.Err() != nil {
			p.End("stopped")
			return
		}
		p.End(fmt.Sprintf("checked %d customization files, %d with findings", count.checked.Load(), count.withFindings.Load()))
	}
}

// scanWorkers is how many walkers a scan runs: one per allowed check.
// One fewer (tried in #30 so that a request always finds a core free) made
// the scan on two cores take twice check's time and did not shorten the
// slowest hovers, which wait on the operating system's scheduler when the
// machine is busy, not on the walkers.
func (part workspace) scanWorkers() int {
	s := part.s
	return max(1, cap(s.sem))
}

package hostlink

// The board: every diagnostic the link shows in the editor, by source
// (exclusions, the host's load reports, the editor-state hints and
// warnings), merged per file and sent only when a file's set changed.

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/ahpls-dev/ahpls/model"
)

// board merges and sends the link's diagnostics.
type board struct {
	ed       Editor
	readText func(abs string) ([]byte, bool)

	// shown serialises sends to the Editor and remembers what each file
	// shows; its lock is taken before mu, never after.
	shown shownSets

	mu sync.Mutex // a leaf under shown.mu: held briefly, never while calling the Editor
	st boardState // guarded by mu
}

// boardState is the board's mutable state.
type boardState struct {
	closed  bool                          // the link ended: accept nothing more
	dirty   map[string]bool               // files whose merged set may have changed
	excl    map[string][]model.Diagnostic // exclusions, by abs path
	exclSum map[string][32]byte           // hash of the text each exclusion was computed from
	host    map[string][]model.Diagnostic // the host's load reports, by abs path
	enab    map[string][]model.Diagnostic // enablement hints (editorstate.go)
	tools   map[string][]model.Diagnostic // untrusted command tools (editorstate.go)
}

func newBoard(ed Editor, readText func(string) ([]byte, bool)) *board {
	return &board{
		ed: ed, readText: readText,
		shown: shownSets{byPath: map[string]string{}},
		st:    boardState{excl: map[string][]model.Diagnostic{}, exclSum: map[string][32]byte{}, host: map[string][]model.Diagnostic{}},
	}
}

func (b *board) markDirtyLocked(p string) {
	if b.st.dirty == nil {
		b.st.dirty = map[string]bool{}
	}
	b.st.dirty[p] = true
}

// drain takes the files whose set may have changed, sorted.
func (b *board) drain() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]string, 0, len(b.st.dirty))
	for p := range b.st.dirty {
		out = append(out, p)
	}
	b.st.dirty = nil
	sort.Strings(out)
	return out
}

// setExclusions replaces the exclusions of the files under one folder
// (prefix ends with the path separator), each with the hash of the text
// its verdict was made on.
func (b *board) setExclusions(prefix string, excl map[string][]model.Diagnostic, sums map[string][32]byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for p := range b.st.excl {
		if strings.HasPrefix(p, prefix) {
			delete(b.st.excl, p)
			delete(b.st.exclSum, p)
			b.markDirtyLocked(p)
		}
	}
	for p, ds := range excl {
		b.st.excl[p] = ds
		b.st.exclSum[p] = sums[p]
		b.markDirtyLocked(p)
	}
}

// setHost replaces the host's load reports and returns the files to send;
// ok is false once the board is closed.
func (b *board) setHost(next map[string][]model.Diagnostic) (dirty []string, ok bool) {
	b.mu.Lock()
	if b.st.closed {
		b.mu.Unlock()
		return nil, false
	}
	for p := range b.st.host {
		b.markDirtyLocked(p)
	}
	for p := range next {
		b.markDirtyLocked(p)
	}
	b.st.host = next
	b.mu.Unlock()
	return b.drain(), true
}

// setEditorState replaces the hints and the untrusted-tool warnings and
// returns the files to send; ok is false once the board is closed.
func (b *board) setEditorState(enab, untrusted map[string][]model.Diagnostic) (dirty []string, ok bool) {
	b.mu.Lock()
	if b.st.closed {
		b.mu.Unlock()
		return nil, false
	}
	// Only files whose set changed: a host action usually changes none,
	// and comparing what the editor was sent costs an encoding per file.
	for _, pair := range [][2]map[string][]model.Diagnostic{{b.st.enab, enab}, {b.st.tools, untrusted}} {
		for p, ds := range pair[0] {
			if !sameDiags(ds, pair[1][p]) {
				b.markDirtyLocked(p)
			}
		}
		for p := range pair[1] {
			if _, had := pair[0][p]; !had {
				b.markDirtyLocked(p)
			}
		}
	}
	b.st.enab, b.st.tools = enab, untrusted
	b.mu.Unlock()
	return b.drain(), true
}

// sums are the hashes the given files' diagnostics are tagged with, and
// the exclusions they tag: the text an exclusion's verdict was made on,
// else the file's text now (the other sources read it as they compute, and
// every change of it brings a recomputation). An exclusion and its hash
// are read together: a build that lands between reading one and the other
// would pair an older text's exclusion with a newer text's hash, and the
// editor would show it on the newer text. Called without mu: it reads
// buffers.
func (b *board) sums(files []string) (map[string][32]byte, map[string][]model.Diagnostic) {
	sums := make(map[string][32]byte, len(files))
	excl := make(map[string][]model.Diagnostic, len(files))
	var untagged []string
	b.mu.Lock()
	for _, p := range files {
		if sum, ok := b.st.exclSum[p]; ok {
			sums[p], excl[p] = sum, b.st.excl[p]
		} else {
			untagged = append(untagged, p)
		}
	}
	b.mu.Unlock()
	for _, p := range untagged {
		text, _ := b.readText(p)
		sums[p] = sha256.Sum256(text)
	}
	return sums, excl
}

// publish sends the merged set of each given file whose set changed.
func (b *board) publish(files []string) {
	b.shown.mu.Lock()
	defer b.shown.mu.Unlock()
	type out struct {
		path  string
		sum   [32]byte
		diags []model.Diagnostic
	}
	var outs []out
	sums, excl := b.sums(files)
	b.mu.Lock()
	for _, p := range files {
		ds := append(append(append(append([]model.Diagnostic{}, excl[p]...), b.st.host[p]...), b.st.enab[p]...), b.st.tools[p]...)
		sort.SliceStable(ds, func(i, j int) bool { return ds[i].Span.Start < ds[j].Span.Start })
		key := ""
		if len(ds) > 0 {
			// The same set for a new text is sent again: it is shown
			// only with the text its hash names.
			j, _ := json.Marshal(ds)
			key = fmt.Sprintf("%x %s", sums[p], j)
		}
		if !b.shown.changedLocked(p, key) {
			continue
		}
		outs = append(outs, out{p, sums[p], ds})
	}
	b.mu.Unlock()
	se, tagged := b.ed.(SumEditor)
	for _, o := range outs {
		if tagged {
			se.PublishDiagnosticsFor(o.path, o.sum, o.diags)
		} else {
			b.ed.PublishDiagnostics(o.path, o.diags)
		}
	}
}

// close withdraws every diagnostic the board sent and accepts nothing
// more: when the connection is closed for good, nothing the host said
// stays, and exclusions only matter while a host is linked.
func (b *board) close() {
	b.shown.mu.Lock()
	files := b.shown.pathsLocked()
	b.mu.Lock()
	b.st = boardState{closed: true, excl: map[string][]model.Diagnostic{}, exclSum: map[string][32]byte{}, host: map[string][]model.Diagnostic{}}
	b.mu.Unlock()
	b.shown.mu.Unlock()
	b.publish(files)
}

package server

import (
	"sort"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

// CodeActionKindFixAll is the source action that applies every preferred
// quick fix of a file at once ("Fix all", or editor.codeActionsOnSave).
const CodeActionKindFixAll protocol.CodeActionKind = "source.fixAll.ahpls"

// wantKinds reads a codeAction request's `only`: which of our two kinds
// (quick fixes, fix-all) it asks for. No `only` means quick fixes only, so
// the fix-all action does not crowd the light bulb.
func wantKinds(only []protocol.CodeActionKind) (quick, fixAll bool) {
	if len(only) == 0 {
		return true, false
	}
	covers := func(k, ours protocol.CodeActionKind) bool {
		return k == "" || k == ours || strings.HasPrefix(string(ours), string(k)+".")
	}
	for _, k := range only {
		quick = quick || covers(k, protocol.CodeActionKindQuickFix)
		fixAll = fixAll || covers(k, CodeActionKindFixAll)
	}
	return quick, fixAll
}

// fixAllAction gathers the preferred fix of every finding (or its only fix)
// whose rule's fix tier is safe into one edit, the edits `ahpls check
// --fix` makes (unsafe fixes stay one quick fix at a time); a fix whose edits overlap one already taken is left for
// the next run, so the edit is always applicable. Nil when nothing to fix.
func fixAllAction(u uri.URI, loc location, fs *fileState, enc model.Encoding, textOf func(uri.URI) []byte) *protocol.CodeAction {
	type edit struct {
		target uri.URI
		e      model.Edit
	}
	taken := map[uri.URI][]model.Span{}
	var edits []edit
	n := 0
	can := editCache{}
	for _, d := range fs.diags {
		var fix *model.Fix
		for i := range d.Fixes {
			if d.Fixes[i].Preferred {
				fix = &d.Fixes[i]
				break
			}
		}
		if fix == nil && len(d.Fixes) == 1 {
			fix = &d.Fixes[0]
		}
		// A fix the fix guard demoted is unsafe: never applied unasked.
		if fix == nil || diagnostics.FixTierOf(d.Rule, fix) != diagnostics.FixSafe || len(fix.Edits) == 0 || !can.fixEditable(u, loc, *fix) {
			continue
		}
		clash := false
		for _, e := range fix.Edits {
			t := relatedURI(u, loc, e.Path)
			for _, sp := range taken[t] {
				if e.Span.Start < sp.End && sp.Start < e.Span.End || e.Span == sp {
					clash = true
				}
			}
		}
		if clash {
			continue
		}
		for _, e := range fix.Edits {
			t := relatedURI(u, loc, e.Path)
			taken[t] = append(taken[t], e.Span)
			edits = append(edits, edit{t, e})
		}
		n++
	}
	if n == 0 {
		return nil
	}
	we := &protocol.WorkspaceEdit{Changes: map[uri.URI][]protocol.TextEdit{}}
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].e.Span.Start < edits[j].e.Span.Start })
	indexes := map[uri.URI]*model.LineIndex{u: model.NewLineIndex(fs.snap.Text)}
	for _, e := range edits {
		idx := indexes[e.target]
		if idx == nil {
			idx = model.NewLineIndex(textOf(e.target))
			indexes[e.target] = idx
		}
		we.Changes[e.target] = append(we.Changes[e.target], protocol.TextEdit{Range: lspRange(idx.Range(e.e.Span, enc)), NewText: e.e.NewText})
	}
	kind := CodeActionKindFixAll
	title := "Fix all ahpls problems"
	if n == 1 {
		title = "Fix the ahpls problem"
	}
	return &protocol.CodeAction{Title: title, Kind: &kind, Edit: we}
}

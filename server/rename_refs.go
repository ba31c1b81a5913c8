package server

import (
	"bytes"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/wsfs"
)

// A skill rename keeps the references ahpls knows whole, in the same
// WorkspaceEdit: the paths into the moved folder (marketplace `source` and
// inline `skills`/`agents`/`commands` entries, plugin manifest component
// paths, Markdown links) and the name itself where a customization names
// the skill (a Claude subagent's `skills`). Only files the server has
// checked are searched, and only files the edit may touch: their real path
// inside their workspace folder (wsfs.EditTarget).

// skillMove is one rename: the skill's name and, when its folder moves,
// the folder's old and new absolute paths.
type skillMove struct {
	oldName, newName string
	oldDir, newDir   string // "" when the folder stays
}

// refEdit is one edit of a reference.
type refEdit struct {
	span    model.Span
	newText string
}

// refFile is the reference edits of one file and the text they were
// planned from (its open buffer, else the disk as read now).
type refFile struct {
	text  []byte
	edits []refEdit
}

// maxRefFiles bounds the files one rename looks through.
const maxRefFiles = 20000

// renameRefs returns the edits, per file, that keep references to the
// skill whole after mv. self (the SKILL.md) is searched too: a link from
// it through its own folder's name changes as well.
func (part renamer) renameRefs(mv skillMove) map[uri.URI]refFile {
	s := part.s
	type file struct {
		u    uri.URI
		kind model.Kind
	}
	var files []file
	s.mu.Lock()
	for u, fs := range s.files {
		if len(files) >= maxRefFiles {
			break
		}
		if (fs.snap.Text != nil || fs.textDropped) && fs.kind != model.KindNone {
			files = append(files, file{u, fs.kind})
		}
	}
	s.mu.Unlock()
	out := map[uri.URI]refFile{}
	for _, f := range files {
		loc, ok := s.locate(f.u)
		if !ok || loc.root == "" || wsfs.EditTarget(loc.root, loc.rel) != nil {
			continue
		}
		// Planned from the text as it is now, not as the last check saw
		// it: the ranges must fit what the editor will edit.
		text := s.textOf(f.u)
		if text == nil {
			continue
		}
		var edits []refEdit
		switch {
		case f.kind.Markdown():
			edits = markdownRefEdits(loc, f.kind, text, mv)
		case f.kind == model.KindPlugin, f.kind == model.KindMarketplace:
			edits = s.manifestRefEdits(loc, f.kind, text, mv)
		}
		if len(edits) > 0 {
			sort.Slice(edits, func(i, j int) bool { return edits[i].span.Start < edits[j].span.Start })
			out[f.u] = refFile{text, edits}
		}
	}
	return out
}

// movedPath rewrites p (slash-separated, relative to base) if it leads to
// the moved folder or into it: the segment that names the folder takes
// the new name. ok is false when p does not go through the folder.
func movedPath(base, p string, mv skillMove) (string, bool) {
	if mv.oldDir == "" || p == "" || strings.Contains(p, "%") {
		return "", false
	}
	segs := strings.Split(p, "/")
	cur := filepath.Clean(base)
	oldBase := filepath.Base(mv.oldDir)
	for i, seg := range segs {
		cur = filepath.Join(cur, seg)
		if cur == mv.oldDir && seg == oldBase {
			segs[i] = filepath.Base(mv.newDir)
			return strings.Join(segs, "/"), true
		}
	}
	return "", false
}

// markdownRefEdits: links into the moved folder, and the skill's name in
// a header's `skills` list.
func markdownRefEdits(loc location, kind model.Kind, text []byte, mv skillMove) []refEdit {
	var out []refEdit
	dir := filepath.Dir(loc.path)
	for _, r := range markdownRefs(text) {
		if r.span.End > len(text) || string(text[r.span.Start:r.span.End]) != r.path {
			continue // the link is written with escapes: leave it to the user
		}
		if np, ok := movedPath(dir, r.path, mv); ok {
			out = append(out, refEdit{r.span, np})
		}
	}
	if kind == model.KindSkill || mv.oldName == mv.newName {
		return out
	}
	entries, ok := diagnostics.FrontmatterEntries(text)
	if !ok {
		return out
	}
	for _, e := range entries {
		if e.Key != "skills" {
			continue
		}
		for _, sp := range wordSpans(text, e.ValueSpan, mv.oldName) {
			out = append(out, refEdit{sp, mv.newName})
		}
	}
	return out
}

// wordSpans finds name in text[within] as a whole name (not inside a
// longer one).
func wordSpans(text []byte, within model.Span, name string) []model.Span {
	var out []model.Span
	if within.Start < 0 || within.End > len(text) || name == "" {
		return nil
	}
	isName := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == ':' || c == '/'
	}
	seg := text[within.Start:within.End]
	for at := 0; ; {
		i := bytes.Index(seg[at:], []byte(name))
		if i < 0 {
			return out
		}
		st, en := at+i, at+i+len(name)
		if (st == 0 || !isName(seg[st-1])) && (en == len(seg) || !isName(seg[en])) {
			out = append(out, model.Span{Start: within.Start + st, End: within.Start + en})
		}
		at = en
	}
}

// manifestRefEdits: component paths of a plugin manifest, and the
// `source` and inline component paths of a marketplace's plugin entries.
func (renamer) manifestRefEdits(loc location, kind model.Kind, text []byte, mv skillMove) []refEdit {
	root, _ := diagnostics.ParseJSON(text)
	if root == nil {
		return nil
	}
	var out []refEdit
	rewrite := func(base string, v *diagnostics.JSONValue) {
		forStrings(v, func(sv *diagnostics.JSONValue) {
			p, ok := relPath(sv.Str)
			if !ok {
				return
			}
			np, ok := movedPath(base, strings.TrimSuffix(p, "/"), mv)
			if !ok {
				return
			}
			prefix := strings.TrimSuffix(sv.Str, p)
			if strings.HasSuffix(p, "/") {
				np += "/"
			}
			out = append(out, refEdit{sv.StrSpan(text, 0, len(sv.Str)), prefix + np})
		})
	}
	switch kind {
	case model.KindPlugin:
		base := pluginRootOf(loc)
		for _, key := range componentPathKeys {
			rewrite(base, root.Get(key))
		}
	case model.KindMarketplace:
		base := marketplaceBase(loc, root)
		ps := root.Get("plugins")
		if !ps.Is(diagnostics.JSONArray) {
			return nil
		}
		for _, it := range ps.Items {
			src := it.Get("source")
			rewrite(base, src)
			if !src.Is(diagnostics.JSONString) {
				continue
			}
			if p, ok := relPath(src.Str); ok {
				pluginDir := filepath.Join(base, filepath.FromSlash(p))
				for _, key := range componentPathKeys {
					rewrite(pluginDir, it.Get(key))
				}
			}
		}
	}
	return out
}

// componentPathKeys are the manifest keys whose values are paths to
// folders or files a skill rename can move.
var componentPathKeys = []string{"skills", "agents", "commands"}

// marketplaceBase is the folder a marketplace's relative sources start
// from: the marketplace root (the folder holding .claude-plugin/, as the
// rules resolve it: a marketplace below the workspace folder counts from
// its own folder), moved by metadata.pluginRoot.
func marketplaceBase(loc location, root *diagnostics.JSONValue) string {
	base := loc.root
	if base == "" {
		base = filepath.Dir(loc.path)
	} else if mroot, ok := model.MarketplaceRoot(loc.rel); ok && mroot != "" {
		base = filepath.Join(base, filepath.FromSlash(mroot))
	}
	if pr := root.Get("metadata").Get("pluginRoot"); pr.Is(diagnostics.JSONString) {
		if p, ok := relPath(pr.Str); ok {
			base = filepath.Join(base, filepath.FromSlash(p))
		}
	}
	return base
}

// refAnnotation labels the reference edits of a rename; clients that
// support change annotations group them in their preview.
const refAnnotation protocol.ChangeAnnotationIdentifier = "ahpls.renameReferences"

// refTextEdits converts one file's reference edits to LSP edits, annotated
// when the client supports it.
func (part renamer) refTextEdits(u uri.URI, text []byte, edits []refEdit, annotate bool) []protocol.TextDocumentEditElement {
	s := part.s
	idx := model.NewLineIndex(text)
	enc := s.Encoding()
	var out []protocol.TextDocumentEditElement
	for _, e := range edits {
		te := protocol.TextEdit{Range: lspRange(idx.Range(e.span, enc)), NewText: e.newText}
		if annotate {
			out = append(out, &protocol.AnnotatedTextEdit{TextEdit: te, AnnotationID: refAnnotation})
			continue
		}
		out = append(out, &te)
	}
	return out
}

// sortedURIs returns the keys of m in order, so edits come out stable.
func sortedURIs[V any](m map[uri.URI]V) []uri.URI {
	out := make([]uri.URI, 0, len(m))
	for u := range m {
		out = append(out, u)
	}
	slices.Sort(out)
	return out
}

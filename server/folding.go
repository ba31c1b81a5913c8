package server

import (
	"context"
	"sort"

	"go.lsp.dev/protocol"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

// textDocument/foldingRange: the frontmatter block, each heading's section
// and each fenced code block of a Markdown customization; every object and
// array spanning lines of a JSON one. Ranges are whole lines.

func (l *lspServer) FoldingRanges(ctx context.Context, p *protocol.FoldingRangeParams) ([]protocol.FoldingRange, error) {
	s := l.s
	out := []protocol.FoldingRange{}
	d, ok := s.doc(p.TextDocument.URI)
	if !ok || d.kind == model.KindNone {
		return out, nil
	}
	idx := model.NewLineIndex(d.text)
	line := func(off int) uint32 { return uint32(idx.Position(off, model.UTF8).Line) }
	add := func(start, end int, kind protocol.FoldingRangeKind) {
		if len(out) >= maxOutlineItems {
			return
		}
		if a, b := line(start), line(end); b > a {
			out = append(out, protocol.FoldingRange{StartLine: a, EndLine: b, Kind: kind})
		}
	}
	if d.kind.Markdown() {
		fm := diagnostics.SplitFrontmatter(d.text)
		if fm.Present && fm.Closed {
			add(fm.Open.Start, fm.Close.Start, protocol.FoldingRangeKindRegion)
		}
		heads, fences := markdownOutline(d.text)
		for i, h := range heads {
			end := len(d.text)
			for _, n := range heads[i+1:] {
				if n.level <= h.level {
					end = n.line.Start
					break
				}
			}
			add(h.line.Start, trimEnd(d.text, h.line.Start, end), "")
		}
		for _, f := range fences {
			end := f.close.Start
			if f.close == (model.Span{}) {
				end = trimEnd(d.text, f.open.Start, len(d.text))
			}
			add(f.open.Start, end, protocol.FoldingRangeKindRegion)
		}
		sortFolds(out)
		return out, nil
	}
	root, _ := diagnostics.ParseJSON(d.text)
	var walk func(v *diagnostics.JSONValue, depth int)
	walk = func(v *diagnostics.JSONValue, depth int) {
		if v == nil || depth > 32 {
			return
		}
		switch v.Kind {
		case diagnostics.JSONObject:
			add(v.Span.Start, v.Span.End-1, "")
			for _, m := range v.Members {
				walk(m.Value, depth+1)
			}
		case diagnostics.JSONArray:
			add(v.Span.Start, v.Span.End-1, "")
			for _, it := range v.Items {
				walk(it, depth+1)
			}
		}
	}
	walk(root, 0)
	sortFolds(out)
	return out, nil
}

// sortFolds orders ranges by start line, outer ranges first.
func sortFolds(fs []protocol.FoldingRange) {
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].StartLine != fs[j].StartLine {
			return fs[i].StartLine < fs[j].StartLine
		}
		return fs[i].EndLine > fs[j].EndLine
	})
}

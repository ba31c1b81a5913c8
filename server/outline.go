package server

import (
	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

// This file reads the structure of a customization file that the editor
// features (document symbols, folding, links) share: the Markdown headings
// and code fences after the header, and the file's kind and text.

// docInfo is what a feature request needs to know about a document: its
// current text (open buffer, else disk), where it sits and its kind. The
// read-only features (links, definition, symbols, folding, references) are
// functions over it: they hold no lock and reach no server state but what
// it carries.
type docInfo struct {
	uri  uri.URI
	text []byte
	loc  location
	kind model.Kind
	// buffered says whether another file is an open editor buffer (a link
	// may name a file that exists only unsaved).
	buffered func(uri.URI) bool
}

// doc reads u for a feature request. ok is false for URIs that are not files.
func (part workspace) doc(u uri.URI) (docInfo, bool) {
	s := part.s
	loc, ok := s.locate(u)
	if !ok {
		return docInfo{}, false
	}
	var layout model.Layout
	if loc.root != "" {
		layout = &wsLayout{s: s, root: loc.root}
	}
	d := docInfo{uri: u, loc: loc, kind: model.Classify(loc.rel, layout), buffered: func(t uri.URI) bool { _, open := s.DocumentSnapshot(t); return open }}
	if snap, open := s.DocumentSnapshot(u); open {
		d.text = snap.Text
	} else if b, err := readLoc(loc); err == nil {
		d.text = b
	}
	return d, true
}

// mdHeading is one ATX heading (`## Title`) of the Markdown body.
type mdHeading struct {
	level int
	line  model.Span // the whole heading line
	title model.Span // the heading text without the #s and closing #s
}

// mdFence is one fenced code block: from its opening line to its closing
// line (or the end of the text when unclosed).
type mdFence struct {
	open, close model.Span // lines; close is empty when unclosed
}

// maxOutlineItems bounds what one file can make a feature request build.
const maxOutlineItems = 5000

// markdownOutline scans the Markdown part of text (after the header) for
// headings and code fences. Headings inside fences do not count.
func markdownOutline(text []byte) (heads []mdHeading, fences []mdFence) {
	fm := diagnostics.SplitFrontmatter(text)
	pos := fm.Markdown.Start
	if !fm.Present {
		pos = 0
		if fm.BOM {
			pos = 3
		}
	}
	var fence diagnostics.CodeFence
	var cur mdFence
	for pos < len(text) && len(heads)+len(fences) < maxOutlineItems {
		end := pos
		for end < len(text) && text[end] != '\n' && text[end] != '\r' {
			end++
		}
		next := end
		if next < len(text) && text[next] == '\r' {
			next++
		}
		if next < len(text) && text[next] == '\n' {
			next++
		}
		if next == pos {
			break
		}
		line := text[pos:end]
		lineSpan := model.Span{Start: pos, End: end}
		ind := 0
		for ind < len(line) && ind < 4 && line[ind] == ' ' {
			ind++
		}
		body := line[ind:]
		wasInside := fence.Inside()
		inFence := fence.Step(line)
		switch {
		case wasInside && !fence.Inside():
			cur.close = lineSpan
			fences = append(fences, cur)
		case !wasInside && inFence:
			cur = mdFence{open: lineSpan}
		}
		if ind < 4 && !inFence {
			if n := run(body, '#'); n >= 1 && n <= 6 && (n == len(body) || body[n] == ' ' || body[n] == '\t') {
				ts := pos + ind + n
				te := end
				for ts < te && (text[ts] == ' ' || text[ts] == '\t') {
					ts++
				}
				for te > ts && (text[te-1] == ' ' || text[te-1] == '\t') {
					te--
				}
				// A closing sequence of #s preceded by a space is not title.
				if k := te; k > ts && text[k-1] == '#' {
					for k > ts && text[k-1] == '#' {
						k--
					}
					if k == ts || text[k-1] == ' ' || text[k-1] == '\t' {
						te = k
						for te > ts && (text[te-1] == ' ' || text[te-1] == '\t') {
							te--
						}
					}
				}
				heads = append(heads, mdHeading{level: n, line: lineSpan, title: model.Span{Start: ts, End: te}})
			}
		}
		pos = next
	}
	if fence.Inside() {
		fences = append(fences, cur)
	}
	return heads, fences
}

// run counts the leading bytes of b equal to c.
func run(b []byte, c byte) int {
	n := 0
	for n < len(b) && b[n] == c {
		n++
	}
	return n
}

// trimEnd moves an end offset back over trailing line breaks and blank
// lines, so a section does not swallow the blank lines before the next one.
func trimEnd(text []byte, start, end int) int {
	for end > start && (text[end-1] == '\n' || text[end-1] == '\r' || text[end-1] == ' ' || text[end-1] == '\t') {
		end--
	}
	return end
}

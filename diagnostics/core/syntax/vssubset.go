package syntax

// The VS Code subset simulation (customization-formats.md §3): VS Code reads
// headers with its own small YAML parser (src/vs/base/common/yaml.ts). We do
// not reimplement it; we walk the header's lines and note where its reading
// departs from YAML: anchors, aliases and tags stay literal text, a `...`
// line ends parsing, an empty `key:` is an error, a `? ` key is an error,
// tabs count as indentation, and a plain value ends at its first `: ` (a
// `[…]` value at its `]`), after which parsing stops without error.

import (
	"bytes"

	"github.com/ahpls-dev/ahpls/model"
)

type vsKind int

const (
	VsMissingValue vsKind = iota // `key:` with nothing: error
	VsComplexKey                 // `? key`: error
	VsTabBlock                   // tab-led line in a block scalar: error
	VsLiteral                    // anchor, alias or tag kept as text: later keys unaffected
	VsDocEnd                     // `...` with content after it: stops
	VsCut                        // plain value cut at `: ` or after `]`: stops
)

// vsIssue is one departure, spans in file offsets.
type vsIssue struct {
	Kind vsKind
	Line int        // 0-based line in the body
	Span model.Span // the construct
	Key  model.Span // the key of the entry, when there is one
}

// VsResult is the simulation's outcome for one header.
type VsResult struct {
	Issues []vsIssue
	// stopped is the index in issues of the issue that ended parsing, or -1.
	Stopped int
}

// Errs reports whether VS Code's parser reports an error for this header.
func (v VsResult) Errs() bool {
	for _, is := range v.Issues {
		switch is.Kind {
		case VsMissingValue, VsComplexKey, VsTabBlock:
			return true
		}
	}
	return false
}

// At returns the issue of a kind on a body line, if any.
func (v VsResult) At(kind vsKind, line int) (vsIssue, bool) {
	for _, is := range v.Issues {
		if is.Kind == kind && is.Line == line {
			return is, true
		}
	}
	return vsIssue{}, false
}

// VsSimulate walks body (file offsets base…) the way VS Code's parser reads it.
func VsSimulate(text []byte, body model.Span) VsResult {
	res := VsResult{Stopped: -1}
	lines := vsSplitLines(text, body)
	content := func(i int) bool { return lines[i].content(text) }
	add := func(is vsIssue, stop bool) {
		res.Issues = append(res.Issues, is)
		if stop {
			res.Stopped = len(res.Issues) - 1
		}
	}
	blockIndent := -1 // >= 0 inside a block scalar opened at that indent
	var inQuote byte  // inside a quoted scalar that spans lines
	for i := 0; i < len(lines); i++ {
		ln := lines[i]
		l := text[ln.start:ln.end]
		if inQuote != 0 {
			if closesQuote(l, 0, inQuote) {
				inQuote = 0
			}
			continue
		}
		if !content(i) {
			continue
		}
		if blockIndent >= 0 {
			if ln.indent > blockIndent {
				if t := bytes.IndexByte(l[:ln.indent], '\t'); t >= 0 {
					add(vsIssue{Kind: VsTabBlock, Line: i, Span: model.Span{Start: ln.start + t, End: ln.start + ln.indent}}, false)
				}
				continue
			}
			blockIndent = -1
		}
		rest := l[ln.indent:]
		if bytes.Equal(bytes.TrimRight(l, " \t"), []byte("...")) {
			for j := i + 1; j < len(lines); j++ {
				if content(j) {
					add(vsIssue{Kind: VsDocEnd, Line: i, Span: model.Span{Start: ln.start, End: ln.start + 3}}, true)
					return res
				}
			}
			return res
		}
		col := ln.indent
		for len(rest) >= 2 && rest[0] == '-' && (rest[1] == ' ' || rest[1] == '\t') {
			rest = bytes.TrimLeft(rest[1:], " \t")
			col = len(l) - len(rest)
		}
		if len(rest) > 0 && rest[0] == '?' && (len(rest) == 1 || rest[1] == ' ') {
			add(vsIssue{Kind: VsComplexKey, Line: i, Span: model.Span{Start: ln.start + col, End: ln.start + col + 1}}, false)
			continue
		}
		colon := KeyColon(rest)
		if colon < 0 {
			continue // a sequence scalar or a continuation line
		}
		keySpan := model.Span{Start: ln.start + col, End: ln.start + col + colon}
		vstart := colon + 1
		for vstart < len(rest) && (rest[vstart] == ' ' || rest[vstart] == '\t') {
			vstart++
		}
		value := rest[vstart:]
		if c := commentStart(value); c >= 0 {
			value = bytes.TrimRight(value[:c], " \t")
		}
		vOff := ln.start + col + vstart
		switch {
		case len(value) == 0:
			if !vsNestedBelow(text, lines, i) {
				add(vsIssue{Kind: VsMissingValue, Line: i, Span: keySpan, Key: keySpan}, false)
			}
		case value[0] == '&' || value[0] == '*' || value[0] == '!':
			w := bytes.IndexAny(value, " \t")
			if w < 0 {
				w = len(value)
			}
			add(vsIssue{Kind: VsLiteral, Line: i, Span: model.Span{Start: vOff, End: vOff + w}, Key: keySpan}, false)
		case value[0] == '|' || value[0] == '>':
			blockIndent = ln.indent
		case value[0] == '"' || value[0] == '\'':
			if !closesQuote(rest[vstart:], 1, value[0]) {
				inQuote = value[0]
			}
		case value[0] == '[' || value[0] == '{':
			if e := matchBracket(value, 0); e >= 0 {
				after := bytes.TrimLeft(value[e:], " \t")
				if len(after) > 0 {
					s := vOff + len(value) - len(after)
					add(vsIssue{Kind: VsCut, Line: i, Span: model.Span{Start: s, End: vOff + len(value)}, Key: keySpan}, true)
					return res
				}
			}
		default:
			if c := bytes.Index(value, []byte(": ")); c >= 0 {
				add(vsIssue{Kind: VsCut, Line: i, Span: model.Span{Start: vOff + c, End: vOff + len(value)}, Key: keySpan}, true)
				return res
			}
		}
	}
	return res
}

// vsLine is one line of the header: file offsets without the break, and
// its leading spaces and tabs.
type vsLine struct {
	start, end int
	indent     int
}

// content says whether the line holds more than blanks or a comment.
func (l vsLine) content(text []byte) bool {
	t := bytes.TrimLeft(text[l.start:l.end], " \t")
	return len(t) > 0 && t[0] != '#'
}

func vsSplitLines(text []byte, body model.Span) []vsLine {
	var lines []vsLine
	for pos := body.Start; pos < body.End; {
		e, n := LineAt(text, pos)
		if e > body.End {
			e = body.End
		}
		l := text[pos:e]
		lines = append(lines, vsLine{pos, e, len(l) - len(bytes.TrimLeft(l, " \t"))})
		pos = n
	}
	return lines
}

// vsNestedBelow says whether the next content line after line i nests
// under it (deeper, or a sequence item at the same indent), so the key
// of line i has a value after all.
func vsNestedBelow(text []byte, lines []vsLine, i int) bool {
	for j := i + 1; j < len(lines); j++ {
		if !lines[j].content(text) {
			continue
		}
		nt := bytes.TrimLeft(text[lines[j].start:lines[j].end], " \t")
		return lines[j].indent > lines[i].indent || (lines[j].indent == lines[i].indent && len(nt) > 0 && nt[0] == '-')
	}
	return false
}

// KeyColon returns the offset of the colon ending a mapping key at the
// start of s (`key: v`, `key:`, `"quoted key": v`), or -1.
func KeyColon(s []byte) int {
	i := 0
	if len(s) > 0 && (s[0] == '"' || s[0] == '\'') {
		q := s[0]
		i = 1
		for i < len(s) && s[i] != q {
			i++
		}
		i++
	}
	for ; i < len(s); i++ {
		if s[i] == ':' && (i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\t') {
			return i
		}
		if s[i] == '#' && i > 0 && s[i-1] == ' ' {
			return -1
		}
	}
	return -1
}

// commentStart finds a ` #` comment in a one-line value outside quotes and
// brackets' quoted parts, or -1.
func commentStart(v []byte) int {
	var quote byte
	for i := 0; i < len(v); i++ {
		c := v[i]
		if quote != 0 {
			if c == quote {
				quote = 0
			}
			continue
		}
		if (c == '"' || c == '\'') && (i == 0 || v[i-1] == ' ' || v[i-1] == '[' || v[i-1] == ',') {
			quote = c
			continue
		}
		if c == '#' && i > 0 && (v[i-1] == ' ' || v[i-1] == '\t') {
			return i
		}
	}
	return -1
}

// closesQuote reports whether b (from offset from) holds the quote closing
// a scalar opened by q: an unescaped double quote, or a single quote that
// is not doubled.
func closesQuote(b []byte, from int, q byte) bool {
	for i := from; i < len(b); i++ {
		switch {
		case q == '"' && b[i] == '\\':
			i++
		case b[i] == q:
			if q == '\'' && i+1 < len(b) && b[i+1] == '\'' {
				i++
				continue
			}
			return true
		}
	}
	return false
}

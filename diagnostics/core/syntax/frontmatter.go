package syntax

// Frontmatter splitting (customization-formats.md §3).
//
// We split the YAML header ourselves rather than using adrg/frontmatter:
// that library gives no positions, parses with yaml.v2, and accepts an
// unclosed `---` block, so it cannot drive diagnostics with exact ranges.

import (
	"bytes"
	"regexp"
	"strings"
	"sync"

	"github.com/ahpls-dev/ahpls/model"
)

// Frontmatter is where a Markdown customization file's YAML header sits, in
// byte offsets of the whole text. All spans exclude line breaks.
type Frontmatter struct {
	// BOM reports a leading U+FEFF (3 bytes).
	BOM bool
	// Present reports an opening `---` line; without one every `---` in the
	// file is Markdown and only Markdown is set.
	Present bool
	// Closed reports a closing `---` line.
	Closed bool
	// Leading covers the lines between the BOM and the opening line (blank
	// lines included); empty when `---` is the first line.
	Leading model.Span
	// Open is the opening `---` line.
	Open model.Span
	// Body is the YAML text between the opening line's break and the closing
	// line (or the end of the text when unclosed).
	Body model.Span
	// Close is the closing `---` line; empty when unclosed.
	Close model.Span
	// Markdown is the text after the header (after the closing line's
	// break), or the whole text after the BOM when there is no header; it is
	// empty (at the end) when the header is unclosed.
	Markdown model.Span
	// CR is the offset of the first '\r' in the text, or -1.
	CR int
}

const BOM = "\ufeff"

// maxLeadingLines is how many non-`---` lines may precede the opening line
// when the block after it still reads as a header (fm/leading-lines).
const maxLeadingLines = 2

// headerKeys are keys some Markdown kind knows; a block after leading lines
// counts as a misplaced header only when it holds one of them.
var headerKeyLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^(name|description|tools|model|applyTo|paths|argument-hint|agent|allowed-tools|license|target|mode|excludeAgent|handoffs|user-invocable|disable-model-invocation|color|when_to_use|compatibility|metadata)[ \t]*:`)
})

// SplitFrontmatter finds the YAML header of a Markdown customization file.
// It never fails: text without a header yields Present == false.
func SplitFrontmatter(text []byte) Frontmatter {
	fm := Frontmatter{CR: bytes.IndexByte(text, '\r')}
	start := 0
	if bytes.HasPrefix(text, []byte(BOM)) {
		fm.BOM = true
		start = len(BOM)
	}
	fm.Markdown = model.Span{Start: start, End: len(text)}
	// Walk the first lines: the opening line is the first non-blank one, or
	// one of the next maxLeadingLines lines when its block has a known key.
	seen := 0
	for pos := start; pos < len(text) && seen <= maxLeadingLines; {
		end, next := LineAt(text, pos)
		line := text[pos:end]
		if IsBlank(line) {
			pos = next
			continue
		}
		if isDashLine(line) {
			closeStart, closeEnd, closeNext, ok := findClose(text, next)
			if seen > 0 && (!ok || !headerKeyLine().Match(text[next:closeStart])) {
				return fm
			}
			fm.Present = true
			fm.Leading = model.Span{Start: start, End: pos}
			fm.Open = model.Span{Start: pos, End: end}
			if ok {
				fm.Closed = true
				fm.Body = model.Span{Start: next, End: closeStart}
				fm.Close = model.Span{Start: closeStart, End: closeEnd}
				fm.Markdown = model.Span{Start: closeNext, End: len(text)}
			} else {
				fm.Body = model.Span{Start: next, End: len(text)}
				fm.Markdown = model.Span{Start: len(text), End: len(text)}
			}
			return fm
		}
		seen++
		pos = next
	}
	return fm
}

// LineAt returns the end of the line starting at pos (before its break)
// and the start of the next line. Breaks are LF, CRLF and lone CR.
func LineAt(text []byte, pos int) (end, next int) {
	// Find the line feed with the vectorised IndexByte; a carriage return
	// before it (a CR line or a CRLF) is then looked for in that line only.
	if pos < len(text) {
		rest := text[pos:]
		nl := bytes.IndexByte(rest, '\n')
		seg := rest
		if nl >= 0 {
			seg = rest[:nl]
		}
		if cr := bytes.IndexByte(seg, '\r'); cr < 0 {
			if nl < 0 {
				return len(text), len(text)
			}
			return pos + nl, pos + nl + 1
		}
	}
	for i := pos; i < len(text); i++ {
		switch text[i] {
		case '\n':
			return i, i + 1
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				return i, i + 2
			}
			return i, i + 1
		}
	}
	return len(text), len(text)
}

func IsBlank(line []byte) bool {
	return len(bytes.Trim(line, " \t")) == 0
}

// isDashLine matches `^---[ \t]*$` (the break is already cut off).
func isDashLine(line []byte) bool {
	if !bytes.HasPrefix(line, []byte("---")) {
		return false
	}
	return len(bytes.Trim(line[3:], " \t")) == 0
}

func findClose(text []byte, pos int) (start, end, next int, ok bool) {
	for pos < len(text) {
		e, n := LineAt(text, pos)
		if isDashLine(text[pos:e]) {
			return pos, e, n, true
		}
		pos = n
	}
	return 0, 0, 0, false
}

// MDCField is one `key: value` line of a Cursor rule's header.
type MDCField struct {
	Key   string
	Value string // raw text after the colon, trimmed (Cursor does not unquote YAML)
	Line  model.Span
	Val   model.Span
	Items []string // `- item` lines below a key with no value (a YAML-style list)
}

// MDCHeader is a Cursor rule's header as Cursor reads it.
type MDCHeader struct {
	Present, Closed bool
	Open            model.Span // the opening `---` line
	Fields          []MDCField
	Body            model.Span // the Markdown after the header (all of it without one)
}

// MaxMDCFields bounds what one header holds.
const MaxMDCFields = 200

// ParseMDCHeader reads a Cursor rule: an optional header between `---`
// lines at the very top, one `key: value` per line, the value taken as
// written (globs is a comma-separated list, never YAML). It never fails.
func ParseMDCHeader(text []byte) MDCHeader {
	h := MDCHeader{Body: model.Span{Start: 0, End: len(text)}}
	pos := 0
	if bytes.HasPrefix(text, []byte(BOM)) {
		pos = len(BOM)
	}
	end, next := LineAt(text, pos)
	if strings.TrimRight(string(text[pos:end]), " \t") != "---" {
		return h
	}
	h.Present, h.Open = true, model.Span{Start: pos, End: end}
	var last *MDCField
	for pos = next; pos < len(text); pos = next {
		end, next = LineAt(text, pos)
		line := text[pos:end]
		if strings.TrimRight(string(line), " \t") == "---" {
			h.Closed = true
			h.Body = model.Span{Start: next, End: len(text)}
			return h
		}
		trimmed := bytes.TrimLeft(line, " \t")
		if len(trimmed) == 0 || trimmed[0] == '#' {
			continue
		}
		if len(trimmed) < len(line) || trimmed[0] == '-' {
			if last != nil && trimmed[0] == '-' {
				last.Items = append(last.Items, strings.TrimSpace(string(trimmed[1:])))
			}
			continue // a continuation of the previous field
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 || len(h.Fields) >= MaxMDCFields {
			last = nil
			continue
		}
		vs := colon + 1
		for vs < len(line) && (line[vs] == ' ' || line[vs] == '\t') {
			vs++
		}
		ve := len(line)
		for ve > vs && (line[ve-1] == ' ' || line[ve-1] == '\t') {
			ve--
		}
		h.Fields = append(h.Fields, MDCField{
			Key:   strings.TrimSpace(string(line[:colon])),
			Value: string(line[vs:ve]),
			Line:  model.Span{Start: pos, End: end},
			Val:   model.Span{Start: pos + vs, End: pos + ve},
		})
		last = &h.Fields[len(h.Fields)-1]
	}
	h.Body = model.Span{Start: len(text), End: len(text)}
	return h
}

// Field returns the last field named key, or nil.
func (h *MDCHeader) Field(key string) *MDCField {
	for i := len(h.Fields) - 1; i >= 0; i-- {
		if h.Fields[i].Key == key {
			return &h.Fields[i]
		}
	}
	return nil
}

// Unquote strips one pair of matching quotes, as an author who wrote YAML
// meant them.
func Unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// UTF16Len is the length of s in UTF-16 code units: JavaScript's string
// length, which Claude Code's and Roo Code's limits count in.
func UTF16Len[T ~string | ~[]byte](s T) int {
	n := 0
	for _, r := range string(s) {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

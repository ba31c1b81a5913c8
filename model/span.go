package model

import (
	"sort"
	"unicode/utf8"
)

// Span is a half-open byte range [Start, End) into a file's text. Rules work
// in bytes because that is what parsers give; conversion to what an editor
// expects happens once, in LineIndex.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Empty reports whether the span covers no bytes.
func (s Span) Empty() bool { return s.End <= s.Start }

// Encoding is an LSP position encoding: how a Position's Character counts.
type Encoding string

const (
	UTF16 Encoding = "utf-16" // LSP default
	UTF8  Encoding = "utf-8"  // bytes
	UTF32 Encoding = "utf-32" // code points
)

// Position is a zero-based line and character offset in some Encoding.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is a zero-based LSP-style range.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// LineIndex converts between byte offsets and positions for one text. Line
// breaks are LF, CRLF and lone CR, as LSP defines them.
type LineIndex struct {
	text   []byte
	starts []int // byte offset of each line's first byte
}

// NewLineIndex indexes text. The index keeps a reference to text; callers
// must not modify it afterwards.
func NewLineIndex(text []byte) *LineIndex {
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			starts = append(starts, i+1)
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			starts = append(starts, i+1)
		}
	}
	return &LineIndex{text: text, starts: starts}
}

// Lines returns the number of lines (a trailing newline starts an empty last line).
func (x *LineIndex) Lines() int { return len(x.starts) }

// LineStart returns the byte offset of line's first byte, clamped.
func (x *LineIndex) LineStart(line int) int {
	if line < 0 {
		return 0
	}
	if line >= len(x.starts) {
		return len(x.text)
	}
	return x.starts[line]
}

// lineContentEnd is the offset of the line break ending line (or EOF).
func (x *LineIndex) lineContentEnd(line int) int {
	end := len(x.text)
	if line+1 < len(x.starts) {
		end = x.starts[line+1]
	}
	for end > x.starts[line] && (x.text[end-1] == '\n' || x.text[end-1] == '\r') {
		end--
	}
	return end
}

// Position converts a byte offset to a position in enc. Offsets are clamped
// to the text; an offset inside a multi-byte character or a CRLF pair counts
// from the character's start.
func (x *LineIndex) Position(offset int, enc Encoding) Position {
	if offset < 0 {
		offset = 0
	}
	if offset > len(x.text) {
		offset = len(x.text)
	}
	line := sort.Search(len(x.starts), func(i int) bool { return x.starts[i] > offset }) - 1
	if line < 0 {
		line = 0
	}
	start := x.starts[line]
	end := x.lineContentEnd(line)
	if offset > end {
		offset = end
	}
	return Position{Line: line, Character: countUnits(x.text[start:offset], enc)}
}

// Range converts a span to a range in enc.
func (x *LineIndex) Range(s Span, enc Encoding) Range {
	return Range{Start: x.Position(s.Start, enc), End: x.Position(s.End, enc)}
}

// Offset converts a position in enc back to a byte offset. ok is false when
// the position lies outside the text (line past the end, or a character past
// the line's end); the returned offset is then clamped, which is what
// editors expect when applying a slightly-off edit.
func (x *LineIndex) Offset(p Position, enc Encoding) (offset int, ok bool) {
	if p.Line < 0 || p.Character < 0 {
		return 0, false
	}
	if p.Line >= len(x.starts) {
		return len(x.text), false
	}
	start := x.starts[p.Line]
	end := x.lineContentEnd(p.Line)
	units := 0
	i := start
	for i < end {
		if units >= p.Character {
			return i, true
		}
		r, size := utf8.DecodeRune(x.text[i:end])
		units += unitLen(r, size, enc)
		i += size
	}
	if units == p.Character {
		return i, true
	}
	return end, false
}

func countUnits(b []byte, enc Encoding) int {
	if enc == UTF8 {
		return len(b)
	}
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		n += unitLen(r, size, enc)
		b = b[size:]
	}
	return n
}

func unitLen(r rune, size int, enc Encoding) int {
	switch enc {
	case UTF8:
		return size
	case UTF32:
		return 1
	default:
		if r >= 0x10000 && r != utf8.RuneError {
			return 2
		}
		return 1
	}
}

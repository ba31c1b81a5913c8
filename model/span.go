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
//
// Conversions cost O(log lines + checkpointEvery), not O(line length): an
// ASCII-only line converts by subtraction, and a long line with other
// characters carries checkpoints (UTF-16 and UTF-32 counts every
// checkpointEvery bytes), so a file with thousands of findings on one long
// line converts in time linear in the file.
type LineIndex struct {
	text   []byte
	starts []int    // byte offset of each line's first byte
	wide   []uint64 // bit per line: the line has a byte >= 0x80
	cps    map[int][]checkpoint
}

// checkpoint is a rune boundary on a long non-ASCII line with the units
// counted from the line start up to it.
type checkpoint struct {
	off, u16, u32 int
}

const checkpointEvery = 64

// NewLineIndex indexes text in one pass (plus one pass over long lines
// with non-ASCII characters). The index keeps a reference to text; callers
// must not modify it afterwards.
func NewLineIndex(text []byte) *LineIndex {
	x := &LineIndex{text: text, starts: make([]int, 1, 1+len(text)/32)}
	var wide []uint64
	line, lineWide := 0, false
	endLine := func(next int) {
		if lineWide {
			for len(wide) <= line/64 {
				wide = append(wide, 0)
			}
			wide[line/64] |= 1 << (line % 64)
		}
		x.starts = append(x.starts, next)
		line++
		lineWide = false
	}
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '\n':
			endLine(i + 1)
		case c == '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			endLine(i + 1)
		case c >= 0x80:
			lineWide = true
		}
	}
	if lineWide {
		for len(wide) <= line/64 {
			wide = append(wide, 0)
		}
		wide[line/64] |= 1 << (line % 64)
	}
	x.wide = wide
	for l := range x.starts {
		if !x.isWide(l) {
			continue
		}
		start, end := x.starts[l], x.lineContentEnd(l)
		if end-start <= checkpointEvery {
			continue
		}
		var cps []checkpoint
		u16, u32, last := 0, 0, start
		for i := start; i < end; {
			if i-last >= checkpointEvery {
				cps = append(cps, checkpoint{i, u16, u32})
				last = i
			}
			r, size := utf8.DecodeRune(x.text[i:end])
			u16 += unitLen(r, size, UTF16)
			u32++
			i += size
		}
		if x.cps == nil {
			x.cps = map[int][]checkpoint{}
		}
		x.cps[l] = cps
	}
	return x
}

func (x *LineIndex) isWide(line int) bool {
	return line/64 < len(x.wide) && x.wide[line/64]&(1<<(line%64)) != 0
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
	if enc == UTF8 || !x.isWide(line) {
		return Position{Line: line, Character: offset - start}
	}
	from, units := start, 0
	if cps := x.cps[line]; len(cps) > 0 {
		k := sort.Search(len(cps), func(i int) bool { return cps[i].off > offset }) - 1
		if k >= 0 {
			from, units = cps[k].off, cps[k].units(enc, start)
		}
	}
	return Position{Line: line, Character: units + countUnits(x.text[from:offset], enc)}
}

// units is the count in enc from the line start (at byte start) to c.
func (c checkpoint) units(enc Encoding, start int) int {
	switch enc {
	case UTF8:
		return c.off - start
	case UTF32:
		return c.u32
	}
	return c.u16
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
	if !x.isWide(p.Line) {
		if start+p.Character <= end {
			return start + p.Character, true
		}
		return end, false
	}
	units := 0
	i := start
	if cps := x.cps[p.Line]; len(cps) > 0 {
		k := sort.Search(len(cps), func(j int) bool { return cps[j].units(enc, start) > p.Character }) - 1
		if k >= 0 {
			i, units = cps[k].off, cps[k].units(enc, start)
		}
	}
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

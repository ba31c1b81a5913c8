package model

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// naivePosition is the definition Position must agree with: count the
// units from the line start.
func naivePosition(text []byte, offset int, enc Encoding) Position {
	offset = min(max(offset, 0), len(text))
	line, start := 0, 0
	for i := 0; i < offset; i++ {
		switch text[i] {
		case '\n':
			line, start = line+1, i+1
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				if i+1 == offset {
					break // the CRLF pair is not split: offset sits on this line's break
				}
				i++
			}
			line, start = line+1, i+1
		}
	}
	end := start
	for end < len(text) && text[end] != '\n' && text[end] != '\r' {
		end++
	}
	offset = min(offset, end)
	return Position{Line: line, Character: countUnits(text[start:offset], enc)}
}

func naiveOffset(text []byte, idx *LineIndex, p Position, enc Encoding) (int, bool) {
	if p.Line < 0 || p.Character < 0 {
		return 0, false
	}
	if p.Line >= len(idx.starts) {
		return len(text), false
	}
	start, end := idx.starts[p.Line], idx.lineContentEnd(p.Line)
	units, i := 0, start
	for i < end {
		if units >= p.Character {
			return i, true
		}
		r, size := utf8.DecodeRune(text[i:end])
		units += unitLen(r, size, enc)
		i += size
	}
	if units == p.Character {
		return i, true
	}
	return end, false
}

// FuzzLineIndex checks Position and Offset against the line-start
// definitions on arbitrary text (long lines, non-ASCII, invalid UTF-8, CR,
// CRLF), so the checkpoints and the ASCII shortcut never change an answer.
func FuzzLineIndex(f *testing.F) {
	f.Add([]byte("---\nname: d😀mo\r\n---\r"), 7, 3)
	f.Add([]byte(strings.Repeat("é[x](y) ", 40)+"\n"+strings.Repeat("a😀", 50)), 150, 90)
	f.Add([]byte("\xff\xfe"+strings.Repeat("\xe2\x82", 70)), 65, 66)
	f.Fuzz(func(t *testing.T, text []byte, off, char int) {
		idx := NewLineIndex(text)
		for _, enc := range []Encoding{UTF8, UTF16, UTF32} {
			for _, o := range []int{off, off % (len(text) + 1), len(text) - 1, 0} {
				if got, want := idx.Position(o, enc), naivePosition(text, o, enc); got != want {
					t.Fatalf("Position(%d, %s) = %+v, want %+v", o, enc, got, want)
				}
			}
			for line := range min(idx.Lines(), 4) {
				p := Position{Line: line, Character: char % 200}
				gotO, gotOK := idx.Offset(p, enc)
				wantO, wantOK := naiveOffset(text, idx, p, enc)
				if gotO != wantO || gotOK != wantOK {
					t.Fatalf("Offset(%+v, %s) = %d,%v want %d,%v", p, enc, gotO, gotOK, wantO, wantOK)
				}
			}
		}
	})
}

// BenchmarkPositionsOneLongLine is #16's quadratic case: 20,000 findings on
// one line (here with a non-ASCII character so the checkpoints are used,
// not only the ASCII shortcut). Before the checkpoints each conversion
// counted from the line start.
func BenchmarkPositionsOneLongLine(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("é ")
	offs := make([]int, 0, 20000)
	for i := range 20000 {
		offs = append(offs, sb.Len())
		sb.WriteString("[l](missing")
		sb.WriteString(strings.Repeat("x", i%7))
		sb.WriteString(".md) ")
	}
	text := []byte(sb.String())
	b.ResetTimer()
	for b.Loop() {
		idx := NewLineIndex(text)
		for _, o := range offs {
			idx.Position(o, UTF16)
		}
	}
}

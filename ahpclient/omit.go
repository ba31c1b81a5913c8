package ahpclient

import (
	"io"
	"strconv"
)

// inputFilter copies a frame as it is read and, on the way, replaces the
// string value of every "toolInput" or "editedToolInput" member longer
// than MaxToolInput (decoded) with the marker the mirror uses for it
// ({"x-ahpls-omittedBytes": n}, OmittedInput). The mirror would drop such
// an input after decoding the frame (scrubCall); dropping it here, as it
// arrives, means it is never held whole: a frame carrying a 30 MB input
// costs the rest of the frame plus at most MaxToolInput, not 30 MB read,
// then 30 MB decoded (issue 39: RSS stayed at ~3x the refused bytes).
//
// It is a lexer, not a parser: it follows strings, escapes and the ':'
// after a member name, which is all it needs to know a value's key. A
// member name written with escapes ("tool\u0049nput") is not recognised
// here, and invalid UTF-8 (decoded as U+FFFD, 3 bytes for 1) is
// undercounted; scrubCall still drops such an input after decoding.
type inputFilter struct {
	out   []byte
	limit int64 // MaxToolInput; tests set less

	inStr bool
	esc   int // 0: none; 1: after '\'; 2-5: reading \u hex digits
	hex   rune
	start int // index in out of the current string's opening quote

	lastKey  string // the last short string, while it may be a member name
	valueFor bool   // a ':' followed a watched member name: the next string is its value
	watched  bool   // the current string is such a value
	omitting bool   // it is over the limit and is being read past
	decoded  int64  // the current watched string's decoded length so far
}

// watchedKey: the members whose long string values are dropped.
func watchedKey(k string) bool { return k == "toolInput" || k == "editedToolInput" }

// write filters p into f.out.
func (f *inputFilter) write(p []byte) {
	for i := 0; i < len(p); i++ {
		b := p[i]
		if !f.inStr {
			switch b {
			case '"':
				f.inStr, f.start = true, len(f.out)
				f.watched, f.omitting, f.decoded = f.valueFor, false, 0
				f.valueFor = false
			case ':':
				f.valueFor = watchedKey(f.lastKey)
				f.lastKey = ""
			case ' ', '\t', '\n', '\r':
			default:
				f.valueFor, f.lastKey = false, ""
			}
			f.out = append(f.out, b)
			continue
		}
		// Inside a string. Fast path: a run of plain bytes.
		if f.esc == 0 && b != '"' && b != '\\' {
			j := i + 1
			for j < len(p) && p[j] != '"' && p[j] != '\\' {
				j++
			}
			f.plain(p[i:j])
			i = j - 1
			continue
		}
		f.strByte(b)
	}
}

// plain takes a run of unescaped string bytes.
func (f *inputFilter) plain(run []byte) {
	if f.watched {
		f.decoded += int64(len(run))
		if f.omitting {
			return
		}
	}
	f.out = append(f.out, run...)
	f.checkLimit()
}

// strByte takes one byte of a string that is a quote, a backslash or part
// of an escape.
func (f *inputFilter) strByte(b byte) {
	switch {
	case f.esc == 1:
		f.esc = 0
		if b == 'u' {
			f.esc, f.hex = 2, 0
		} else {
			f.count(1)
		}
	case f.esc >= 2:
		f.hex = f.hex<<4 | hexVal(b)
		if f.esc++; f.esc == 6 {
			f.esc = 0
			switch {
			case f.hex < 0x80:
				f.count(1)
			case f.hex < 0x800, f.hex >= 0xD800 && f.hex < 0xE000: // a surrogate: half of a 4-byte pair
				f.count(2)
			default:
				f.count(3)
			}
		}
	case b == '\\':
		f.esc = 1
	case b == '"':
		f.inStr = false
		if f.omitting {
			f.out = append(f.out[:f.start], `{"`+OmittedInputKey+`":`+strconv.FormatInt(f.decoded, 10)+`}`...)
			f.watched, f.omitting = false, false
			return
		}
		f.out = append(f.out, b)
		f.lastKey = ""
		if n := len(f.out) - f.start - 2; n <= len("editedToolInput") {
			f.lastKey = string(f.out[f.start+1 : len(f.out)-1])
		}
		f.watched = false
		return
	}
	if !f.omitting {
		f.out = append(f.out, b)
	}
	f.checkLimit()
}

func (f *inputFilter) count(n int64) {
	if f.watched {
		f.decoded += n
	}
}

// checkLimit starts reading past the current string once its decoded
// length is over MaxToolInput: what was kept of it is let go.
func (f *inputFilter) checkLimit() {
	if f.watched && !f.omitting && f.decoded > f.limit {
		f.omitting = true
		f.out = f.out[:f.start]
		if cap(f.out)-len(f.out) > 4*MaxToolInput {
			// Let the big buffer go too; the rest of the frame is small
			// or will grow a new one.
			f.out = append(make([]byte, 0, len(f.out)+4096), f.out...)
		}
	}
}

func hexVal(b byte) rune {
	switch {
	case b >= '0' && b <= '9':
		return rune(b - '0')
	case b >= 'a' && b <= 'f':
		return rune(b-'a') + 10
	case b >= 'A' && b <= 'F':
		return rune(b-'A') + 10
	}
	return 0
}

// readFiltered reads r to its end through an inputFilter that already
// took head, and returns the filtered frame.
func readFiltered(head []byte, r io.Reader) ([]byte, error) {
	f := &inputFilter{out: make([]byte, 0, 2*len(head)), limit: MaxToolInput}
	f.write(head)
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		f.write(buf[:n])
		if err == io.EOF {
			return f.out, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

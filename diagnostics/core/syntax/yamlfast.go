package syntax

// A fast path for the headers nearly every customization file has: a block
// mapping of `key: value` lines whose values are one-line scalars, one-line
// flow lists, or one level of nesting (`metadata:` with `key: value` lines
// below it, or a block list of one-line scalars). yaml.v3 spends most of a
// large check building its parser for such headers; fastYAML builds the
// same yaml.Node tree directly, and gives up (ok=false) on anything else —
// comments, escapes, multi-line scalars, anchors, tags, tabs, CR, numbers,
// booleans, dates, nulls — which then goes to yaml.v3 as before. That the
// trees are identical is tested against yaml.v3 on fixtures, on real
// headers and by fuzzing (FuzzFastYAML): whatever fastYAML accepts, yaml.v3
// must parse to the same tree.

import (
	"bytes"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// fastLine is one line of the header: its bytes (no line break) and number.
type fastLine struct {
	text []byte
	num  int // 1-based, as yaml.Node.Line
}

// FastYAML returns the document node yaml.Unmarshal would produce for src,
// or ok=false when src is not in the shape it knows.
func FastYAML(src []byte) (doc *yaml.Node, ok bool) {
	if len(src) == 0 || !fastBytesOK(src) {
		return nil, false
	}
	var lines []fastLine
	for n, rest := 1, src; len(rest) > 0; n++ {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			lines = append(lines, fastLine{rest, n})
			break
		}
		lines = append(lines, fastLine{rest[:i], n})
		rest = rest[i+1:]
	}
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for i := 0; i < len(lines); {
		l := lines[i]
		if isSpaces(l.text) {
			i++
			continue
		}
		if l.text[0] == ' ' {
			return nil, false // indented where no block can continue
		}
		key, rest, ok := fastKey(l, 0)
		if !ok {
			return nil, false
		}
		if len(m.Content) == 0 {
			m.Line, m.Column = key.Line, key.Column
		}
		var val *yaml.Node
		i++
		if isSpaces(rest.text) {
			val, i, ok = fastBlock(lines, i)
		} else {
			val, ok = fastValue(l, rest)
		}
		if !ok {
			return nil, false
		}
		m.Content = append(m.Content, key, val)
	}
	if len(m.Content) == 0 {
		return nil, false // empty or blank: yaml.v3 decides what that is
	}
	return &yaml.Node{Kind: yaml.DocumentNode, Line: m.Line, Column: m.Column, Content: []*yaml.Node{m}}, true
}

// fastBytesOK rejects what the fast path does not handle anywhere in the
// header: control characters and tabs, CR, comments, backslashes
// (escapes), the Unicode characters yaml.v3 treats as line breaks or
// refuses (C1 controls, U+2028/9, BOM, U+FFFE/F), and invalid UTF-8.
func fastBytesOK(src []byte) bool {
	for i := 0; i < len(src); {
		c := src[i]
		if c < utf8.RuneSelf {
			if (c < ' ' && c != '\n') || c == 0x7f || c == '\\' {
				return false
			}
			if c == '#' && (i == 0 || src[i-1] == ' ' || src[i-1] == '\n') {
				return false // a comment (a '#' inside a word is text)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError || (r >= 0x80 && r <= 0x9f) || r == 0x2028 || r == 0x2029 || r == 0xfeff || r == 0xfffe || r == 0xffff {
			return false
		}
		i += size
	}
	return true
}

// indentOf counts the spaces a line starts with.
func indentOf(b []byte) int {
	n := 0
	for n < len(b) && b[n] == ' ' {
		n++
	}
	return n
}

func isSpaces(b []byte) bool {
	for _, c := range b {
		if c != ' ' {
			return false
		}
	}
	return true
}

// maxFastKey is the longest key the fast path takes; yaml.v3 refuses a
// simple key that runs past 1,024 characters.
const maxFastKey = 512

// fastRest is what follows a key's colon on its line, from byte off.
type fastRest struct {
	text []byte
	off  int
}

// fastKey reads `key:` at byte indent of l: a key of letters, digits, '_'
// and '-' that starts with a letter, followed by ':' and then a space or
// the end of the line.
func fastKey(l fastLine, indent int) (*yaml.Node, fastRest, bool) {
	t := l.text
	j := indent
	for j < len(t) && (isAlnum(t[j]) || t[j] == '_' || t[j] == '-') {
		j++
	}
	if j == indent || !isLetter(t[indent]) || j >= len(t) || t[j] != ':' || (j+1 < len(t) && t[j+1] != ' ') {
		return nil, fastRest{}, false
	}
	if j-indent > maxFastKey {
		return nil, fastRest{}, false // yaml.v3 refuses simple keys of 1,024 characters or more
	}
	k := string(t[indent:j])
	if fastSpecial(k) {
		return nil, fastRest{}, false
	}
	key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k, Line: l.num, Column: indent + 1}
	return key, fastRest{t[j+1:], j + 1}, true
}

// fastValue reads a value on the key's line: a quoted or plain scalar or a
// flow list, with nothing but spaces after it.
func fastValue(l fastLine, rest fastRest) (*yaml.Node, bool) {
	t := rest.text
	s := 0
	for s < len(t) && t[s] == ' ' {
		s++
	}
	off := rest.off + s
	if t[s] == '[' {
		n, end, ok := fastFlowList(l, off)
		if !ok || !isSpaces(l.text[end:]) {
			return nil, false
		}
		return n, true
	}
	n, end, ok := fastScalar(l, off, false)
	if !ok || !isSpaces(l.text[end:]) {
		return nil, false
	}
	return n, true
}

// fastScalar reads a scalar starting at byte off of l and returns it and
// the byte offset after it. In a flow list (flow) a plain scalar ends at
// ',' or ']'.
func fastScalar(l fastLine, off int, flow bool) (*yaml.Node, int, bool) {
	t := l.text
	col := fastColumn(t, off)
	switch c := t[off]; c {
	case '"':
		e := bytes.IndexByte(t[off+1:], '"')
		if e < 0 {
			return nil, 0, false
		}
		v := string(t[off+1 : off+1+e])
		return &yaml.Node{Kind: yaml.ScalarNode, Style: yaml.DoubleQuotedStyle, Tag: "!!str", Value: v, Line: l.num, Column: col}, off + e + 2, true
	case '\'':
		var v []byte
		for i := off + 1; i < len(t); i++ {
			if t[i] != '\'' {
				v = append(v, t[i])
				continue
			}
			if i+1 < len(t) && t[i+1] == '\'' {
				v = append(v, '\'')
				i++
				continue
			}
			return &yaml.Node{Kind: yaml.ScalarNode, Style: yaml.SingleQuotedStyle, Tag: "!!str", Value: string(v), Line: l.num, Column: col}, i + 1, true
		}
		return nil, 0, false
	}
	if !isLetter(t[off]) && t[off] < utf8.RuneSelf {
		return nil, 0, false // indicators (anchors, aliases, tags, blocks), numbers, dates, '~', '.nan': yaml.v3's business
	}
	end := len(t)
	if flow {
		end = off
		for end < len(t) && t[end] != ',' && t[end] != ']' {
			if t[end] == '[' || t[end] == '{' || t[end] == '}' || t[end] == '?' {
				return nil, 0, false // yaml.v3 ends a flow plain scalar at these too
			}
			end++
		}
	}
	v := bytes.TrimRight(t[off:end], " ")
	if bytes.Contains(v, []byte(": ")) || v[len(v)-1] == ':' {
		return nil, 0, false
	}
	if flow && bytes.IndexByte(v, ':') >= 0 {
		return nil, 0, false // "a:b" in a flow list may be a mapping
	}
	s := string(v)
	if fastSpecial(s) {
		return nil, 0, false
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Line: l.num, Column: col}, off + len(v), true
}

// fastFlowList reads `[a, "b", 'c']` on one line starting at off (the '[').
func fastFlowList(l fastLine, off int) (*yaml.Node, int, bool) {
	t := l.text
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle, Tag: "!!seq", Line: l.num, Column: fastColumn(t, off)}
	i := off + 1
	for {
		for i < len(t) && t[i] == ' ' {
			i++
		}
		if i >= len(t) {
			return nil, 0, false
		}
		if t[i] == ']' && len(n.Content) == 0 {
			return n, i + 1, true
		}
		item, end, ok := fastScalar(fastLine{t, l.num}, i, true)
		if !ok {
			return nil, 0, false
		}
		n.Content = append(n.Content, item)
		i = end
		for i < len(t) && t[i] == ' ' {
			i++
		}
		if i >= len(t) {
			return nil, 0, false
		}
		switch t[i] {
		case ']':
			return n, i + 1, true
		case ',':
			i++
			for i < len(t) && t[i] == ' ' {
				i++
			}
			if i >= len(t) || t[i] == ']' || t[i] == ',' {
				return nil, 0, false // a trailing or empty entry: yaml.v3 decides
			}
		default:
			return nil, 0, false
		}
	}
}

// fastBlock reads the value of a key with nothing after its colon,
// starting at line i: a block list of one-line scalars ("- x", indented or
// not) or a mapping of `key: value` lines indented alike. It returns the
// node and the next line to read.
func fastBlock(lines []fastLine, i int) (*yaml.Node, int, bool) {
	for i < len(lines) && isSpaces(lines[i].text) {
		i++
	}
	if i >= len(lines) {
		return nil, 0, false // `key:` with nothing: a null, yaml.v3's business
	}
	first := lines[i].text
	indent := indentOf(first)
	if indent < len(first) && first[indent] == '-' {
		return fastBlockList(lines, i, indent)
	}
	if indent == 0 {
		return nil, 0, false
	}
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for ; i < len(lines); i++ {
		l := lines[i]
		if isSpaces(l.text) {
			continue
		}
		ind := indentOf(l.text)
		if ind == 0 {
			break
		}
		if ind != indent {
			return nil, 0, false
		}
		key, rest, ok := fastKey(l, indent)
		if !ok || isSpaces(rest.text) {
			return nil, 0, false
		}
		val, ok := fastValue(l, rest)
		if !ok {
			return nil, 0, false
		}
		if len(m.Content) == 0 {
			m.Line, m.Column = key.Line, key.Column
		}
		m.Content = append(m.Content, key, val)
	}
	return m, i, true
}

// fastBlockList reads "- item" lines at indent from line i.
func fastBlockList(lines []fastLine, i, indent int) (*yaml.Node, int, bool) {
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: lines[i].num, Column: indent + 1}
	for ; i < len(lines); i++ {
		l := lines[i]
		if isSpaces(l.text) {
			continue
		}
		ind := indentOf(l.text)
		if ind < indent || (ind == indent && l.text[ind] != '-') {
			break
		}
		if ind != indent || ind+2 >= len(l.text) || l.text[ind+1] != ' ' || l.text[ind+2] == ' ' {
			return nil, 0, false
		}
		item, end, ok := fastScalar(l, ind+2, false)
		if !ok || !isSpaces(l.text[end:]) {
			return nil, 0, false
		}
		n.Content = append(n.Content, item)
	}
	if indent > 0 && i < len(lines) {
		// An indented list must be followed by a top-level key; anything
		// else (a less indented line that is not at column 1) is not ours.
		if t := lines[i].text; len(t) > 0 && t[0] == ' ' {
			return nil, 0, false
		}
	}
	return n, i, true
}

// fastColumn is yaml.v3's 1-based column of byte off: it counts characters,
// not bytes.
func fastColumn(t []byte, off int) int {
	return utf8.RuneCount(t[:off]) + 1
}

// fastSpecial reports plain scalars yaml.v3 resolves to something other
// than a string (booleans, nulls, the merge key).
func fastSpecial(s string) bool {
	switch s {
	case "true", "True", "TRUE", "false", "False", "FALSE", "null", "Null", "NULL", "<<":
		return true
	}
	return false
}

func isLetter(c byte) bool { return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') }
func isAlnum(c byte) bool  { return isLetter(c) || ('0' <= c && c <= '9') }

package syntax

// Strict YAML (customization-formats.md §3): go.yaml.in/yaml/v3 decodes the
// header into a yaml.Node tree; rules walk it and need byte spans in the
// whole file. yaml.v3 gives 1-based lines and rune columns relative to the
// bytes it parsed (the header body, or the Claude Code retry's rewrite of
// it), and its errors carry only a line, so this file maps both back.

import (
	"bytes"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/ahpls-dev/ahpls/model"
)

// YDoc is one parse of a header: the bytes yaml.v3 saw and how to map an
// offset in them back to the file.
type YDoc struct {
	src    []byte
	lines  []int         // start offset of each line of src
	toFile func(int) int // src offset → file offset
	Root   *yaml.Node    // document content; nil for an empty header
}

// YErr is a YAML error located in the file.
type YErr struct {
	Msg  string // yaml.v3's problem text without the "yaml: line N:" prefix
	line int    // 0-based line in src
	Span model.Span
}

func NewYDoc(src []byte, toFile func(int) int) *YDoc {
	d := &YDoc{src: src, toFile: toFile, lines: []int{0}}
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '\n':
			d.lines = append(d.lines, i+1)
		case '\r':
			if i+1 < len(src) && src[i+1] == '\n' {
				i++
			}
			d.lines = append(d.lines, i+1)
		}
	}
	return d
}

// ParseYAML parses src strictly. On success err is nil and d.root is the
// document's content node (nil when the document is empty).
func ParseYAML(src []byte, toFile func(int) int) (d *YDoc, err *YErr) {
	d = NewYDoc(src, toFile)
	if fast, ok := FastYAML(src); ok {
		d.Root = fast.Content[0]
		return d, nil
	}
	var doc yaml.Node
	if e := yaml.Unmarshal(src, &doc); e != nil {
		return d, d.locate(e.Error())
	}
	if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		d.Root = doc.Content[0]
	}
	return d, nil
}

var yamlErrLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): (.*)$`) })

// locate turns a yaml.v3 error message into a span on the offending token.
// yaml.v3 reports scanner errors with 1-based lines but parser errors with
// the 0-based line of the construct's context, so the kind of message
// decides how to read the number.
func (d *YDoc) locate(msg string) *YErr {
	e := &YErr{Msg: strings.TrimPrefix(msg, "yaml: ")}
	m := yamlErrLine().FindStringSubmatch(msg)
	if m != nil {
		n, _ := strconv.Atoi(m[1])
		e.Msg = m[2]
		if scannerProblem(e.Msg) {
			n--
		}
		e.line = n
	}
	if e.line >= len(d.lines) {
		e.line = len(d.lines) - 1
	}
	if e.line < 0 {
		e.line = 0
	}
	if alias := unknownAnchor().FindStringSubmatch(msg); alias != nil {
		if i := bytes.Index(d.src, []byte("*"+alias[1])); i >= 0 {
			e.line = d.lineOf(i)
			e.Span = model.Span{Start: d.toFile(i), End: d.toFile(i + 1 + len(alias[1]))}
			return e
		}
	}
	if strings.HasPrefix(e.Msg, "did not find expected") && !scannerProblem(e.Msg) && m != nil {
		// The parser names the line where the construct began; the
		// culprit is on it or soon after: the first line that holds a
		// bracket with text after it, or else the next line.
		for l := e.line; l < len(d.lines) && l <= e.line+1; l++ {
			ls, le := d.lineSpan(l)
			if s, ok := AfterBracket(d.src[ls:le]); ok {
				e.line = l
				e.Span = model.Span{Start: d.toFile(ls + s), End: d.toFile(ls + len(bytes.TrimRight(d.src[ls:le], " \t")))}
				return e
			}
		}
		if e.line+1 < len(d.lines) {
			if ls, le := d.lineSpan(e.line + 1); len(bytes.TrimSpace(d.src[ls:le])) > 0 {
				e.line++
			}
		}
	}
	e.Span = d.tokenOnLine(e.line, e.Msg)
	return e
}

var unknownAnchor = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`unknown anchor '([^']*)' referenced`) })

func scannerProblem(msg string) bool {
	for _, p := range []string{"mapping values are not allowed", "found character that cannot start any token",
		"found a tab character", "found unexpected end of stream", "found unknown escape character",
		"could not find expected ':'", "did not find expected comment or line break",
		"did not find expected alphabetic or numeric character", "did not find URI escaped octet",
		"found unexpected document indicator", "did not find expected hexdecimal number", "found invalid Unicode character escape code",
		"found extra indentation", "found an indentation indicator equal to 0", "found a leading", "control characters"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// lineSpan returns the bounds of line l in src without its break.
func (d *YDoc) lineSpan(l int) (start, end int) {
	start = d.lines[l]
	end = len(d.src)
	if l+1 < len(d.lines) {
		end = d.lines[l+1]
	}
	for end > start && (d.src[end-1] == '\n' || d.src[end-1] == '\r') {
		end--
	}
	return start, end
}

func (d *YDoc) lineOf(off int) int {
	// The last line starting at or before off.
	return sort.SearchInts(d.lines, off+1) - 1
}

// tokenOnLine picks the token a message complains about on line l.
func (d *YDoc) tokenOnLine(l int, msg string) model.Span {
	ls, le := d.lineSpan(l)
	line := d.src[ls:le]
	span := func(s, e int) model.Span { return model.Span{Start: d.toFile(ls + s), End: d.toFile(ls + e)} }
	indent := len(line) - len(bytes.TrimLeft(line, " \t"))
	switch {
	case strings.Contains(msg, "tab character"):
		if t := bytes.IndexByte(line, '\t'); t >= 0 {
			e := t
			for e < len(line) && line[e] == '\t' {
				e++
			}
			return span(t, e)
		}
	case strings.Contains(msg, "mapping values are not allowed"):
		// The colon that would open a mapping: the second `: ` on a
		// `key: value` line at the top, else the first; ranged with the
		// word before it (`user:`), which is what a reader sees as the key.
		colons := mappingColons(line)
		pick := -1
		if len(colons) > 0 {
			pick = colons[0]
			if indent == 0 && len(colons) > 1 {
				pick = colons[1]
			}
		}
		if pick >= 0 {
			s := pick
			for s > 0 && line[s-1] != ' ' && line[s-1] != '\t' {
				s--
			}
			return span(s, pick+1)
		}
	case strings.Contains(msg, "cannot start any token"):
		if t := bytes.IndexByte(line, '\t'); t >= 0 {
			return span(t, t+1)
		}
		v := indent
		if c := bytes.Index(line, []byte(": ")); c >= 0 {
			v = c + 2
			for v < len(line) && line[v] == ' ' {
				v++
			}
		}
		if v < len(line) {
			_, size := utf8.DecodeRune(line[v:])
			return span(v, v+size)
		}
	}
	trimmed := len(bytes.TrimRight(line, " \t"))
	if trimmed <= indent {
		return span(0, len(line))
	}
	return span(indent, trimmed)
}

// mappingColons lists offsets of ':' followed by a space or the line's end,
// outside quotes.
func mappingColons(line []byte) []int {
	var out []int
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			if i == 0 || line[i-1] == ' ' {
				quote = c
			}
		case c == '#' && (i == 0 || line[i-1] == ' '):
			return out
		case c == ':' && (i+1 == len(line) || line[i+1] == ' ' || line[i+1] == '\t'):
			out = append(out, i)
		}
	}
	return out
}

// AfterBracket finds text after a closing `]`/`}` that ends a flow value
// at the start of a `key: [...]` value (`[a] [--b]`): it returns the offset
// of the first non-blank byte after the bracket.
func AfterBracket(line []byte) (int, bool) {
	c := bytes.Index(line, []byte(": "))
	if c < 0 {
		return 0, false
	}
	v := c + 2
	for v < len(line) && line[v] == ' ' {
		v++
	}
	if v >= len(line) || (line[v] != '[' && line[v] != '{') {
		return 0, false
	}
	end := matchBracket(line, v)
	if end < 0 {
		return 0, false
	}
	rest := bytes.TrimLeft(line[end:], " \t")
	if len(rest) == 0 || rest[0] == '#' {
		return 0, false
	}
	return len(line) - len(rest), true
}

// matchBracket returns the offset after the bracket closing the one at
// open, honouring quotes, or -1.
func matchBracket(b []byte, open int) int {
	depth := 0
	var quote byte
	for i := open; i < len(b); i++ {
		c := b[i]
		if quote != 0 {
			if c == '\\' && quote == '"' {
				i++
				continue
			}
			if c == quote {
				quote = 0
			}
			continue
		}
		switch c {
		case '"', '\'':
			quote = c
		case '[', '{':
			depth++
		case ']', '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// SrcOff converts a yaml.v3 line/column (1-based, columns in runes) to an
// offset in src.
func (d *YDoc) SrcOff(line, col int) int {
	l := line - 1
	if l < 0 {
		return 0
	}
	if l >= len(d.lines) {
		return len(d.src)
	}
	off := d.lines[l]
	ls, le := d.lineSpan(l)
	_ = ls
	for c := 1; c < col && off < le; c++ {
		_, size := utf8.DecodeRune(d.src[off:le])
		off += size
	}
	return off
}

// Span returns the file span of a node: a key scalar, or a whole value
// (block scalars from the indicator to the last line, collections to their
// last child or closing bracket).
func (d *YDoc) Span(n *yaml.Node) model.Span {
	s := d.SrcOff(n.Line, n.Column)
	e := d.nodeEnd(n, s, false)
	if e < s {
		e = s
	}
	return model.Span{Start: d.toFile(s), End: d.toFile(e)}
}

// SpanIn is span for a node inside parent: inside a flow collection a
// plain scalar ends at the next ',', ']' or '}', not at the line's end.
func (d *YDoc) SpanIn(n, parent *yaml.Node) model.Span {
	if parent == nil || parent.Style&yaml.FlowStyle == 0 {
		return d.Span(n)
	}
	s := d.SrcOff(n.Line, n.Column)
	e := d.nodeEnd(n, s, true)
	if e < s {
		e = s
	}
	return model.Span{Start: d.toFile(s), End: d.toFile(e)}
}

// KeySpan returns the file span of a mapping key: a plain key ends before
// its ':' (a plain scalar's own end would run on into the value).
func (d *YDoc) KeySpan(n *yaml.Node) model.Span {
	if n.Kind != yaml.ScalarNode || n.Style != 0 {
		return d.Span(n)
	}
	s := d.SrcOff(n.Line, n.Column)
	le := d.lineEndAt(s)
	e := s
	for e < le {
		c := d.src[e]
		if c == ':' && (e+1 == le || d.src[e+1] == ' ' || d.src[e+1] == '\t') {
			break
		}
		if c == ',' || c == '}' || c == ']' {
			break
		}
		e++
	}
	e = TrimRightAt(d.src, s, e)
	return model.Span{Start: d.toFile(s), End: d.toFile(e)}
}

// IndentOf counts the leading spaces of the line holding off.
func (d *YDoc) IndentOf(off int) int {
	ls := d.lines[d.lineOf(off)]
	i := ls
	for i < len(d.src) && (d.src[i] == ' ' || d.src[i] == '\t') {
		i++
	}
	return i - ls
}

func (d *YDoc) nodeEnd(n *yaml.Node, start int, flow bool) int {
	switch n.Kind {
	case yaml.AliasNode:
		if i := bytes.IndexByte(d.src[start:], '*'); i >= 0 {
			return start + i + 1 + len(n.Value)
		}
		return start
	case yaml.MappingNode, yaml.SequenceNode:
		if n.Style&yaml.FlowStyle != 0 || flow {
			for i := start; i < len(d.src); i++ {
				if d.src[i] == '[' || d.src[i] == '{' {
					if e := matchBracket(d.src, i); e >= 0 {
						return e
					}
					break
				}
			}
			return d.lineEndAt(start)
		}
		if len(n.Content) == 0 {
			return start
		}
		last := n.Content[len(n.Content)-1]
		return d.nodeEnd(last, d.SrcOff(last.Line, last.Column), false)
	case yaml.ScalarNode:
		switch {
		case n.Style&yaml.DoubleQuotedStyle != 0, n.Style&yaml.SingleQuotedStyle != 0:
			q := byte('"')
			if n.Style&yaml.SingleQuotedStyle != 0 {
				q = '\''
			}
			i := bytes.IndexByte(d.src[start:], q)
			if i < 0 {
				return d.lineEndAt(start)
			}
			for j := start + i + 1; j < len(d.src); j++ {
				if q == '"' && d.src[j] == '\\' {
					j++
					continue
				}
				if d.src[j] == q {
					if q == '\'' && j+1 < len(d.src) && d.src[j+1] == '\'' {
						j++
						continue
					}
					return j + 1
				}
			}
			return len(d.src)
		case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
			return d.blockScalarEnd(start, n.Value == "")
		}
		if flow {
			for i := start; i < len(d.src); i++ {
				switch d.src[i] {
				case ',', ']', '}', '\n', '\r':
					return TrimRightAt(d.src, start, i)
				}
			}
			return TrimRightAt(d.src, start, len(d.src))
		}
		return d.plainEnd(start, n.Value)
	}
	return start
}

// blockScalarEnd finds the last line of a `|`/`>` scalar whose indicator is
// at start: its lines are those indented at least as far as its first
// non-blank line, YAML's own rule.
func (d *YDoc) blockScalarEnd(start int, empty bool) int {
	l := d.lineOf(start)
	end := d.lineEndAt(start)
	if empty {
		return end
	}
	indent := -1
	for l+1 < len(d.lines) {
		l++
		ls, le := d.lineSpan(l)
		line := d.src[ls:le]
		if IsBlank(line) {
			continue
		}
		ind := len(line) - len(bytes.TrimLeft(line, " "))
		if indent < 0 {
			indent = ind
		}
		if ind < indent || ind == 0 {
			break
		}
		end = le
	}
	return end
}

// plainEnd finds where a plain scalar starting at start ends: it takes
// continuation lines until their folded text is as long as the value.
func (d *YDoc) plainEnd(start int, value string) int {
	l := d.lineOf(start)
	end := cutComment(d.src, start, d.lineEndAt(start))
	got := end - start
	for got < len(value) && l+1 < len(d.lines) {
		l++
		ls, le := d.lineSpan(l)
		line := bytes.TrimSpace(d.src[ls:le])
		if len(line) == 0 {
			got++
			continue
		}
		if line[0] == '#' {
			break
		}
		got += 1 + len(line)
		end = cutComment(d.src, ls, le)
	}
	return end
}

func (d *YDoc) lineEndAt(off int) int {
	_, e := d.lineSpan(d.lineOf(off))
	return e
}

// cutComment trims a ` #` comment and trailing blanks from src[start:end].
func cutComment(src []byte, start, end int) int {
	for i := start; i < end; i++ {
		if src[i] == '#' && i > start && (src[i-1] == ' ' || src[i-1] == '\t') {
			end = i
			break
		}
	}
	return TrimRightAt(src, start, end)
}

func TrimRightAt(src []byte, start, end int) int {
	for end > start && (src[end-1] == ' ' || src[end-1] == '\t') {
		end--
	}
	return end
}

// dupKey is a key repeated in one mapping.
type dupKey struct {
	First, Second *yaml.Node
	Parent        *yaml.Node
	Index         int // index of second in parent.Content
}

// DuplicateKeys walks every mapping of the tree for repeated scalar keys.
func DuplicateKeys(n *yaml.Node, out []dupKey) []dupKey {
	if n == nil {
		return out
	}
	if n.Kind == yaml.MappingNode {
		var seen map[string]*yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				continue
			}
			if seen == nil {
				seen = map[string]*yaml.Node{}
			}
			if f, ok := seen[k.Value]; ok {
				out = append(out, dupKey{First: f, Second: k, Parent: n, Index: i})
			} else {
				seen[k.Value] = k
			}
		}
	}
	for _, c := range n.Content {
		out = DuplicateKeys(c, out)
	}
	return out
}

// q quotes a user value for a message: '…', shortened, one line.
func Quote(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < ' ' {
			return ' '
		}
		return r
	}, s)
	if utf8.RuneCountInString(s) > 40 {
		rs := []rune(s)
		s = string(rs[:37]) + "…"
	}
	return "'" + s + "'"
}

func IsNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null" && (n.Value == "" || n.Value == "~" || n.Value == "null")
}

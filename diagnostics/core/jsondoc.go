package core

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ahpls-dev/ahpls/model"
)

// This file is the JSON reader shared by every JSON kind (and by the
// virtual-plugin and client-tools rooms): a small tree whose nodes carry byte
// spans, so that every finding can point at a key or a value.
//
// It is a hand-written scanner rather than jsontext because VS Code reads
// these files as JSONC: a comment or a trailing comma must be reported (Claude
// Code and Copilot CLI reject them) and then skipped so the other rules still
// run; jsontext stops at the first comment. Duplicate keys are kept in the tree
// (in source order) so the rule can point at both.

// JSONKind is the type of a JSON value.
type JSONKind uint8

const (
	JSONNull JSONKind = iota
	JSONBool
	JSONNumber
	JSONString
	JSONObject
	JSONArray
)

// String is the word used in messages ("a string", "an object").
func (k JSONKind) String() string {
	switch k {
	case JSONNull:
		return "null"
	case JSONBool:
		return "a boolean"
	case JSONNumber:
		return "a number"
	case JSONString:
		return "a string"
	case JSONObject:
		return "an object"
	case JSONArray:
		return "an array"
	}
	return "a value"
}

// JSONValue is one JSON value with the bytes it occupies.
type JSONValue struct {
	Kind JSONKind
	// Span covers the whole value: quotes of a string, brackets of an
	// object or array.
	Span model.Span
	// Str is the decoded text of a string, the source text of a number, and
	// "true"/"false" for a boolean.
	Str string
	// Members are an object's members in source order, duplicates included.
	Members []*JSONMember
	// Items are an array's elements.
	Items []*JSONValue
	// escaped marks a string whose source holds escapes, so decoded offsets
	// differ from source offsets.
	escaped bool
}

// JSONMember is one `"key": value` pair of an object.
type JSONMember struct {
	Key string
	// KeySpan covers the quoted key.
	KeySpan model.Span
	Value   *JSONValue
	// comma is the offset of the comma before this member, -1 for the first.
	Comma int
}

// Get returns the value of key, or nil. With duplicate keys the last one
// wins, as it does for every consumer.
func (v *JSONValue) Get(key string) *JSONValue {
	if m := v.Member(key); m != nil {
		return m.Value
	}
	return nil
}

// Member returns the last member named key, or nil (also for a nil or
// non-object v).
func (v *JSONValue) Member(key string) *JSONMember {
	if v == nil || v.Kind != JSONObject {
		return nil
	}
	for i := len(v.Members) - 1; i >= 0; i-- {
		if v.Members[i].Key == key {
			return v.Members[i]
		}
	}
	return nil
}

// Is reports whether v is non-nil and of kind k.
func (v *JSONValue) Is(k JSONKind) bool { return v != nil && v.Kind == k }

// StrSpan maps the decoded byte range [i, j) of a string value to source
// bytes in text (escapes make the two differ). For a non-string it returns
// the value's span.
func (v *JSONValue) StrSpan(text []byte, i, j int) model.Span {
	if v == nil || v.Kind != JSONString {
		if v == nil {
			return model.Span{}
		}
		return v.Span
	}
	if !v.escaped {
		base := v.Span.Start + 1
		return model.Span{Start: base + i, End: base + j}
	}
	start, end := -1, -1
	dec := 0
	p := v.Span.Start + 1
	last := v.Span.End - 1
	for p < last && p < len(text) {
		if dec >= i && start < 0 {
			start = p
		}
		if dec >= j && end < 0 {
			end = p
			break
		}
		if text[p] == '\\' && p+1 < last {
			n, r := 2, rune(0)
			switch text[p+1] {
			case 'u':
				r = jHex4(text, p+2)
				n = 6
				if utf16.IsSurrogate(r) && p+12 <= last && text[p+6] == '\\' && text[p+7] == 'u' {
					if r2 := utf16.DecodeRune(r, jHex4(text, p+8)); r2 != utf8.RuneError {
						r, n = r2, 12
					}
				}
				if utf16.IsSurrogate(r) {
					r = utf8.RuneError
				}
				dec += utf8.RuneLen(r)
			default:
				dec++
			}
			p += n
			continue
		}
		dec++
		p++
	}
	if start < 0 {
		start = p
	}
	if end < 0 {
		end = p
	}
	return model.Span{Start: start, End: end}
}

// Inner is the span of a string's characters without the quotes.
func (v *JSONValue) Inner() model.Span {
	if v == nil {
		return model.Span{}
	}
	if v.Kind != JSONString {
		return v.Span
	}
	return model.Span{Start: v.Span.Start + 1, End: v.Span.End - 1}
}

func jHex4(text []byte, p int) rune {
	if p+4 > len(text) {
		return utf8.RuneError
	}
	var r rune
	for _, c := range text[p : p+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return utf8.RuneError
		}
	}
	return r
}

// JSONFinding is a problem the parser saw, before the reporter turns it into
// a diagnostic with per-target verdicts.
type JSONFinding struct {
	Rule    *Rule // jsonSyntax, jsonJsonc or jsonDuplicateKey
	Span    model.Span
	Message string // for json/syntax: what is wrong, without the consequence
	first   model.Span
	Key     string
	del     model.Span // what a quick fix deletes
}

// MaxJSONDepth bounds recursion on hostile input; real files are shallow.
const MaxJSONDepth = 512

type jsonParser struct {
	text     []byte
	p        int
	findings []JSONFinding
	err      *JSONFinding
	depth    int
}

// ParseJSONTree parses text as one JSON(C) value. On a syntax error the
// value is nil and the error is the last finding.
func ParseJSONTree(text []byte) (*JSONValue, []JSONFinding) {
	ps := &jsonParser{text: text}
	// A UTF-8 BOM is tolerated by VS Code and Node's readers alike.
	if strings.HasPrefix(string(text), "\uFEFF") {
		ps.p = 3
	}
	ps.ws()
	if ps.err == nil && ps.p >= len(text) {
		ps.fail(model.Span{Start: 0, End: 0}, "the file is empty")
	}
	var v *JSONValue
	if ps.err == nil {
		v = ps.value()
	}
	if ps.err == nil {
		ps.ws()
		if ps.err == nil && ps.p < len(text) {
			ps.fail(ps.token(ps.p), fmt.Sprintf("unexpected %s after the end of the JSON value", ps.describe(ps.p)))
		}
	}
	if ps.err != nil {
		return nil, append(ps.findings, *ps.err)
	}
	return v, ps.findings
}

// unclosed reports a bracket still open at the end of the file. The range
// is the file's last token, where the reader actually fails; the message
// names the line of the bracket that is missing its partner.
func (ps *jsonParser) unclosed(open int) {
	end := len(ps.text)
	for end > 0 && strings.IndexByte(" \t\r\n", ps.text[end-1]) >= 0 {
		end--
	}
	start := end
	if end > 0 {
		_, n := utf8.DecodeLastRune(ps.text[:end])
		start = end - n
	}
	line := model.NewLineIndex(ps.text).Position(open, model.UTF8).Line + 1
	ps.fail(model.Span{Start: start, End: end}, fmt.Sprintf("the file ends before the '%c' on line %d is closed", ps.text[open], line))
}

func (ps *jsonParser) fail(s model.Span, msg string) {
	if ps.err == nil {
		ps.err = &JSONFinding{Rule: JSONSyntax, Span: s, Message: msg}
	}
}

// ws skips whitespace and comments, recording each comment.
func (ps *jsonParser) ws() {
	t := ps.text
	for ps.p < len(t) {
		switch t[ps.p] {
		case ' ', '\t', '\n', '\r':
			ps.p++
		case '/':
			start := ps.p
			if ps.p+1 < len(t) && t[ps.p+1] == '/' {
				for ps.p < len(t) && t[ps.p] != '\n' && t[ps.p] != '\r' {
					ps.p++
				}
			} else if ps.p+1 < len(t) && t[ps.p+1] == '*' {
				end := bytes.Index(t[ps.p+2:], []byte("*/"))
				if end < 0 {
					ps.fail(model.Span{Start: start, End: start + 2}, "this '/*' comment is never closed")
					ps.p = len(t)
					return
				}
				ps.p += 2 + end + 2
			} else {
				return
			}
			ps.findings = append(ps.findings, JSONFinding{Rule: JSONJsonc, Span: model.Span{Start: start, End: ps.p}, Message: "comment", del: model.Span{Start: start, End: ps.p}})
		default:
			return
		}
	}
}

// token is the span of the token starting at i, for error ranges: a word,
// a string up to its closing quote on the same line, or one character.
func (ps *jsonParser) token(i int) model.Span {
	t := ps.text
	if i >= len(t) {
		return model.Span{Start: len(t), End: len(t)}
	}
	c := t[i]
	switch {
	case c == '"':
		j := i + 1
		for j < len(t) && t[j] != '"' && t[j] != '\n' && t[j] != '\r' {
			if t[j] == '\\' {
				j++
			}
			j++
		}
		if j < len(t) && t[j] == '"' {
			j++
		}
		if j > len(t) {
			j = len(t)
		}
		return model.Span{Start: i, End: j}
	case jWordByte(c):
		j := i
		for j < len(t) && jWordByte(t[j]) {
			j++
		}
		return model.Span{Start: i, End: j}
	}
	_, n := utf8.DecodeRune(t[i:])
	return model.Span{Start: i, End: i + n}
}

func jWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$' || c == '-' || c == '.' || c == '+' || c >= 0x80
}

func (ps *jsonParser) describe(i int) string {
	if i >= len(ps.text) {
		return "end of file"
	}
	s := ps.token(i)
	tok := string(ps.text[s.Start:s.End])
	if len(tok) > 24 {
		tok = tok[:24] + "…"
	}
	return "'" + tok + "'"
}

func (ps *jsonParser) value() *JSONValue {
	t := ps.text
	if ps.p >= len(t) {
		ps.fail(ps.token(ps.p), "a value is missing before the end of the file")
		return nil
	}
	switch c := t[ps.p]; {
	case c == '{':
		return ps.object()
	case c == '[':
		return ps.array()
	case c == '"':
		return ps.str()
	case c == '-' || c >= '0' && c <= '9':
		return ps.number()
	case c == 't' || c == 'f' || c == 'n':
		s := ps.token(ps.p)
		w := string(t[s.Start:s.End])
		switch w {
		case "true", "false":
			ps.p = s.End
			return &JSONValue{Kind: JSONBool, Span: s, Str: w}
		case "null":
			ps.p = s.End
			return &JSONValue{Kind: JSONNull, Span: s}
		}
		ps.fail(s, fmt.Sprintf("'%s' is not a JSON value (strings need double quotes)", JClip(w)))
	case c == '\'':
		ps.fail(ps.token(ps.p), "JSON strings need double quotes, not single quotes")
	case c == '}' || c == ']' || c == ',':
		ps.fail(ps.token(ps.p), fmt.Sprintf("a value is missing before '%c'", c))
	default:
		ps.fail(ps.token(ps.p), fmt.Sprintf("%s is not a JSON value (strings need double quotes)", ps.describe(ps.p)))
	}
	return nil
}

// JClip shortens a value quoted in a message.
func JClip(s string) string { return JClipN(s, 40) }

func JClipN(s string, n int) string {
	if utf8.RuneCountInString(s) > n {
		r := []rune(s)
		return string(r[:n]) + "…"
	}
	return s
}

func (ps *jsonParser) enter() bool {
	ps.depth++
	if ps.depth > MaxJSONDepth {
		ps.fail(ps.token(ps.p), fmt.Sprintf("values are nested more than %d levels deep", MaxJSONDepth))
		return false
	}
	return true
}

func (ps *jsonParser) object() *JSONValue {
	t := ps.text
	open := ps.p
	if !ps.enter() {
		return nil
	}
	defer func() { ps.depth-- }()
	v := &JSONValue{Kind: JSONObject}
	ps.p++
	// Duplicate keys: a linear scan for the small objects that make up
	// nearly every file, a map once an object grows.
	var seen map[string]*JSONMember
	firstOf := func(key string) *JSONMember {
		if seen != nil {
			return seen[key]
		}
		for _, m := range v.Members {
			if m.Key == key {
				return m
			}
		}
		return nil
	}
	comma := -1
	for {
		ps.ws()
		if ps.err != nil {
			return nil
		}
		if ps.p >= len(t) {
			ps.unclosed(open)
			return nil
		}
		if t[ps.p] == '}' {
			if comma >= 0 {
				ps.findings = append(ps.findings, JSONFinding{Rule: JSONJsonc, Span: model.Span{Start: comma, End: comma + 1}, Message: "trailing comma", del: model.Span{Start: comma, End: comma + 1}})
			}
			ps.p++
			v.Span = model.Span{Start: open, End: ps.p}
			return v
		}
		if t[ps.p] != '"' {
			if len(v.Members) > 0 && comma < 0 {
				ps.fail(ps.token(ps.p), fmt.Sprintf("expected ',' or '}' after the member, found %s", ps.describe(ps.p)))
			} else if t[ps.p] == '\'' {
				ps.fail(ps.token(ps.p), "JSON keys need double quotes, not single quotes")
			} else {
				ps.fail(ps.token(ps.p), fmt.Sprintf("expected a double-quoted key, found %s", ps.describe(ps.p)))
			}
			return nil
		}
		if len(v.Members) > 0 && comma < 0 {
			ps.fail(ps.token(ps.p), "a ',' is missing before this key")
			return nil
		}
		k := ps.str()
		if ps.err != nil {
			return nil
		}
		ps.ws()
		if ps.err != nil {
			return nil
		}
		if ps.p >= len(t) || t[ps.p] != ':' {
			ps.fail(ps.token(ps.p), fmt.Sprintf("expected ':' after the key '%s', found %s", JClip(k.Str), ps.describe(ps.p)))
			return nil
		}
		ps.p++
		ps.ws()
		if ps.err != nil {
			return nil
		}
		val := ps.value()
		if ps.err != nil {
			return nil
		}
		m := &JSONMember{Key: k.Str, KeySpan: k.Span, Value: val, Comma: comma}
		if first := firstOf(k.Str); first != nil {
			del := model.Span{Start: comma, End: val.Span.End}
			ps.findings = append(ps.findings, JSONFinding{Rule: JSONDuplicateKey, Span: k.Span, first: first.KeySpan, Key: k.Str, del: del})
		} else if seen != nil {
			seen[k.Str] = m
		}
		v.Members = append(v.Members, m)
		if seen == nil && len(v.Members) == 16 {
			seen = make(map[string]*JSONMember, 32)
			for i := len(v.Members) - 1; i >= 0; i-- {
				seen[v.Members[i].Key] = v.Members[i] // first occurrence wins
			}
		}
		ps.ws()
		if ps.err != nil {
			return nil
		}
		comma = -1
		if ps.p < len(t) && t[ps.p] == ',' {
			comma = ps.p
			ps.p++
		}
	}
}

func (ps *jsonParser) array() *JSONValue {
	t := ps.text
	open := ps.p
	if !ps.enter() {
		return nil
	}
	defer func() { ps.depth-- }()
	v := &JSONValue{Kind: JSONArray}
	ps.p++
	comma := -1
	for {
		ps.ws()
		if ps.err != nil {
			return nil
		}
		if ps.p >= len(t) {
			ps.unclosed(open)
			return nil
		}
		if t[ps.p] == ']' {
			if comma >= 0 {
				ps.findings = append(ps.findings, JSONFinding{Rule: JSONJsonc, Span: model.Span{Start: comma, End: comma + 1}, Message: "trailing comma", del: model.Span{Start: comma, End: comma + 1}})
			}
			ps.p++
			v.Span = model.Span{Start: open, End: ps.p}
			return v
		}
		if len(v.Items) > 0 && comma < 0 {
			ps.fail(ps.token(ps.p), fmt.Sprintf("expected ',' or ']' after the element, found %s", ps.describe(ps.p)))
			return nil
		}
		item := ps.value()
		if ps.err != nil {
			return nil
		}
		v.Items = append(v.Items, item)
		ps.ws()
		if ps.err != nil {
			return nil
		}
		comma = -1
		if ps.p < len(t) && t[ps.p] == ',' {
			comma = ps.p
			ps.p++
		}
	}
}

func (ps *jsonParser) str() *JSONValue {
	t := ps.text
	open := ps.p
	i := open + 1
	var b []byte // nil until the first escape
	for {
		if i >= len(t) || t[i] == '\n' || t[i] == '\r' {
			ps.fail(model.Span{Start: open, End: i}, "this string is never closed (a '\"' is missing)")
			return nil
		}
		c := t[i]
		if c == '"' {
			break
		}
		if c < 0x20 {
			ps.fail(model.Span{Start: i, End: i + 1}, "control characters such as tabs must be escaped inside strings")
			return nil
		}
		if c != '\\' {
			if b != nil {
				b = append(b, c)
			}
			i++
			continue
		}
		if b == nil {
			b = append([]byte(nil), t[open+1:i]...)
		}
		if i+1 >= len(t) {
			ps.fail(model.Span{Start: i, End: i + 1}, "this string is never closed (a '\"' is missing)")
			return nil
		}
		switch e := t[i+1]; e {
		case '"', '\\', '/':
			b = append(b, e)
			i += 2
		case 'b':
			b, i = append(b, '\b'), i+2
		case 'f':
			b, i = append(b, '\f'), i+2
		case 'n':
			b, i = append(b, '\n'), i+2
		case 'r':
			b, i = append(b, '\r'), i+2
		case 't':
			b, i = append(b, '\t'), i+2
		case 'u':
			r := jHex4(t, i+2)
			if r == utf8.RuneError {
				end := i + 6
				if end > len(t) {
					end = len(t)
				}
				ps.fail(model.Span{Start: i, End: end}, "'\\u' must be followed by four hex digits")
				return nil
			}
			n := 6
			if utf16.IsSurrogate(r) {
				if i+12 <= len(t) && t[i+6] == '\\' && t[i+7] == 'u' {
					if r2 := utf16.DecodeRune(r, jHex4(t, i+8)); r2 != utf8.RuneError {
						r, n = r2, 12
					}
				}
				if utf16.IsSurrogate(r) {
					r = utf8.RuneError
				}
			}
			b = utf8.AppendRune(b, r)
			i += n
		default:
			_, n := utf8.DecodeRune(t[i+1:])
			ps.fail(model.Span{Start: i, End: i + 1 + n}, fmt.Sprintf("'\\%s' is not a JSON escape", string(t[i+1:i+1+n])))
			return nil
		}
	}
	ps.p = i + 1
	v := &JSONValue{Kind: JSONString, Span: model.Span{Start: open, End: ps.p}}
	if b != nil {
		v.Str, v.escaped = string(b), true
	} else {
		v.Str = string(t[open+1 : i])
	}
	return v
}

func (ps *jsonParser) number() *JSONValue {
	t := ps.text
	start := ps.p
	i := start
	bad := func() *JSONValue {
		ps.fail(ps.token(start), fmt.Sprintf("%s is not a valid JSON number", ps.describe(start)))
		return nil
	}
	digits := func() int {
		n := 0
		for i < len(t) && t[i] >= '0' && t[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(t) && t[i] == '-' {
		i++
	}
	if i < len(t) && t[i] == '0' {
		i++
	} else if digits() == 0 {
		return bad()
	}
	if i < len(t) && t[i] == '.' {
		i++
		if digits() == 0 {
			return bad()
		}
	}
	if i < len(t) && (t[i] == 'e' || t[i] == 'E') {
		i++
		if i < len(t) && (t[i] == '+' || t[i] == '-') {
			i++
		}
		if digits() == 0 {
			return bad()
		}
	}
	if i < len(t) && jWordByte(t[i]) {
		return bad() // 01, 1x, 1.2.3
	}
	ps.p = i
	return &JSONValue{Kind: JSONNumber, Span: model.Span{Start: start, End: i}, Str: string(t[start:i])}
}

// JSONReaders are the targets that read JSON at all; json/* verdicts name
// them.
var JSONReaders = []model.Target{model.TargetVSCodeAgentHost, model.TargetVSCode, model.TargetClaudeCode, model.TargetCopilotCLI}

// MCPServerKeySpan returns the span of the quoted key of server name in an
// MCP config: under `mcpServers` (also `servers`), or in a bare map. Other
// rooms use it to point at a server, e.g. in code lenses.
func MCPServerKeySpan(text []byte, name string) (model.Span, bool) {
	root, _ := ParseJSONTree(text)
	if root == nil || root.Kind != JSONObject {
		return model.Span{}, false
	}
	for _, wrapper := range []string{"mcpServers", "servers"} {
		if m := root.Get(wrapper).Member(name); m != nil {
			return m.KeySpan, true
		}
	}
	if root.Get("mcpServers") == nil && root.Get("servers") == nil {
		if m := root.Member(name); m != nil && m.Value.Is(JSONObject) {
			return m.KeySpan, true
		}
	}
	return model.Span{}, false
}

// ClipQuote quotes s for a message, cut to 40 characters.
func ClipQuote(s string) string { return "`" + JClip(s) + "`" }

// MembersOf is an object's members, nil for anything else.
func (v *JSONValue) MembersOf() []*JSONMember {
	if v == nil || v.Kind != JSONObject {
		return nil
	}
	return v.Members
}

// OpenBrace is the span of a JSON object's opening brace, where a finding
// about the whole object points.
func OpenBrace(obj *JSONValue) model.Span {
	return model.Span{Start: obj.Span.Start, End: obj.Span.Start + 1}
}

package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// jnode is one JSON value with the byte offsets it occupies in the source,
// so that every problem can point at a key or a value. encoding/json keeps no
// offsets; jsontext does, and also rejects duplicate keys and invalid UTF-8.
type jnode struct {
	kind       jsontext.Kind // '{', '[', '"', '0', 't', 'f', 'n'
	start, end int           // the value, end exclusive
	// key and keyStart/keyEnd are set when the value is an object member.
	key              string
	keyStart, keyEnd int
	raw              []byte   // scalars only
	kids             []*jnode // object members in order, or array elements
}

// maxConfigDepth bounds recursion on hostile input; real configs are shallow
// apart from input schemas, which rarely nest more than a dozen levels.
const maxConfigDepth = 200

// parseSpans parses data as exactly one JSON value. On a syntax error it
// returns a Problem at the offending offset.
func parseSpans(data []byte) (*jnode, *Problem) {
	d := jsontext.NewDecoder(bytes.NewReader(data))
	n, err := parseNode(d, 0)
	if err == nil {
		// Anything but whitespace after the value is an error.
		if _, err2 := d.ReadToken(); err2 == nil {
			err = fmt.Errorf("unexpected data after the top-level value")
		} else if !errors.Is(err2, io.EOF) {
			err = err2
		}
		if err != nil {
			off := int(d.InputOffset())
			return nil, syntaxProblem(data, err, off)
		}
		return n, nil
	}
	return nil, syntaxProblem(data, err, int(d.InputOffset()))
}

func syntaxProblem(data []byte, err error, fallback int) *Problem {
	off := fallback
	msg := err.Error()
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		off = int(se.ByteOffset)
		if se.Err != nil {
			msg = se.Err.Error()
		}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		msg = "unexpected end of file"
		off = len(data)
	}
	if off < 0 {
		off = 0
	}
	if off > len(data) {
		off = len(data)
	}
	end := off + 1
	if off < len(data) && data[off] == '"' {
		// Underline the whole string (typically a duplicate key).
		for i := off + 1; i < len(data); i++ {
			if data[i] == '\\' {
				i++
				continue
			}
			if data[i] == '"' || data[i] == '\n' {
				end = i + 1
				break
			}
		}
	}
	if end > len(data) {
		end = len(data)
	}
	return &Problem{Start: off, End: end, Message: "invalid JSON: " + msg, Severity: SeverityError}
}

func parseNode(d *jsontext.Decoder, depth int) (*jnode, error) {
	if depth > maxConfigDepth {
		return nil, fmt.Errorf("nesting deeper than %d levels", maxConfigDepth)
	}
	switch k := d.PeekKind(); k {
	case '{', '[':
		if _, err := d.ReadToken(); err != nil {
			return nil, err
		}
		n := &jnode{kind: k, start: int(d.InputOffset()) - 1}
		closing := jsontext.Kind('}')
		if k == '[' {
			closing = ']'
		}
		for d.PeekKind() != closing {
			var key string
			var ks, ke int
			if k == '{' {
				v, err := d.ReadValue()
				if err != nil {
					return nil, err
				}
				ke = int(d.InputOffset())
				ks = ke - len(v)
				u, err := jsontext.AppendUnquote(nil, v)
				if err != nil {
					return nil, err
				}
				key = string(u)
			}
			kid, err := parseNode(d, depth+1)
			if err != nil {
				return nil, err
			}
			if k == '{' {
				kid.key, kid.keyStart, kid.keyEnd = key, ks, ke
			}
			n.kids = append(n.kids, kid)
		}
		if _, err := d.ReadToken(); err != nil {
			return nil, err
		}
		n.end = int(d.InputOffset())
		return n, nil
	default:
		v, err := d.ReadValue()
		if err != nil {
			return nil, err
		}
		end := int(d.InputOffset())
		return &jnode{kind: v.Kind(), start: end - len(v), end: end, raw: bytes.Clone(v)}, nil
	}
}

// value converts the node to the generic form jsonschema validates:
// map[string]any, []any, string, json.Number, bool, nil.
func (n *jnode) value() any {
	switch n.kind {
	case '{':
		m := make(map[string]any, len(n.kids))
		for _, k := range n.kids {
			m[k.key] = k.value()
		}
		return m
	case '[':
		a := make([]any, len(n.kids))
		for i, k := range n.kids {
			a[i] = k.value()
		}
		return a
	case '"':
		s, _ := jsontext.AppendUnquote(nil, n.raw)
		return string(s)
	case '0':
		return json.Number(n.raw)
	case 't':
		return true
	case 'f':
		return false
	default:
		return nil
	}
}

// member returns the object member named key, or nil.
func (n *jnode) member(key string) *jnode {
	if n == nil || n.kind != '{' {
		return nil
	}
	for _, k := range n.kids {
		if k.key == key {
			return k
		}
	}
	return nil
}

// str returns the node's string value and whether it is a string.
func (n *jnode) str() (string, bool) {
	if n == nil || n.kind != '"' {
		return "", false
	}
	s, err := jsontext.AppendUnquote(nil, n.raw)
	return string(s), err == nil
}

// lookup follows a JSON pointer given as tokens as far as it exists and
// returns the deepest node reached.
func (n *jnode) lookup(path []string) *jnode {
	cur := n
	for _, tok := range path {
		var next *jnode
		switch cur.kind {
		case '{':
			next = cur.member(tok)
		case '[':
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(cur.kids) {
				next = cur.kids[i]
			}
		}
		if next == nil {
			return cur
		}
		cur = next
	}
	return cur
}

// keySpan is where to point for a problem about the member as a whole: its
// key when it has one, else the first byte of the value (an opening brace
// is more readable than underlining a whole object).
func (n *jnode) keySpan() (int, int) {
	if n.keyEnd > n.keyStart {
		return n.keyStart, n.keyEnd
	}
	if n.kind == '{' || n.kind == '[' {
		return n.start, n.start + 1
	}
	return n.start, n.end
}

func pointer(path []string) string {
	var b bytes.Buffer
	for _, t := range path {
		b.WriteByte('/')
		for _, r := range t {
			switch r {
			case '~':
				b.WriteString("~0")
			case '/':
				b.WriteString("~1")
			default:
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

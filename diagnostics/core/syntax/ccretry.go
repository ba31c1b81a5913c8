package syntax

// The Claude Code retry (customization-formats.md §3): when strict parsing
// fails, Claude Code double-quotes top-level one-line plain values that hold
// YAML indicator characters, turns leading tabs into two spaces each, and
// parses again. We do the same so that rules see what Claude Code sees, and
// keep a byte map from the rewritten text back to the original.

import (
	"bytes"
	"regexp"
	"sync"

	"go.yaml.in/yaml/v3"
)

// RetryEdit is one change the retry made, in offsets of the header body.
type RetryEdit struct {
	Quoted bool // a value was quoted (else: leading tabs replaced)
	Line   int  // 0-based line in the body
	Start  int  // body offset of the value (quoted) or the tabs
	End    int
}

// retryResult is the rewritten body and where each byte came from.
type retryResult struct {
	Src   []byte
	Orig  []int // orig[i] = body offset of src[i]; len(src)+1 entries
	Edits []RetryEdit
}

var retryKeyLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([A-Za-z_-]+):[ \t]+(\S.*)$`) })

// blockIndicator matches a bare block scalar header (`|`, `>-`, `|2`):
// quoting it would turn a valid block scalar into a string, which is not
// a repair.
var blockIndicator = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[|>][-+0-9]*$`) })

// CCRetry rewrites body as Claude Code's retry does. It reports ok=false
// when the retry would change nothing.
func CCRetry(body []byte) (retryResult, bool) {
	var res retryResult
	res.Src = make([]byte, 0, len(body)+16)
	res.Orig = make([]int, 0, len(body)+17)
	emit := func(b byte, from int) {
		res.Src = append(res.Src, b)
		res.Orig = append(res.Orig, from)
	}
	line := 0
	for pos := 0; pos < len(body); line++ {
		end, next := LineAt(body, pos)
		l := body[pos:end]
		i := 0
		for i < len(l) && l[i] == '\t' {
			emit(' ', pos+i)
			emit(' ', pos+i)
			i++
		}
		if i > 0 {
			res.Edits = append(res.Edits, RetryEdit{Line: line, Start: pos, End: pos + i})
		}
		if m := retryKeyLine().FindSubmatchIndex(l); i == 0 && m != nil && needsQuote(l[m[4]:m[5]]) {
			vs, ve := m[4], m[5]
			for j := 0; j < vs; j++ {
				emit(l[j], pos+j)
			}
			emit('"', pos+vs)
			for j := vs; j < ve; j++ {
				if l[j] == '"' || l[j] == '\\' {
					emit('\\', pos+j)
				}
				emit(l[j], pos+j)
			}
			emit('"', pos+ve)
			res.Edits = append(res.Edits, RetryEdit{Quoted: true, Line: line, Start: pos + vs, End: pos + ve})
		} else {
			for j := i; j < len(l); j++ {
				emit(l[j], pos+j)
			}
		}
		for j := end; j < next; j++ {
			emit(body[j], j)
		}
		pos = next
	}
	res.Orig = append(res.Orig, len(body))
	return res, len(res.Edits) > 0
}

func needsQuote(v []byte) bool {
	v = bytes.TrimRight(v, " \t")
	if len(v) == 0 || v[0] == '"' || v[0] == '\'' || blockIndicator().Match(v) {
		return false
	}
	if !bytes.ContainsAny(v, "{}[]*&#!|>%@`") && !bytes.Contains(v, []byte(": ")) {
		return false
	}
	if v[0] == '[' {
		// yaml.v3 stops after the first node, so `[a] [b]` would parse
		// as a list: the bracket must also end the value.
		if e := matchBracket(v, 0); e < 0 || len(bytes.TrimLeft(v[e:], " \t")) > 0 && bytes.TrimLeft(v[e:], " \t")[0] != '#' {
			return true
		}
		var n yaml.Node
		if yaml.Unmarshal(v, &n) == nil && len(n.Content) > 0 && n.Content[0].Kind == yaml.SequenceNode {
			return false
		}
	}
	return true
}

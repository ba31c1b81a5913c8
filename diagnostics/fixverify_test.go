package diagnostics

// The fix verifier: code independent of the production fix guard
// (fixguard.go) that checks a safe fix by applying it and reading the file
// again another way. It splits the header with its own line scan, decodes
// YAML into Go values (the guard walks yaml.Node trees) and JSON with
// ParseJSON (the guard uses encoding/json), splits each consumer's lists
// with its own code, and re-runs every rule to see that no new finding of
// any level appears.

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/syntax"

	"bytes"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ahpls-dev/ahpls/model"
)

// errUnverifiable: the verifier's reader cannot read the file before the
// fix (a YAML map used as a key, which Go values cannot hold), so it
// proves nothing either way; callers count these apart.
var errUnverifiable = errors.New("the verifier cannot read the file before the fix")

// spliceEdits applies edits from the last to the first.
func spliceEdits(text []byte, edits []model.Edit) []byte {
	es := slices.Clone(edits)
	sort.Slice(es, func(i, j int) bool { return es[i].Span.Start > es[j].Span.Start })
	out := slices.Clone(text)
	for _, e := range es {
		out = slices.Concat(out[:e.Span.Start], []byte(e.NewText), out[e.Span.End:])
	}
	return out
}

// verifyFix reports why applying fx (a fix of d in f) does not keep the
// file parsing with only d's target changed, or nil.
func verifyFix(f core.File, opts core.Options, d model.Diagnostic, fx model.Fix) error {
	for _, e := range fx.Edits {
		if e.Path != "" {
			return fmt.Errorf("edits another file")
		}
	}
	after := spliceEdits(f.Text, fx.Edits)
	var err error
	if f.Kind.Markdown() {
		err = verifyHeader(f.Text, after, d)
	} else {
		err = verifyJSON(f.Text, after, d.Rule)
	}
	if err != nil {
		return err
	}
	g := f
	g.Text = after
	return noNewFindings(Check(f, opts), Check(g, opts), headerRepairs[d.Rule], fx.Edits)
}

// headerRepairs are the rules whose fix makes a header that a consumer
// stopped reading part-way readable to its end: findings on the values
// after it, unchanged as the second reader showed, were hidden, not made.
var headerRepairs = map[string]bool{"yaml/unquoted-special": true, "yaml/tab-indent": true, "yaml/syntax": true}

// uncovered: a finding after a header repair that lies wholly after the
// repaired text (edits are in the text before the fix; a finding after it
// is shifted by what the edits added).
func uncovered(d model.Diagnostic, edits []model.Edit) bool {
	grow, last := 0, 0
	for _, e := range edits {
		grow += len(e.NewText) - (e.Span.End - e.Span.Start)
		last = max(last, e.Span.End)
	}
	return d.Span.Start >= last+grow
}

// noNewFindings: no rule reports more findings of a level after the fix
// than before it (messages may name other consumers once a value reads
// whole).
//
// yaml/syntax and yaml/unquoted-special count as one: both say the header
// is not valid YAML, and when quoting one of two bad values leaves the
// other, the rest is reported under yaml/syntax (the retry path reports
// that only when no repaired value was reported; fixing one uncovers it).
func noNewFindings(before, after []model.Diagnostic, repair bool, edits []model.Edit) error {
	class := func(d model.Diagnostic) string {
		r := d.Rule
		if r == "yaml/unquoted-special" {
			r = "yaml/syntax"
		}
		return r + "\x00" + d.Severity.String()
	}
	seen := map[string]int{}
	for _, d := range before {
		seen[class(d)]++
	}
	for _, d := range after {
		k := class(d)
		if seen[k] == 0 {
			if repair && uncovered(d, edits) {
				continue
			}
			return fmt.Errorf("new finding %s: %s", d.Rule, d.Message)
		}
		seen[k]--
	}
	return nil
}

// headerOf splits text at its `---` lines: the header (nil when there is
// none) and the rest.
func headerOf(text []byte) (header, body []byte, ok bool) {
	text = bytes.TrimPrefix(text, []byte("\ufeff"))
	lines := bytes.SplitAfter(text, []byte("\n"))
	isDash := func(l []byte) bool { return string(bytes.TrimRight(l, " \t\r\n")) == "---" }
	first := 0
	for first < len(lines) && len(bytes.TrimSpace(lines[first])) == 0 {
		first++
	}
	if first == len(lines) || !isDash(lines[first]) {
		return nil, text, false
	}
	for i := first + 1; i < len(lines); i++ {
		if isDash(lines[i]) {
			return bytes.Join(lines[first+1:i], nil), bytes.Join(lines[i+1:], nil), true
		}
	}
	return bytes.Join(lines[first+1:], nil), nil, true
}

// decodeHeader reads a header into Go values: strictly, or (old=true) as
// Claude Code's retry reads a header that fails strictly.
func decodeHeader(h []byte, old bool) (map[string]any, error) {
	var v map[string]any
	err := yaml.Unmarshal(h, &v)
	if err != nil && old {
		if res, changed := syntax.CCRetry(h); changed {
			v = nil
			err = yaml.Unmarshal(res.Src, &v)
		}
	}
	for k, x := range v {
		v[k] = stringKeys(x)
	}
	return v, err
}

// stringKeys turns maps with non-string keys (`{0: x}`) into maps keyed
// by the key's text, as a JavaScript reader keys them.
func stringKeys(v any) any {
	switch x := v.(type) {
	case map[any]any:
		m := map[string]any{}
		for k, e := range x {
			m[fmt.Sprint(k)] = stringKeys(e)
		}
		return m
	case map[string]any:
		for k, e := range x {
			x[k] = stringKeys(e)
		}
	case []any:
		for i, e := range x {
			x[i] = stringKeys(e)
		}
	}
	return v
}

var topKey = regexp.MustCompile(`^([^\s#'"][^:]*|'[^']*'|"[^"]*"):(\s|$)`)

// keyOfLine names the top-level key whose entry holds byte off of text.
func keyOfLine(text []byte, off int) string {
	ls := bytes.Split(text[:off], []byte("\n"))
	ls[len(ls)-1] = append(ls[len(ls)-1], text[off:min(len(text), off+bytes.IndexByte(append(text[off:], '\n'), '\n'))]...)
	for i := len(ls) - 1; i >= 0; i-- {
		if m := topKey.FindSubmatch(ls[i]); m != nil {
			return strings.Trim(string(m[1]), `'"`)
		}
	}
	return ""
}

func verifyHeader(before, after []byte, d model.Diagnostic) error {
	oh, ob, ok1 := headerOf(before)
	nh, nb, ok2 := headerOf(after)
	if d.Rule == "fm/crlf" {
		ob, nb = bytes.ReplaceAll(ob, []byte("\r\n"), []byte("\n")), bytes.ReplaceAll(nb, []byte("\r\n"), []byte("\n"))
		oh, nh = bytes.ReplaceAll(oh, []byte("\r\n"), []byte("\n")), bytes.ReplaceAll(nh, []byte("\r\n"), []byte("\n"))
	}
	if ok1 != ok2 || !bytes.Equal(ob, nb) {
		return fmt.Errorf("the body or the header's presence changed")
	}
	if !ok1 {
		return nil
	}
	ov, err := decodeHeader(oh, true)
	if err != nil {
		return fmt.Errorf("%w: %v", errUnverifiable, err)
	}
	// A header that parsed must still parse; one that only the retry read
	// may still need it.
	_, strictErr := decodeHeader(oh, false)
	nv, err := decodeHeader(nh, strictErr != nil)
	if err != nil {
		return fmt.Errorf("header does not parse after the fix: %v", err)
	}
	target := ""
	switch d.Rule {
	case "fm/bom", "fm/crlf", "yaml/tab-indent":
	default:
		target = keyOfLine(before, d.Span.Start)
	}
	keys := map[string]bool{}
	for k := range ov {
		keys[k] = true
	}
	for k := range nv {
		keys[k] = true
	}
	for k := range keys {
		o, okO := ov[k]
		n, okN := nv[k]
		if okO != okN {
			return fmt.Errorf("key %q added or removed", k)
		}
		if k == target {
			if err := sameAsConsumersRead(k, o, n); err != nil {
				return err
			}
			continue
		}
		if !reflect.DeepEqual(o, n) {
			return fmt.Errorf("%q changed from %#v to %#v (target %q)", k, o, n, target)
		}
	}
	return nil
}

// listOf is a value's strings: a string as one item, a list of strings.
func listOf(v any) ([]string, bool) {
	switch x := v.(type) {
	case string:
		return []string{x}, true
	case []any:
		var out []string
		for _, it := range x {
			s, ok := it.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	return nil, false
}

// toolToken is one Claude Code allowed-tools entry: text up to a blank or
// comma outside parentheses (a ')' closes whatever '(' opened).
var toolToken = regexp.MustCompile(`(?:[^ ,(]|\([^)]*\)?)+`)

func readToolsAsClaudeCode(items []string) []string {
	var out []string
	for _, s := range items {
		for _, t := range toolToken.FindAllString(s, -1) {
			if t = strings.TrimSpace(t); t != "" {
				out = append(out, t)
			}
		}
	}
	return out
}

// readGlobsAsVSCode follows glob.ts splitGlobAware(s, ',') and trims.
func readGlobsAsVSCode(s string) []string {
	var out []string
	cur := []rune{}
	inB, inK := false, false
	for _, r := range s {
		if r == ',' && !inB && !inK {
			out = append(out, string(cur))
			cur = cur[:0]
			continue
		}
		inB = r == '{' || inB && r != '}'
		inK = r == '[' || inK && r != ']'
		cur = append(cur, r)
	}
	if len(cur) > 0 {
		out = append(out, string(cur))
	}
	for i := range out {
		out[i] = strings.TrimSpace(out[i]) // VS Code trims each pattern
	}
	return slices.DeleteFunc(out, func(p string) bool { return p == "" })
}

// readPathsAsClaudeCode splits a rule's paths as Claude Code does: commas
// at brace depth 0.
func readPathsAsClaudeCode(items []string) []string {
	var out []string
	for _, s := range items {
		// The last item is kept whatever the depth: an unclosed '{' does
		// not swallow it (claude-code 2.1.332's split pushes what is left
		// after the loop, trimmed, if not empty).
		depth, cur := 0, ""
		for _, r := range s {
			if r == ',' && depth == 0 {
				if t := strings.TrimSpace(cur); t != "" {
					out = append(out, t)
				}
				cur = ""
				continue
			}
			if r == '{' {
				depth++
			} else if r == '}' {
				depth--
			}
			cur += string(r)
		}
		if t := strings.TrimSpace(cur); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// readToolsAsSpec is the Agent Skills spec's reading of allowed-tools: a
// string split at blanks; a list is taken as its items.
func readToolsAsSpec(v any, items []string) []string {
	if s, ok := v.(string); ok {
		return strings.Fields(s)
	}
	return items
}

// trimmedCommaItems is a plain split at every comma, blank items dropped.
func trimmedCommaItems(s string) []string {
	var out []string
	for _, p := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' }) {
		if strings.TrimSpace(p) != "" {
			out = append(out, strings.TrimSpace(p))
		}
	}
	return out
}

// sameAsConsumersRead checks the fixed key as each consumer reads it.
func sameAsConsumersRead(key string, o, n any) error {
	oi, ok1 := listOf(o)
	ni, ok2 := listOf(n)
	switch key {
	case "allowed-tools":
		if !ok1 || !ok2 {
			return fmt.Errorf("allowed-tools not strings")
		}
		if !slices.Equal(readToolsAsClaudeCode(oi), readToolsAsClaudeCode(ni)) {
			return fmt.Errorf("Claude Code reads other tools: %q vs %q", oi, ni)
		}
		if a, b := readToolsAsSpec(o, oi), readToolsAsSpec(n, ni); !slices.Equal(a, b) {
			return fmt.Errorf("the Agent Skills spec reads %q, not %q", b, a)
		}
		return nil
	case "applyTo":
		if !ok1 || !ok2 {
			return fmt.Errorf("applyTo not strings")
		}
		for _, read := range []func(string) []string{readGlobsAsVSCode, trimmedCommaItems} {
			a, b := oi, ni
			if s, ok := o.(string); ok {
				a = read(s)
			}
			if s, ok := n.(string); ok {
				b = read(s)
			}
			if !slices.Equal(a, b) {
				return fmt.Errorf("applyTo reads as %q after the fix, not %q", b, a)
			}
		}
		return nil
	case "paths":
		if !ok1 || !ok2 {
			return fmt.Errorf("paths not strings")
		}
		if !slices.Equal(readPathsAsClaudeCode(oi), readPathsAsClaudeCode(ni)) {
			return fmt.Errorf("Claude Code reads other paths: %q vs %q", oi, ni)
		}
		// VS Code reads a list's items as they are: the patterns Claude
		// Code read from the string.
		if _, ok := n.([]any); ok && !slices.Equal(readPathsAsClaudeCode(oi), ni) {
			return fmt.Errorf("the list holds %q, not %q", ni, readPathsAsClaudeCode(oi))
		}
		return nil
	}
	if reflect.DeepEqual(o, n) {
		return nil
	}
	return sameQuoted(o, n)
}

// sameQuoted: n quotes o, a map (at most one entry changed) or a value
// written as text.
func sameQuoted(o, n any) error {
	if om, ok := o.(map[string]any); ok {
		nm, ok := n.(map[string]any)
		if !ok || len(om) != len(nm) {
			return fmt.Errorf("the map's shape changed")
		}
		changed := 0
		for k, v := range om {
			w, ok := nm[k]
			if !ok {
				return fmt.Errorf("key %q lost", k)
			}
			if !reflect.DeepEqual(v, w) {
				changed++
				if err := sameQuoted(v, w); err != nil || changed > 1 {
					return fmt.Errorf("more than one value changed, or %v", err)
				}
			}
		}
		return nil
	}
	s, ok := n.(string)
	if !ok {
		return fmt.Errorf("%#v became %#v, not text", o, n)
	}
	if os, ok := o.(string); ok {
		if os != s {
			return fmt.Errorf("text %q became %q", os, s)
		}
		return nil
	}
	var back any
	if err := yaml.Unmarshal([]byte(s), &back); err != nil || !reflect.DeepEqual(stringKeys(back), o) {
		return fmt.Errorf("%q does not read back as %#v", s, o)
	}
	return nil
}

// jsonAny turns ParseJSON's tree into Go values (numbers as their text).
func jsonAny(v *core.JSONValue) any {
	if v == nil {
		return nil
	}
	switch v.Kind {
	case core.JSONObject:
		m := map[string]any{}
		for _, mem := range v.Members {
			m[mem.Key] = jsonAny(mem.Value)
		}
		return m
	case core.JSONArray:
		var a []any
		for _, it := range v.Items {
			a = append(a, jsonAny(it))
		}
		return a
	case core.JSONNumber:
		return "#" + v.Str
	case core.JSONString:
		return v.Str
	}
	return v.Kind.String() + ":" + v.Str
}

func verifyJSON(before, after []byte, rule string) error {
	ot, oerrs := core.ParseJSON(before)
	nt, nerrs := core.ParseJSON(after)
	if len(nerrs) > len(oerrs) {
		return fmt.Errorf("the JSON reader finds new errors: %v", nerrs)
	}
	o, n := jsonAny(ot), jsonAny(nt)
	var diffs []string
	var walk func(p string, a, b any)
	walk = func(p string, a, b any) {
		am, ok1 := a.(map[string]any)
		bm, ok2 := b.(map[string]any)
		if ok1 && ok2 && len(am) == len(bm) {
			for k := range am {
				walk(p+"/"+k, am[k], bm[k])
			}
			return
		}
		al, ok1 := a.([]any)
		bl, ok2 := b.([]any)
		if ok1 && ok2 && len(al) == len(bl) {
			for i := range al {
				walk(p+"/"+strconv.Itoa(i), al[i], bl[i])
			}
			return
		}
		if !reflect.DeepEqual(a, b) {
			diffs = append(diffs, p)
			switch rule {
			case "hooks/field-type":
				if "#"+fmt.Sprint(a) != fmt.Sprint(b) {
					diffs = append(diffs, p+" (number)")
				}
			case "plugin/path-prefix", "market/source-path":
				if "./"+fmt.Sprint(a) != fmt.Sprint(b) {
					diffs = append(diffs, p+" (path)")
				}
			}
		}
	}
	walk("", o, n)
	if len(diffs) > 1 {
		return fmt.Errorf("JSON values changed at %v", diffs)
	}
	return nil
}

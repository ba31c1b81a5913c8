package diagnostics

// The fix guard (issue 39). A fix of a rule whose tier is safe is applied
// unasked (`--fix`, the editor's fix-all, the MCP fix tool), so its tier is
// proven, not declared: before a finding leaves Check, each such fix is
// applied to the text, the result is parsed again, and the fix stays safe
// only if the file still parses, every value other than the finding's
// target reads as before, and the target reads as the rule's proof says
// (the same text quoted, the same items as each consumer splits them).
// A fix that fails is demoted (model.Fix.Demoted): still offered, never
// applied unasked.

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/syntax"

	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ahpls-dev/ahpls/model"
)

// fixGuardOff turns the guard off; only tests set it, to show what the
// guard catches.
var fixGuardOff bool

// guardFixes demotes each fix of d that its rule declares safe but the
// guard cannot prove safe.
func guardFixes(r *core.Reporter, d model.Diagnostic) model.Diagnostic {
	if fixGuardOff || len(d.Fixes) == 0 {
		return d
	}
	if rule, ok := LookupRule(d.Rule); !ok || rule.Fix != core.FixSafe {
		return d
	}
	var fixes []model.Fix
	for i, fx := range d.Fixes {
		if fx.Demoted != "" {
			continue
		}
		why := unprovenFix(r.File, d.Rule, d.Span, fx, &r.Header)
		if why == "" {
			continue
		}
		if fixes == nil {
			fixes = slices.Clone(d.Fixes)
		}
		fixes[i].Demoted = why
	}
	if fixes != nil {
		d.Fixes = fixes
	}
	return d
}

// unprovenFix applies fx to f's text and says why the result cannot be
// proven to change only the finding's target, or "" when it can.
// memo keeps the parse of f's header before any fix, for the next fix of
// the same file.
func unprovenFix(f core.File, rule string, span model.Span, fx model.Fix, memo *core.HeaderParse) string {
	after, why := applyGuardedFix(f.Text, fx.Edits)
	if why != "" {
		return why
	}
	if f.Kind.Markdown() {
		return headerUnproven(f.Text, after, rule, span, memo)
	}
	return jsonUnproven(f.Text, after, rule)
}

// applyGuardedFix applies a fix's edits to text, refusing edits in another file
// or overlapping ones.
func applyGuardedFix(text []byte, edits []model.Edit) ([]byte, string) {
	es := slices.Clone(edits)
	sort.SliceStable(es, func(i, j int) bool { return es[i].Span.Start < es[j].Span.Start })
	var b bytes.Buffer
	at := 0
	for _, e := range es {
		switch {
		case e.Path != "":
			return nil, "it edits another file"
		case e.Span.Start < at || e.Span.End < e.Span.Start || e.Span.End > len(text):
			return nil, "its edits overlap or leave the text"
		}
		b.Write(text[at:e.Span.Start])
		b.WriteString(e.NewText)
		at = e.Span.End
	}
	b.Write(text[at:])
	return b.Bytes(), ""
}

// headerUnproven compares a Markdown file's header and body before and
// after a fix; memo (may be nil) keeps the header's parse before the fix.
func headerUnproven(before, after []byte, rule string, span model.Span, memo *core.HeaderParse) string {
	ofm, nfm := syntax.SplitFrontmatter(before), syntax.SplitFrontmatter(after)
	ob, nb := before[ofm.Markdown.Start:ofm.Markdown.End], after[nfm.Markdown.Start:nfm.Markdown.End]
	if rule == core.FmCrlf.ID {
		ob, nb = bytes.ReplaceAll(ob, []byte("\r\n"), []byte("\n")), bytes.ReplaceAll(nb, []byte("\r\n"), []byte("\n"))
	}
	if !bytes.Equal(ob, nb) {
		return "it changes the Markdown body"
	}
	if ofm.Present != nfm.Present || ofm.Closed != nfm.Closed {
		return "it opens or closes the header"
	}
	if !ofm.Present {
		return ""
	}
	// Header text unchanged (a BOM removed, CRLFs for LFs): every value
	// reads the same whether or not it parses.
	oh, nh := before[ofm.Body.Start:ofm.Body.End], after[nfm.Body.Start:nfm.Body.End]
	if rule == core.FmCrlf.ID {
		oh, nh = bytes.ReplaceAll(oh, []byte("\r\n"), []byte("\n")), bytes.ReplaceAll(nh, []byte("\r\n"), []byte("\n"))
	}
	if bytes.Equal(oh, nh) && !wholeValueRules[rule] {
		return ""
	}
	// Claude Code ends a header at the first '---' in it, even inside a
	// value: a fix there changes where Claude Code's header ends, or what
	// it makes of the part before, in ways the YAML trees below do not see.
	if bytes.Contains(oh, []byte("---")) || bytes.Contains(nh, []byte("---")) {
		return "the header holds '---', where Claude Code ends it"
	}
	if memo == nil {
		memo = &core.HeaderParse{}
	}
	if !memo.Done {
		memo.Root, memo.Strict, memo.Ok = readHeaderAsClaudeCode(before[ofm.Body.Start:ofm.Body.End])
		memo.Done = true
	}
	oldRoot, strict, ok := memo.Root, memo.Strict, memo.Ok
	if !ok {
		return "the header cannot be read before the fix"
	}
	// A map or list used as a key (`{a, {b, c}}`) or a key written twice
	// in one map (`{0, 0 }`) is where YAML readers part ways: Go's decoder
	// refuses the header, JavaScript readers key it by some text of their
	// own or keep one of the two. What a consumer then reads cannot be
	// compared before and after, so such a fix is not proven.
	if why := ambiguousKey(oldRoot); why != "" {
		return "the header " + why + ", which YAML readers read differently"
	}
	// A header that parsed stays parsing; one that only Claude Code's
	// retry read (two tabs, one fixed at a time) may still need it.
	newRoot, newStrict, ok := readHeaderAsClaudeCode(after[nfm.Body.Start:nfm.Body.End])
	if !ok || strict && !newStrict {
		return "the header would no longer parse as YAML"
	}
	diffs := nodeDiffs(oldRoot, newRoot, nil, nil)
	if len(diffs) == 0 {
		return ""
	}
	if !wholeValueRules[rule] {
		return "it changes a value, which a " + rule + " fix must not"
	}
	target := commonPrefix(diffs)
	if len(target) == 0 || oldRoot == nil || oldRoot.Kind != yaml.MappingNode {
		return "it changes the header's keys"
	}
	// The changed value must be the finding's: the top-level entry whose
	// lines hold the finding.
	line := bytes.Count(before[ofm.Body.Start:max(ofm.Body.Start, min(span.Start, ofm.Body.End))], []byte{'\n'}) + 1
	i := target[0] - 1
	if line < oldRoot.Content[i].Line || i+2 < len(oldRoot.Content) && line >= oldRoot.Content[i+2].Line {
		return "it changes '" + oldRoot.Content[i].Value + "', not the value the finding is about"
	}
	return proveTarget(rule, oldRoot.Content[i].Value, nodeAt(oldRoot, target), nodeAt(newRoot, target))
}

// readHeaderAsClaudeCode parses a header strictly, or as Claude Code's
// quoting retry reads it when strict parsing fails.
func readHeaderAsClaudeCode(body []byte) (root *yaml.Node, strict, ok bool) {
	var doc yaml.Node
	if yaml.Unmarshal(body, &doc) == nil {
		return docContent(&doc), true, true
	}
	res, changed := syntax.CCRetry(body)
	if !changed || yaml.Unmarshal(res.Src, &doc) != nil {
		return nil, false, false
	}
	return docContent(&doc), false, true
}

// ambiguousKey says where YAML readers may read n's keys differently: a
// mapping key anywhere in n that is itself a map or a list, or a key
// written twice in one mapping (compared by text, as JavaScript readers
// key by text: `0` and "0" are the same key there). "" when there is none.
func ambiguousKey(n *yaml.Node) string {
	if n == nil {
		return ""
	}
	var seen map[string]bool
	for i, c := range n.Content {
		if n.Kind == yaml.MappingNode && i%2 == 0 {
			if c.Kind == yaml.MappingNode || c.Kind == yaml.SequenceNode {
				return "uses a map or list as a key"
			}
			if seen == nil {
				seen = make(map[string]bool, len(n.Content)/2)
			}
			if seen[c.Value] {
				return "writes the key '" + c.Value + "' twice in one map"
			}
			seen[c.Value] = true
		}
		if why := ambiguousKey(c); why != "" {
			return why
		}
	}
	return ""
}

func docContent(doc *yaml.Node) *yaml.Node {
	if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		return doc.Content[0]
	}
	return nil
}

// wholeValueRules are the safe rules whose fix changes one value (its
// form or shape); the others (a BOM, line endings, tabs) change no value.
var wholeValueRules = map[string]bool{
	"skill/metadata": true, "field/type": true, "cmd/argument-hint-list": true, "yaml/unquoted-special": true,
	"skill/allowed-tools": true, "instr/apply-to": true, "rule/paths": true,
	"hooks/field-type": true, "plugin/field-type": true, "plugin/path-prefix": true, "market/source-path": true, "cxmarket/source": true,
}

// nodeDiffs lists the paths (indexes into Content) where two trees differ:
// kind, tag, text, keys, or length.
func nodeDiffs(a, b *yaml.Node, path []int, out [][]int) [][]int {
	switch {
	case a == nil || b == nil:
		if a != b {
			out = append(out, slices.Clone(path))
		}
		return out
	case a.Kind != b.Kind || len(a.Content) != len(b.Content):
		return append(out, slices.Clone(path))
	case a.Kind == yaml.ScalarNode || a.Kind == yaml.AliasNode:
		if a.Tag != b.Tag || a.Value != b.Value {
			out = append(out, slices.Clone(path))
		}
		return out
	}
	for i := range a.Content {
		if a.Kind == yaml.MappingNode && i%2 == 0 {
			if k, l := a.Content[i], b.Content[i]; k.Kind != l.Kind || k.Value != l.Value {
				return append(out, slices.Clone(path))
			}
			continue
		}
		out = nodeDiffs(a.Content[i], b.Content[i], append(path, i), out)
	}
	return out
}

func commonPrefix[T comparable](paths [][]T) []T {
	p := paths[0]
	for _, q := range paths[1:] {
		n := 0
		for n < len(p) && n < len(q) && p[n] == q[n] {
			n++
		}
		p = p[:n]
	}
	return p
}

func nodeAt(n *yaml.Node, path []int) *yaml.Node {
	for _, i := range path {
		n = n.Content[i]
	}
	return n
}

// proveTarget checks the one changed value against its rule's proof.
func proveTarget(rule, key string, old, new *yaml.Node) string {
	switch rule {
	case "skill/allowed-tools":
		return proveSplit(old, new, key, splitTools, "Claude Code", strings.Fields, "the Agent Skills spec (space-separated)")
	case "instr/apply-to":
		if why := badGlobItem(old, nil); why != "" {
			return why
		}
		return proveSplit(old, new, key, splitGlobsAware, "VS Code", splitCommas, "a reader that splits at every comma")
	case "rule/paths":
		if why := badGlobItem(old, core.SplitClaudePaths); why != "" {
			return why
		}
		return proveSplit(old, new, key, core.SplitClaudePaths, "Claude Code", nil, "")
	case "hooks/field-type":
		if old.Kind == yaml.ScalarNode && new.Kind == yaml.ScalarNode && sameNumber(old.Value, new.Value) {
			return ""
		}
		return "it changes the number"
	}
	// A quoting fix: the new value is a string holding the text that was
	// written, which read as YAML gives back the old value.
	if new.Kind != yaml.ScalarNode || new.Tag != "!!str" {
		return "it does not write the value as a string"
	}
	if old.Kind == yaml.ScalarNode {
		if old.Value != new.Value {
			return "the quoted text differs from the value as read"
		}
		return ""
	}
	var doc yaml.Node
	if yaml.Unmarshal([]byte(new.Value), &doc) != nil || len(nodeDiffs(old, docContent(&doc), nil, nil)) > 0 {
		return "the quoted text differs from the value as written"
	}
	return ""
}

// badGlobItem: the fix makes VS Code read globs it did not read before, so
// each must be a pattern it can compile (an unclosed '{' would also swallow
// the commas after it in VS Code's split).
func badGlobItem(old *yaml.Node, split func([]string) []string) string {
	items, _ := itemsOf(old)
	if split != nil {
		items = split(items)
	}
	for _, it := range items {
		if why := core.BadGlob(it); why != "" {
			return "'" + it + "' is not a valid glob (" + why + ")"
		}
	}
	return ""
}

// itemsOf is a string value as a one-item list, or a list of strings.
func itemsOf(n *yaml.Node) ([]string, bool) {
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag == "!!str":
		return []string{n.Value}, true
	case n.Kind == yaml.SequenceNode:
		var out []string
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode || c.Tag != "!!str" {
				return nil, false
			}
			out = append(out, c.Value)
		}
		return out, true
	}
	return nil, false
}

// proveSplit: the value's items, as the first consumer splits them, are
// the same before and after; a second consumer, when named, must read the
// new string as exactly the old list's items.
func proveSplit(old, new *yaml.Node, key string, split func([]string) []string, who string, split2 func(string) []string, who2 string) string {
	oi, ok1 := itemsOf(old)
	ni, ok2 := itemsOf(new)
	if !ok1 || !ok2 {
		return "'" + key + "' is not strings before and after"
	}
	if !slices.Equal(split(oi), split(ni)) {
		return who + " would split '" + key + "' into other items"
	}
	// Each item of a list being joined must be one item to that consumer
	// already ("Edit,Write" is two): a join must not move a boundary.
	if old.Kind == yaml.SequenceNode && new.Kind == yaml.ScalarNode {
		for _, it := range oi {
			if got := split([]string{it}); len(got) != 1 || got[0] != it {
				return who + " reads the item '" + it + "' as " + strconv.Itoa(len(got)) + " items"
			}
		}
	}
	if split2 != nil && new.Kind == yaml.ScalarNode && !slices.Equal(split2(new.Value), oi) {
		return who2 + " would split '" + key + "' into other items than the list's"
	}
	// Building a list (paths): the list's items, as VS Code reads a list,
	// are the patterns the first consumer read from the string.
	if split2 == nil && old.Kind == yaml.ScalarNode && !slices.Equal(ni, split(oi)) {
		return "the list does not hold the patterns " + who + " read"
	}
	return ""
}

// splitTools is Claude Code's reading of `allowed-tools`, for a string or
// each item of a list: split at commas and blanks outside parentheses (a
// ')' ends the parenthesis, nesting is not counted), items trimmed.
func splitTools(items []string) []string {
	var out []string
	for _, s := range items {
		var cur strings.Builder
		inParen := false
		flush := func() {
			if t := strings.TrimSpace(cur.String()); t != "" {
				out = append(out, t)
			}
			cur.Reset()
		}
		for _, c := range s {
			switch {
			case c == '(':
				inParen = true
			case c == ')':
				inParen = false
			case (c == ',' || c == ' ') && !inParen:
				flush()
				continue
			}
			if cur.Len() > 0 || strings.TrimSpace(string(c)) != "" {
				cur.WriteRune(c)
			}
		}
		flush()
	}
	return out
}

// splitGlobsAware is VS Code's reading of `applyTo` (glob.ts
// splitGlobAware(pattern, ','), each pattern trimmed, empty ones skipped):
// a comma inside {…} or […] does not split; a '}' or ']' closes whatever
// was open (VS Code keeps a flag, not a depth).
func splitGlobsAware(items []string) []string {
	var out []string
	for _, s := range items {
		braces, brackets, start := false, false, 0
		for i := 0; i <= len(s); i++ {
			if i < len(s) {
				switch s[i] {
				case '{':
					braces = true
				case '}':
					braces = false
				case '[':
					brackets = true
				case ']':
					brackets = false
				}
				if s[i] != ',' || braces || brackets {
					continue
				}
			}
			if t := strings.TrimSpace(s[start:i]); t != "" {
				out = append(out, t)
			}
			start = i + 1
		}
	}
	return out
}

// splitCommas splits at every comma, trimming and skipping empty items: a
// consumer whose split is not known to honour braces reads a list so.
func splitCommas(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func sameNumber(a, b string) bool {
	x, err1 := strconv.ParseFloat(strings.Trim(a, `"'`), 64)
	y, err2 := strconv.ParseFloat(b, 64)
	return err1 == nil && err2 == nil && x == y
}

// jsonUnproven compares a JSON file before and after a fix, decoded with
// encoding/json (numbers kept as written).
func jsonUnproven(before, after []byte, rule string) string {
	ov, err := decodeJSON(before)
	if err != nil {
		return "the file cannot be read as strict JSON before the fix"
	}
	nv, err := decodeJSON(after)
	if err != nil {
		return "the file would no longer parse as JSON"
	}
	diffs := jsonDiffs(ov, nv, nil, nil)
	if len(diffs) == 0 {
		return ""
	}
	target := commonPrefix(diffs)
	if len(target) == 0 {
		return "it changes the whole document"
	}
	o, n := jsonAt(ov, target), jsonAt(nv, target)
	switch rule {
	case "hooks/field-type":
		os, ok1 := o.(string)
		nn, ok2 := n.(json.Number)
		if ok1 && ok2 && sameNumber(os, nn.String()) {
			return ""
		}
		return "it changes the number"
	case "plugin/path-prefix", "market/source-path", "cxmarket/source":
		os, ok1 := o.(string)
		ns, ok2 := n.(string)
		if ok1 && ok2 && ns == "./"+os {
			return ""
		}
		return "it does more than prepend './' to the path"
	case "plugin/field-type":
		switch n := n.(type) {
		case []any:
			if len(n) == 1 && fmt.Sprint(n[0]) == fmt.Sprint(o) {
				return ""
			}
		case map[string]any:
			if len(n) == 1 && fmt.Sprint(n["name"]) == fmt.Sprint(o) {
				return ""
			}
		}
		return "it does not keep the value in its new shape"
	}
	return "it changes a value, which a " + rule + " fix must not"
}

func decodeJSON(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("text after the JSON value")
	}
	return v, nil
}

// jsonDiffs lists the paths (keys, indexes) where two JSON values differ.
func jsonDiffs(a, b any, path []any, out [][]any) [][]any {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return append(out, slices.Clone(path))
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			if _, ok := y[k]; !ok {
				return append(out, slices.Clone(path))
			}
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			out = jsonDiffs(x[k], y[k], append(path, k), out)
		}
		return out
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return append(out, slices.Clone(path))
		}
		for i := range x {
			out = jsonDiffs(x[i], y[i], append(path, i), out)
		}
		return out
	}
	if fmt.Sprintf("%T %v", a, a) != fmt.Sprintf("%T %v", b, b) {
		out = append(out, slices.Clone(path))
	}
	return out
}

func jsonAt(v any, path []any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			v = v.(map[string]any)[k]
		case int:
			v = v.([]any)[k]
		}
	}
	return v
}

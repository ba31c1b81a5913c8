package core

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/ahpls-dev/ahpls/model"
)

// This file holds what every JSON kind shares: the json/* rules, the
// per-file set of consumers that read the file at all (so a verdict for a
// consumer that never opens the file cannot raise a diagnostic), and small
// helpers for messages, fixes and near-miss suggestions.

// JSONRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var JSONRules = []*Rule{JSONSyntax, JSONJsonc, JSONDuplicateKey}

var JSONSyntax = &Rule{
	ID:       "json/syntax",
	Summary:  "The file is not valid JSON; consumers reject the whole file.",
	Kinds:    jsonKinds,
	Severity: "All REJ: the plugin is not loaded, the hooks or MCP file is skipped.",

	WholeFile: true,
}

var JSONJsonc = &Rule{
	ID:       "json/jsonc",
	Fix:      FixUnsafe,
	FixWhy:   "deletes comments, which are text someone wrote",
	Summary:  "Comments or trailing commas: VS Code accepts them (JSONC), Claude Code and Copilot CLI do not.",
	Kinds:    jsonKinds,
	Severity: "V ok (JSONC) · CC, CL REJ? (Warning).",
	Evidence: []Evidence{
		{"CC", "REJ", "`claude plugin validate` 2.1.332 on a plugin.json with a trailing comma: \"Invalid JSON syntax: JSON Parse error: Property name must be a string literal\" (success false)"},
	},
}

var JSONDuplicateKey = &Rule{
	ID:       "json/duplicate-key",
	Fix:      FixUnsafe,
	FixWhy:   "deletes a value",
	Summary:  "A key appears twice in one object; readers keep only the last value.",
	Kinds:    jsonKinds,
	Severity: "All LOSE: the last value wins.",
}

// JSONCheck is the state of one JSON file's check.
type JSONCheck struct {
	F    File
	R    *Reporter
	Text []byte
	// what names the file in messages ("plugin", "hooks file").
	what string
	// readers are the targets that read this file; nil means all.
	Readers map[model.Target]bool
	// format is the format of the enclosing plugin, FormatNone for
	// workspace files.
	Format model.PluginFormat
	// pluginRoot is the enclosing plugin root (slash path, "" = workspace
	// folder); valid only when format != FormatNone.
	PluginRoot string
	// perRule counts findings so a pathological file (thousands of bad
	// keys) costs bounded time and does not flood the editor.
	perRule map[*Rule]int
}

// maxPerRule caps the findings of one rule in one file.
const maxPerRule = 200

// Capped reports whether rule has already reached maxPerRule here; rules
// with costly checks ask before doing the work.
func (c *JSONCheck) Capped(rule *Rule) bool { return c.perRule[rule] >= maxPerRule }

var (
	jV     = []model.Target{model.TargetVSCode, model.TargetVSCodeAgentHost}
	JVCC   = append(append([]model.Target{}, jV...), model.TargetClaudeCode)
	JVCL   = append(append([]model.Target{}, jV...), model.TargetCopilotCLI)
	JVCCCL = append(append([]model.Target{}, JVCC...), model.TargetCopilotCLI)
)

func NewJSONCheck(f File, r *Reporter, what string, readers []model.Target) *JSONCheck {
	c := &JSONCheck{F: f, R: r, Text: f.Text, what: what}
	if readers != nil {
		c.Readers = map[model.Target]bool{}
		for _, t := range readers {
			c.Readers[t] = true
		}
	}
	return c
}

// DropReaders stops reporting for targets that already rejected the whole
// file, so one cause yields one diagnostic.
func (c *JSONCheck) DropReaders(ts ...model.Target) {
	// Copy, so a caller may restore the previous set.
	old := c.Readers
	c.Readers = map[model.Target]bool{}
	for _, t := range JSONReaders {
		if old == nil || old[t] {
			c.Readers[t] = true
		}
	}
	for _, t := range ts {
		delete(c.Readers, t)
	}
}

// Reads reports whether t reads this file.
func (c *JSONCheck) Reads(t model.Target) bool { return c.Readers == nil || c.Readers[t] }

// Effective reports whether t both reads the file and is an effective target.
func (c *JSONCheck) Effective(t model.Target) bool { return c.Reads(t) && c.R.Has(t) }

// Report filters v to this file's readers and records the finding.
func (c *JSONCheck) Report(rule *Rule, span model.Span, v model.Verdicts, msg string, fixes ...model.Fix) bool {
	if c.Capped(rule) {
		return false
	}
	fv := make(model.Verdicts, len(v))
	for t, x := range v {
		if c.Reads(t) {
			fv[t] = x
		}
	}
	if !c.R.Verdict(rule, span, fv, msg, fixes...) {
		return false
	}
	if c.perRule == nil {
		c.perRule = map[*Rule]int{}
	}
	c.perRule[rule]++
	return true
}

// DecidedBy names the targets whose reactions would decide v's severity
// in this file, so a message can describe the consequence that counts.
func (c *JSONCheck) DecidedBy(v model.Verdicts) []model.Target {
	fv := model.Verdicts{}
	for t, x := range v {
		if c.Reads(t) {
			fv[t] = x
		}
	}
	_, by, _ := fv.Decide(c.R.Effective)
	return by
}

// Related attaches a related location to the finding just reported.
func (c *JSONCheck) Related(span model.Span, msg string) {
	if n := len(c.R.Diags); n > 0 {
		c.R.Diags[n-1].Related = append(c.R.Diags[n-1].Related, model.Related{Span: span, Message: msg})
	}
}

// Fixed records a finding whose severity is ours ([I] in the spec).
func (c *JSONCheck) Fixed(rule *Rule, span model.Span, sev model.Severity, msg string, fixes ...model.Fix) {
	if c.Capped(rule) {
		return
	}
	if c.perRule == nil {
		c.perRule = map[*Rule]int{}
	}
	c.perRule[rule]++
	c.R.Add(model.Diagnostic{Rule: rule.ID, Severity: sev, Message: msg, Span: span, Fixes: fixes})
}

// All gives every reader of the file the same reaction.
func (c *JSONCheck) All(x model.Reaction) model.Verdicts {
	v := model.Verdicts{}
	for _, t := range JSONReaders {
		if c.Reads(t) {
			v[t] = x
		}
	}
	return v
}

// Parse reads the file, reports json/* findings and returns the tree (nil
// after a syntax error: nothing else is reported then).
func (c *JSONCheck) Parse() *JSONValue {
	v, fs := ParseJSONTree(c.Text)
	var idx *model.LineIndex
	for _, f := range fs {
		if c.Capped(f.Rule) {
			continue
		}
		d := jsonFindingDiagnostic(c.Text, &idx, f, c.what)
		if c.Report(f.Rule, d.Span, d.Verdicts, d.Message, d.Fixes...) && len(d.Related) > 0 {
			c.Related(d.Related[0].Span, d.Related[0].Message)
		}
	}
	return v
}

// jsonFindingDiagnostic words a parser finding; idx is built on first use
// and shared, so many duplicate keys cost one line index.
func jsonFindingDiagnostic(text []byte, idx **model.LineIndex, f JSONFinding, what string) model.Diagnostic {
	d := model.Diagnostic{Rule: f.Rule.ID, Span: f.Span}
	switch f.Rule {
	case JSONSyntax:
		d.Verdicts = model.V(model.Reject).With(model.Verdicts{model.TargetClaudeCode: model.Reject, model.TargetCopilotCLI: model.Reject})
		d.Message = fmt.Sprintf("%%s cannot load this %s: invalid JSON, %s.", what, f.Message)
	case JSONJsonc:
		d.Verdicts = model.V(model.OK).With(model.Verdicts{model.TargetClaudeCode: model.Reject.Unverified(), model.TargetCopilotCLI: model.Reject.Unverified()})
		if f.Message == "comment" {
			d.Message = fmt.Sprintf("%%s may reject this %s: JSON allows no comments (only VS Code reads JSONC).", what)
		} else {
			d.Message = fmt.Sprintf("%%s may reject this %s: JSON allows no trailing comma (only VS Code reads JSONC).", what)
		}
		d.Fixes = []model.Fix{{Title: "Remove the " + f.Message, Edits: []model.Edit{{Span: f.del}}, Preferred: true}}
	case JSONDuplicateKey:
		d.Verdicts = model.V(model.Lose).With(model.Verdicts{model.TargetClaudeCode: model.Lose, model.TargetCopilotCLI: model.Lose})
		if *idx == nil {
			*idx = model.NewLineIndex(text)
		}
		line := (*idx).Position(f.first.Start, model.UTF8).Line + 1
		d.Message = fmt.Sprintf("%%s will ignore the first '%s' (line %d): only the last duplicate key counts.", JClip(f.Key), line)
		d.Related = []model.Related{{Span: f.first, Message: fmt.Sprintf("first '%s', ignored", JClip(f.Key))}}
		d.Fixes = []model.Fix{{Title: fmt.Sprintf("Delete this '%s'", JClip(f.Key)), Edits: []model.Edit{{Span: f.del}}}}
	}
	return d
}

// JPluginOf finds the plugin enclosing the file: from the Layout when there
// is one, else from the path shape alone.
func JPluginOf(f File) (model.PluginFormat, string) {
	return model.PluginOf(f.Path, f.Layout)
}

// JReadersFor is who reads a plugin file of the given format.
func JReadersFor(format model.PluginFormat) []model.Target {
	switch format {
	case model.FormatClaude:
		return JVCC
	case model.FormatCopilot:
		return JVCL
	case model.FormatOpenPlugin, model.FormatAP:
		return jV
	}
	return nil
}

// jsonPath joins a plugin-relative path to the plugin root.
func JJoin(root, rel string) string {
	if root == "" {
		return rel
	}
	return root + "/" + rel
}

// ---- fixes and suggestions -------------------------------------------------

func JReplace(title string, span model.Span, text string) model.Fix {
	return model.Fix{Title: title, Edits: []model.Edit{{Span: span, NewText: text}}, Preferred: true}
}

// quote renders s as a JSON string literal.
func JQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// insertAfterOpen is an edit that inserts a member right after an object's
// `{`, keeping the object valid whether or not it already has members.
func JInsertMember(obj *JSONValue, member string) model.Edit {
	at := obj.Span.Start + 1
	if len(obj.Members) == 0 {
		return model.Edit{Span: model.Span{Start: at, End: at}, NewText: member}
	}
	return model.Edit{Span: model.Span{Start: at, End: at}, NewText: member + ", "}
}

// JClosest returns the candidate nearest to s: a case-insensitive match
// first, else the smallest edit distance ≤ maxDist (ties: first listed).
func JClosest(s string, candidates []string, maxDist int) (string, bool) {
	for _, c := range candidates {
		if strings.EqualFold(c, s) {
			return c, true
		}
	}
	// Ties on the case-blind distance go to the candidate closer in case,
	// so `errorOccured` in a camelCase file suggests `errorOccurred`.
	best, bestD, bestCase := "", maxDist+1, 0
	ls := strings.ToLower(s)
	for _, c := range candidates {
		d := jEditDistance(ls, strings.ToLower(c), maxDist)
		if d > maxDist {
			continue
		}
		dc := jEditDistance(s, c, maxDist*2+len(s))
		if d < bestD || d == bestD && dc < bestCase {
			best, bestD, bestCase = c, d, dc
		}
	}
	return best, best != ""
}

// jEditDistance is the Levenshtein distance between a and b in runes,
// stopping early once it must exceed limit.
func jEditDistance(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d > limit || -d > limit {
		return limit + 1
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// TokenSpans finds each occurrence of tok in a string value and returns
// their source spans.
func TokenSpans(text []byte, v *JSONValue, tok string) []model.Span {
	if !v.Is(JSONString) {
		return nil
	}
	var out []model.Span
	for i := 0; ; {
		j := strings.Index(v.Str[i:], tok)
		if j < 0 {
			return out
		}
		out = append(out, v.StrSpan(text, i+j, i+j+len(tok)))
		i += j + len(tok)
	}
}

// firstLine is the span of the first line, for causes outside the text.
func JFirstLine(text []byte) model.Span { return model.Span{Start: 0, End: FirstLineEnd(text)} }

// JStringList reports whether v is an array of strings.
func JStringList(v *JSONValue) bool {
	if !v.Is(JSONArray) {
		return false
	}
	for _, it := range v.Items {
		if !it.Is(JSONString) {
			return false
		}
	}
	return true
}

// JListOr lists words for a message: 'a', 'b' or 'c'.
func JListOr(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = "'" + w + "'"
	}
	if len(q) <= 1 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

func JHas(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// StrictJSON parses a file that a strict JSON reader (JSON.parse,
// serde_json) loads, reporting rule at the first syntax error, comment or
// trailing comma; nil when the file does not load.
func StrictJSON(f File, r *Reporter, rule *Rule, t model.Target, what string) *JSONValue {
	v, findings := ParseJSONTree(f.Text)
	for _, fd := range findings {
		if fd.Rule == JSONDuplicateKey {
			continue
		}
		msg := fd.Message
		if fd.Rule == JSONJsonc {
			msg = "a comment or trailing comma, which strict JSON does not allow"
		}
		r.Verdict(rule, fd.Span, model.Verdicts{t: model.Reject}, fmt.Sprintf("%%s does not load %s: %s.", what, msg))
		return nil
	}
	return v
}

// ReadJSONFile reads and parses another workspace file; ok is false when
// it cannot be read or is not valid JSON.
func ReadJSONFile(f File, rel string) (*JSONValue, bool) {
	if f.FS == nil {
		return nil, false
	}
	rd, ok := f.FS.(WorkspaceReader)
	if !ok {
		return nil, false
	}
	b, err := rd.ReadFile(rel)
	if err != nil || len(b) > MaxFileSize {
		return nil, false
	}
	v, _ := ParseJSONTree(b)
	return v, v != nil
}

var SemverRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$`)
})

// ParseJSON parses a JSON(C) file into a tree with byte spans and returns
// the json/* diagnostics (json/syntax, json/jsonc, json/duplicate-key) with
// verdicts for every JSON-reading target and the severity over all of them.
// On json/syntax the value is nil: consumers reject the whole file. Comments
// and trailing commas are skipped, so the tree is usable alongside json/jsonc.
func ParseJSON(text []byte) (*JSONValue, []model.Diagnostic) {
	v, fs := ParseJSONTree(text)
	out := make([]model.Diagnostic, 0, len(fs))
	var idx *model.LineIndex
	for _, f := range fs {
		d := jsonFindingDiagnostic(text, &idx, f, "file")
		sev, by, ok := model.Verdicts(d.Verdicts).Decide(JSONReaders)
		if !ok {
			continue
		}
		d.Severity = sev
		d.Message = strings.Replace(d.Message, "%s", targetNames(by), 1)
		out = append(out, d)
	}
	return v, out
}

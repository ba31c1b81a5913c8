package diagnostics

// The Markdown kinds share one pipeline (customization-formats.md §3, §4):
// split the header, report header-level problems (fm/*), parse it strictly,
// fall back to the Claude Code retry, simulate VS Code's reader, and hand the
// resulting tree to the kind's field rules. A header nobody can parse gets
// yaml/syntax and nothing else: field rules run only on a recovered tree.

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/ahpls-dev/ahpls/model"
)

// headerRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var headerRules = []*Rule{
	fmBom, fmLeadingLines, fmMissing, fmUnclosed, fmInlineDashes, fmNotMapping, fmCrlf,
	yamlSyntax, yamlUnquotedSpecial, yamlTabIndent, yamlDuplicateKey, yamlVscodeSubset,
}

var fmBom = &Rule{
	ID:       "fm/bom",
	Fix:      FixSafe,
	FixWhy:   "deletes only the byte-order mark, which no consumer reads as text",
	Summary:  "A byte-order mark precedes the opening '---'; VS Code then sees no header.",
	Kinds:    mdHeaderKinds,
	Severity: "V LOSE (no header: every field lost) · CC ok · AS SPEC.",
}

var fmLeadingLines = &Rule{
	ID:       "fm/leading-lines",
	Fix:      FixUnsafe,
	FixWhy:   "deletes the lines before '---', which may hold text",
	Summary:  "Lines precede the opening '---'; VS Code and Claude Code then see no header.",
	Kinds:    mdHeaderKinds,
	Severity: "V LOSE · CC LOSE (skill: AS SKIP; ccagent: as fm/missing).",
}

var fmMissing = &Rule{
	ID:       "fm/missing",
	Fix:      FixUnsafe,
	FixWhy:   "writes a guessed name and description",
	Summary:  "A skill or Claude agent has no '---' header.",
	Kinds:    "skill, ccagent",
	Severity: "skill: V LOSE (folder name, no description) · AS SKIP · CC LOSE; ccagent: CC SKIP (project) or LOSE (plugin: file name).",
	Evidence: []Evidence{
		{"CC", "WARN", "`claude plugin validate` 2.1.332 on a plugin agent: \"No frontmatter block found. Add YAML frontmatter between --- delimiters …\""},
		{"AS", "SKIP", "client guide (adding-skills-support.mdx, Lenient validation): a skill without a description is skipped; skills-ref \"SKILL.md must start with YAML frontmatter (---)\""},
	},
}

var fmUnclosed = &Rule{
	ID:       "fm/unclosed",
	Fix:      FixUnsafe,
	FixWhy:   "guesses where the header ends",
	Summary:  "The '---' header has no closing '---' line.",
	Kinds:    mdHeaderKinds,
	Severity: "V LOSE (all is header; REJ if it fails to parse) · CC: no header (skill LOSE, agent SKIP) · AS SKIP.",
}

var fmInlineDashes = &Rule{
	ID:       "fm/inline-dashes",
	Summary:  "'---' inside the header ends it early for Claude Code.",
	Kinds:    mdHeaderKinds,
	Severity: "CC: the header ends there: NOHDR if what is left does not parse, SKIP for a subagent that loses name or description, else LOSE of the fields after it (Info when Claude Code uses none of them) · AS SPEC · V ok.",
}

var fmNotMapping = &Rule{
	ID:       "fm/not-mapping",
	Summary:  "The header is a scalar or a list, not a mapping.",
	Kinds:    mdHeaderKinds,
	Severity: "V REJ · CC REJ (empty metadata).",
}

var fmCrlf = &Rule{
	ID:       "fm/crlf",
	Fix:      FixSafe,
	FixWhy:   "line endings only; every value reads the same",
	Summary:  "CRLF line endings, which claude.ai upload rejects.",
	Kinds:    "skill",
	Severity: "UP REJ; every other consumer accepts CRLF.",
}

var yamlSyntax = &Rule{
	ID:       "yaml/syntax",
	Fix:      FixUnsafe,
	FixWhy:   "a block scalar keeps line breaks that the plain value folded",
	Summary:  "Invalid YAML in the header that Claude Code's quoting retry cannot repair either.",
	Kinds:    mdHeaderKinds,
	Severity: "V REJ if its reader errors, else LOSE · CC: skill/cmd NOHDR (loads with empty metadata), project agent SKIP, plugin agent REJ; also where only Claude Code's reader fails (a quoted value continued at column 1) · CL ? · AS SKIP.",
	Evidence: []Evidence{
		{"CC", "NOHDR", "`claude plugin validate` 2.1.332 on a skill with `allowed-tools: - Read` (\"Unexpected token\") or `description: \"first line` + a next line `second\"` at column 1 (\"Unexpected character\"; indented one space it passes): \"YAML frontmatter failed to parse: YAML Parse error: … At runtime this skill loads with empty metadata (all frontmatter fields silently dropped).\", success false"},
		{"CC", "REJ", "`claude plugin validate` (plugin agent): \"YAML frontmatter failed to parse … every other frontmatter field silently dropped\", success false"},
		{"AS", "SKIP", "client guide (adding-skills-support.mdx, Lenient validation): \"YAML is completely unparseable → skip the skill\""},
	},
}

var yamlUnquotedSpecial = &Rule{
	ID:       "yaml/unquoted-special",
	Fix:      FixSafe,
	FixWhy:   "quotes the value exactly as Claude Code's retry reads it; the text is kept",
	Summary:  "A plain value that only Claude Code's quoting retry reads whole.",
	Kinds:    mdHeaderKinds,
	Severity: "CC ok (retry) · V LOSE (value cut, later keys lost) · CL ? · AS SPEC.",
	Evidence: []Evidence{
		{"CC", "ok", "`claude plugin validate` is silent on `description: … Usage: …` (its quoting retry)"},
		{"AS", "SPEC", "client guide (adding-skills-support.mdx, Lenient validation), Handling malformed YAML: \"the colon breaks parsing\"; a retry is only suggested"},
		{"V", "LOSE", "VS Code's own YAML reader (src/vs/base/common/yaml.ts) as simulated in vssubset.go: the value ends at the colon"},
	},
}

var yamlTabIndent = &Rule{
	ID:       "yaml/tab-indent",
	Fix:      FixSafe,
	FixWhy:   "indentation only: tabs become the spaces Claude Code's retry reads them as",
	Summary:  "Tabs in the header's indentation, which YAML forbids; only Claude Code's retry repairs them.",
	Kinds:    mdHeaderKinds,
	Severity: "CC ok (retry) · V per its reader (REJ on a tab-led block-scalar line) · CL ? · AS SKIP.",
}

var yamlDuplicateKey = &Rule{
	ID:       "yaml/duplicate-key",
	Fix:      FixUnsafe,
	FixWhy:   "deletes a value",
	Summary:  "A key repeated in one header mapping; VS Code rejects the header, others keep one value.",
	Kinds:    mdHeaderKinds,
	Severity: "V REJ · CC ok · AS SPEC.",
	Evidence: []Evidence{
		{"CC", "ok", "`claude plugin validate` 2.1.332 on a skill whose header repeats `description`: success true, no warning"},
	},
}

var yamlVscodeSubset = &Rule{
	ID:       "yaml/vscode-subset",
	Fix:      FixUnsafe,
	FixWhy:   "changes a value's type (null to an empty string) or deletes an anchor",
	Summary:  "Valid YAML that VS Code's own YAML reader misreads.",
	Kinds:    mdHeaderKinds,
	Severity: "`? ` keys, empty `key:`: V REJ; anchors, aliases, tags, `...`: V LOSE.",
}

// mdFile is one Markdown customization file being checked.
type mdFile struct {
	f     File
	r     *reporter
	kind  model.Kind
	text  []byte
	fm    Frontmatter
	nl    string // line break to use in fixes
	doc   *ydoc  // the tree rules read (strict, or the Claude Code retry's); nil if none
	retry bool   // doc came from the Claude Code retry
	vs    vsResult
	// fields are the top-level entries of a mapping header, in order.
	fields []mdField
	// mapping reports a usable tree whose root is a mapping (or empty).
	mapping bool
	// plugin reports a file inside a plugin (not a workspace .claude/ file).
	plugin bool
	// exists memoises link targets' Stat within this check: a skill often
	// links the same file many times.
	exists map[string]bool
	// lost is the fields the finding being reported loses (reportLoss).
	lost []string
}

type mdField struct {
	key      string
	k, v     *yaml.Node
	keySpan  model.Span
	valSpan  model.Span
	dupIndex int // >0 for a repeated key
}

// readers is who reads each Markdown kind (§2.1); a verdict for anyone else
// is dropped so that, say, an Agent Skills verdict never decides an agent.
var readers = sync.OnceValue(func() map[model.Kind][]model.Target {
	return map[model.Kind][]model.Target{
		model.KindSkill: {model.TargetVSCodeAgentHost, model.TargetVSCode, model.TargetClaudeCode, model.TargetCopilotCLI, model.TargetAgentSkills, model.TargetClaudeUpload,
			model.TargetCodex, model.TargetCursor, model.TargetGeminiCLI, model.TargetOpenCode, model.TargetRoo},
		model.KindAgent:        {model.TargetVSCodeAgentHost, model.TargetVSCode, model.TargetCopilotCLI},
		model.KindClaudeAgent:  {model.TargetClaudeCode, model.TargetVSCodeAgentHost, model.TargetVSCode},
		model.KindPrompt:       {model.TargetVSCodeAgentHost, model.TargetVSCode},
		model.KindCommand:      {model.TargetClaudeCode, model.TargetCopilotCLI},
		model.KindInstructions: {model.TargetVSCodeAgentHost, model.TargetVSCode, model.TargetCopilotCLI},
		model.KindRule:         {model.TargetClaudeCode, model.TargetVSCodeAgentHost, model.TargetVSCode},
		model.KindMemory:       {model.TargetVSCodeAgentHost, model.TargetVSCode, model.TargetCopilotCLI, model.TargetClaudeCode, model.TargetCodex, model.TargetCursor, model.TargetGeminiCLI},
		model.KindOutputStyle:  {model.TargetClaudeCode},
	}
})

func newMD(f File, r *reporter) *mdFile {
	m := &mdFile{f: f, r: r, kind: f.Kind, text: f.Text, nl: "\n"}
	m.fm = SplitFrontmatter(f.Text)
	if m.fm.CR >= 0 && m.fm.CR+1 < len(f.Text) && f.Text[m.fm.CR+1] == '\n' {
		m.nl = "\r\n"
	}
	if f.Layout != nil {
		m.plugin = pluginFormatOf(f.Path, f.Layout) != model.FormatNone
	} else {
		m.plugin = !strings.HasPrefix(f.Path, ".claude/") && !strings.Contains(f.Path, "/.claude/")
	}
	if strings.HasPrefix(f.Path, ".claude/") || strings.Contains(f.Path, "/.claude/") {
		m.plugin = false
	}
	return m
}

// report records a finding for the targets that read this kind. msg may
// hold {T} (the deciding targets' names), {s}/{es} (verb endings agreeing
// with them) and {does}/{has}/{is}; "A||B" uses B when the deciding
// reaction is only a spec rule, a recommendation or a guess.
// reportLoss is report for a finding whose consequence for some consumer is
// the loss of the named fields: each consumer's level asks whether it uses
// any of them (model.UsedFields).
func (m *mdFile) reportLoss(rule *Rule, span model.Span, v model.Verdicts, lost []string, msg string, fixes ...model.Fix) bool {
	m.lost = lost
	return m.report(rule, span, v, msg, fixes...)
}

func (m *mdFile) report(rule *Rule, span model.Span, v model.Verdicts, msg string, fixes ...model.Fix) bool {
	rd := readers()[m.kind]
	v = gateEvidence(rule, v)
	kept := make(model.Verdicts, len(v))
	for t, x := range v {
		for _, k := range rd {
			if k == t && !(m.kind == model.KindSkill && model.SkillUnread(t, m.f.Path, m.f.Layout)) {
				kept[t] = x
			}
		}
	}
	lost := m.lost
	m.lost = nil
	sev, by, ok := kept.DecideUsing(m.r.effective, func(t model.Target) bool { return model.Uses(t, m.kind, lost) })
	if !ok {
		return false
	}
	cons, _ := kept[by[0]].Consequence()
	soft := true
	unnecessary := false
	var acting []model.Target // the deciding consumers that act, not only a spec
	for _, t := range by {
		base := model.Reaction(strings.TrimSuffix(string(kept[t]), "?"))
		// The Agent Skills spec's WARN is its MUST that clients are told
		// to warn about: worded as the spec's rule, not a client's act.
		specWarn := t == model.TargetAgentSkills && base == model.Warn
		if kept[t] != model.Unknown && base != model.Spec && base != model.Should && !specWarn {
			soft = false
			acting = append(acting, t)
		}
		if base == model.Ignore {
			unnecessary = true
		}
	}
	if a, b, two := strings.Cut(msg, "||"); two {
		msg = a
		if soft {
			msg = b
		} else {
			by = acting // the message says what they do
		}
	}
	d := model.Diagnostic{Rule: rule.ID, Severity: sev, Message: expandMsg(msg, by), Span: span, Verdicts: kept, Fixes: fixes,
		Consequence: cons}
	if cons == model.FieldDropped {
		d.Lost = lost
	}
	if unnecessary {
		d.Tags = append(d.Tags, model.TagUnnecessary)
	}
	if rule == fieldRenamed {
		d.Tags = append(d.Tags, model.TagDeprecated)
	}
	m.r.add(d)
	return true
}

func expandMsg(msg string, by []model.Target) string {
	one := len(by) == 1
	pick := func(a, b string) string {
		if one {
			return a
		}
		return b
	}
	if !strings.Contains(msg, "{") {
		return msg
	}
	// One pass, as strings.Replacer would, without building one per
	// message (a check reports thousands).
	var sb strings.Builder
	sb.Grow(len(msg) + 32)
	for {
		i := strings.IndexByte(msg, '{')
		if i < 0 {
			sb.WriteString(msg)
			return sb.String()
		}
		sb.WriteString(msg[:i])
		msg = msg[i:]
		word := ""
		switch {
		case strings.HasPrefix(msg, "{T}"):
			word, msg = targetNames(by), msg[3:]
		case strings.HasPrefix(msg, "{s}"):
			word, msg = pick("s", ""), msg[3:]
		case strings.HasPrefix(msg, "{es}"):
			word, msg = pick("es", ""), msg[4:]
		case strings.HasPrefix(msg, "{does}"):
			word, msg = pick("does", "do"), msg[6:]
		case strings.HasPrefix(msg, "{has}"):
			word, msg = pick("has", "have"), msg[5:]
		case strings.HasPrefix(msg, "{is}"):
			word, msg = pick("is", "are"), msg[4:]
		default:
			word, msg = "{", msg[1:]
		}
		sb.WriteString(word)
	}
}

// q quotes a user value for a message: '…', shortened, one line.
func q(s string) string {
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

func line1(text []byte) model.Span { return model.Span{Start: 0, End: firstLineEnd(text)} }

// header returns the span rules use for "header": the opening '---' line.
func (m *mdFile) header() model.Span { return m.fm.Open }

// field returns the first entry for key.
func (m *mdFile) field(key string) *mdField {
	for i := range m.fields {
		if m.fields[i].key == key {
			return &m.fields[i]
		}
	}
	return nil
}

// str returns a string scalar's value (ok false for anything else).
func str(n *yaml.Node) (string, bool) {
	if n == nil || n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		return "", false
	}
	return n.Value, true
}

// ccNoHeader is Claude Code's reaction to a header it cannot parse: a
// plugin agent fails validation loudly, a project agent is skipped, other
// kinds load with the whole header dropped ("At runtime this skill loads
// with empty metadata", and the validator fails the plugin).
func (m *mdFile) ccNoHeader() model.Reaction {
	if m.kind == model.KindClaudeAgent {
		if m.plugin {
			return model.Reject
		}
		return model.Skip
	}
	return model.NoHeader
}

// checkHeader runs the header pipeline. It returns false when the file has
// no header (fm/missing is the kind's business).
func (m *mdFile) checkHeader() bool {
	fm := m.fm
	if !fm.Present {
		return false
	}
	if fm.BOM {
		m.report(fmBom, model.Span{Start: 0, End: len(bom)},
			model.V(model.Lose).With(model.Verdicts{model.TargetClaudeCode: model.OK, model.TargetAgentSkills: model.Spec}),
			"{T} see{s} no header and lose{s} every field: a byte-order mark (U+FEFF) precedes '---'.||{T} require{s} the file to start with '---', but a byte-order mark (U+FEFF) precedes it.",
			model.Fix{Title: "Delete the byte-order mark", Edits: []model.Edit{{Span: model.Span{Start: 0, End: len(bom)}}}, Preferred: true})
	}
	if !fm.Leading.Empty() {
		v := model.V(model.Lose).With(model.Verdicts{model.TargetClaudeCode: model.Lose})
		switch m.kind {
		case model.KindSkill:
			v[model.TargetAgentSkills] = model.Skip
		case model.KindClaudeAgent:
			v[model.TargetClaudeCode] = m.ccNoHeaderAgent()
		}
		m.report(fmLeadingLines, fm.Leading, v,
			"{T} read{s} no header in this file: lines precede the opening '---'.",
			model.Fix{Title: "Delete the lines before '---'", Edits: []model.Edit{{Span: fm.Leading}}, Preferred: true})
	}
	if fm.CR >= 0 {
		m.report(fmCrlf, model.Span{Start: fm.CR, End: fm.CR + 1}, model.Verdicts{model.TargetClaudeUpload: model.Reject},
			"{T} reject{s} this skill: it uses CRLF line endings.", m.toLF())
	}
	body := m.text[fm.Body.Start:fm.Body.End]
	base := fm.Body.Start
	m.vs = vsSimulate(m.text, fm.Body)
	doc, perr := parseYAML(body, func(o int) int { return base + o })
	if !fm.Closed {
		cc := model.Lose
		if m.kind == model.KindClaudeAgent {
			cc = m.ccNoHeaderAgent()
		}
		v := model.V(model.Lose).With(model.Verdicts{model.TargetClaudeCode: cc, model.TargetAgentSkills: model.Skip})
		if perr != nil {
			v = v.With(model.V(model.Reject))
		}
		m.report(fmUnclosed, fm.Open, v,
			"{T} misread{s} this file: its '---' header has no closing '---' line.", m.closeFix())
		if perr != nil {
			return true
		}
	}
	if perr != nil {
		doc = m.tryRetry(body, base, perr)
	}
	m.inlineDashes(doc)
	if doc == nil {
		return true
	}
	m.doc = doc
	m.collect()
	if perr == nil {
		m.vscodeSubset()
		m.ccFlowIndent(body, base)
	}
	return true
}

// ccFlowIndent reports the first continuation line of a multi-line quoted
// scalar that starts at column 1: YAML 1.2 wants it indented, and Claude
// Code's reader ("YAML Parse error: Unexpected character", 2.1.332) fails
// the whole header there, where go-yaml, PyYAML and VS Code read on.
func (m *mdFile) ccFlowIndent(body []byte, base int) {
	if i := bytes.Index(body, []byte("---")); i >= 0 {
		body = body[:i] // Claude Code reads only the part before an inner '---'
	}
	open, at, ok := flowContinuationAtColumn0(body)
	if !ok {
		return
	}
	end := len(body)
	if i := bytes.IndexByte(body[at:], '\n'); i >= 0 {
		end = at + i
	}
	// The finding starts where the quoted value opens, so that a comment
	// line above it (a suppression) stays outside the value.
	m.report(yamlSyntax, model.Span{Start: base + open, End: base + end},
		model.Verdicts{model.TargetClaudeCode: m.ccNoHeader()},
		"{T} cannot read this header: this line continues a quoted value at column 1, and its YAML reader needs continuation lines indented.",
		model.Fix{Title: "Indent the line", Preferred: true, Edits: []model.Edit{{Span: model.Span{Start: base + at, End: base + at}, NewText: "  "}}})
}

// flowContinuationAtColumn0 finds the first line inside a quoted scalar
// that spans lines and that starts with neither a space nor a tab; empty
// lines are folded and do not count.
func flowContinuationAtColumn0(body []byte) (open, at int, ok bool) {
	var quote byte // the open quote, 0 outside one
	block := -1    // the indentation of a key whose value is a block scalar, -1 outside one
	for off := 0; off < len(body); {
		end := bytes.IndexByte(body[off:], '\n')
		if end < 0 {
			end = len(body)
		} else {
			end += off
		}
		line := bytes.TrimRight(body[off:end], "\r")
		indent := len(line) - len(bytes.TrimLeft(line, " "))
		if block >= 0 && quote == 0 {
			if len(bytes.TrimSpace(line)) == 0 || indent > block {
				off = end + 1
				continue
			}
			block = -1
		}
		i := 0
		if quote == 0 && blockScalarHead(line) {
			block = indent
			off = end + 1
			continue
		}
		if quote != 0 {
			if len(line) > 0 && line[0] != ' ' && line[0] != '\t' {
				return open, off, true
			}
		} else {
			i = quotedValueStart(line)
			if i < 0 {
				off = end + 1
				continue
			}
			quote = line[i]
			open = off
			i++
		}
		quote = scanQuoted(line[i:], quote)
		off = end + 1
	}
	return 0, 0, false
}

// blockScalarHead reports a line whose value starts a block scalar
// ("key: |", "key: >-", "- |").
func blockScalarHead(line []byte) bool {
	t := bytes.TrimSpace(line)
	if c := bytes.LastIndex(t, []byte(" #")); c >= 0 {
		t = bytes.TrimSpace(t[:c])
	}
	f := bytes.Fields(t)
	if len(f) == 0 {
		return false
	}
	last := f[len(f)-1]
	if len(f) == 1 && !bytes.HasSuffix(t, []byte("-")) {
		return false
	}
	return len(last) > 0 && (last[0] == '|' || last[0] == '>') && len(bytes.Trim(last[1:], "+-0123456789")) == 0
}

// quotedValueStart is the offset of the quote opening a mapping value or a
// sequence item on this line ("key: \"…", "- '…"), or -1.
func quotedValueStart(line []byte) int {
	t := bytes.TrimLeft(line, " ")
	if len(t) == 0 || t[0] == '#' {
		return -1
	}
	lead := len(line) - len(t)
	for bytes.HasPrefix(t, []byte("- ")) {
		t2 := bytes.TrimLeft(t[2:], " ")
		lead += len(t) - len(t2)
		t = t2
	}
	if len(t) > 0 && (t[0] == '"' || t[0] == '\'') {
		return lead
	}
	k := bytes.Index(t, []byte(": "))
	if k < 0 || bytes.ContainsAny(t[:k], "\"'{[#") {
		return -1
	}
	v := bytes.TrimLeft(t[k+2:], " ")
	if len(v) > 0 && (v[0] == '"' || v[0] == '\'') {
		return lead + len(t) - len(v)
	}
	return -1
}

// scanQuoted reads s inside a scalar opened with quote and returns the
// quote still open at the end of s (0 once it closes).
func scanQuoted(s []byte, quote byte) byte {
	for i := 0; i < len(s); i++ {
		switch {
		case quote == '"' && s[i] == '\\':
			i++
		case s[i] == quote && quote == '\'' && i+1 < len(s) && s[i+1] == '\'':
			i++
		case s[i] == quote:
			return 0
		}
	}
	return quote
}

// ccNoHeaderAgent is Claude Code's reaction to a subagent without a header:
// a project agent is read as a document (skipped), a plugin agent is named
// after its file.
func (m *mdFile) ccNoHeaderAgent() model.Reaction {
	if m.plugin {
		return model.Lose
	}
	return model.Skip
}

// tryRetry runs the Claude Code retry after a strict failure and reports
// what it repaired, or yaml/syntax when it repairs nothing.
func (m *mdFile) tryRetry(body []byte, base int, perr *yerr) *ydoc {
	res, changed := ccRetry(body)
	if changed {
		doc, err := parseYAML(res.src, func(o int) int {
			if o < 0 {
				o = 0
			}
			if o >= len(res.orig) {
				o = len(res.orig) - 1
			}
			return base + res.orig[o]
		})
		if err == nil {
			m.retry = true
			reported := false
			for _, e := range res.edits {
				if e.quoted {
					reported = m.unquotedSpecial(body, base, e) || reported
				} else {
					reported = m.tabIndent(base, e) || reported
				}
			}
			if !reported {
				m.syntax(perr, model.OK)
			}
			return doc
		}
	}
	cc := m.ccNoHeader()
	if i := bytes.Index(body, []byte("---")); i >= 0 && base+i <= perr.span.Start {
		cc = model.OK // Claude Code reads only the part before an inner '---' (fm/inline-dashes says what it loses)
	}
	m.syntax(perr, cc)
	return nil
}

func (m *mdFile) syntax(perr *yerr, cc model.Reaction) {
	v := model.V(model.Lose)
	if m.vs.errs() {
		v = model.V(model.Reject)
	}
	v = v.With(model.Verdicts{model.TargetClaudeCode: cc, model.TargetCopilotCLI: model.Unknown, model.TargetAgentSkills: model.Skip})
	var fixes []model.Fix
	if fx, ok := m.blockScalarFix(perr); ok {
		fixes = append(fixes, fx)
	}
	m.report(yamlSyntax, perr.span, v,
		"{T} cannot read this header: invalid YAML ("+perr.msg+").", fixes...)
}

// unquotedSpecial reports a one-line value the retry had to quote, if the
// line is invalid YAML on its own.
func (m *mdFile) unquotedSpecial(body []byte, base int, e retryEdit) bool {
	ls := e.start
	for ls > 0 && body[ls-1] != '\n' && body[ls-1] != '\r' {
		ls--
	}
	var n yaml.Node
	if yaml.Unmarshal(body[ls:e.end], &n) == nil {
		return false
	}
	key := strings.TrimSuffix(strings.TrimSpace(string(body[ls:e.start])), ":")
	value := body[e.start:e.end]
	span := model.Span{Start: base + e.start, End: base + e.end}
	vsv := model.OK
	msg := "{T} read{s} only part of the '" + key + "' value: it needs quotes.||" +
		"{T} require{s} valid YAML: the unquoted '" + key + "' value needs quotes (Claude Code repairs it)."
	if is, ok := m.vs.at(vsCut, e.line); ok {
		span = model.Span{Start: is.span.Start, End: base + e.end}
		if m.vs.stopped >= 0 && m.vs.issues[m.vs.stopped].line == e.line {
			vsv = model.Lose
		}
		msg = "{T} cut{s} the '" + key + "' value here and lose{s} every later key: quote the value.||" +
			"{T} require{s} valid YAML: the unquoted '" + key + "' value needs quotes (Claude Code repairs it)."
	} else if c := bytes.Index(value, []byte(": ")); c >= 0 {
		span.Start = base + e.start + c
	} else if s, ok := afterBracket(append([]byte("k: "), value...)); ok {
		span.Start = base + e.start + s - 3
	}
	v := model.V(vsv).With(model.Verdicts{model.TargetClaudeCode: model.OK, model.TargetCopilotCLI: model.Unknown, model.TargetAgentSkills: model.Spec})
	text := strings.TrimRight(string(value), " \t")
	fx := model.Fix{Title: "Quote the value", Preferred: true}
	// `Use when: deploying # note`: Claude Code's retry reads the ' # note'
	// as text, a YAML reader as a comment. The quotes go round the text
	// before it and the comment stays one, but that changes what Claude
	// Code read, so the fix is no longer safe.
	if c := commentAt(text); c >= 0 {
		text = strings.TrimRight(text[:c], " \t")
		fx.Title = "Quote the value before the comment"
		fx.Demoted = "Claude Code's retry reads the '#…' after the value as text, a YAML reader as a comment"
	}
	fx.Edits = []model.Edit{{Span: model.Span{Start: base + e.start, End: base + e.start + len(text)}, NewText: "'" + strings.ReplaceAll(text, "'", "''") + "'"}}
	return m.report(yamlUnquotedSpecial, span, v, msg, fx)
}

// commentAt is the offset of a ` #` comment in a plain one-line value, or -1.
func commentAt(s string) int {
	for i := 1; i < len(s); i++ {
		if s[i] == '#' && (s[i-1] == ' ' || s[i-1] == '\t') {
			return i - 1
		}
	}
	return -1
}

func (m *mdFile) tabIndent(base int, e retryEdit) bool {
	span := model.Span{Start: base + e.start, End: base + e.end}
	vsv := model.OK
	if _, ok := m.vs.at(vsTabBlock, e.line); ok {
		vsv = model.Reject
	}
	v := model.V(vsv).With(model.Verdicts{model.TargetClaudeCode: model.OK, model.TargetCopilotCLI: model.Unknown, model.TargetAgentSkills: model.Skip})
	return m.report(yamlTabIndent, span, v,
		"{T} cannot parse this header: YAML forbids tabs in indentation.||{T} may not parse this header: YAML forbids tabs in indentation.",
		model.Fix{Title: "Indent with spaces", Preferred: true, Edits: []model.Edit{{Span: span, NewText: strings.Repeat("  ", e.end-e.start)}}})
}

// inlineDashes reports the first `---` inside the header (Claude Code's
// regex ends the header there).
func (m *mdFile) inlineDashes(full *ydoc) {
	body := m.text[m.fm.Body.Start:m.fm.Body.End]
	i := bytes.Index(body, []byte("---"))
	if i < 0 {
		return
	}
	s, e := i, i+3
	for s > 0 && body[s-1] == '-' {
		s--
	}
	for e < len(body) && body[e] == '-' {
		e++
	}
	prefix := body[:i]
	pdoc, err := parseYAML(prefix, func(o int) int { return o })
	if err != nil {
		if res, ok := ccRetry(prefix); ok {
			pdoc, err = parseYAML(res.src, func(o int) int { return o })
		}
	}
	cc, lost := model.Lose, []string(nil)
	if err != nil {
		cc = model.NoHeader // what is left does not parse: Claude Code drops the whole header
	} else {
		lost = keysAfter(full, pdoc, body[e:])
		if m.kind == model.KindClaudeAgent && (slices.Contains(lost, "name") || slices.Contains(lost, "description")) {
			cc = model.Skip // a subagent without name or description is not loaded
		}
	}
	what := "what follows it"
	if len(lost) > 0 {
		what = "what follows it (" + strings.Join(lost, ", ") + ")"
	}
	base := m.fm.Body.Start
	m.reportLoss(fmInlineDashes, model.Span{Start: base + s, End: base + e},
		model.Verdicts{model.TargetClaudeCode: cc, model.TargetAgentSkills: model.Spec}, lost,
		"{T} end{s} the header at this '---' and lose{s} "+what+".||{T} forbid{s} '---' inside the header; Claude Code ends the header there.")
}

// keysAfter lists the top-level keys of the whole header that the part
// before an inner '---' lacks: what Claude Code loses there. When the whole
// header does not parse (the '---' starts a second YAML document), the
// keys are read from the lines after it.
func keysAfter(full, prefix *ydoc, rest []byte) []string {
	var lost []string
	add := func(k string) {
		if !hasKey(prefix.root, k) && !slices.Contains(lost, k) {
			lost = append(lost, k)
		}
	}
	if full != nil && full.root != nil && full.root.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(full.root.Content); i += 2 {
			add(full.root.Content[i].Value)
		}
		return lost
	}
	for _, line := range strings.Split(string(rest), "\n") {
		if line == "" || line[0] == ' ' || line[0] == '\t' || line[0] == '#' || line[0] == '-' {
			continue
		}
		if k, _, ok := strings.Cut(line, ":"); ok && k != "" && !strings.ContainsAny(k, " \t\"'") {
			add(k)
		}
	}
	return lost
}

func hasKey(root *yaml.Node, key string) bool {
	if root == nil || root.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == key {
			return true
		}
	}
	return false
}

// collect fills m.fields from the tree and reports duplicate keys and a
// header that is no mapping.
func (m *mdFile) collect() {
	root := m.doc.root
	if root == nil {
		m.mapping = true
		return
	}
	if root.Kind != yaml.MappingNode {
		if !m.fm.Closed {
			return // fm/unclosed is the cause: the "header" is the whole file
		}
		what := "a single value"
		if root.Kind == yaml.SequenceNode {
			what = "a list"
		}
		hb := m.fm.Body
		hb.End = trimRightAt(m.text, hb.Start, hb.End)
		for hb.End > hb.Start && (m.text[hb.End-1] == '\n' || m.text[hb.End-1] == '\r') {
			hb.End--
		}
		m.report(fmNotMapping, hb, model.V(model.Reject).With(model.Verdicts{model.TargetClaudeCode: model.Reject}),
			"{T} reject{s} this header: it is "+what+", not 'key: value' lines.")
		return
	}
	m.mapping = true
	count := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		f := mdField{key: k.Value, k: k, v: v, keySpan: m.doc.keySpan(k), valSpan: m.doc.span(v), dupIndex: count[k.Value]}
		if isNull(v) && v.Value == "" {
			// yaml.v3 places an empty value at the next token; we want the
			// spot after the colon.
			at := f.keySpan.End
			if c := bytes.IndexByte(m.text[at:m.fm.Body.End], ':'); c >= 0 {
				at += c + 1
			}
			f.valSpan = model.Span{Start: at, End: at}
		}
		count[k.Value]++
		m.fields = append(m.fields, f)
	}
	for _, d := range duplicateKeys(root, nil) {
		second := m.doc.keySpan(d.second)
		first := m.doc.keySpan(d.first)
		fix := model.Fix{Title: "Delete the repeated '" + d.second.Value + "'", Preferred: true, Edits: []model.Edit{{Span: m.entryLines(d.parent, d.index)}}}
		if m.report(yamlDuplicateKey, second, model.V(model.Reject).With(model.Verdicts{model.TargetClaudeCode: model.OK, model.TargetAgentSkills: model.Spec}),
			"{T} reject{s} this header: key "+q(d.second.Value)+" appears twice.||{T} forbid{s} repeated keys: "+q(d.second.Value)+" appears twice.", fix) {
			last := &m.r.diags[len(m.r.diags)-1]
			last.Related = append(last.Related, model.Related{Span: first, Message: "first " + q(d.first.Value) + " is here"})
		}
	}
}

// entryLines is the file span of the whole lines holding a mapping entry
// (key at index i of parent.Content and its value), with their breaks.
func (m *mdFile) entryLines(parent *yaml.Node, i int) model.Span {
	k := m.doc.span(parent.Content[i])
	v := m.doc.span(parent.Content[i+1])
	start := k.Start
	for start > 0 && m.text[start-1] != '\n' && m.text[start-1] != '\r' {
		start--
	}
	end := v.End
	if end < k.End {
		end = k.End
	}
	_, next := lineAt(m.text, end)
	if next > m.fm.Body.End && m.fm.Body.End >= start {
		next = m.fm.Body.End
	}
	return model.Span{Start: start, End: next}
}

// vscodeSubset reports valid YAML that VS Code's reader misreads.
func (m *mdFile) vscodeSubset() {
	for i, is := range m.vs.issues {
		if m.vs.stopped >= 0 && i > m.vs.stopped {
			break
		}
		switch is.kind {
		case vsMissingValue:
			key := string(m.text[is.key.Start:is.key.End])
			if emptyChecked[key] && sharedFieldKind(m.kind) {
				continue // field/empty or skill/desc-empty names it
			}
			m.report(yamlVscodeSubset, is.span, model.V(model.Reject),
				"{T} report{s} 'Missing value' for the empty "+q(key)+"; write "+q(key+": ''")+" or remove it.",
				model.Fix{Title: "Write an empty string", Preferred: true, Edits: []model.Edit{{Span: model.Span{Start: is.span.End + 1, End: is.span.End + 1}, NewText: " ''"}}})
		case vsComplexKey:
			m.report(yamlVscodeSubset, is.span, model.V(model.Reject),
				"{T} reject{s} '? ' complex keys; write 'key: value' instead.")
		case vsLiteral:
			tok := string(m.text[is.span.Start:is.span.End])
			var fixes []model.Fix
			if fx, ok := m.expandFix(is.span, tok); ok {
				fixes = append(fixes, fx)
			}
			m.report(yamlVscodeSubset, is.span, model.V(model.Lose),
				"{T} read{s} "+q(tok)+" as literal text: its YAML reader has no anchors, aliases or tags.", fixes...)
		case vsDocEnd:
			m.report(yamlVscodeSubset, is.span, model.V(model.Lose),
				"{T} stop{s} reading at '...' and lose{s} every key after it.")
		}
	}
}

// expandFix removes an anchor or tag, or replaces an alias with the text
// of the scalar it names, so that VS Code reads what YAML means.
func (m *mdFile) expandFix(span model.Span, tok string) (model.Fix, bool) {
	switch tok[0] {
	case '&', '!':
		end := span.End
		for end < len(m.text) && m.text[end] == ' ' {
			end++
		}
		title := "Remove the anchor"
		if tok[0] == '!' {
			title = "Remove the tag"
		}
		return model.Fix{Title: title, Edits: []model.Edit{{Span: model.Span{Start: span.Start, End: end}}}}, true
	case '*':
		n := findAnchor(m.doc.root, tok[1:])
		if n == nil || n.Kind != yaml.ScalarNode {
			return model.Fix{}, false
		}
		src := m.srcOf(m.doc.span(n))
		src = strings.TrimLeft(strings.TrimPrefix(src, "&"+n.Anchor), " ")
		if strings.ContainsAny(src, "\r\n") {
			return model.Fix{}, false
		}
		return model.Fix{Title: "Replace the alias with its value", Edits: []model.Edit{{Span: span, NewText: src}}}, true
	}
	return model.Fix{}, false
}

func findAnchor(n *yaml.Node, name string) *yaml.Node {
	if n == nil {
		return nil
	}
	if n.Anchor == name && n.Kind != yaml.AliasNode {
		return n
	}
	for _, c := range n.Content {
		if f := findAnchor(c, name); f != nil {
			return f
		}
	}
	return nil
}

// emptyChecked are keys whose emptiness a field rule reports.
var emptyChecked = map[string]bool{"name": true, "description": true, "model": true, "agent": true, "argument-hint": true}

// toLF is the fix turning every CRLF into LF.
func (m *mdFile) toLF() model.Fix {
	fx := model.Fix{Title: "Convert line endings to LF"}
	for i := 0; i+1 < len(m.text) && len(fx.Edits) < 10000; i++ {
		if m.text[i] == '\r' && m.text[i+1] == '\n' {
			fx.Edits = append(fx.Edits, model.Edit{Span: model.Span{Start: i, End: i + 1}})
		}
	}
	return fx
}

// closeFix inserts the closing '---' before the first line that is not YAML.
func (m *mdFile) closeFix() model.Fix {
	pos := m.fm.Body.Start
	for pos < len(m.text) {
		e, n := lineAt(m.text, pos)
		l := m.text[pos:e]
		if !isBlank(l) && !yamlish(l) {
			break
		}
		pos = n
	}
	ins := "---" + m.nl
	if pos == len(m.text) && pos > 0 && m.text[pos-1] != '\n' && m.text[pos-1] != '\r' {
		ins = m.nl + ins
	}
	return model.Fix{Title: "Insert the closing '---'", Preferred: true, Edits: []model.Edit{{Span: model.Span{Start: pos, End: pos}, NewText: ins}}}
}

func yamlish(l []byte) bool {
	if l[0] == ' ' || l[0] == '\t' || bytes.HasPrefix(l, []byte("- ")) {
		return true
	}
	return keyColon(l) > 0 && l[0] != '#'
}

// blockScalarFix rewrites a multi-line plain value as a `|` block scalar
// when the error sits on one of its continuation lines.
func (m *mdFile) blockScalarFix(perr *yerr) (model.Fix, bool) {
	if !strings.Contains(perr.msg, "mapping values are not allowed") {
		return model.Fix{}, false
	}
	// Find the top-level key line above the error line.
	body := m.fm.Body
	var starts []int
	for pos := body.Start; pos < body.End; {
		_, n := lineAt(m.text, pos)
		starts = append(starts, pos)
		pos = n
	}
	errLine := -1
	for i, s := range starts {
		if s <= perr.span.Start {
			errLine = i
		}
	}
	if errLine < 0 {
		return model.Fix{}, false
	}
	keyLine := errLine
	for keyLine > 0 && (indented(m.text[starts[keyLine]:]) || isBlankAt(m.text, starts[keyLine])) {
		keyLine--
	}
	kl := m.text[starts[keyLine]:]
	ke, _ := lineAt(m.text, starts[keyLine])
	c := keyColon(m.text[starts[keyLine]:ke])
	if c <= 0 || kl[0] == '#' {
		return model.Fix{}, false
	}
	first := strings.TrimSpace(string(m.text[starts[keyLine]+c+1 : ke]))
	if strings.HasPrefix(first, "|") || strings.HasPrefix(first, ">") || strings.HasPrefix(first, "\"") || strings.HasPrefix(first, "'") {
		return model.Fix{}, false
	}
	last := keyLine
	for i := keyLine + 1; i < len(starts); i++ {
		if indented(m.text[starts[i]:]) {
			last = i
		} else if !isBlankAt(m.text, starts[i]) {
			break
		}
	}
	if last == keyLine && errLine == keyLine && first == "" {
		return model.Fix{}, false
	}
	var b strings.Builder
	b.WriteString(" |")
	b.WriteString(m.nl)
	if first != "" {
		b.WriteString("  " + first + m.nl)
	}
	minInd := -1
	for i := keyLine + 1; i <= last; i++ {
		e, _ := lineAt(m.text, starts[i])
		l := m.text[starts[i]:e]
		if isBlank(l) {
			continue
		}
		ind := len(l) - len(bytes.TrimLeft(l, " "))
		if minInd < 0 || ind < minInd {
			minInd = ind
		}
	}
	for i := keyLine + 1; i <= last; i++ {
		e, _ := lineAt(m.text, starts[i])
		l := m.text[starts[i]:e]
		if isBlank(l) {
			b.WriteString(m.nl)
			continue
		}
		b.WriteString("  " + string(l[minInd:]) + m.nl)
	}
	endLast, _ := lineAt(m.text, starts[last])
	out := strings.TrimSuffix(b.String(), m.nl)
	return model.Fix{Title: "Make the value a '|' block scalar", Preferred: true, Edits: []model.Edit{{Span: model.Span{Start: starts[keyLine] + c + 1, End: endLast}, NewText: out}}}, true
}

func indented(b []byte) bool { return len(b) > 0 && (b[0] == ' ' || b[0] == '\t') }

func isBlankAt(text []byte, pos int) bool {
	e, _ := lineAt(text, pos)
	return isBlank(text[pos:e])
}

// insertKeys is the edit adding "key: value" lines at the end of the header,
// or a whole header when there is none.
func (m *mdFile) insertKeys(lines ...string) model.Edit {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l + m.nl)
	}
	if m.fm.Present && m.fm.Closed {
		at := m.fm.Close.Start
		return model.Edit{Span: model.Span{Start: at, End: at}, NewText: b.String()}
	}
	if m.fm.Present {
		// Unclosed: right after the opening line, before any Markdown.
		at := m.fm.Body.Start
		return model.Edit{Span: model.Span{Start: at, End: at}, NewText: b.String()}
	}
	at := 0
	if m.fm.BOM {
		at = len(bom)
	}
	return model.Edit{Span: model.Span{Start: at, End: at}, NewText: "---" + m.nl + b.String() + "---" + m.nl}
}

// firstSentence is the description fixes offer: the body's first sentence,
// or a placeholder.
func (m *mdFile) firstSentence() string {
	body := m.text[m.fm.Markdown.Start:m.fm.Markdown.End]
	if !m.fm.Present {
		body = m.text
	}
	var fence CodeFence
	for pos := 0; pos < len(body); {
		e, n := lineAt(body, pos)
		inFence := fence.Step(body[pos:e])
		l := strings.TrimSpace(string(body[pos:e]))
		pos = n
		if inFence || l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, "<") || strings.HasPrefix(l, "---") || strings.HasPrefix(l, "|") {
			continue
		}
		l = strings.TrimLeft(l, "-*> ")
		if i := strings.Index(l, ". "); i >= 0 {
			l = l[:i+1]
		}
		if utf8.RuneCountInString(l) > 200 {
			l = string([]rune(l)[:200])
		}
		if l != "" {
			return l
		}
	}
	return "TODO: say what this does and when to use it."
}

// yamlScalar renders s as a one-line YAML scalar, quoting only if needed.
func yamlScalar(s string) string {
	var n yaml.Node
	plain := s != "" && !strings.ContainsAny(s[:1], "!&*[]{}|>'\"%@`#,?:-") && !strings.Contains(s, ": ") && !strings.Contains(s, " #")
	if plain {
		if doc, ok := fastYAML([]byte("k: " + s)); ok {
			if v, ok := str(mapValue(doc.Content[0], "k")); ok && v == s {
				return s
			}
		}
		if yaml.Unmarshal([]byte("k: "+s), &n) == nil {
			if v, ok := str(mapValue(n.Content[0], "k")); ok && v == s {
				return s
			}
		}
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// yamlFlowItem renders s as one item of a flow sequence (`[…]`): plain
// only when `[s]` reads back as the one item s (a ',' or a '{' would split
// it or open a mapping), else single-quoted.
func yamlFlowItem(s string) string {
	if v := yamlScalar(s); v == s && !strings.ContainsAny(s, ",[]{}#") {
		var n yaml.Node
		if yaml.Unmarshal([]byte("k: ["+s+"]"), &n) == nil {
			if seq := mapValue(n.Content[0], "k"); seq != nil && len(seq.Content) == 1 && seq.Content[0].Tag == "!!str" && seq.Content[0].Value == s {
				return s
			}
		}
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

func mapValue(root *yaml.Node, key string) *yaml.Node {
	if root == nil || root.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == key {
			return root.Content[i+1]
		}
	}
	return nil
}

// folder is the skill's folder name (parent directory of the file).
func (m *mdFile) folder() string { return path.Base(path.Dir(m.f.Path)) }

// stem is a file's name without its Markdown suffixes.
func (m *mdFile) stem() string {
	b := path.Base(m.f.Path)
	for _, s := range []string{".agent.md", ".chatmode.md", ".prompt.md", ".instructions.md", ".md"} {
		if strings.HasSuffix(b, s) {
			return strings.TrimSuffix(b, s)
		}
	}
	return b
}

// valueText is the source text of a field's value.
func (m *mdFile) valueText(f *mdField) string { return string(m.text[f.valSpan.Start:f.valSpan.End]) }

// replaceValue is a fix replacing a field's value.
func replaceValue(title string, f *mdField, newText string, preferred bool) model.Fix {
	return model.Fix{Title: title, Preferred: preferred, Edits: []model.Edit{{Span: f.valSpan, NewText: newText}}}
}

// replaceScalarValue is a fix writing a one-line scalar in place of a
// field's value; a block collection's value starts on the next line, so the
// edit starts right after the key's ':' (`key: text`, not `key:` and the
// text indented below).
func (m *mdFile) replaceScalarValue(title string, f *mdField, text string, preferred bool) model.Fix {
	fx := replaceValue(title, f, text, preferred)
	if f.v.Kind != yaml.ScalarNode && f.v.Style&yaml.FlowStyle == 0 {
		if c := bytes.IndexByte(m.text[f.keySpan.End:f.valSpan.Start], ':'); c >= 0 {
			fx.Edits[0] = model.Edit{Span: model.Span{Start: f.keySpan.End + c + 1, End: f.valSpan.End}, NewText: " " + text}
		}
	}
	return fx
}

var _ = fmt.Sprintf

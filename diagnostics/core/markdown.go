package core

// The Markdown kinds share one pipeline (customization-formats.md §3, §4):
// split the header, report header-level problems (fm/*), parse it strictly,
// fall back to the Claude Code retry, simulate VS Code's reader, and hand the
// resulting tree to the kind's field rules. A header nobody can parse gets
// yaml/syntax and nothing else: field rules run only on a recovered tree.

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core/syntax"

	"bytes"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/ahpls-dev/ahpls/model"
)

// HeaderRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var HeaderRules = []*Rule{
	fmBom, fmLeadingLines, FmMissing, fmUnclosed, fmInlineDashes, fmNotMapping, FmCrlf,
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

var FmMissing = &Rule{
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

var FmCrlf = &Rule{
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

// MDFile is one Markdown customization file being checked.
type MDFile struct {
	F     File
	R     *Reporter
	Kind  model.Kind
	Text  []byte
	Fm    syntax.Frontmatter
	Nl    string       // line break to use in fixes
	Doc   *syntax.YDoc // the tree rules read (strict, or the Claude Code retry's); nil if none
	Retry bool         // doc came from the Claude Code retry
	vs    syntax.VsResult
	// fields are the top-level entries of a mapping header, in order.
	Fields []MDField
	// mapping reports a usable tree whose root is a mapping (or empty).
	Mapping bool
	// plugin reports a file inside a plugin (not a workspace .claude/ file).
	Plugin bool
	// exists memoises link targets' Stat within this check: a skill often
	// links the same file many times.
	Exists map[string]bool
	// lost is the fields the finding being reported loses (reportLoss).
	lost []string
}

type MDField struct {
	Key      string
	k, V     *yaml.Node
	KeySpan  model.Span
	ValSpan  model.Span
	DupIndex int // >0 for a repeated key
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

func NewMD(f File, r *Reporter) *MDFile {
	m := &MDFile{F: f, R: r, Kind: f.Kind, Text: f.Text, Nl: "\n"}
	m.Fm = syntax.SplitFrontmatter(f.Text)
	if m.Fm.CR >= 0 && m.Fm.CR+1 < len(f.Text) && f.Text[m.Fm.CR+1] == '\n' {
		m.Nl = "\r\n"
	}
	if f.Layout != nil {
		m.Plugin = PluginFormatOf(f.Path, f.Layout) != model.FormatNone
	} else {
		m.Plugin = !strings.HasPrefix(f.Path, ".claude/") && !strings.Contains(f.Path, "/.claude/")
	}
	if strings.HasPrefix(f.Path, ".claude/") || strings.Contains(f.Path, "/.claude/") {
		m.Plugin = false
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
func (m *MDFile) reportLoss(rule *Rule, span model.Span, v model.Verdicts, lost []string, msg string, fixes ...model.Fix) bool {
	m.lost = lost
	return m.Report(rule, span, v, msg, fixes...)
}

func (m *MDFile) Report(rule *Rule, span model.Span, v model.Verdicts, msg string, fixes ...model.Fix) bool {
	rd := readers()[m.Kind]
	v = GateEvidence(rule, v)
	kept := make(model.Verdicts, len(v))
	for t, x := range v {
		for _, k := range rd {
			if k == t && !(m.Kind == model.KindSkill && model.SkillUnread(t, m.F.Path, m.F.Layout)) {
				kept[t] = x
			}
		}
	}
	lost := m.lost
	m.lost = nil
	sev, by, ok := kept.DecideUsing(m.R.Effective, func(t model.Target) bool { return model.Uses(t, m.Kind, lost) })
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
	if rule == FieldRenamed {
		d.Tags = append(d.Tags, model.TagDeprecated)
	}
	m.R.Add(d)
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

func Line1(text []byte) model.Span { return model.Span{Start: 0, End: FirstLineEnd(text)} }

// Header returns the span rules use for "header": the opening '---' line.
func (m *MDFile) Header() model.Span { return m.Fm.Open }

// Field returns the first entry for key.
func (m *MDFile) Field(key string) *MDField {
	for i := range m.Fields {
		if m.Fields[i].Key == key {
			return &m.Fields[i]
		}
	}
	return nil
}

// Str returns a string scalar's value (ok false for anything else).
func Str(n *yaml.Node) (string, bool) {
	if n == nil || n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		return "", false
	}
	return n.Value, true
}

// ccNoHeader is Claude Code's reaction to a header it cannot parse: a
// plugin agent fails validation loudly, a project agent is skipped, other
// kinds load with the whole header dropped ("At runtime this skill loads
// with empty metadata", and the validator fails the plugin).
func (m *MDFile) ccNoHeader() model.Reaction {
	if m.Kind == model.KindClaudeAgent {
		if m.Plugin {
			return model.Reject
		}
		return model.Skip
	}
	return model.NoHeader
}

// CheckHeader runs the header pipeline. It returns false when the file has
// no header (fm/missing is the kind's business).
func (m *MDFile) CheckHeader() bool {
	fm := m.Fm
	if !fm.Present {
		return false
	}
	if fm.BOM {
		m.Report(fmBom, model.Span{Start: 0, End: len(syntax.BOM)},
			model.V(model.Lose).With(model.Verdicts{model.TargetClaudeCode: model.OK, model.TargetAgentSkills: model.Spec}),
			"{T} see{s} no header and lose{s} every field: a byte-order mark (U+FEFF) precedes '---'.||{T} require{s} the file to start with '---', but a byte-order mark (U+FEFF) precedes it.",
			model.Fix{Title: "Delete the byte-order mark", Edits: []model.Edit{{Span: model.Span{Start: 0, End: len(syntax.BOM)}}}, Preferred: true})
	}
	if !fm.Leading.Empty() {
		v := model.V(model.Lose).With(model.Verdicts{model.TargetClaudeCode: model.Lose})
		switch m.Kind {
		case model.KindSkill:
			v[model.TargetAgentSkills] = model.Skip
		case model.KindClaudeAgent:
			v[model.TargetClaudeCode] = m.CCNoHeaderAgent()
		}
		m.Report(fmLeadingLines, fm.Leading, v,
			"{T} read{s} no header in this file: lines precede the opening '---'.",
			model.Fix{Title: "Delete the lines before '---'", Edits: []model.Edit{{Span: fm.Leading}}, Preferred: true})
	}
	if fm.CR >= 0 {
		m.Report(FmCrlf, model.Span{Start: fm.CR, End: fm.CR + 1}, model.Verdicts{model.TargetClaudeUpload: model.Reject},
			"{T} reject{s} this skill: it uses CRLF line endings.", m.toLF())
	}
	body := m.Text[fm.Body.Start:fm.Body.End]
	base := fm.Body.Start
	m.vs = syntax.VsSimulate(m.Text, fm.Body)
	doc, perr := syntax.ParseYAML(body, func(o int) int { return base + o })
	if !fm.Closed {
		cc := model.Lose
		if m.Kind == model.KindClaudeAgent {
			cc = m.CCNoHeaderAgent()
		}
		v := model.V(model.Lose).With(model.Verdicts{model.TargetClaudeCode: cc, model.TargetAgentSkills: model.Skip})
		if perr != nil {
			v = v.With(model.V(model.Reject))
		}
		m.Report(fmUnclosed, fm.Open, v,
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
	m.Doc = doc
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
func (m *MDFile) ccFlowIndent(body []byte, base int) {
	if i := bytes.Index(body, []byte("---")); i >= 0 {
		body = body[:i] // Claude Code reads only the part before an inner '---'
	}
	open, at, ok := FlowContinuationAtColumn0(body)
	if !ok {
		return
	}
	end := len(body)
	if i := bytes.IndexByte(body[at:], '\n'); i >= 0 {
		end = at + i
	}
	// The finding starts where the quoted value opens, so that a comment
	// line above it (a suppression) stays outside the value.
	m.Report(yamlSyntax, model.Span{Start: base + open, End: base + end},
		model.Verdicts{model.TargetClaudeCode: m.ccNoHeader()},
		"{T} cannot read this header: this line continues a quoted value at column 1, and its YAML reader needs continuation lines indented.",
		model.Fix{Title: "Indent the line", Preferred: true, Edits: []model.Edit{{Span: model.Span{Start: base + at, End: base + at}, NewText: "  "}}})
}

// FlowContinuationAtColumn0 finds the first line inside a quoted scalar
// that spans lines and that starts with neither a space nor a tab; empty
// lines are folded and do not count.
func FlowContinuationAtColumn0(body []byte) (open, at int, ok bool) {
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
	if len(t) == 0 {
		return false
	}
	// The last space-separated field, found without splitting the line
	// (this runs on every header line of every file).
	last, single := t, true
	if i := bytes.LastIndexFunc(t, unicode.IsSpace); i >= 0 {
		_, w := utf8.DecodeRune(t[i:])
		last, single = t[i+w:], false
	}
	if single && !bytes.HasSuffix(t, []byte("-")) {
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

// CCNoHeaderAgent is Claude Code's reaction to a subagent without a header:
// a project agent is read as a document (skipped), a plugin agent is named
// after its file.
func (m *MDFile) CCNoHeaderAgent() model.Reaction {
	if m.Plugin {
		return model.Lose
	}
	return model.Skip
}

// tryRetry runs the Claude Code retry after a strict failure and reports
// what it repaired, or yaml/syntax when it repairs nothing.
func (m *MDFile) tryRetry(body []byte, base int, perr *syntax.YErr) *syntax.YDoc {
	res, changed := syntax.CCRetry(body)
	if changed {
		doc, err := syntax.ParseYAML(res.Src, func(o int) int {
			if o < 0 {
				o = 0
			}
			if o >= len(res.Orig) {
				o = len(res.Orig) - 1
			}
			return base + res.Orig[o]
		})
		if err == nil {
			m.Retry = true
			reported := false
			for _, e := range res.Edits {
				if e.Quoted {
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
	if i := bytes.Index(body, []byte("---")); i >= 0 && base+i <= perr.Span.Start {
		cc = model.OK // Claude Code reads only the part before an inner '---' (fm/inline-dashes says what it loses)
	}
	m.syntax(perr, cc)
	return nil
}

func (m *MDFile) syntax(perr *syntax.YErr, cc model.Reaction) {
	v := model.V(model.Lose)
	if m.vs.Errs() {
		v = model.V(model.Reject)
	}
	v = v.With(model.Verdicts{model.TargetClaudeCode: cc, model.TargetCopilotCLI: model.Unknown, model.TargetAgentSkills: model.Skip})
	var fixes []model.Fix
	if fx, ok := m.blockScalarFix(perr); ok {
		fixes = append(fixes, fx)
	}
	m.Report(yamlSyntax, perr.Span, v,
		"{T} cannot read this header: invalid YAML ("+perr.Msg+").", fixes...)
}

// unquotedSpecial reports a one-line value the retry had to quote, if the
// line is invalid YAML on its own.
func (m *MDFile) unquotedSpecial(body []byte, base int, e syntax.RetryEdit) bool {
	ls := e.Start
	for ls > 0 && body[ls-1] != '\n' && body[ls-1] != '\r' {
		ls--
	}
	var n yaml.Node
	if yaml.Unmarshal(body[ls:e.End], &n) == nil {
		return false
	}
	key := strings.TrimSuffix(strings.TrimSpace(string(body[ls:e.Start])), ":")
	value := body[e.Start:e.End]
	span := model.Span{Start: base + e.Start, End: base + e.End}
	vsv := model.OK
	msg := "{T} read{s} only part of the '" + key + "' value: it needs quotes.||" +
		"{T} require{s} valid YAML: the unquoted '" + key + "' value needs quotes (Claude Code repairs it)."
	if is, ok := m.vs.At(syntax.VsCut, e.Line); ok {
		span = model.Span{Start: is.Span.Start, End: base + e.End}
		if m.vs.Stopped >= 0 && m.vs.Issues[m.vs.Stopped].Line == e.Line {
			vsv = model.Lose
		}
		msg = "{T} cut{s} the '" + key + "' value here and lose{s} every later key: quote the value.||" +
			"{T} require{s} valid YAML: the unquoted '" + key + "' value needs quotes (Claude Code repairs it)."
	} else if c := bytes.Index(value, []byte(": ")); c >= 0 {
		span.Start = base + e.Start + c
	} else if s, ok := syntax.AfterBracket(append([]byte("k: "), value...)); ok {
		span.Start = base + e.Start + s - 3
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
	fx.Edits = []model.Edit{{Span: model.Span{Start: base + e.Start, End: base + e.Start + len(text)}, NewText: "'" + strings.ReplaceAll(text, "'", "''") + "'"}}
	return m.Report(yamlUnquotedSpecial, span, v, msg, fx)
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

func (m *MDFile) tabIndent(base int, e syntax.RetryEdit) bool {
	span := model.Span{Start: base + e.Start, End: base + e.End}
	vsv := model.OK
	if _, ok := m.vs.At(syntax.VsTabBlock, e.Line); ok {
		vsv = model.Reject
	}
	v := model.V(vsv).With(model.Verdicts{model.TargetClaudeCode: model.OK, model.TargetCopilotCLI: model.Unknown, model.TargetAgentSkills: model.Skip})
	return m.Report(yamlTabIndent, span, v,
		"{T} cannot parse this header: YAML forbids tabs in indentation.||{T} may not parse this header: YAML forbids tabs in indentation.",
		model.Fix{Title: "Indent with spaces", Preferred: true, Edits: []model.Edit{{Span: span, NewText: strings.Repeat("  ", e.End-e.Start)}}})
}

// inlineDashes reports the first `---` inside the header (Claude Code's
// regex ends the header there).
func (m *MDFile) inlineDashes(full *syntax.YDoc) {
	body := m.Text[m.Fm.Body.Start:m.Fm.Body.End]
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
	pdoc, err := syntax.ParseYAML(prefix, func(o int) int { return o })
	if err != nil {
		if res, ok := syntax.CCRetry(prefix); ok {
			pdoc, err = syntax.ParseYAML(res.Src, func(o int) int { return o })
		}
	}
	cc, lost := model.Lose, []string(nil)
	if err != nil {
		cc = model.NoHeader // what is left does not parse: Claude Code drops the whole header
	} else {
		lost = keysAfter(full, pdoc, body[e:])
		if m.Kind == model.KindClaudeAgent && (slices.Contains(lost, "name") || slices.Contains(lost, "description")) {
			cc = model.Skip // a subagent without name or description is not loaded
		}
	}
	what := "what follows it"
	if len(lost) > 0 {
		what = "what follows it (" + strings.Join(lost, ", ") + ")"
	}
	base := m.Fm.Body.Start
	m.reportLoss(fmInlineDashes, model.Span{Start: base + s, End: base + e},
		model.Verdicts{model.TargetClaudeCode: cc, model.TargetAgentSkills: model.Spec}, lost,
		"{T} end{s} the header at this '---' and lose{s} "+what+".||{T} forbid{s} '---' inside the header; Claude Code ends the header there.")
}

// keysAfter lists the top-level keys of the whole header that the part
// before an inner '---' lacks: what Claude Code loses there. When the whole
// header does not parse (the '---' starts a second YAML document), the
// keys are read from the lines after it.
func keysAfter(full, prefix *syntax.YDoc, rest []byte) []string {
	var lost []string
	add := func(k string) {
		if !hasKey(prefix.Root, k) && !slices.Contains(lost, k) {
			lost = append(lost, k)
		}
	}
	if full != nil && full.Root != nil && full.Root.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(full.Root.Content); i += 2 {
			add(full.Root.Content[i].Value)
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
func (m *MDFile) collect() {
	root := m.Doc.Root
	if root == nil {
		m.Mapping = true
		return
	}
	if root.Kind != yaml.MappingNode {
		if !m.Fm.Closed {
			return // fm/unclosed is the cause: the "header" is the whole file
		}
		what := "a single value"
		if root.Kind == yaml.SequenceNode {
			what = "a list"
		}
		hb := m.Fm.Body
		hb.End = syntax.TrimRightAt(m.Text, hb.Start, hb.End)
		for hb.End > hb.Start && (m.Text[hb.End-1] == '\n' || m.Text[hb.End-1] == '\r') {
			hb.End--
		}
		m.Report(fmNotMapping, hb, model.V(model.Reject).With(model.Verdicts{model.TargetClaudeCode: model.Reject}),
			"{T} reject{s} this header: it is "+what+", not 'key: value' lines.")
		return
	}
	m.Mapping = true
	count := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		f := MDField{Key: k.Value, k: k, V: v, KeySpan: m.Doc.KeySpan(k), ValSpan: m.Doc.Span(v), DupIndex: count[k.Value]}
		if syntax.IsNull(v) && v.Value == "" {
			// yaml.v3 places an empty value at the next token; we want the
			// spot after the colon.
			at := f.KeySpan.End
			if c := bytes.IndexByte(m.Text[at:m.Fm.Body.End], ':'); c >= 0 {
				at += c + 1
			}
			f.ValSpan = model.Span{Start: at, End: at}
		}
		count[k.Value]++
		m.Fields = append(m.Fields, f)
	}
	for _, d := range syntax.DuplicateKeys(root, nil) {
		second := m.Doc.KeySpan(d.Second)
		first := m.Doc.KeySpan(d.First)
		fix := model.Fix{Title: "Delete the repeated '" + d.Second.Value + "'", Preferred: true, Edits: []model.Edit{{Span: m.EntryLines(d.Parent, d.Index)}}}
		if m.Report(yamlDuplicateKey, second, model.V(model.Reject).With(model.Verdicts{model.TargetClaudeCode: model.OK, model.TargetAgentSkills: model.Spec}),
			"{T} reject{s} this header: key "+syntax.Quote(d.Second.Value)+" appears twice.||{T} forbid{s} repeated keys: "+syntax.Quote(d.Second.Value)+" appears twice.", fix) {
			last := &m.R.Diags[len(m.R.Diags)-1]
			last.Related = append(last.Related, model.Related{Span: first, Message: "first " + syntax.Quote(d.First.Value) + " is here"})
		}
	}
}

// EntryLines is the file span of the whole lines holding a mapping entry
// (key at index i of parent.Content and its value), with their breaks.
func (m *MDFile) EntryLines(parent *yaml.Node, i int) model.Span {
	k := m.Doc.Span(parent.Content[i])
	v := m.Doc.Span(parent.Content[i+1])
	start := k.Start
	for start > 0 && m.Text[start-1] != '\n' && m.Text[start-1] != '\r' {
		start--
	}
	end := v.End
	if end < k.End {
		end = k.End
	}
	_, next := syntax.LineAt(m.Text, end)
	if next > m.Fm.Body.End && m.Fm.Body.End >= start {
		next = m.Fm.Body.End
	}
	return model.Span{Start: start, End: next}
}

// vscodeSubset reports valid YAML that VS Code's reader misreads.
func (m *MDFile) vscodeSubset() {
	for i, is := range m.vs.Issues {
		if m.vs.Stopped >= 0 && i > m.vs.Stopped {
			break
		}
		switch is.Kind {
		case syntax.VsMissingValue:
			key := string(m.Text[is.Key.Start:is.Key.End])
			if emptyChecked[key] && SharedFieldKind(m.Kind) {
				continue // field/empty or skill/desc-empty names it
			}
			m.Report(yamlVscodeSubset, is.Span, model.V(model.Reject),
				"{T} report{s} 'Missing value' for the empty "+syntax.Quote(key)+"; write "+syntax.Quote(key+": ''")+" or remove it.",
				model.Fix{Title: "Write an empty string", Preferred: true, Edits: []model.Edit{{Span: model.Span{Start: is.Span.End + 1, End: is.Span.End + 1}, NewText: " ''"}}})
		case syntax.VsComplexKey:
			m.Report(yamlVscodeSubset, is.Span, model.V(model.Reject),
				"{T} reject{s} '? ' complex keys; write 'key: value' instead.")
		case syntax.VsLiteral:
			tok := string(m.Text[is.Span.Start:is.Span.End])
			var fixes []model.Fix
			if fx, ok := m.expandFix(is.Span, tok); ok {
				fixes = append(fixes, fx)
			}
			m.Report(yamlVscodeSubset, is.Span, model.V(model.Lose),
				"{T} read{s} "+syntax.Quote(tok)+" as literal text: its YAML reader has no anchors, aliases or tags.", fixes...)
		case syntax.VsDocEnd:
			m.Report(yamlVscodeSubset, is.Span, model.V(model.Lose),
				"{T} stop{s} reading at '...' and lose{s} every key after it.")
		}
	}
}

// expandFix removes an anchor or tag, or replaces an alias with the text
// of the scalar it names, so that VS Code reads what YAML means.
func (m *MDFile) expandFix(span model.Span, tok string) (model.Fix, bool) {
	switch tok[0] {
	case '&', '!':
		end := span.End
		for end < len(m.Text) && m.Text[end] == ' ' {
			end++
		}
		title := "Remove the anchor"
		if tok[0] == '!' {
			title = "Remove the tag"
		}
		return model.Fix{Title: title, Edits: []model.Edit{{Span: model.Span{Start: span.Start, End: end}}}}, true
	case '*':
		n := findAnchor(m.Doc.Root, tok[1:])
		if n == nil || n.Kind != yaml.ScalarNode {
			return model.Fix{}, false
		}
		src := m.SrcOf(m.Doc.Span(n))
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
func (m *MDFile) toLF() model.Fix {
	fx := model.Fix{Title: "Convert line endings to LF"}
	for i := 0; i+1 < len(m.Text) && len(fx.Edits) < 10000; i++ {
		if m.Text[i] == '\r' && m.Text[i+1] == '\n' {
			fx.Edits = append(fx.Edits, model.Edit{Span: model.Span{Start: i, End: i + 1}})
		}
	}
	return fx
}

// closeFix inserts the closing '---' before the first line that is not YAML.
func (m *MDFile) closeFix() model.Fix {
	pos := m.Fm.Body.Start
	for pos < len(m.Text) {
		e, n := syntax.LineAt(m.Text, pos)
		l := m.Text[pos:e]
		if !syntax.IsBlank(l) && !yamlish(l) {
			break
		}
		pos = n
	}
	ins := "---" + m.Nl
	if pos == len(m.Text) && pos > 0 && m.Text[pos-1] != '\n' && m.Text[pos-1] != '\r' {
		ins = m.Nl + ins
	}
	return model.Fix{Title: "Insert the closing '---'", Preferred: true, Edits: []model.Edit{{Span: model.Span{Start: pos, End: pos}, NewText: ins}}}
}

func yamlish(l []byte) bool {
	if l[0] == ' ' || l[0] == '\t' || bytes.HasPrefix(l, []byte("- ")) {
		return true
	}
	return syntax.KeyColon(l) > 0 && l[0] != '#'
}

// blockScalarFix rewrites a multi-line plain value as a `|` block scalar
// when the error sits on one of its continuation lines.
func (m *MDFile) blockScalarFix(perr *syntax.YErr) (model.Fix, bool) {
	if !strings.Contains(perr.Msg, "mapping values are not allowed") {
		return model.Fix{}, false
	}
	// Find the top-level key line above the error line.
	body := m.Fm.Body
	var starts []int
	for pos := body.Start; pos < body.End; {
		_, n := syntax.LineAt(m.Text, pos)
		starts = append(starts, pos)
		pos = n
	}
	errLine := -1
	for i, s := range starts {
		if s <= perr.Span.Start {
			errLine = i
		}
	}
	if errLine < 0 {
		return model.Fix{}, false
	}
	keyLine := errLine
	for keyLine > 0 && (indented(m.Text[starts[keyLine]:]) || isBlankAt(m.Text, starts[keyLine])) {
		keyLine--
	}
	kl := m.Text[starts[keyLine]:]
	ke, _ := syntax.LineAt(m.Text, starts[keyLine])
	c := syntax.KeyColon(m.Text[starts[keyLine]:ke])
	if c <= 0 || kl[0] == '#' {
		return model.Fix{}, false
	}
	first := strings.TrimSpace(string(m.Text[starts[keyLine]+c+1 : ke]))
	if strings.HasPrefix(first, "|") || strings.HasPrefix(first, ">") || strings.HasPrefix(first, "\"") || strings.HasPrefix(first, "'") {
		return model.Fix{}, false
	}
	last := keyLine
	for i := keyLine + 1; i < len(starts); i++ {
		if indented(m.Text[starts[i]:]) {
			last = i
		} else if !isBlankAt(m.Text, starts[i]) {
			break
		}
	}
	if last == keyLine && errLine == keyLine && first == "" {
		return model.Fix{}, false
	}
	var b strings.Builder
	b.WriteString(" |")
	b.WriteString(m.Nl)
	if first != "" {
		b.WriteString("  " + first + m.Nl)
	}
	minInd := -1
	for i := keyLine + 1; i <= last; i++ {
		e, _ := syntax.LineAt(m.Text, starts[i])
		l := m.Text[starts[i]:e]
		if syntax.IsBlank(l) {
			continue
		}
		ind := len(l) - len(bytes.TrimLeft(l, " "))
		if minInd < 0 || ind < minInd {
			minInd = ind
		}
	}
	for i := keyLine + 1; i <= last; i++ {
		e, _ := syntax.LineAt(m.Text, starts[i])
		l := m.Text[starts[i]:e]
		if syntax.IsBlank(l) {
			b.WriteString(m.Nl)
			continue
		}
		b.WriteString("  " + string(l[minInd:]) + m.Nl)
	}
	endLast, _ := syntax.LineAt(m.Text, starts[last])
	out := strings.TrimSuffix(b.String(), m.Nl)
	return model.Fix{Title: "Make the value a '|' block scalar", Preferred: true, Edits: []model.Edit{{Span: model.Span{Start: starts[keyLine] + c + 1, End: endLast}, NewText: out}}}, true
}

func indented(b []byte) bool { return len(b) > 0 && (b[0] == ' ' || b[0] == '\t') }

func isBlankAt(text []byte, pos int) bool {
	e, _ := syntax.LineAt(text, pos)
	return syntax.IsBlank(text[pos:e])
}

// InsertKeys is the edit adding "key: value" lines at the end of the header,
// or a whole header when there is none.
func (m *MDFile) InsertKeys(lines ...string) model.Edit {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l + m.Nl)
	}
	if m.Fm.Present && m.Fm.Closed {
		at := m.Fm.Close.Start
		return model.Edit{Span: model.Span{Start: at, End: at}, NewText: b.String()}
	}
	if m.Fm.Present {
		// Unclosed: right after the opening line, before any Markdown.
		at := m.Fm.Body.Start
		return model.Edit{Span: model.Span{Start: at, End: at}, NewText: b.String()}
	}
	at := 0
	if m.Fm.BOM {
		at = len(syntax.BOM)
	}
	return model.Edit{Span: model.Span{Start: at, End: at}, NewText: "---" + m.Nl + b.String() + "---" + m.Nl}
}

// FirstSentence is the description fixes offer: the body's first sentence,
// or a placeholder.
func (m *MDFile) FirstSentence() string {
	body := m.Text[m.Fm.Markdown.Start:m.Fm.Markdown.End]
	if !m.Fm.Present {
		body = m.Text
	}
	var fence CodeFence
	for pos := 0; pos < len(body); {
		e, n := syntax.LineAt(body, pos)
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

// YamlScalar renders s as a one-line YAML scalar, quoting only if needed.
func YamlScalar(s string) string {
	var n yaml.Node
	plain := s != "" && !strings.ContainsAny(s[:1], "!&*[]{}|>'\"%@`#,?:-") && !strings.Contains(s, ": ") && !strings.Contains(s, " #")
	if plain {
		if doc, ok := syntax.FastYAML([]byte("k: " + s)); ok {
			if v, ok := Str(MapValue(doc.Content[0], "k")); ok && v == s {
				return s
			}
		}
		if yaml.Unmarshal([]byte("k: "+s), &n) == nil {
			if v, ok := Str(MapValue(n.Content[0], "k")); ok && v == s {
				return s
			}
		}
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

func MapValue(root *yaml.Node, key string) *yaml.Node {
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

// Folder is the skill's folder name (parent directory of the file).
func (m *MDFile) Folder() string { return path.Base(path.Dir(m.F.Path)) }

// Stem is a file's name without its Markdown suffixes.
func (m *MDFile) Stem() string {
	b := path.Base(m.F.Path)
	for _, s := range []string{".agent.md", ".chatmode.md", ".prompt.md", ".instructions.md", ".md"} {
		if strings.HasSuffix(b, s) {
			return strings.TrimSuffix(b, s)
		}
	}
	return b
}

// ValueText is the source text of a field's value.
func (m *MDFile) ValueText(f *MDField) string { return string(m.Text[f.ValSpan.Start:f.ValSpan.End]) }

// ReplaceValue is a fix replacing a field's value.
func ReplaceValue(title string, f *MDField, newText string, preferred bool) model.Fix {
	return model.Fix{Title: title, Preferred: preferred, Edits: []model.Edit{{Span: f.ValSpan, NewText: newText}}}
}

// ReplaceScalarValue is a fix writing a one-line scalar in place of a
// field's value; a block collection's value starts on the next line, so the
// edit starts right after the key's ':' (`key: text`, not `key:` and the
// text indented below).
func (m *MDFile) ReplaceScalarValue(title string, f *MDField, text string, preferred bool) model.Fix {
	fx := ReplaceValue(title, f, text, preferred)
	if f.V.Kind != yaml.ScalarNode && f.V.Style&yaml.FlowStyle == 0 {
		if c := bytes.IndexByte(m.Text[f.KeySpan.End:f.ValSpan.Start], ':'); c >= 0 {
			fx.Edits[0] = model.Edit{Span: model.Span{Start: f.KeySpan.End + c + 1, End: f.ValSpan.End}, NewText: " " + text}
		}
	}
	return fx
}

var _ = fmt.Sprintf

func (m *MDFile) IndexOf(f *MDField) int {
	c := m.Doc.Root.Content
	for i := 0; i+1 < len(c); i += 2 {
		if c[i] == f.k {
			return i
		}
	}
	return 0
}

func KebabOr(s string) string {
	if k := Kebab(s); k != "" {
		return k
	}
	return s
}

func ValidSkillName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// RuneSpan maps runes [from, to) of a string value to source offsets when
// the source spells the value literally (plain or quoted without escapes);
// else it returns the whole value. to < 0 means the end.
func (m *MDFile) RuneSpan(f *MDField, from, to int) model.Span {
	n := f.V
	src := m.ValueText(f)
	inner := src
	off := f.ValSpan.Start
	switch {
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		return f.ValSpan
	case n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 && len(src) >= 2:
		inner = src[1 : len(src)-1]
		off++
	}
	if inner != n.Value {
		return f.ValSpan
	}
	byteAt := func(k int) int {
		i := 0
		for ; k > 0 && i < len(inner); k-- {
			_, size := utf8.DecodeRuneInString(inner[i:])
			i += size
		}
		return i
	}
	end := len(inner)
	if to >= 0 {
		end = byteAt(to)
	}
	return model.Span{Start: off + byteAt(from), End: off + end}
}

func RuneCount(s string) int { return len([]rune(s)) }

// BadGlob explains why a glob pattern cannot compile, or returns "".
func BadGlob(p string) string {
	sq, br := 0, 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '[':
			sq++
		case ']':
			sq--
		case '{':
			br++
		case '}':
			br--
		}
		if sq < 0 || br < 0 {
			return "a closing bracket has no opening one"
		}
	}
	if sq != 0 {
		return "'[' is never closed"
	}
	if br != 0 {
		return "'{' is never closed"
	}
	return ""
}

// SplitClaudePaths is Claude Code's reading of a rule's `paths`, for a
// string or each item of a list: split at commas outside {…}, trimmed,
// empty items skipped (brace expansion comes after and is the same for
// the same items).
func SplitClaudePaths(items []string) []string {
	var out []string
	for _, s := range items {
		depth, start := 0, 0
		for i := 0; i <= len(s); i++ {
			if i < len(s) {
				switch s[i] {
				case '{':
					depth++
				case '}':
					depth--
				}
				if s[i] != ',' || depth != 0 {
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

// EmptyBody reports a file whose Markdown body holds nothing but
// whitespace and HTML comments.
func (m *MDFile) EmptyBody(what, effect string) {
	if m.Fm.Present && !m.Fm.Closed {
		return // fm/unclosed: all of it is header
	}
	body := m.Text[m.Fm.Markdown.Start:m.Fm.Markdown.End]
	text := string(body)
	for {
		i := strings.Index(text, "<!--")
		if i < 0 {
			break
		}
		j := strings.Index(text[i:], "-->")
		if j < 0 {
			text = text[:i]
			break
		}
		text = text[:i] + text[i+j+3:]
	}
	if strings.TrimSpace(text) != "" {
		return
	}
	span := Line1(m.Text)
	if m.Fm.Present {
		span = m.Header()
	}
	m.R.Add(model.Diagnostic{Rule: BodyEmpty.ID, Severity: model.SeverityInfo, Span: span,
		Message: "This " + what + " has no text: " + effect + "."})
}

// ReadFile reads a workspace file through the optional WorkspaceReader.
func (m *MDFile) ReadFile(rel string) ([]byte, bool) {
	rd, ok := m.F.FS.(WorkspaceReader)
	if !ok {
		return nil, false
	}
	b, err := rd.ReadFile(rel)
	return b, err == nil
}

var BodyEmpty = &Rule{
	ID:       "body/empty",
	Summary:  "A prompt, instructions or always-on file with no text outside its header and comments.",
	Kinds:    "prompt, instr, memory",
	Severity: "Info [I]: consumers load it and nothing happens; no consumer reports it.",
}

// CodeFence follows CommonMark fenced code blocks line by line (the rules
// and the server's outline share it, so folding and md/link agree): an opening
// fence is three or more backticks or tildes indented at most three spaces
// (a backtick fence's info string holds no backtick); only a run of the same
// character at least as long, followed by nothing but spaces, closes it. So
// a "```markdown" line inside a "````" block is content (issue #13 repro 7).
type CodeFence struct {
	char byte // 0 outside a fenced block
	n    int  // the opening run's length
}

// Step consumes one line (without its line break) and reports whether it is
// part of a fenced block (its fences included).
func (f *CodeFence) Step(line []byte) bool {
	trim := bytes.TrimLeft(line, " ")
	indent := len(line) - len(trim)
	run := 0
	if indent <= 3 && len(trim) > 0 && (trim[0] == '`' || trim[0] == '~') {
		for run < len(trim) && trim[run] == trim[0] {
			run++
		}
	}
	if f.char == 0 {
		if run < 3 || (trim[0] == '`' && bytes.IndexByte(trim[run:], '`') >= 0) {
			return false
		}
		f.char, f.n = trim[0], run
		return true
	}
	if run >= f.n && trim[0] == f.char && len(bytes.TrimRight(trim[run:], " \t\r")) == 0 {
		f.char, f.n = 0, 0
	}
	return true
}

// Inside reports whether the lines stepped so far leave a fenced block open.
func (f *CodeFence) Inside() bool { return f.char != 0 }

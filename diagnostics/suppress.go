package diagnostics

// Suppression: comments in a Markdown file that turn rules off where the
// author knows better, and per-path overrides from .ahpls/config.json (the
// only way for strict JSON files, which have no comments). The same code
// runs in the server and in `ahpls check`, inside Check, so both report
// the same findings.
//
//	<!-- ahpls-disable-next-line rule-id [rule-id…] -->   the next line
//	<!-- ahpls-disable rule-id [rule-id…] -->             the whole file
//	# ahpls-disable-next-line rule-id                      a YAML comment in the '---' header
//
// A directive without ids covers every rule. A directive (or one of its
// ids) that hides no finding is itself a finding, suppress/unused (a
// Hint), so stale suppressions do not pile up.

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/syntax"

	"bytes"
	"strings"

	"github.com/ahpls-dev/ahpls/model"
)

// suppressRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var suppressRules = []*core.Rule{suppressUnused, suppressRenamed}

var suppressUnused = &core.Rule{
	ID:       "suppress/unused",
	Summary:  "An `ahpls-disable` comment names a rule that reports nothing there (or no rule at all); the comment can go.",
	Kinds:    core.MDKinds,
	Severity: "Hint [I]; no consumer reads the comment.",
	Fix:      core.FixUnsafe,
	FixWhy:   "deletes the comment, which someone wrote",
}

var suppressRenamed = &core.Rule{
	ID:       "suppress/renamed",
	Summary:  "An `ahpls-disable` comment names a rule by an id it had before a rename; the comment still hides the rule's findings.",
	Kinds:    core.MDKinds,
	Severity: "Hint [I]; no consumer reads the comment.",
}

// directive is one suppression comment.
type directive struct {
	// line is the line it covers (0-based); -1 covers the whole file.
	line int
	// ids are the rules it names (nil: every rule), with their spans for
	// the unused finding.
	ids   []string
	spans []model.Span
	// all is the comment's span (an unused directive without ids, and the
	// fix that deletes it).
	all  model.Span
	used []bool
	// whole is the comment's full line when it stands alone (deleted by
	// the fix), else all.
	whole model.Span
}

const (
	disableNext = "ahpls-disable-next-line"
	disableFile = "ahpls-disable"
)

// parseDirectives finds the suppression comments of a Markdown file: HTML
// comments anywhere, and YAML comments inside the leading '---' header.
func parseDirectives(text []byte) []*directive {
	if !bytes.Contains(text, []byte("ahpls-disable")) {
		return nil // nearly every file: no scan
	}
	var out []*directive
	headerEnd := -1 // line index of the closing '---', when a header opens on line 0
	line := 0
	for start := 0; start < len(text); line++ {
		end := bytes.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		raw := text[start:end]
		s := strings.TrimRight(string(raw), "\r")
		trimmed := strings.TrimSpace(s)
		switch {
		case line == 0 && strings.TrimPrefix(trimmed, "\ufeff") == "---":
			headerEnd = -2 // open, not yet closed
		case headerEnd == -2 && trimmed == "---":
			headerEnd = line
		case headerEnd == -2 && strings.HasPrefix(trimmed, "#"):
			body := strings.TrimSpace(strings.TrimPrefix(trimmed, "#"))
			if d := newDirective(body, start+strings.Index(s, body), line, model.Span{Start: start, End: end + 1}); d != nil {
				out = append(out, d)
			}
		default:
			for off := 0; ; {
				i := strings.Index(s[off:], "<!--")
				if i < 0 {
					break
				}
				i += off
				j := strings.Index(s[i+4:], "-->")
				if j < 0 {
					break
				}
				j += i + 4
				body := strings.TrimSpace(s[i+4 : j])
				whole := model.Span{Start: start + i, End: start + j + 3}
				if strings.TrimSpace(s[:i]) == "" && strings.TrimSpace(s[j+3:]) == "" {
					whole = model.Span{Start: start, End: end + 1} // the line and its newline
				}
				if d := newDirective(body, start+i+4+strings.Index(s[i+4:j], body), line, whole); d != nil {
					d.all = model.Span{Start: start + i, End: start + j + 3}
					out = append(out, d)
				}
				off = j + 3
			}
		}
		start = end + 1
	}
	return out
}

// newDirective reads a comment's text ("ahpls-disable-next-line a b"),
// whose first byte is at offset at on line; nil when it is no directive.
func newDirective(body string, at, line int, whole model.Span) *directive {
	word, rest, _ := strings.Cut(body, " ")
	var d directive
	switch word {
	case disableNext:
		d.line = line + 1
	case disableFile:
		d.line = -1
	default:
		return nil
	}
	d.all = model.Span{Start: at, End: at + len(body)}
	d.whole = whole
	off := at + len(word)
	for _, f := range strings.FieldsFunc(rest, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' }) {
		i := strings.Index(body[off-at:], f)
		d.ids = append(d.ids, f)
		d.spans = append(d.spans, model.Span{Start: off + i, End: off + i + len(f)})
		off += i + len(f)
	}
	d.used = make([]bool, max(1, len(d.ids)))
	return &d
}

// covers reports whether d hides a finding of rule on line, and marks the
// id that does as used.
func (d *directive) covers(rule string, line int) bool {
	if d.line != -1 && d.line != line {
		return false
	}
	if d.ids == nil {
		d.used[0] = true
		return true
	}
	for i, id := range d.ids {
		if id == rule || renamedTo(id) == rule {
			d.used[i] = true
			return true
		}
	}
	return false
}

// renamedTo is the rule id a renamed id leads to ("" for any other id).
func renamedTo(id string) string {
	if len(renamedRules) == 0 {
		return "" // nearly always: no lookup
	}
	if to, st := ResolveRule(id); st == RuleRenamed {
		return to
	}
	return ""
}

// unused is a suppress/unused finding for every id of d that hid nothing.
func (d *directive) unused(textLen int) []model.Diagnostic {
	var out []model.Diagnostic
	del := model.Fix{Title: "Delete the comment", Edits: []model.Edit{{Span: model.Span{Start: d.whole.Start, End: min(d.whole.End, textLen)}}}}
	if d.ids == nil {
		if !d.used[0] {
			out = append(out, model.Diagnostic{Rule: suppressUnused.ID, Severity: model.SeverityHint, Span: d.all, Tags: []model.Tag{model.TagUnnecessary},
				Message: "This ahpls-disable comment hides no finding; delete it.", Fixes: []model.Fix{del}})
		}
		return out
	}
	for i, id := range d.ids {
		if to := renamedTo(id); to != "" {
			out = append(out, model.Diagnostic{Rule: suppressRenamed.ID, Severity: model.SeverityHint, Span: d.spans[i],
				Message: "'" + id + "' is now '" + to + "'; this comment applies to '" + to + "'. Rename it here."})
		}
		if d.used[i] {
			continue
		}
		msg := "'" + id + "' reports nothing here; this ahpls-disable entry can go."
		switch _, st := ResolveRule(id); st {
		case RuleUnknown:
			msg = "'" + id + "' is not an ahpls rule id (`ahpls rules` lists them); this ahpls-disable entry hides nothing."
		case RuleRemoved:
			msg = "'" + id + "' is no longer an ahpls rule (" + RemovedWhy(id) + "); this ahpls-disable entry hides nothing."
		}
		dg := model.Diagnostic{Rule: suppressUnused.ID, Severity: model.SeverityHint, Span: d.spans[i], Tags: []model.Tag{model.TagUnnecessary}, Message: msg}
		if len(d.ids) == 1 {
			dg.Fixes = []model.Fix{del}
		}
		out = append(out, dg)
	}
	return out
}

// level is the level a rule has for this file after Options.Rules and the
// overrides that match it; ok false means the default stands, byConfig
// that an override (the repository's .ahpls/config.json) set it.
func level(r *core.Reporter, rule string) (sev model.Severity, ok, byConfig bool) {
	sev, ok = r.Opts.Rules[rule]
	for _, o := range r.Opts.Overrides {
		if o.Match == nil || !o.Match(r.File.Path) {
			continue
		}
		if s, has := o.Rules[rule]; has {
			sev, ok, byConfig = s, true, true
		}
	}
	return sev, ok, byConfig
}

// lineBound are rules whose finding's place follows from the text around
// it (a line limit, the shape of the whole header), so a comment line
// above it moves it.
var lineBound = map[string]bool{
	"agent/body-length": true, "skill/body-lines": true, "fm/not-mapping": true, "fm/missing": true,
}

// bodyBound are rules about a file with no text: any comment added to it
// is text the consumer loads (Cline loads a rule whose body is a comment),
// so the finding goes by itself and no suppress action is offered.
var bodyBound = map[string]bool{"cline/empty": true}

// SuppressFixes are the editor's "Disable … for this line" and "… in this
// file" actions for a finding of rule at span in a Markdown file: a comment
// line inserted above the finding's line (a YAML comment inside the '---'
// header, an HTML comment in the body), and an HTML comment appended to
// the file. The line action is left out where a comment line would change
// the file: on the opening '---' line (the header would no longer open the
// file) and on an indented header line (it may sit inside a block scalar).
func SuppressFixes(text []byte, kind model.Kind, span model.Span, rule string) []model.Fix {
	if !kind.Markdown() || rule == suppressUnused.ID || rule == suppressRenamed.ID || bodyBound[rule] || span.Start < 0 || span.Start > len(text) {
		return nil
	}
	var out []model.Fix
	lineStart := bytes.LastIndexByte(text[:span.Start], '\n') + 1
	fm := syntax.SplitFrontmatter(text)
	line := text[lineStart:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	nl := "\n"
	if bytes.HasSuffix(line, []byte{'\r'}) {
		nl = "\r\n"
	}
	forLine := func(comment string) {
		out = append(out, model.Fix{Title: "Disable " + rule + " for this line",
			Edits: []model.Edit{{Span: model.Span{Start: lineStart, End: lineStart}, NewText: comment + nl}}})
	}
	switch {
	case lineStart == 0 || lineBound[rule]:
		// A finding on the first line is about the whole file, and one
		// placed by a line count moves with an inserted line: the file
		// action only (TestSuppressFixesHideTheirFinding).
	case !fm.Present, fm.Closed && lineStart >= fm.Markdown.Start:
		forLine("<!-- " + disableNext + " " + rule + " -->")
	case lineStart >= fm.Body.Start && lineStart < fm.Body.End && len(line) > 0 && line[0] != ' ' && line[0] != '\t' &&
		!bytes.Contains(text[fm.Body.Start:lineStart], []byte("---")): // past an inner '---' a comment is no header comment
		forLine("# " + disableNext + " " + rule)
	}
	end := ""
	if len(text) > 0 && text[len(text)-1] != '\n' {
		end = nl
	}
	out = append(out, model.Fix{Title: "Disable " + rule + " in this file",
		Edits: []model.Edit{{Span: model.Span{Start: len(text), End: len(text)}, NewText: end + "<!-- " + disableFile + " " + rule + " -->" + nl}}})
	return out
}

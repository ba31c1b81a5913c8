package diagnostics

// Cursor rules (issue #38): .cursor/rules/**/*.mdc, Markdown with a small
// header of three fields (description, globs, alwaysApply) that decide when
// Cursor attaches the rule, and the legacy .cursorrules. Cursor is closed
// source; its reactions come from its documentation (cursor.com/docs/rules,
// read 2026-12). The header is not YAML: Cursor's own example writes
// `globs: **/*.ts` unquoted, which a YAML parser refuses (an alias), so the
// header is read line by line as Cursor's reader does (parseMDCHeader), and
// no rule here is a YAML parser's refusal.

import (
	"bytes"
	"strings"

	"github.com/ahpls-dev/ahpls/model"
)

// cursorRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var cursorRules = []*Rule{cursorMdIgnored, cursorUnclosed, cursorAlwaysApply, cursorUnknownKey, cursorManual, cursorLegacy, cursorEmpty}

// cursorDocs is Cursor's page on rules.
const cursorDocs = "cursor.com/docs/rules (read 2026-12)"

var cursorMdIgnored = &Rule{
	ID:       "cursorrule/md-ignored",
	Summary:  "A `.md` file in .cursor/rules: Cursor's rules system reads only `.mdc` files there.",
	Kinds:    "cursorrule",
	Severity: "CU SKIP (Error when Cursor is a target).",
	Fix:      FixNone,
	Evidence: []Evidence{
		{"CU", "SKIP", cursorDocs + ": \"Project rules must use the .mdc extension. A plain .md file in .cursor/rules is ignored by the rules system\""},
	},
}

var cursorUnclosed = &Rule{
	ID:       "cursorrule/unclosed",
	Summary:  "The rule opens a `---` header that never closes, so the header's fields are not read as fields.",
	Kinds:    "cursorrule",
	Severity: "CU ? (Info): Cursor's documentation does not say what it does with an unclosed header.",
}

var cursorAlwaysApply = &Rule{
	ID:       "cursorrule/always-apply",
	Summary:  "`alwaysApply` is neither `true` nor `false`.",
	Kinds:    "cursorrule",
	Severity: "CU ? (Info): the documentation names a boolean; what Cursor does with another value is not documented.",
	Evidence: []Evidence{
		{"CU", "?", cursorDocs + ": the rule types set `alwaysApply` to true or false"},
	},
}

var cursorUnknownKey = &Rule{
	ID:       "cursorrule/unknown-key",
	Summary:  "A header field other than description, globs and alwaysApply.",
	Kinds:    "cursorrule",
	Severity: "CU IGN? (Info): the documentation lists only those three fields.",
	Evidence: []Evidence{
		{"CU", "IGN?", cursorDocs + ": \"Control how rules are applied from the type dropdown which changes properties description, globs, alwaysApply\""},
	},
}

var cursorManual = &Rule{
	ID:       "cursorrule/manual",
	Summary:  "No `alwaysApply: true`, no globs and no description: Cursor applies the rule only when it is @-mentioned.",
	Kinds:    "cursorrule",
	Severity: "Info [I]: a legitimate rule type (Manual), said so that an author who meant another type sees it.",
	Evidence: []Evidence{
		{"CU", "ok", cursorDocs + ": \"Manual: Only included when explicitly mentioned using @ruleName\""},
	},
}

var cursorLegacy = &Rule{
	ID:       "cursorrule/legacy",
	Summary:  "`.cursorrules` is Cursor's legacy rules file: still read, deprecated in favour of .cursor/rules.",
	Kinds:    "cursorrule",
	Severity: "Info [I]: Cursor still loads it.",
	Evidence: []Evidence{
		{"CU", "ok", cursorDocs + ": \".cursorrules (Legacy): Still supported, but deprecated. Use Project Rules instead.\""},
	},
}

var cursorEmpty = &Rule{
	ID:       "cursorrule/empty",
	Summary:  "The rule has no text below its header: applying it adds nothing.",
	Kinds:    "cursorrule",
	Severity: "Info [I].",
}

// mdcField is one `key: value` line of a Cursor rule's header.
type mdcField struct {
	key   string
	value string // raw text after the colon, trimmed (Cursor does not unquote YAML)
	line  model.Span
	val   model.Span
	items []string // `- item` lines below a key with no value (a YAML-style list)
}

// mdcHeader is a Cursor rule's header as Cursor reads it.
type mdcHeader struct {
	present, closed bool
	open            model.Span // the opening `---` line
	fields          []mdcField
	body            model.Span // the Markdown after the header (all of it without one)
}

// maxMDCFields bounds what one header holds.
const maxMDCFields = 200

// parseMDCHeader reads a Cursor rule: an optional header between `---`
// lines at the very top, one `key: value` per line, the value taken as
// written (globs is a comma-separated list, never YAML). It never fails.
func parseMDCHeader(text []byte) mdcHeader {
	h := mdcHeader{body: model.Span{Start: 0, End: len(text)}}
	pos := 0
	if bytes.HasPrefix(text, []byte(bom)) {
		pos = len(bom)
	}
	end, next := lineAt(text, pos)
	if strings.TrimRight(string(text[pos:end]), " \t") != "---" {
		return h
	}
	h.present, h.open = true, model.Span{Start: pos, End: end}
	var last *mdcField
	for pos = next; pos < len(text); pos = next {
		end, next = lineAt(text, pos)
		line := text[pos:end]
		if strings.TrimRight(string(line), " \t") == "---" {
			h.closed = true
			h.body = model.Span{Start: next, End: len(text)}
			return h
		}
		trimmed := bytes.TrimLeft(line, " \t")
		if len(trimmed) == 0 || trimmed[0] == '#' {
			continue
		}
		if len(trimmed) < len(line) || trimmed[0] == '-' {
			if last != nil && trimmed[0] == '-' {
				last.items = append(last.items, strings.TrimSpace(string(trimmed[1:])))
			}
			continue // a continuation of the previous field
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 || len(h.fields) >= maxMDCFields {
			last = nil
			continue
		}
		vs := colon + 1
		for vs < len(line) && (line[vs] == ' ' || line[vs] == '\t') {
			vs++
		}
		ve := len(line)
		for ve > vs && (line[ve-1] == ' ' || line[ve-1] == '\t') {
			ve--
		}
		h.fields = append(h.fields, mdcField{
			key:   strings.TrimSpace(string(line[:colon])),
			value: string(line[vs:ve]),
			line:  model.Span{Start: pos, End: end},
			val:   model.Span{Start: pos + vs, End: pos + ve},
		})
		last = &h.fields[len(h.fields)-1]
	}
	h.body = model.Span{Start: len(text), End: len(text)}
	return h
}

// field returns the last field named key, or nil.
func (h *mdcHeader) field(key string) *mdcField {
	for i := len(h.fields) - 1; i >= 0; i-- {
		if h.fields[i].key == key {
			return &h.fields[i]
		}
	}
	return nil
}

// unquote strips one pair of matching quotes, as an author who wrote YAML
// meant them.
func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

func checkCursorRule(f File, r *reporter) {
	first := model.Span{Start: 0, End: firstLineEnd(f.Text)}
	if f.Path == model.CursorLegacyRules {
		r.verdict(cursorLegacy, first, model.Verdicts{model.TargetCursor: model.Spec},
			"`.cursorrules` is Cursor's legacy rules file: it still loads, but Cursor recommends rules in .cursor/rules/*.mdc.")
		return
	}
	if strings.HasSuffix(strings.ToLower(f.Path), ".md") {
		r.verdict(cursorMdIgnored, first, model.Verdicts{model.TargetCursor: model.Skip},
			"%s ignores this file: project rules in .cursor/rules must use the .mdc extension.")
		return
	}
	h := parseMDCHeader(f.Text)
	if h.present && !h.closed {
		r.verdict(cursorUnclosed, h.open, model.Verdicts{model.TargetCursor: model.Unknown},
			"The header opened here is never closed with `---`, so description, globs and alwaysApply may not be read.")
		return
	}
	always := false
	for _, fd := range h.fields {
		switch fd.key {
		case "description", "globs":
		case "alwaysApply":
			switch unquote(fd.value) {
			case "true":
				always = true
			case "false", "":
			default:
				r.verdict(cursorAlwaysApply, fd.val, model.Verdicts{model.TargetCursor: model.Unknown},
					"`alwaysApply` should be `true` or `false`; Cursor's documentation says nothing of "+clipQuote(fd.value)+".")
			}
		default:
			r.verdict(cursorUnknownKey, model.Span{Start: fd.line.Start, End: fd.line.Start + len(fd.key)}, model.Verdicts{model.TargetCursor: model.Ignore.Unverified()},
				"Cursor reads description, globs and alwaysApply; `"+fd.key+"` is not one of them.")
		}
	}
	globs, desc := h.field("globs"), h.field("description")
	hasGlobs := globs != nil && (unquote(globs.value) != "" || len(globs.items) > 0)
	hasDesc := desc != nil && unquote(desc.value) != ""
	if !always && !hasGlobs && !hasDesc {
		span := first
		if h.present {
			span = h.open
		}
		r.verdict(cursorManual, span, model.Verdicts{model.TargetCursor: model.Spec},
			"Cursor applies this rule only when it is @-mentioned: it has no `alwaysApply: true`, no globs and no description.")
	}
	if len(bytes.TrimSpace(f.Text[h.body.Start:h.body.End])) == 0 {
		span := first
		if h.present {
			span = h.open
		}
		r.verdict(cursorEmpty, span, model.Verdicts{model.TargetCursor: model.Spec},
			"This rule has no text below its header: applying it adds nothing to the context.")
	}
}

// clipQuote quotes s for a message, cut to 40 characters.
func clipQuote(s string) string { return "`" + jClip(s) + "`" }

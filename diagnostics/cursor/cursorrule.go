package cursor

// Cursor rules (issue #38): .cursor/rules/**/*.mdc, Markdown with a small
// header of three fields (description, globs, alwaysApply) that decide when
// Cursor attaches the rule, and the legacy .cursorrules. Cursor is closed
// source; its reactions come from its documentation (cursor.com/docs/rules,
// read 2026-12). The header is not YAML: Cursor's own example writes
// `globs: **/*.ts` unquoted, which a YAML parser refuses (an alias), so the
// header is read line by line as Cursor's reader does (parseMDCHeader), and
// no rule here is a YAML parser's refusal.

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/syntax"

	"bytes"
	"strings"

	"github.com/ahpls-dev/ahpls/model"
)

// CursorRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var CursorRules = []*core.Rule{cursorMdIgnored, cursorUnclosed, cursorAlwaysApply, cursorUnknownKey, cursorManual, cursorLegacy, cursorEmpty}

// cursorDocs is Cursor's page on rules.
const cursorDocs = "cursor.com/docs/rules (read 2026-12)"

var cursorMdIgnored = &core.Rule{
	ID:       "cursorrule/md-ignored",
	Summary:  "A `.md` file in .cursor/rules: Cursor's rules system reads only `.mdc` files there.",
	Kinds:    "cursorrule",
	Severity: "CU SKIP (Error when Cursor is a target).",
	Fix:      core.FixNone,
	Evidence: []core.Evidence{
		{Consumer: "CU", Reaction: "SKIP", Source: cursorDocs + ": \"Project rules must use the .mdc extension. A plain .md file in .cursor/rules is ignored by the rules system\""},
	},
}

var cursorUnclosed = &core.Rule{
	ID:       "cursorrule/unclosed",
	Summary:  "The rule opens a `---` header that never closes, so the header's fields are not read as fields.",
	Kinds:    "cursorrule",
	Severity: "CU ? (Info): Cursor's documentation does not say what it does with an unclosed header.",
}

var cursorAlwaysApply = &core.Rule{
	ID:       "cursorrule/always-apply",
	Summary:  "`alwaysApply` is neither `true` nor `false`.",
	Kinds:    "cursorrule",
	Severity: "CU ? (Info): the documentation names a boolean; what Cursor does with another value is not documented.",
	Evidence: []core.Evidence{
		{Consumer: "CU", Reaction: "?", Source: cursorDocs + ": the rule types set `alwaysApply` to true or false"},
	},
}

var cursorUnknownKey = &core.Rule{
	ID:       "cursorrule/unknown-key",
	Summary:  "A header field other than description, globs and alwaysApply.",
	Kinds:    "cursorrule",
	Severity: "CU IGN? (Info): the documentation lists only those three fields.",
	Evidence: []core.Evidence{
		{Consumer: "CU", Reaction: "IGN?", Source: cursorDocs + ": \"Control how rules are applied from the type dropdown which changes properties description, globs, alwaysApply\""},
	},
}

var cursorManual = &core.Rule{
	ID:       "cursorrule/manual",
	Summary:  "No `alwaysApply: true`, no globs and no description: Cursor applies the rule only when it is @-mentioned.",
	Kinds:    "cursorrule",
	Severity: "Info [I]: a legitimate rule type (Manual), said so that an author who meant another type sees it.",
	Evidence: []core.Evidence{
		{Consumer: "CU", Reaction: "ok", Source: cursorDocs + ": \"Manual: Only included when explicitly mentioned using @ruleName\""},
	},
}

var cursorLegacy = &core.Rule{
	ID:       "cursorrule/legacy",
	Summary:  "`.cursorrules` is Cursor's legacy rules file: still read, deprecated in favour of .cursor/rules.",
	Kinds:    "cursorrule",
	Severity: "Info [I]: Cursor still loads it.",
	Evidence: []core.Evidence{
		{Consumer: "CU", Reaction: "ok", Source: cursorDocs + ": \".cursorrules (Legacy): Still supported, but deprecated. Use Project Rules instead.\""},
	},
}

var cursorEmpty = &core.Rule{
	ID:       "cursorrule/empty",
	Summary:  "The rule has no text below its header: applying it adds nothing.",
	Kinds:    "cursorrule",
	Severity: "Info [I].",
}

func CheckCursorRule(f core.File, r *core.Reporter) {
	first := model.Span{Start: 0, End: core.FirstLineEnd(f.Text)}
	if f.Path == model.CursorLegacyRules {
		r.Verdict(cursorLegacy, first, model.Verdicts{model.TargetCursor: model.Spec},
			"`.cursorrules` is Cursor's legacy rules file: it still loads, but Cursor recommends rules in .cursor/rules/*.mdc.")
		return
	}
	if strings.HasSuffix(strings.ToLower(f.Path), ".md") {
		r.Verdict(cursorMdIgnored, first, model.Verdicts{model.TargetCursor: model.Skip},
			"%s ignores this file: project rules in .cursor/rules must use the .mdc extension.")
		return
	}
	h := syntax.ParseMDCHeader(f.Text)
	if h.Present && !h.Closed {
		r.Verdict(cursorUnclosed, h.Open, model.Verdicts{model.TargetCursor: model.Unknown},
			"The header opened here is never closed with `---`, so description, globs and alwaysApply may not be read.")
		return
	}
	always := false
	for _, fd := range h.Fields {
		switch fd.Key {
		case "description", "globs":
		case "alwaysApply":
			switch syntax.Unquote(fd.Value) {
			case "true":
				always = true
			case "false", "":
			default:
				r.Verdict(cursorAlwaysApply, fd.Val, model.Verdicts{model.TargetCursor: model.Unknown},
					"`alwaysApply` should be `true` or `false`; Cursor's documentation says nothing of "+core.ClipQuote(fd.Value)+".")
			}
		default:
			r.Verdict(cursorUnknownKey, model.Span{Start: fd.Line.Start, End: fd.Line.Start + len(fd.Key)}, model.Verdicts{model.TargetCursor: model.Ignore.Unverified()},
				"Cursor reads description, globs and alwaysApply; `"+fd.Key+"` is not one of them.")
		}
	}
	globs, desc := h.Field("globs"), h.Field("description")
	hasGlobs := globs != nil && (syntax.Unquote(globs.Value) != "" || len(globs.Items) > 0)
	hasDesc := desc != nil && syntax.Unquote(desc.Value) != ""
	if !always && !hasGlobs && !hasDesc {
		span := first
		if h.Present {
			span = h.Open
		}
		r.Verdict(cursorManual, span, model.Verdicts{model.TargetCursor: model.Spec},
			"Cursor applies this rule only when it is @-mentioned: it has no `alwaysApply: true`, no globs and no description.")
	}
	if len(bytes.TrimSpace(f.Text[h.Body.Start:h.Body.End])) == 0 {
		span := first
		if h.Present {
			span = h.Open
		}
		r.Verdict(cursorEmpty, span, model.Verdicts{model.TargetCursor: model.Spec},
			"This rule has no text below its header: applying it adds nothing to the context.")
	}
}

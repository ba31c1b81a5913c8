package windsurf

// Windsurf rules (issue #38): .windsurf/rules/*.md, Markdown under a small
// header whose `trigger` decides when Cascade applies the rule (always_on,
// manual by @mention, model_decision by its description, glob by its
// globs), and the legacy root .windsurfrules. Windsurf is closed source;
// its reactions come from its documentation, docs.windsurf.com "Memories &
// Rules" (read 2026-12-05 through stored copies: the Windsurf editor's page
// windsurf/cascade/memories, whose table names the four activation modes,
// and the plugins' page plugins/cascade/memories, which says rule files
// are cut at their character limit and Cascade "will not be aware" of the
// rest, and that rules beyond 12,000 characters in all are truncated).
// Windsurf's own examples write `globs: **/*.ts` unquoted, which YAML
// refuses, so the header is read line by line (parseMDCHeader), never by a
// YAML parser.

import (
	"bytes"
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/syntax"

	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/ahpls-dev/ahpls/model"
)

// WindsurfRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var WindsurfRules = []*core.Rule{windsurfTrigger, windsurfGlobsMissing, windsurfDescMissing, windsurfTooLong}

// windsurfDocs is Windsurf's page on rules.
const windsurfDocs = "docs.windsurf.com, Memories & Rules (read 2026-12-05)"

// windsurfTriggers are the activation modes the documentation names.
var windsurfTriggers = []string{"always_on", "manual", "model_decision", "glob"}

var windsurfTrigger = &core.Rule{
	ID:       "windsurf/trigger",
	Summary:  "`trigger` is none of always_on, manual, model_decision and glob.",
	Kinds:    "windsurf",
	Severity: "WS ? (Info): the documentation names those activation modes; what Cascade does with another value is not documented.",
	Evidence: []core.Evidence{
		{Consumer: "WS", Reaction: "?", Source: windsurfDocs + ": rules are activated `always_on`, `glob`, `model_decision` or `manual`"},
	},
}

var windsurfGlobsMissing = &core.Rule{
	ID:       "windsurf/globs-missing",
	Summary:  "`trigger: glob` without `globs`: no pattern says which files the rule applies to (a list written on the lines below `globs:` counts as globs).",
	Kinds:    "windsurf",
	Severity: "WS ? (Info): the documentation applies a glob rule to the files its pattern matches and does not say what happens without one.",
	Evidence: []core.Evidence{
		{Consumer: "WS", Reaction: "?", Source: windsurfDocs + ": Glob mode applies the rule to files matching its pattern (e.g. *.js, src/**/*.ts)"},
	},
}

var windsurfDescMissing = &core.Rule{
	ID:       "windsurf/description-missing",
	Summary:  "`trigger: model_decision` without a `description`: Cascade decides from the description whether to apply the rule.",
	Kinds:    "windsurf",
	Severity: "WS ? (Info): the documentation has the model decide from the rule's natural-language description and does not say what happens without one.",
	Evidence: []core.Evidence{
		{Consumer: "WS", Reaction: "?", Source: windsurfDocs + ": Model Decision applies the rule when the model judges its description relevant"},
	},
}

var windsurfTooLong = &core.Rule{
	ID:       "windsurf/too-long",
	Summary:  "The rule file is over 12,000 characters: Cascade truncates rules beyond that and is not aware of the rest.",
	Kinds:    "windsurf",
	Severity: "WS LOSE? (Warning): the documentation says rule content past the limit is truncated.",
	Evidence: []core.Evidence{
		{Consumer: "WS", Reaction: "LOSE?", Source: "docs.windsurf.com/plugins/cascade/memories (read 2026-12-05): \"Any content above 6000 characters will be truncated and Cascade will not be aware of them\"; \"Any rules beyond 12,000 characters will be truncated\""},
	},
}

func CheckWindsurfRule(f core.File, r *core.Reporter) {
	first := model.Span{Start: 0, End: core.FirstLineEnd(f.Text)}
	if n := utf8.RuneCount(f.Text); n > model.WindsurfRuleChars {
		r.Verdict(windsurfTooLong, first, model.Verdicts{model.TargetWindsurf: model.Lose.Unverified()},
			"This rule file has "+strconv.Itoa(n)+" characters: Windsurf truncates rules beyond "+strconv.Itoa(model.WindsurfRuleChars)+" characters, and Cascade does not see the rest.")
	}
	if f.Path == model.WindsurfLegacyRules {
		return // plain Markdown, always applied: no header to read
	}
	h := syntax.ParseMDCHeader(f.Text)
	if !h.Present || !h.Closed {
		return
	}
	trigger := h.Field("trigger")
	if trigger == nil {
		return
	}
	mode := syntax.Unquote(trigger.Value)
	switch mode {
	case "glob":
		if g := h.Field("globs"); g == nil || (syntax.Unquote(g.Value) == "" && len(g.Items) == 0 && !windsurfContinued(f.Text, g.Line.End)) {
			r.Verdict(windsurfGlobsMissing, trigger.Val, model.Verdicts{model.TargetWindsurf: model.Unknown},
				"`trigger: glob` needs `globs`: without them no pattern says which files this rule applies to.")
		}
	case "model_decision":
		if d := h.Field("description"); d == nil || syntax.Unquote(d.Value) == "" {
			r.Verdict(windsurfDescMissing, trigger.Val, model.Verdicts{model.TargetWindsurf: model.Unknown},
				"`trigger: model_decision` needs a `description`: Cascade decides from it whether to apply this rule.")
		}
	default:
		if !slices.Contains(windsurfTriggers, mode) {
			r.Verdict(windsurfTrigger, trigger.Val, model.Verdicts{model.TargetWindsurf: model.Unknown},
				"`trigger` should be always_on, manual, model_decision or glob; Windsurf's documentation says nothing of "+core.ClipQuote(mode)+".")
		}
	}
}

// windsurfContinued reports whether the header line ending at end is followed by an
// indented line before the next field or the closing `---`: a value
// written on the lines below its key, as a multi-line YAML flow list
// (`globs:` then `  ["src/**/*.ts",` …), which is there even though the
// key's own line holds nothing.
func windsurfContinued(text []byte, end int) bool {
	_, pos := syntax.LineAt(text, end)
	for pos < len(text) {
		e, next := syntax.LineAt(text, pos)
		line := text[pos:e]
		t := bytes.TrimLeft(line, " \t")
		switch {
		case len(bytes.TrimSpace(t)) == 0 || t[0] == '#':
		case len(t) < len(line):
			return true
		default:
			return false
		}
		if next <= pos {
			break
		}
		pos = next
	}
	return false
}

package diagnostics

// Claude rules: .claude/rules/**/*.md (customization-formats.md §5.4).

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ahpls-dev/ahpls/model"
)

// claudeRuleRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var claudeRuleRules = []*Rule{rulePaths, ruleApplyTo}

var rulePaths = &Rule{
	ID:       "rule/paths",
	Fix:      FixSafe,
	FixWhy:   "writes the patterns Claude Code reads from the string as a list, so VS Code reads the same ones",
	Summary:  "'paths' is not a list of glob patterns.",
	Kinds:    "rule",
	Severity: "VS WARN (validator Error marker; the file loads without the value) · VH LOSE? (value dropped) · CC ok for a string.",
	Evidence: []Evidence{
		{"VS", "WARN", "promptValidator.ts validatePaths: 'pathsMustBeArray', 'pathMustBeValidGlob' (Error markers)"},
	},
}

var ruleApplyTo = &Rule{
	ID:       "rule/apply-to",
	Fix:      FixUnsafe,
	FixWhy:   "renames a key Claude Code ignored, so the rule is then scoped",
	Summary:  "'applyTo' in a Claude rule, which Claude Code ignores.",
	Kinds:    "rule",
	Severity: "CC IGN, so the rule is always loaded: LOSE.",
}

func checkRule(f File, r *reporter) {
	m := newMD(f, r)
	if m.checkHeader() && m.mapping {
		m.ruleRules()
		m.checkSharedFields(map[string]bool{"applyTo": true})
	}
	m.checkLinks()
}

func (m *mdFile) ruleRules() {
	if pf := m.field("paths"); pf != nil {
		switch {
		case pf.v.Kind == yaml.SequenceNode:
			for _, it := range pf.v.Content {
				span := m.doc.span(it)
				s, ok := str(it)
				switch {
				case !ok || strings.TrimSpace(s) == "":
					m.report(rulePaths, span, vsMarked(),
						"{T} ignore{s} this item of 'paths': each must be a non-empty glob pattern.")
				case badGlob(s) != "":
					m.report(rulePaths, span, vsMarked(),
						"{T} never match{es} pattern "+q(s)+": "+badGlob(s)+".")
				}
			}
		case pf.v.Kind == yaml.ScalarNode && pf.v.Tag == "!!str":
			// The list holds the patterns Claude Code reads from the string
			// (split at commas outside braces), so VS Code reads the same
			// ones; each item is quoted as a flow item needs.
			var fixes []model.Fix
			if items := splitClaudePaths([]string{pf.v.Value}); len(items) > 0 {
				flow := make([]string, len(items))
				for i, it := range items {
					flow[i] = yamlFlowItem(it)
				}
				title := "Write as a one-item list"
				if len(items) > 1 {
					title = "Write as a list of its " + strconv.Itoa(len(items)) + " patterns"
				}
				fixes = append(fixes, replaceValue(title, pf, "["+strings.Join(flow, ", ")+"]", true))
			}
			m.report(rulePaths, pf.valSpan, vsMarked().With(model.Verdicts{model.TargetClaudeCode: model.OK}),
				"{T} ignore{s} 'paths' as a string; write a list (Claude Code accepts both).", fixes...)
		default:
			m.report(rulePaths, pf.valSpan, vsMarked().With(model.Verdicts{model.TargetClaudeCode: model.Unknown}),
				"{T} ignore{s} 'paths' that is "+nodeWhat(pf.v)+"; write a list of glob patterns.")
		}
	}
	if af := m.field("applyTo"); af != nil {
		var fixes []model.Fix
		if s, ok := str(af.v); ok && m.field("paths") == nil {
			var items []string
			for _, p := range strings.Split(s, ",") {
				if p = strings.TrimSpace(p); p != "" {
					items = append(items, yamlScalar(p))
				}
			}
			fixes = append(fixes, model.Fix{Title: "Rename to 'paths'", Preferred: true, Edits: []model.Edit{
				{Span: model.Span{Start: af.keySpan.Start, End: af.valSpan.End}, NewText: "paths: [" + strings.Join(items, ", ") + "]"}}})
		}
		m.report(ruleApplyTo, af.keySpan, model.Verdicts{model.TargetClaudeCode: model.Lose},
			"{T} ignore{s} 'applyTo' and load{s} this rule for every file; use 'paths'.", fixes...)
	}
}

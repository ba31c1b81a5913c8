package claude

// Claude rules: .claude/rules/**/*.md (customization-formats.md §5.4).

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/shared"
	"github.com/ahpls-dev/ahpls/diagnostics/core/syntax"

	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ahpls-dev/ahpls/model"
)

// ClaudeRuleRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var ClaudeRuleRules = []*core.Rule{rulePaths, ruleApplyTo}

var rulePaths = &core.Rule{
	ID:       "rule/paths",
	Fix:      core.FixSafe,
	FixWhy:   "writes the patterns Claude Code reads from the string as a list, so VS Code reads the same ones",
	Summary:  "'paths' is not a list of glob patterns.",
	Kinds:    "rule",
	Severity: "VS WARN (validator Error marker; the file loads without the value) · VH LOSE? (value dropped) · CC ok for a string.",
	Evidence: []core.Evidence{
		{Consumer: "VS", Reaction: "WARN", Source: "promptValidator.ts validatePaths: 'pathsMustBeArray', 'pathMustBeValidGlob' (Error markers)"},
	},
}

var ruleApplyTo = &core.Rule{
	ID:       "rule/apply-to",
	Fix:      core.FixUnsafe,
	FixWhy:   "renames a key Claude Code ignored, so the rule is then scoped",
	Summary:  "'applyTo' in a Claude rule, which Claude Code ignores.",
	Kinds:    "rule",
	Severity: "CC IGN, so the rule is always loaded: LOSE.",
}

func CheckRule(f core.File, r *core.Reporter) {
	m := core.NewMD(f, r)
	if m.CheckHeader() && m.Mapping {
		ruleRules(m)
		shared.CheckSharedFields(m, map[string]bool{"applyTo": true})
	}
	shared.CheckLinks(m)
}

func ruleRules(m *core.MDFile) {
	if pf := m.Field("paths"); pf != nil {
		switch {
		case pf.V.Kind == yaml.SequenceNode:
			for _, it := range pf.V.Content {
				span := m.Doc.Span(it)
				s, ok := core.Str(it)
				switch {
				case !ok || strings.TrimSpace(s) == "":
					m.Report(rulePaths, span, core.VsMarked(),
						"{T} ignore{s} this item of 'paths': each must be a non-empty glob pattern.")
				case core.BadGlob(s) != "":
					m.Report(rulePaths, span, core.VsMarked(),
						"{T} never match{es} pattern "+syntax.Quote(s)+": "+core.BadGlob(s)+".")
				}
			}
		case pf.V.Kind == yaml.ScalarNode && pf.V.Tag == "!!str":
			// The list holds the patterns Claude Code reads from the string
			// (split at commas outside braces), so VS Code reads the same
			// ones; each item is quoted as a flow item needs.
			var fixes []model.Fix
			if items := core.SplitClaudePaths([]string{pf.V.Value}); len(items) > 0 {
				flow := make([]string, len(items))
				for i, it := range items {
					flow[i] = YamlFlowItem(it)
				}
				title := "Write as a one-item list"
				if len(items) > 1 {
					title = "Write as a list of its " + strconv.Itoa(len(items)) + " patterns"
				}
				fixes = append(fixes, core.ReplaceValue(title, pf, "["+strings.Join(flow, ", ")+"]", true))
			}
			m.Report(rulePaths, pf.ValSpan, core.VsMarked().With(model.Verdicts{model.TargetClaudeCode: model.OK}),
				"{T} ignore{s} 'paths' as a string; write a list (Claude Code accepts both).", fixes...)
		default:
			m.Report(rulePaths, pf.ValSpan, core.VsMarked().With(model.Verdicts{model.TargetClaudeCode: model.Unknown}),
				"{T} ignore{s} 'paths' that is "+core.NodeWhat(pf.V)+"; write a list of glob patterns.")
		}
	}
	if af := m.Field("applyTo"); af != nil {
		var fixes []model.Fix
		if s, ok := core.Str(af.V); ok && m.Field("paths") == nil {
			var items []string
			for _, p := range strings.Split(s, ",") {
				if p = strings.TrimSpace(p); p != "" {
					items = append(items, core.YamlScalar(p))
				}
			}
			fixes = append(fixes, model.Fix{Title: "Rename to 'paths'", Preferred: true, Edits: []model.Edit{
				{Span: model.Span{Start: af.KeySpan.Start, End: af.ValSpan.End}, NewText: "paths: [" + strings.Join(items, ", ") + "]"}}})
		}
		m.Report(ruleApplyTo, af.KeySpan, model.Verdicts{model.TargetClaudeCode: model.Lose},
			"{T} ignore{s} 'applyTo' and load{s} this rule for every file; use 'paths'.", fixes...)
	}
}

package copilot

// Instructions files: .github/instructions/**/*.instructions.md
// (customization-formats.md §5.4).

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/shared"
	"github.com/ahpls-dev/ahpls/diagnostics/core/syntax"

	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ahpls-dev/ahpls/model"
)

// InstructionRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var InstructionRules = []*core.Rule{instrApplyTo, instrGlob, instrExcludeAgent}

var instrApplyTo = &core.Rule{
	ID:       "instr/apply-to",
	Fix:      core.FixSafe,
	FixWhy:   "joins the same globs into the one comma-separated string VS Code reads, when no glob holds a comma (VS Code's splitGlobAware keeps commas inside {…} and […], a plain split does not)",
	Summary:  "'applyTo' is not one comma-separated string.",
	Kinds:    "instr",
	Severity: "V LOSE: the file loads but is never attached automatically (VS Code marks it with an Error).",
	Evidence: []core.Evidence{
		{Consumer: "V", Reaction: "LOSE", Source: "VS Code promptValidator.ts validateApplyTo: 'promptValidator.applyToMustBeString' (Error marker); the file still loads and can be attached by hand, it is never attached automatically: LOSE by the severity policy"},
	},
}

var instrGlob = &core.Rule{
	ID:       "instr/glob",
	Summary:  "An empty or invalid pattern in 'applyTo'.",
	Kinds:    "instr",
	Severity: "VS WARN (validator Error marker) · VH LOSE? (the pattern never matches).",
	Evidence: []core.Evidence{
		{Consumer: "VS", Reaction: "WARN", Source: "VS Code promptValidator.ts validateApplyTo: 'promptValidator.applyToMustBeValidGlob' \"The 'applyTo' attribute must be a valid glob pattern.\" (Error)"},
	},
}

var instrExcludeAgent = &core.Rule{
	ID:       "instr/exclude-agent",
	Fix:      core.FixUnsafe,
	FixWhy:   "changes a value",
	Summary:  "'excludeAgent' has a wrong type or an unknown agent.",
	Kinds:    "instr",
	Severity: "wrong type: VS WARN (validator Error marker; the file loads without the value) · VH LOSE? (value dropped); unknown agent: CL ? (Info).",
	Evidence: []core.Evidence{
		{Consumer: "VS", Reaction: "WARN", Source: "promptValidator.ts validateExcludeAgent: 'excludeAgentMustBeArray' (Error marker)"},
	},
}

var excludeAgents = []string{"code-review", "coding-agent", "cloud-agent"}

func CheckInstructions(f core.File, r *core.Reporter) {
	m := core.NewMD(f, r)
	if m.CheckHeader() && m.Mapping {
		instrRules(m)
		shared.CheckSharedFields(m, nil)
	}
	shared.CheckLinks(m)
	m.EmptyBody("instructions file", "it adds nothing to a request")
}

func instrRules(m *core.MDFile) {
	if af := m.Field("applyTo"); af != nil {
		switch {
		case af.V.Kind == yaml.SequenceNode:
			var parts []string
			for _, c := range af.V.Content {
				parts = append(parts, c.Value)
			}
			var fixes []model.Fix
			// Joined, an empty list or a blank item becomes an empty
			// pattern, which VS Code never matches (instr/glob): nothing
			// to offer there.
			if core.AllStrings(af.V) && len(parts) > 0 && !slices.ContainsFunc(parts, func(p string) bool { return strings.TrimSpace(p) == "" }) {
				fixes = append(fixes, m.ReplaceScalarValue("Join as one string", af, "'"+strings.ReplaceAll(strings.Join(parts, ", "), "'", "''")+"'", true))
			}
			m.Report(instrApplyTo, af.ValSpan, model.V(model.Lose),
				"{T} never attach{es} these instructions: 'applyTo' must be one comma-separated string, not a list.", fixes...)
		case af.V.Kind == yaml.ScalarNode && af.V.Tag == "!!str":
			globList(m, af, af.V.Value, "applyTo")
		case af.V.Kind == yaml.ScalarNode && syntax.IsNull(af.V):
		default:
			m.Report(instrApplyTo, af.ValSpan, model.V(model.Lose),
				"{T} never attach{es} these instructions: 'applyTo' must be a string, not "+core.NodeWhat(af.V)+".")
		}
	}
	if ef := m.Field("excludeAgent"); ef != nil {
		var items []*yaml.Node
		switch {
		case ef.V.Kind == yaml.ScalarNode && ef.V.Tag == "!!str":
			items = []*yaml.Node{ef.V}
		case ef.V.Kind == yaml.SequenceNode && core.AllStrings(ef.V):
			items = ef.V.Content
		default:
			m.Report(instrExcludeAgent, ef.ValSpan, core.VsMarked(),
				"{T} ignore{s} 'excludeAgent' that is "+core.NodeWhat(ef.V)+"; write an agent name or a list of them.")
			return
		}
		for _, it := range items {
			if core.Contains(excludeAgents, it.Value) {
				continue
			}
			span := m.Doc.Span(it)
			var fixes []model.Fix
			if c := core.Closest(it.Value, excludeAgents, 4); c != "" {
				fixes = append(fixes, model.Fix{Title: "Change to '" + c + "'", Preferred: true, Edits: []model.Edit{{Span: span, NewText: c}}})
			}
			m.Report(instrExcludeAgent, span, model.Verdicts{model.TargetCopilotCLI: model.Unknown},
				"{T} may not know agent "+syntax.Quote(it.Value)+"; known ones are code-review, coding-agent and cloud-agent.", fixes...)
		}
	}
}

// globList checks a comma-separated pattern list; spaces after commas are fine.
func globList(m *core.MDFile, f *core.MDField, list, key string) {
	start, depth := 0, 0
	for i := 0; i <= len(list); i++ {
		if i < len(list) {
			switch list[i] {
			case '{':
				depth++
			case '}':
				depth--
			}
			if list[i] != ',' || depth > 0 {
				continue
			}
		}
		raw := list[start:i]
		pat := strings.TrimSpace(raw)
		lead := len(raw) - len(strings.TrimLeft(raw, " \t"))
		from := core.RuneCount(list[:start+lead])
		to := from + core.RuneCount(pat)
		span := m.RuneSpan(f, from, to)
		if pat == "" {
			if span.Empty() {
				span = m.RuneSpan(f, core.RuneCount(list[:start]), core.RuneCount(list[:i])+1)
				if span.Empty() {
					span = f.ValSpan
				}
			}
			m.Report(instrGlob, span, core.VsMarked(),
				"{T} never match{es} the empty pattern in "+syntax.Quote(key)+".")
		} else if why := core.BadGlob(pat); why != "" {
			m.Report(instrGlob, span, core.VsMarked(),
				"{T} never match{es} pattern "+syntax.Quote(pat)+": "+why+".")
		}
		start = i + 1
	}
}

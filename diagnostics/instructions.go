package diagnostics

// Instructions files: .github/instructions/**/*.instructions.md
// (customization-formats.md §5.4).

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ahpls-dev/ahpls/model"
)

// instructionRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var instructionRules = []*Rule{instrApplyTo, instrGlob, instrExcludeAgent}

var instrApplyTo = &Rule{
	ID:       "instr/apply-to",
	Fix:      FixSafe,
	FixWhy:   "joins the same globs into the one comma-separated string VS Code reads, when no glob holds a comma (VS Code's splitGlobAware keeps commas inside {…} and […], a plain split does not)",
	Summary:  "'applyTo' is not one comma-separated string.",
	Kinds:    "instr",
	Severity: "V LOSE: the file loads but is never attached automatically (VS Code marks it with an Error).",
	Evidence: []Evidence{
		{"V", "LOSE", "VS Code promptValidator.ts validateApplyTo: 'promptValidator.applyToMustBeString' (Error marker); the file still loads and can be attached by hand, it is never attached automatically: LOSE by the severity policy"},
	},
}

var instrGlob = &Rule{
	ID:       "instr/glob",
	Summary:  "An empty or invalid pattern in 'applyTo'.",
	Kinds:    "instr",
	Severity: "VS WARN (validator Error marker) · VH LOSE? (the pattern never matches).",
	Evidence: []Evidence{
		{"VS", "WARN", "VS Code promptValidator.ts validateApplyTo: 'promptValidator.applyToMustBeValidGlob' \"The 'applyTo' attribute must be a valid glob pattern.\" (Error)"},
	},
}

var instrExcludeAgent = &Rule{
	ID:       "instr/exclude-agent",
	Fix:      FixUnsafe,
	FixWhy:   "changes a value",
	Summary:  "'excludeAgent' has a wrong type or an unknown agent.",
	Kinds:    "instr",
	Severity: "wrong type: VS WARN (validator Error marker; the file loads without the value) · VH LOSE? (value dropped); unknown agent: CL ? (Info).",
	Evidence: []Evidence{
		{"VS", "WARN", "promptValidator.ts validateExcludeAgent: 'excludeAgentMustBeArray' (Error marker)"},
	},
}

var excludeAgents = []string{"code-review", "coding-agent", "cloud-agent"}

func checkInstructions(f File, r *reporter) {
	m := newMD(f, r)
	if m.checkHeader() && m.mapping {
		m.instrRules()
		m.checkSharedFields(nil)
	}
	m.checkLinks()
	m.emptyBody("instructions file", "it adds nothing to a request")
}

func (m *mdFile) instrRules() {
	if af := m.field("applyTo"); af != nil {
		switch {
		case af.v.Kind == yaml.SequenceNode:
			var parts []string
			for _, c := range af.v.Content {
				parts = append(parts, c.Value)
			}
			var fixes []model.Fix
			// Joined, an empty list or a blank item becomes an empty
			// pattern, which VS Code never matches (instr/glob): nothing
			// to offer there.
			if allStrings(af.v) && len(parts) > 0 && !slices.ContainsFunc(parts, func(p string) bool { return strings.TrimSpace(p) == "" }) {
				fixes = append(fixes, m.replaceScalarValue("Join as one string", af, "'"+strings.ReplaceAll(strings.Join(parts, ", "), "'", "''")+"'", true))
			}
			m.report(instrApplyTo, af.valSpan, model.V(model.Lose),
				"{T} never attach{es} these instructions: 'applyTo' must be one comma-separated string, not a list.", fixes...)
		case af.v.Kind == yaml.ScalarNode && af.v.Tag == "!!str":
			m.globList(af, af.v.Value, "applyTo")
		case af.v.Kind == yaml.ScalarNode && isNull(af.v):
		default:
			m.report(instrApplyTo, af.valSpan, model.V(model.Lose),
				"{T} never attach{es} these instructions: 'applyTo' must be a string, not "+nodeWhat(af.v)+".")
		}
	}
	if ef := m.field("excludeAgent"); ef != nil {
		var items []*yaml.Node
		switch {
		case ef.v.Kind == yaml.ScalarNode && ef.v.Tag == "!!str":
			items = []*yaml.Node{ef.v}
		case ef.v.Kind == yaml.SequenceNode && allStrings(ef.v):
			items = ef.v.Content
		default:
			m.report(instrExcludeAgent, ef.valSpan, vsMarked(),
				"{T} ignore{s} 'excludeAgent' that is "+nodeWhat(ef.v)+"; write an agent name or a list of them.")
			return
		}
		for _, it := range items {
			if contains(excludeAgents, it.Value) {
				continue
			}
			span := m.doc.span(it)
			var fixes []model.Fix
			if c := closest(it.Value, excludeAgents, 4); c != "" {
				fixes = append(fixes, model.Fix{Title: "Change to '" + c + "'", Preferred: true, Edits: []model.Edit{{Span: span, NewText: c}}})
			}
			m.report(instrExcludeAgent, span, model.Verdicts{model.TargetCopilotCLI: model.Unknown},
				"{T} may not know agent "+q(it.Value)+"; known ones are code-review, coding-agent and cloud-agent.", fixes...)
		}
	}
}

// globList checks a comma-separated pattern list; spaces after commas are fine.
func (m *mdFile) globList(f *mdField, list, key string) {
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
		from := runeCount(list[:start+lead])
		to := from + runeCount(pat)
		span := m.runeSpan(f, from, to)
		if pat == "" {
			if span.Empty() {
				span = m.runeSpan(f, runeCount(list[:start]), runeCount(list[:i])+1)
				if span.Empty() {
					span = f.valSpan
				}
			}
			m.report(instrGlob, span, vsMarked(),
				"{T} never match{es} the empty pattern in "+q(key)+".")
		} else if why := badGlob(pat); why != "" {
			m.report(instrGlob, span, vsMarked(),
				"{T} never match{es} pattern "+q(pat)+": "+why+".")
		}
		start = i + 1
	}
}

func runeCount(s string) int { return len([]rune(s)) }

// badGlob explains why a glob pattern cannot compile, or returns "".
func badGlob(p string) string {
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

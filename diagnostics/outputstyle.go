package diagnostics

// Claude output styles: .claude/output-styles/**/*.md and a Claude plugin's
// output-styles/ (or its manifest's outputStyles paths). Claude Code 2.1.332
// reads four frontmatter keys and the body as the style's prompt; it
// rejects nothing (`claude plugin validate` lists the style and says nothing
// of its frontmatter), so every finding is a value it drops or ignores.

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ahpls-dev/ahpls/model"
)

// outputStyleRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var outputStyleRules = []*Rule{styleFieldType, styleForceForPlugin}

var styleFieldType = &Rule{
	ID:       "style/field-type",
	Summary:  "'keep-coding-instructions' or 'force-for-plugin' is not a boolean Claude Code reads, or 'description' is a list or mapping.",
	Kinds:    "style",
	Severity: "CC LOSE: the flag reads as unset (false), the description is dropped for the body's first line.",
	Evidence: []Evidence{
		{"CC", "LOSE", "Claude Code 2.1.332 output-style loader: `keepCodingInstructions: zIe(frontmatter[\"keep-coding-instructions\"])`, zIe returns a boolean for true/false, for the strings 1/true/yes/on and 0/false/no/off, and undefined for anything else"},
		{"CC", "LOSE", "Claude Code 2.1.332 GIe(description): \"Description invalid for ${name} - omitting\" (level warn) for a value that is not a string, number or boolean; the description then comes from the body"},
	},
}

var styleForceForPlugin = &Rule{
	ID:       "style/force-for-plugin",
	Summary:  "'force-for-plugin' in a project or user output style, where Claude Code ignores it.",
	Kinds:    "style",
	Severity: "CC IGN (logs a warning).",
	Evidence: []Evidence{
		{"CC", "IGN", "Claude Code 2.1.332: \"Output style \\\"${name}\\\" has force-for-plugin set, but this option only applies to plugin output styles. Ignoring.\" (level warn)"},
	},
}

func checkOutputStyle(f File, r *reporter) {
	m := newMD(f, r)
	if m.checkHeader() && m.mapping {
		m.outputStyleRules()
		m.checkSharedFields(nil)
	}
	m.checkLinks()
}

func (m *mdFile) outputStyleRules() {
	for _, key := range []string{"keep-coding-instructions", "force-for-plugin"} {
		f := m.field(key)
		if f == nil || claudeFlag(f.v) {
			continue
		}
		what := q(m.valueText(f))
		if f.v.Kind != yaml.ScalarNode {
			what = "that is " + nodeWhat(f.v)
		}
		m.report(styleFieldType, f.valSpan, model.Verdicts{model.TargetClaudeCode: model.Lose},
			"{T} read{s} '"+key+"' "+what+" as unset (false); write true or false.")
	}
	if f := m.field("description"); f != nil && (f.v.Kind == yaml.SequenceNode || f.v.Kind == yaml.MappingNode) {
		m.report(styleFieldType, f.valSpan, model.Verdicts{model.TargetClaudeCode: model.Lose},
			"{T} drop{s} a 'description' that is "+nodeWhat(f.v)+" and describe{s} the style by its body; write a string.")
	}
	if f := m.field("force-for-plugin"); f != nil && !m.plugin {
		m.report(styleForceForPlugin, f.keySpan, model.Verdicts{model.TargetClaudeCode: model.Ignore},
			"{T} ignore{s} 'force-for-plugin' outside a plugin's output styles.")
	}
}

// claudeFlag reports whether Claude Code's boolean reading of output-style
// flags gives v a value: a YAML boolean, or a scalar spelling one of
// 1/true/yes/on, 0/false/no/off in any case. A null counts as unset on
// purpose and is not reported.
func claudeFlag(v *yaml.Node) bool {
	if v.Kind != yaml.ScalarNode {
		return false
	}
	if isNull(v) {
		return true
	}
	switch strings.ToLower(strings.TrimSpace(v.Value)) {
	case "1", "true", "yes", "on", "0", "false", "no", "off":
		return true
	}
	return false
}

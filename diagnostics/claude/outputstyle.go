package claude

// Claude output styles: .claude/output-styles/**/*.md and a Claude plugin's
// output-styles/ (or its manifest's outputStyles paths). Claude Code 2.1.332
// reads four frontmatter keys and the body as the style's prompt; it
// rejects nothing (`claude plugin validate` lists the style and says nothing
// of its frontmatter), so every finding is a value it drops or ignores.

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/shared"
	"github.com/ahpls-dev/ahpls/diagnostics/core/syntax"

	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ahpls-dev/ahpls/model"
)

// OutputStyleRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var OutputStyleRules = []*core.Rule{styleFieldType, styleForceForPlugin}

var styleFieldType = &core.Rule{
	ID:       "style/field-type",
	Summary:  "'keep-coding-instructions' or 'force-for-plugin' is not a boolean Claude Code reads, or 'description' is a list or mapping.",
	Kinds:    "style",
	Severity: "CC LOSE: the flag reads as unset (false), the description is dropped for the body's first line.",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "LOSE", Source: "Claude Code 2.1.332 output-style loader: `keepCodingInstructions: zIe(frontmatter[\"keep-coding-instructions\"])`, zIe returns a boolean for true/false, for the strings 1/true/yes/on and 0/false/no/off, and undefined for anything else"},
		{Consumer: "CC", Reaction: "LOSE", Source: "Claude Code 2.1.332 GIe(description): \"Description invalid for ${name} - omitting\" (level warn) for a value that is not a string, number or boolean; the description then comes from the body"},
	},
}

var styleForceForPlugin = &core.Rule{
	ID:       "style/force-for-plugin",
	Summary:  "'force-for-plugin' in a project or user output style, where Claude Code ignores it.",
	Kinds:    "style",
	Severity: "CC IGN (logs a warning).",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "IGN", Source: "Claude Code 2.1.332: \"Output style \\\"${name}\\\" has force-for-plugin set, but this option only applies to plugin output styles. Ignoring.\" (level warn)"},
	},
}

func CheckOutputStyle(f core.File, r *core.Reporter) {
	m := core.NewMD(f, r)
	if m.CheckHeader() && m.Mapping {
		outputStyleRules(m)
		shared.CheckSharedFields(m, nil)
	}
	shared.CheckLinks(m)
}

func outputStyleRules(m *core.MDFile) {
	for _, key := range []string{"keep-coding-instructions", "force-for-plugin"} {
		f := m.Field(key)
		if f == nil || claudeFlag(f.V) {
			continue
		}
		what := syntax.Quote(m.ValueText(f))
		if f.V.Kind != yaml.ScalarNode {
			what = "that is " + core.NodeWhat(f.V)
		}
		m.Report(styleFieldType, f.ValSpan, model.Verdicts{model.TargetClaudeCode: model.Lose},
			"{T} read{s} '"+key+"' "+what+" as unset (false); write true or false.")
	}
	if f := m.Field("description"); f != nil && (f.V.Kind == yaml.SequenceNode || f.V.Kind == yaml.MappingNode) {
		m.Report(styleFieldType, f.ValSpan, model.Verdicts{model.TargetClaudeCode: model.Lose},
			"{T} drop{s} a 'description' that is "+core.NodeWhat(f.V)+" and describe{s} the style by its body; write a string.")
	}
	if f := m.Field("force-for-plugin"); f != nil && !m.Plugin {
		m.Report(styleForceForPlugin, f.KeySpan, model.Verdicts{model.TargetClaudeCode: model.Ignore},
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
	if syntax.IsNull(v) {
		return true
	}
	switch strings.ToLower(strings.TrimSpace(v.Value)) {
	case "1", "true", "yes", "on", "0", "false", "no", "off":
		return true
	}
	return false
}

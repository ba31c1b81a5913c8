package skills

// Claude commands: .claude/commands/**/*.md and plugin commands
// (customization-formats.md §5.5). Commands need no header; without one
// there is nothing to check but links.

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/shared"
	"github.com/ahpls-dev/ahpls/diagnostics/core/syntax"

	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ahpls-dev/ahpls/model"
)

// CommandRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var CommandRules = []*core.Rule{cmdArgumentHintList, cmdIgnoredKey}

var cmdArgumentHintList = &core.Rule{
	ID:       "cmd/argument-hint-list",
	Fix:      core.FixSafe,
	FixWhy:   "quotes the hint so it stays the text that was written",
	Summary:  "'argument-hint: [x]' is a YAML list, which Claude Code tolerates.",
	Kinds:    "cmd",
	Severity: "CC ok (tolerated) · CL ? · Hint [I].",
}

var cmdIgnoredKey = &core.Rule{
	ID:       "cmd/ignored-key",
	Fix:      core.FixUnsafe,
	FixWhy:   "deletes a key",
	Summary:  "'name' or 'paths' in a command, which Claude Code ignores.",
	Kinds:    "cmd",
	Severity: "CC IGN (the name is the file path).",
}

func CheckCommand(f core.File, r *core.Reporter) {
	m := core.NewMD(f, r)
	if m.CheckHeader() && m.Mapping {
		commandRules(m)
		skillOther(m, model.KindCommand)
		shared.CheckSharedFields(m, map[string]bool{"name": true, "paths": true})
	}
	shared.CheckLinks(m)
}

func commandRules(m *core.MDFile) {
	if hf := m.Field("argument-hint"); hf != nil && hf.V.Kind == yaml.SequenceNode && hf.V.Style&yaml.FlowStyle != 0 {
		src := m.ValueText(hf)
		// A fixed Hint [I]: Claude Code tolerates it; Copilot CLI is a guess.
		v := model.Verdicts{model.TargetClaudeCode: model.OK, model.TargetCopilotCLI: model.Unknown}
		if m.R.Has(model.TargetClaudeCode) || m.R.Has(model.TargetCopilotCLI) {
			m.R.Add(model.Diagnostic{Rule: cmdArgumentHintList.ID, Severity: model.Advice.Level(true), Consequence: model.Advice, Span: hf.ValSpan, Verdicts: v,
				Message: "'argument-hint' " + syntax.Quote(src) + " is a YAML list; Claude Code tolerates it, but quote it to keep it text.",
				Fixes:   []model.Fix{core.ReplaceValue("Quote the value", hf, "'"+strings.ReplaceAll(src, "'", "''")+"'", true)}})
		}
	}
	for _, key := range []string{"name", "paths"} {
		if f := m.Field(key); f != nil {
			m.Report(cmdIgnoredKey, f.KeySpan, model.Verdicts{model.TargetClaudeCode: model.Ignore},
				"{T} ignore{s} "+syntax.Quote(key)+" in a command: its name is its file path.",
				model.Fix{Title: "Delete '" + key + "'", Preferred: true, Edits: []model.Edit{{Span: m.EntryLines(m.Doc.Root, m.IndexOf(f))}}})
		}
	}
}

package diagnostics

// Claude commands: .claude/commands/**/*.md and plugin commands
// (customization-formats.md §5.5). Commands need no header; without one
// there is nothing to check but links.

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ahpls-dev/ahpls/model"
)

// commandRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var commandRules = []*Rule{cmdArgumentHintList, cmdIgnoredKey}

var cmdArgumentHintList = &Rule{
	ID:       "cmd/argument-hint-list",
	Fix:      FixSafe,
	FixWhy:   "quotes the hint so it stays the text that was written",
	Summary:  "'argument-hint: [x]' is a YAML list, which Claude Code tolerates.",
	Kinds:    "cmd",
	Severity: "CC ok (tolerated) · CL ? · Hint [I].",
}

var cmdIgnoredKey = &Rule{
	ID:       "cmd/ignored-key",
	Fix:      FixUnsafe,
	FixWhy:   "deletes a key",
	Summary:  "'name' or 'paths' in a command, which Claude Code ignores.",
	Kinds:    "cmd",
	Severity: "CC IGN (the name is the file path).",
}

func checkCommand(f File, r *reporter) {
	m := newMD(f, r)
	if m.checkHeader() && m.mapping {
		m.commandRules()
		m.skillOther(model.KindCommand)
		m.checkSharedFields(map[string]bool{"name": true, "paths": true})
	}
	m.checkLinks()
}

func (m *mdFile) commandRules() {
	if hf := m.field("argument-hint"); hf != nil && hf.v.Kind == yaml.SequenceNode && hf.v.Style&yaml.FlowStyle != 0 {
		src := m.valueText(hf)
		// A fixed Hint [I]: Claude Code tolerates it; Copilot CLI is a guess.
		v := model.Verdicts{model.TargetClaudeCode: model.OK, model.TargetCopilotCLI: model.Unknown}
		if m.r.has(model.TargetClaudeCode) || m.r.has(model.TargetCopilotCLI) {
			m.r.add(model.Diagnostic{Rule: cmdArgumentHintList.ID, Severity: model.Advice.Level(true), Consequence: model.Advice, Span: hf.valSpan, Verdicts: v,
				Message: "'argument-hint' " + q(src) + " is a YAML list; Claude Code tolerates it, but quote it to keep it text.",
				Fixes:   []model.Fix{replaceValue("Quote the value", hf, "'"+strings.ReplaceAll(src, "'", "''")+"'", true)}})
		}
	}
	for _, key := range []string{"name", "paths"} {
		if f := m.field(key); f != nil {
			m.report(cmdIgnoredKey, f.keySpan, model.Verdicts{model.TargetClaudeCode: model.Ignore},
				"{T} ignore{s} "+q(key)+" in a command: its name is its file path.",
				model.Fix{Title: "Delete '" + key + "'", Preferred: true, Edits: []model.Edit{{Span: m.entryLines(m.doc.root, m.indexOf(f))}}})
		}
	}
}

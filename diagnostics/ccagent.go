package diagnostics

// Claude agents (subagents): .claude/agents/**/*.md and Claude plugin
// agents (customization-formats.md §5.5). Cross-file ccagent/duplicate
// lives in duplicates.go.

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ahpls-dev/ahpls/model"
)

// claudeAgentRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var claudeAgentRules = []*Rule{
	ccagentNameMissing, ccagentNameSkip, ccagentNameCase, ccagentDescMissing, ccagentEnum,
	ccagentColor, ccagentTools, ccagentPluginIgnored,
}

var ccagentNameMissing = &Rule{
	ID:       "ccagent/name-missing",
	Fix:      FixUnsafe,
	FixWhy:   "writes a guessed name",
	Summary:  "The subagent has no 'name'; Claude Code skips a project subagent without one.",
	Kinds:    "ccagent",
	Severity: "CC SKIP (project); a plugin agent is named after its file.",
}

var ccagentNameSkip = &Rule{
	ID:       "ccagent/name-skip",
	Fix:      FixUnsafe,
	FixWhy:   "renames the agent",
	Summary:  "The subagent name starts with '-' or contains ':'.",
	Kinds:    "ccagent",
	Severity: "CC SKIP.",
}

var ccagentNameCase = &Rule{
	ID:       "ccagent/name-case",
	Fix:      FixUnsafe,
	FixWhy:   "renames the agent",
	Summary:  "The subagent name is not lower-case letters and hyphens.",
	Kinds:    "ccagent",
	Severity: "CC SPEC (docs only).",
}

var ccagentDescMissing = &Rule{
	ID:       "ccagent/desc-missing",
	Fix:      FixUnsafe,
	FixWhy:   "writes a guessed description",
	Summary:  "The subagent has no 'description'; Claude Code skips a project subagent without one.",
	Kinds:    "ccagent",
	Severity: "CC SKIP (project), WARN (plugin).",
}

var ccagentEnum = &Rule{
	ID:       "ccagent/enum",
	Fix:      FixUnsafe,
	FixWhy:   "guesses the value",
	Summary:  "'model', 'permissionMode', 'memory' or 'isolation' has an unknown value.",
	Kinds:    "ccagent",
	Severity: "CC LOSE · V WARN.",
	Evidence: []Evidence{
		{"VS", "WARN", "promptValidator.ts validateClaudeAttributes: 'promptValidator.claude.attributeNotFound' \"Unknown value '{0}', valid: {1}.\" (Warning)"},
	},
}

var ccagentColor = &Rule{
	ID:       "ccagent/color",
	Fix:      FixUnsafe,
	FixWhy:   "guesses the color",
	Summary:  "'color' is not one of Claude Code's colours.",
	Kinds:    "ccagent",
	Severity: "CC IGN.",
}

var ccagentTools = &Rule{
	ID:       "ccagent/tools",
	Summary:  "'tools'/'disallowedTools' is neither a comma string nor a list.",
	Kinds:    "ccagent",
	Severity: "VS WARN (validator Error marker; the file loads without the value) · VH LOSE? (value dropped) · CC ?.",
	Evidence: []Evidence{
		{"VS", "WARN", "promptValidator.ts validateTools: 'toolsMustBeArrayOrMap' \"The 'tools' attribute must be an array or a comma separated string.\" (Error marker)"},
	},
}

var ccagentPluginIgnored = &Rule{
	ID:       "ccagent/plugin-ignored",
	Summary:  "'hooks', 'mcpServers' or 'permissionMode' in a plugin agent.",
	Kinds:    "ccagent",
	Severity: "CC LOSE (not applied).",
}

var (
	ccModels         = []string{"sonnet", "opus", "haiku", "fable", "inherit"}
	ccPermissionMode = []string{"default", "acceptEdits", "auto", "dontAsk", "bypassPermissions", "plan", "manual"}
	vsPermissionMode = []string{"default", "acceptEdits", "dontAsk", "bypassPermissions", "plan", "delegate"}
	ccMemory         = []string{"user", "project", "local"}
	ccColors         = []string{"red", "blue", "green", "yellow", "purple", "orange", "pink", "cyan"}
)

func checkClaudeAgent(f File, r *reporter) {
	m := newMD(f, r)
	if !m.checkHeader() {
		v := model.Verdicts{model.TargetClaudeCode: m.ccNoHeaderAgent()}
		msg := "{T} skip{s} this subagent: it has no '---' header with 'name' and 'description'."
		if m.plugin {
			msg = "{T} name{s} this subagent after its file and give{s} it no description: it has no '---' header."
		}
		m.report(fmMissing, line1(m.text), v, msg,
			model.Fix{Title: "Add a header with name and description", Preferred: true, Edits: []model.Edit{
				m.insertKeys("name: "+yamlScalar(kebabOr(m.stem())), "description: "+yamlScalar(m.firstSentence()))}})
	} else if m.mapping {
		m.ccAgentRules()
		m.checkSharedFields(nil)
	}
	m.checkLinks()
}

func (m *mdFile) ccAgentRules() {
	skip := model.Skip
	if m.plugin {
		skip = model.OK
	}
	nf := m.field("name")
	if nf == nil {
		m.report(ccagentNameMissing, m.header(), model.Verdicts{model.TargetClaudeCode: skip},
			"{T} skip{s} this subagent: it has no 'name'.",
			model.Fix{Title: "Add 'name: " + kebabOr(m.stem()) + "'", Preferred: true, Edits: []model.Edit{m.insertKeys("name: " + yamlScalar(kebabOr(m.stem())))}})
	} else if name, ok := str(nf.v); ok && name != "" {
		if i := strings.IndexAny(name, ":"); strings.HasPrefix(name, "-") || i >= 0 {
			at := 0
			if !strings.HasPrefix(name, "-") {
				at = runeCount(name[:i])
			}
			fixed := strings.TrimLeft(strings.ReplaceAll(name, ":", ""), "-")
			if j := strings.LastIndex(name, ":"); j >= 0 {
				fixed = strings.TrimLeft(name[j+1:], "-")
			}
			var fixes []model.Fix
			if fixed != "" {
				fixes = append(fixes, replaceValue("Change to '"+fixed+"'", nf, yamlScalar(fixed), true))
			}
			m.report(ccagentNameSkip, m.runeSpan(nf, at, at+1), model.Verdicts{model.TargetClaudeCode: model.Skip},
				"{T} skip{s} subagent "+q(name)+": names may not start with '-' or contain ':'.", fixes...)
		} else if !lowerHyphen(name) {
			fixed := kebab(name)
			var fixes []model.Fix
			if fixed != "" {
				fixes = append(fixes, replaceValue("Convert to kebab-case '"+fixed+"'", nf, fixed, true))
			}
			m.report(ccagentNameCase, nf.valSpan, model.Verdicts{model.TargetClaudeCode: model.Spec},
				"{T} document{s} subagent names as lower-case letters and hyphens, not "+q(name)+"; it still loads.", fixes...)
		}
		if !strings.HasPrefix(name, "-") && !strings.Contains(name, ":") {
			m.ccDuplicate(nf, name)
		}
	}
	if m.field("description") == nil {
		desc := model.Skip
		if m.plugin {
			desc = model.Warn
		}
		msg := "{T} skip{s} this subagent: it has no 'description'."
		if m.plugin {
			msg = "{T} warn{s}: this subagent has no 'description'."
		}
		m.report(ccagentDescMissing, m.header(), model.Verdicts{model.TargetClaudeCode: desc}, msg,
			model.Fix{Title: "Add a description", Preferred: true, Edits: []model.Edit{m.insertKeys("description: " + yamlScalar(m.firstSentence()))}})
	}
	if f := m.field("model"); f != nil {
		if s, ok := str(f.v); ok && s != "" && !contains(ccModels, s) && !strings.HasPrefix(s, "claude-") {
			m.report(ccagentEnum, f.valSpan, model.V(model.Warn).With(model.Verdicts{model.TargetClaudeCode: model.Lose}),
				"{T} ignore{s} model "+q(s)+"; use an alias such as 'sonnet' or a 'claude-…' model id.", modelFix(f, s)...)
		}
	}
	if f := m.field("permissionMode"); f != nil {
		if s, ok := str(f.v); ok {
			v := model.Verdicts{}
			if !contains(ccPermissionMode, s) {
				v[model.TargetClaudeCode] = model.Lose
			}
			if !contains(vsPermissionMode, s) {
				v = v.With(model.V(model.Warn))
			}
			if len(v) > 0 {
				m.report(ccagentEnum, f.valSpan, v,
					"{T} ignore{s} permissionMode "+q(s)+".", enumFix(f, s, ccPermissionMode, 4)...)
			}
		}
	}
	for _, e := range []struct {
		key     string
		allowed []string
	}{{"memory", ccMemory}, {"isolation", []string{"worktree"}}} {
		if f := m.field(e.key); f != nil {
			if s, ok := str(f.v); !ok || !contains(e.allowed, s) {
				m.report(ccagentEnum, f.valSpan, model.V(model.Warn).With(model.Verdicts{model.TargetClaudeCode: model.Lose}),
					"{T} ignore{s} "+q(e.key+": "+m.valueText(f))+": use "+strings.Join(e.allowed, ", ")+".", enumFix(f, s, e.allowed, 4)...)
			}
		}
	}
	if f := m.field("color"); f != nil {
		if s, ok := str(f.v); !ok || !contains(ccColors, s) {
			m.report(ccagentColor, f.valSpan, model.Verdicts{model.TargetClaudeCode: model.Ignore},
				"{T} ignore{s} color "+q(m.valueText(f))+": use red, blue, green, yellow, purple, orange, pink or cyan.", enumFix(f, strings.ToLower(s), ccColors, 3)...)
		}
	}
	for _, key := range []string{"tools", "disallowedTools"} {
		f := m.field(key)
		if f == nil {
			continue
		}
		ok := (f.v.Kind == yaml.ScalarNode && f.v.Tag == "!!str") || (f.v.Kind == yaml.SequenceNode && allStrings(f.v)) || isNull(f.v)
		if !ok {
			m.report(ccagentTools, f.valSpan, vsMarked().With(model.Verdicts{model.TargetClaudeCode: model.Unknown}),
				"{T} ignore{s} "+q(key)+" that is "+nodeWhat(f.v)+"; write a comma-separated string or a list.")
		}
	}
	if m.plugin {
		for _, key := range []string{"hooks", "mcpServers", "permissionMode"} {
			if f := m.field(key); f != nil {
				m.report(ccagentPluginIgnored, f.keySpan, model.Verdicts{model.TargetClaudeCode: model.Lose},
					"{T} do{es}n't apply "+q(key)+" in a plugin's subagent.")
			}
		}
	}
}

func lowerHyphen(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// modelFix maps display names ('Claude Sonnet 4.5') to aliases.
func modelFix(f *mdField, s string) []model.Fix {
	l := strings.ToLower(s)
	for _, a := range ccModels {
		if strings.Contains(l, a) {
			return []model.Fix{replaceValue("Change to '"+a+"'", f, a, true)}
		}
	}
	return enumFix(f, s, ccModels, 3)
}

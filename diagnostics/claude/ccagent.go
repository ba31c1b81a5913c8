package claude

// Claude agents (subagents): .claude/agents/**/*.md and Claude plugin
// agents (customization-formats.md §5.5). Cross-file ccagent/duplicate
// lives in duplicates.go.

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/shared"
	"github.com/ahpls-dev/ahpls/diagnostics/core/syntax"

	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ahpls-dev/ahpls/model"
)

// ClaudeAgentRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var ClaudeAgentRules = []*core.Rule{
	ccagentNameMissing, ccagentNameSkip, ccagentNameCase, ccagentDescMissing, ccagentEnum,
	ccagentColor, ccagentTools, ccagentPluginIgnored,
}

var ccagentNameMissing = &core.Rule{
	ID:       "ccagent/name-missing",
	Fix:      core.FixUnsafe,
	FixWhy:   "writes a guessed name",
	Summary:  "The subagent has no 'name'; Claude Code skips a project subagent without one.",
	Kinds:    "ccagent",
	Severity: "CC SKIP (project); a plugin agent is named after its file.",
}

var ccagentNameSkip = &core.Rule{
	ID:       "ccagent/name-skip",
	Fix:      core.FixUnsafe,
	FixWhy:   "renames the agent",
	Summary:  "The subagent name starts with '-' or contains ':'.",
	Kinds:    "ccagent",
	Severity: "CC SKIP.",
}

var ccagentNameCase = &core.Rule{
	ID:       "ccagent/name-case",
	Fix:      core.FixUnsafe,
	FixWhy:   "renames the agent",
	Summary:  "The subagent name is not lower-case letters and hyphens.",
	Kinds:    "ccagent",
	Severity: "CC SPEC (docs only).",
}

var ccagentDescMissing = &core.Rule{
	ID:       "ccagent/desc-missing",
	Fix:      core.FixUnsafe,
	FixWhy:   "writes a guessed description",
	Summary:  "The subagent has no 'description'; Claude Code skips a project subagent without one.",
	Kinds:    "ccagent",
	Severity: "CC SKIP (project), WARN (plugin).",
}

var ccagentEnum = &core.Rule{
	ID:       "ccagent/enum",
	Fix:      core.FixUnsafe,
	FixWhy:   "guesses the value",
	Summary:  "'model', 'permissionMode', 'memory' or 'isolation' has an unknown value.",
	Kinds:    "ccagent",
	Severity: "CC LOSE · V WARN.",
	Evidence: []core.Evidence{
		{Consumer: "VS", Reaction: "WARN", Source: "promptValidator.ts validateClaudeAttributes: 'promptValidator.claude.attributeNotFound' \"Unknown value '{0}', valid: {1}.\" (Warning)"},
	},
}

var ccagentColor = &core.Rule{
	ID:       "ccagent/color",
	Fix:      core.FixUnsafe,
	FixWhy:   "guesses the color",
	Summary:  "'color' is not one of Claude Code's colours.",
	Kinds:    "ccagent",
	Severity: "CC IGN.",
}

var ccagentTools = &core.Rule{
	ID:       "ccagent/tools",
	Summary:  "'tools'/'disallowedTools' is neither a comma string nor a list.",
	Kinds:    "ccagent",
	Severity: "VS WARN (validator Error marker; the file loads without the value) · VH LOSE? (value dropped) · CC ?.",
	Evidence: []core.Evidence{
		{Consumer: "VS", Reaction: "WARN", Source: "promptValidator.ts validateTools: 'toolsMustBeArrayOrMap' \"The 'tools' attribute must be an array or a comma separated string.\" (Error marker)"},
	},
}

var ccagentPluginIgnored = &core.Rule{
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

func CheckClaudeAgent(f core.File, r *core.Reporter) {
	m := core.NewMD(f, r)
	if !m.CheckHeader() {
		v := model.Verdicts{model.TargetClaudeCode: m.CCNoHeaderAgent()}
		msg := "{T} skip{s} this subagent: it has no '---' header with 'name' and 'description'."
		if m.Plugin {
			msg = "{T} name{s} this subagent after its file and give{s} it no description: it has no '---' header."
		}
		m.Report(core.FmMissing, core.Line1(m.Text), v, msg,
			model.Fix{Title: "Add a header with name and description", Preferred: true, Edits: []model.Edit{
				m.InsertKeys("name: "+core.YamlScalar(core.KebabOr(m.Stem())), "description: "+core.YamlScalar(m.FirstSentence()))}})
	} else if m.Mapping {
		ccAgentRules(m)
		shared.CheckSharedFields(m, nil)
	}
	shared.CheckLinks(m)
}

func ccAgentRules(m *core.MDFile) {
	skip := model.Skip
	if m.Plugin {
		skip = model.OK
	}
	nf := m.Field("name")
	if nf == nil {
		m.Report(ccagentNameMissing, m.Header(), model.Verdicts{model.TargetClaudeCode: skip},
			"{T} skip{s} this subagent: it has no 'name'.",
			model.Fix{Title: "Add 'name: " + core.KebabOr(m.Stem()) + "'", Preferred: true, Edits: []model.Edit{m.InsertKeys("name: " + core.YamlScalar(core.KebabOr(m.Stem())))}})
	} else if name, ok := core.Str(nf.V); ok && name != "" {
		if i := strings.IndexAny(name, ":"); strings.HasPrefix(name, "-") || i >= 0 {
			at := 0
			if !strings.HasPrefix(name, "-") {
				at = core.RuneCount(name[:i])
			}
			fixed := strings.TrimLeft(strings.ReplaceAll(name, ":", ""), "-")
			if j := strings.LastIndex(name, ":"); j >= 0 {
				fixed = strings.TrimLeft(name[j+1:], "-")
			}
			var fixes []model.Fix
			if fixed != "" {
				fixes = append(fixes, core.ReplaceValue("Change to '"+fixed+"'", nf, core.YamlScalar(fixed), true))
			}
			m.Report(ccagentNameSkip, m.RuneSpan(nf, at, at+1), model.Verdicts{model.TargetClaudeCode: model.Skip},
				"{T} skip{s} subagent "+syntax.Quote(name)+": names may not start with '-' or contain ':'.", fixes...)
		} else if !lowerHyphen(name) {
			fixed := core.Kebab(name)
			var fixes []model.Fix
			if fixed != "" {
				fixes = append(fixes, core.ReplaceValue("Convert to kebab-case '"+fixed+"'", nf, fixed, true))
			}
			m.Report(ccagentNameCase, nf.ValSpan, model.Verdicts{model.TargetClaudeCode: model.Spec},
				"{T} document{s} subagent names as lower-case letters and hyphens, not "+syntax.Quote(name)+"; it still loads.", fixes...)
		}
		if !strings.HasPrefix(name, "-") && !strings.Contains(name, ":") {
			shared.CCDuplicate(m, nf, name)
		}
	}
	if m.Field("description") == nil {
		desc := model.Skip
		if m.Plugin {
			desc = model.Warn
		}
		msg := "{T} skip{s} this subagent: it has no 'description'."
		if m.Plugin {
			msg = "{T} warn{s}: this subagent has no 'description'."
		}
		m.Report(ccagentDescMissing, m.Header(), model.Verdicts{model.TargetClaudeCode: desc}, msg,
			model.Fix{Title: "Add a description", Preferred: true, Edits: []model.Edit{m.InsertKeys("description: " + core.YamlScalar(m.FirstSentence()))}})
	}
	if f := m.Field("model"); f != nil {
		if s, ok := core.Str(f.V); ok && s != "" && !core.Contains(ccModels, s) && !strings.HasPrefix(s, "claude-") {
			m.Report(ccagentEnum, f.ValSpan, model.V(model.Warn).With(model.Verdicts{model.TargetClaudeCode: model.Lose}),
				"{T} ignore{s} model "+syntax.Quote(s)+"; use an alias such as 'sonnet' or a 'claude-…' model id.", modelFix(f, s)...)
		}
	}
	if f := m.Field("permissionMode"); f != nil {
		if s, ok := core.Str(f.V); ok {
			v := model.Verdicts{}
			if !core.Contains(ccPermissionMode, s) {
				v[model.TargetClaudeCode] = model.Lose
			}
			if !core.Contains(vsPermissionMode, s) {
				v = v.With(model.V(model.Warn))
			}
			if len(v) > 0 {
				m.Report(ccagentEnum, f.ValSpan, v,
					"{T} ignore{s} permissionMode "+syntax.Quote(s)+".", core.EnumFix(f, s, ccPermissionMode, 4)...)
			}
		}
	}
	for _, e := range []struct {
		key     string
		allowed []string
	}{{"memory", ccMemory}, {"isolation", []string{"worktree"}}} {
		if f := m.Field(e.key); f != nil {
			if s, ok := core.Str(f.V); !ok || !core.Contains(e.allowed, s) {
				m.Report(ccagentEnum, f.ValSpan, model.V(model.Warn).With(model.Verdicts{model.TargetClaudeCode: model.Lose}),
					"{T} ignore{s} "+syntax.Quote(e.key+": "+m.ValueText(f))+": use "+strings.Join(e.allowed, ", ")+".", core.EnumFix(f, s, e.allowed, 4)...)
			}
		}
	}
	if f := m.Field("color"); f != nil {
		if s, ok := core.Str(f.V); !ok || !core.Contains(ccColors, s) {
			m.Report(ccagentColor, f.ValSpan, model.Verdicts{model.TargetClaudeCode: model.Ignore},
				"{T} ignore{s} color "+syntax.Quote(m.ValueText(f))+": use red, blue, green, yellow, purple, orange, pink or cyan.", core.EnumFix(f, strings.ToLower(s), ccColors, 3)...)
		}
	}
	for _, key := range []string{"tools", "disallowedTools"} {
		f := m.Field(key)
		if f == nil {
			continue
		}
		ok := (f.V.Kind == yaml.ScalarNode && f.V.Tag == "!!str") || (f.V.Kind == yaml.SequenceNode && core.AllStrings(f.V)) || syntax.IsNull(f.V)
		if !ok {
			m.Report(ccagentTools, f.ValSpan, core.VsMarked().With(model.Verdicts{model.TargetClaudeCode: model.Unknown}),
				"{T} ignore{s} "+syntax.Quote(key)+" that is "+core.NodeWhat(f.V)+"; write a comma-separated string or a list.")
		}
	}
	if m.Plugin {
		for _, key := range []string{"hooks", "mcpServers", "permissionMode"} {
			if f := m.Field(key); f != nil {
				m.Report(ccagentPluginIgnored, f.KeySpan, model.Verdicts{model.TargetClaudeCode: model.Lose},
					"{T} do{es}n't apply "+syntax.Quote(key)+" in a plugin's subagent.")
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
func modelFix(f *core.MDField, s string) []model.Fix {
	l := strings.ToLower(s)
	for _, a := range ccModels {
		if strings.Contains(l, a) {
			return []model.Fix{core.ReplaceValue("Change to '"+a+"'", f, a, true)}
		}
	}
	return core.EnumFix(f, s, ccModels, 3)
}

// YamlFlowItem renders s as one item of a flow sequence (`[…]`): plain
// only when `[s]` reads back as the one item s (a ',' or a '{' would split
// it or open a mapping), else single-quoted.
func YamlFlowItem(s string) string {
	if v := core.YamlScalar(s); v == s && !strings.ContainsAny(s, ",[]{}#") {
		var n yaml.Node
		if yaml.Unmarshal([]byte("k: ["+s+"]"), &n) == nil {
			if seq := core.MapValue(n.Content[0], "k"); seq != nil && len(seq.Content) == 1 && seq.Content[0].Tag == "!!str" && seq.Content[0].Value == s {
				return s
			}
		}
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

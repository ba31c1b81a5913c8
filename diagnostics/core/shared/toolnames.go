package shared

// Tool names in Claude Code's tool fields (issue #29): `tools` and
// `disallowedTools` of a subagent, `allowed-tools` and `disallowed-tools`
// of a skill or command. Claude Code's names are the exact strings its
// tools reference documents; a name that is none of them (and no
// mcp__server__tool name) matches no tool. Only near misses of a built-in
// name are reported: another word may be a tool of a consumer ahpls does
// not know, but 'Grepp' or 'read' is a typo.

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/syntax"

	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ahpls-dev/ahpls/model"
)

// ToolNameRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var ToolNameRules = []*core.Rule{toolUnknown, toolBoth, ccagentSkillMissing}

var toolUnknown = &core.Rule{
	ID:       "tool/unknown",
	Fix:      core.FixUnsafe,
	FixWhy:   "a guess at the tool meant",
	Summary:  "A tool name in `tools`, `disallowedTools`, `allowed-tools` or `disallowed-tools` that is a near miss of a Claude Code tool (`Grepp`, `read`): it names no tool.",
	Kinds:    "ccagent, skill, cmd",
	Severity: "subagent: CC LOSE (the subagent lacks the tool, or keeps the one it meant to deny) · skill, command: CC ? (the entry pre-approves or denies nothing; no loader message): Info.",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "LOSE", Source: "@anthropic-ai/claude-code 2.1.332, the subagent's tool resolution: each `tools` entry is looked up by its exact name in a map of the session's tools, and one that matches none is set aside as `unrecognized [...]` (a subagent left with no tool at all is refused at spawn); code.claude.com/docs/en/tools-reference: \"The tool names are the exact strings you use in permission rules, subagent tool lists, and hook matchers\""},
		{Consumer: "CC", Reaction: "?", Source: "skills and commands: `claude plugin validate` 2.1.332 says nothing about `allowed-tools: Grepp`; what a missed pre-approval costs (a permission prompt) was not run"},
	},
}

var toolBoth = &core.Rule{
	ID:       "tool/both",
	Summary:  "A tool listed both in a subagent's `tools` and its `disallowedTools` (or a skill's or command's `allowed-tools` and `disallowed-tools`).",
	Kinds:    "ccagent, skill, cmd",
	Severity: "subagent: CC LOSE (the tool is removed) · skill, command: CC ? (Info).",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "LOSE", Source: "code.claude.com/docs/en/sub-agents, supported frontmatter fields: disallowedTools \"Tools to deny, removed from inherited or specified list\""},
	},
}

// ccTools are Claude Code's built-in tool names (tools reference, the
// names Claude Code 2.1.332 still accepts: Task for Agent, MultiEdit, LS,
// NotebookRead, BashOutput, KillShell, and the rest of 2.1.332's own list
// of tool names, so that no real tool is taken for a near miss).
var ccTools = []string{
	"Agent", "AskUserQuestion", "Bash", "CronCreate", "CronDelete", "CronList", "Edit", "EnterPlanMode",
	"EnterWorktree", "ExitPlanMode", "ExitWorktree", "Glob", "Grep", "ListMcpResourcesTool", "LSP", "Monitor",
	"NotebookEdit", "PowerShell", "Read", "ReadMcpResourceTool", "SendMessage", "Skill", "TaskCreate", "TaskGet",
	"TaskList", "TaskOutput", "TaskStop", "TaskUpdate", "TeamCreate", "TeamDelete", "TodoWrite", "ToolSearch",
	"WebFetch", "WebSearch", "Write",
	"Task", "MultiEdit", "LS", "NotebookRead", "BashOutput", "KillShell", "SlashCommand",
	"Artifact", "ClaudeDesign", "EndConversation", "ListAgents", "OfferChromeSetup", "Projects", "propose_skills",
	"PushNotification", "ReadMcpResourceDirTool", "ReadNotifications", "RemoteTrigger", "ReportFindings",
	"ScheduleWakeup", "SendFeedback", "SendUserFile", "SendUserMessage", "SetGoal", "ShareOnboardingGuide",
	"ShowOnboardingRolePicker", "SubagentHandback", "WaitForMcpServers", "Workflow",
	"KillBash", "ListPeers", "Brief", "ListMcpResources", "ReadMcpResource", "ReadMcpResourceDir", "ProposeGoal",
}

// toolEntry is one entry of a tool field: its tool name (before any
// `(specifier)`) and where it is.
type toolEntry struct {
	entry, name string
	span        model.Span
	exact       bool // span is the entry's own text (a fix can replace the name)
}

// toolField splits a tool field into entries: a list, or a string of
// comma- or space-separated entries.
func toolField(m *core.MDFile, f *core.MDField) []toolEntry {
	var out []toolEntry
	add := func(entry string, span model.Span, exact bool) {
		name := entry
		if i := strings.IndexByte(name, '('); i >= 0 {
			name = name[:i]
		}
		out = append(out, toolEntry{entry: entry, name: strings.TrimSpace(name), span: span, exact: exact})
	}
	switch f.V.Kind {
	case yaml.ScalarNode:
		s, ok := core.Str(f.V)
		if !ok {
			return nil
		}
		src := m.ValueText(f)
		off, exact := 0, src == s
		if !exact && len(src) == len(s)+2 && (src[0] == '"' || src[0] == '\'') && src[1:len(src)-1] == s {
			off, exact = 1, true // quoted without escapes
		}
		for _, e := range ToolEntries(s) {
			span := f.ValSpan
			if exact {
				span = model.Span{Start: f.ValSpan.Start + off + e[0], End: f.ValSpan.Start + off + e[1]}
			}
			add(s[e[0]:e[1]], span, exact)
		}
	case yaml.SequenceNode:
		for _, it := range f.V.Content {
			if s, ok := core.Str(it); ok {
				span := m.Doc.Span(it)
				exact := strings.HasPrefix(string(m.Text[span.Start:span.End]), s)
				if exact { // a plain item: its own text (a flow item's span runs on)
					span.End = span.Start + len(s)
				}
				add(s, span, exact)
			}
		}
	}
	return out
}

// toolNames checks the tool fields of a subagent, skill or command.
func toolNames(m *core.MDFile) {
	var allowKey, denyKey string
	switch m.Kind {
	case model.KindClaudeAgent:
		allowKey, denyKey = "tools", "disallowedTools"
	case model.KindSkill, model.KindCommand:
		allowKey, denyKey = "allowed-tools", "disallowed-tools"
	default:
		return
	}
	fields := map[string][]toolEntry{}
	for _, key := range []string{allowKey, denyKey} {
		f := m.Field(key)
		if f == nil || f.DupIndex > 0 {
			continue
		}
		fields[key] = toolField(m, f)
		for _, e := range fields[key] {
			toolName(m, key, e)
		}
	}
	denied := map[string]bool{}
	for _, e := range fields[denyKey] {
		denied[e.entry] = true
	}
	v := model.Verdicts{model.TargetClaudeCode: model.Lose}
	msg := "{T} remove{s} " + "%s" + " from this subagent: it is also in 'disallowedTools'."
	if m.Kind != model.KindClaudeAgent {
		v = model.Verdicts{model.TargetClaudeCode: model.Unknown}
		msg = "%s is both allowed and disallowed here; {T} may deny it."
	}
	for _, e := range fields[allowKey] {
		if denied[e.entry] {
			m.Report(toolBoth, e.span, v, strings.Replace(msg, "%s", syntax.Quote(e.entry), 1))
		}
	}
}

func toolName(m *core.MDFile, key string, e toolEntry) {
	n := e.name
	if n == "" || core.Contains(ccTools, n) || strings.HasPrefix(n, "mcp__") || strings.ContainsAny(n, "*/.:") {
		return
	}
	best := core.Closest(n, ccTools, 2)
	if best == "" || len(n) < 3 {
		return
	}
	var fixes []model.Fix
	if e.exact {
		fixes = append(fixes, model.Fix{Title: "Change to '" + best + "'", Preferred: true,
			Edits: []model.Edit{{Span: model.Span{Start: e.span.Start, End: e.span.Start + len(n)}, NewText: best}}})
	}
	// A subagent's tool lists are resolved by exact name: the subagent
	// goes without the tool it meant to have, or keeps the one it meant
	// to deny.
	v, msg := model.Verdicts{model.TargetClaudeCode: model.Unknown}, "{T} {has} no tool "+syntax.Quote(n)+" (in '"+key+"'); did you mean '"+best+"'?"
	if m.Kind == model.KindClaudeAgent {
		what := "this subagent goes without the tool meant"
		if key == "disallowedTools" {
			what = "the tool meant is not denied"
		}
		v, msg = model.Verdicts{model.TargetClaudeCode: model.Lose}, "{T} {has} no tool "+syntax.Quote(n)+" (in '"+key+"'), so "+what+"; did you mean '"+best+"'?"
	}
	m.Report(toolUnknown, e.span, v, msg, fixes...)
}

var ccagentSkillMissing = &core.Rule{
	ID:       "ccagent/skill-missing",
	Fix:      core.FixUnsafe,
	FixWhy:   "a guess at the skill meant",
	Summary:  "A subagent's `skills:` entry names no skill folder of its workspace (`.claude/skills/`) or plugin (`skills/`), though that folder exists.",
	Kinds:    "ccagent",
	Severity: "CC ? (not preloaded; `claude plugin validate` 2.1.332 says nothing, and the skill may be the user's own): Info.",
}

// skillDirs are the skill folders a subagent's `skills:` names resolve
// against: its plugin's skills/, or the .claude/skills/ beside its .claude/.
func skillDirs(m *core.MDFile) []string {
	if f, root := model.PluginOf(m.F.Path, m.F.Layout); f != model.FormatNone {
		return []string{core.JJoin(root, "skills")}
	}
	if i := strings.LastIndex(m.F.Path, ".claude/agents/"); i >= 0 {
		return []string{m.F.Path[:i] + ".claude/skills"}
	}
	return nil
}

// agentSkills reports `skills:` entries that no skill folder holds, when
// the folder exists (without one the skills are likely the user's).
func agentSkills(m *core.MDFile) {
	f := m.Field("skills")
	lister, ok := m.F.FS.(core.WorkspaceLister)
	if f == nil || f.DupIndex > 0 || m.Kind != model.KindClaudeAgent || !ok {
		return
	}
	var names []string
	for _, d := range skillDirs(m) {
		ents, err := lister.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if e.IsDir() {
				names = append(names, e.Name())
			}
		}
	}
	if len(names) == 0 {
		return
	}
	for _, e := range toolField(m, f) {
		n := e.entry
		if n == "" || strings.ContainsAny(n, ":/*") || core.Contains(names, n) {
			continue
		}
		msg := "{T} find{s} no skill " + syntax.Quote(n) + " to preload: no folder of that name in " + syntax.Quote(strings.Join(skillDirs(m), ", ")) + "."
		var fixes []model.Fix
		if best := core.Closest(n, names, 2); best != "" {
			msg = "{T} find{s} no skill " + syntax.Quote(n) + " to preload (did you mean '" + best + "'?)."
			if e.exact {
				fixes = append(fixes, model.Fix{Title: "Change to '" + best + "'", Preferred: true, Edits: []model.Edit{{Span: e.span, NewText: best}}})
			}
		}
		m.Report(ccagentSkillMissing, e.span, model.Verdicts{model.TargetClaudeCode: model.Unknown}, msg, fixes...)
	}
}

package shared

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"

	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/ahpls-dev/ahpls/model"
)

// Hooks files (customization-formats.md §5.7) come in three forms: Claude's
// matcher groups, VS Code's flat handlers and Copilot's `version` form. The
// form is decided per entry (an entry with a `hooks` array is a group), and
// per file for the Copilot form, so that a mixed file gets the right rule on
// each entry. The same walk serves `hooks` in .claude/settings*.json.

// HookRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var HookRules = []*core.Rule{
	HooksShape, hooksVersion, hooksEvent, hooksFlatForClaude, hooksMatcherIgnored,
	hooksMatcherNoEffect, hooksGroupKey, hooksType, HooksCommand, hooksFieldType,
	hooksFieldForm, hooksUnknownKey, hooksUserConfig, hooksUnquotedRoot, hooksScript,
	TokenPluginRoot,
}

var HooksShape = &core.Rule{
	ID:       "hooks/shape",
	Summary:  "Hooks (a hooks file, settings `hooks` or frontmatter `hooks:`) whose events or entries have the wrong shape.",
	Kinds:    core.HookKinds,
	Severity: "All REJ (VS Code reads a wrapper-less file's top level: ok).",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "REJ", Source: "`claude plugin validate` 2.1.332 on hooks/hooks.json with an event at the top level: \"PreToolUse/PermissionRequest is declared at the top level, outside the \\\"hooks\\\" object … cannot be loaded\" (success false)"},
		{Consumer: "CL", Reaction: "REJ?", Source: "docs.github.com/en/copilot/reference/copilot-cli-reference/cli-hooks-reference: the configuration is {\"version\": 1, \"hooks\": {<event>: [<hook>, …]}} (documented; the reaction is not observed)"},
	},

	WholeFile: true,
}

var hooksVersion = &core.Rule{
	ID:       "hooks/version",
	Fix:      core.FixUnsafe,
	FixWhy:   "adds a field that changes how Copilot CLI reads the file",
	Summary:  "A Copilot-form hooks file has a `version` other than 1.",
	Kinds:    "hooks",
	Severity: "CL REJ? (documented: version 1).",
	Evidence: []core.Evidence{
		{Consumer: "CL", Reaction: "REJ?", Source: "docs.github.com/en/copilot/reference/copilot-cli-reference/cli-hooks-reference: \"Hook configuration files use JSON format with version 1.\" (documented; the reaction is not observed)"},
	},

	WholeFile: true,
}

var hooksEvent = &core.Rule{
	ID:       "hooks/event",
	Fix:      core.FixUnsafe,
	FixWhy:   "guesses the event name",
	Summary:  "A hook event name that an effective consumer does not know; its hooks never run there.",
	Kinds:    core.HookKinds,
	Severity: "Unknown to every effective consumer: DROP (the file loads, the entry never runs); to some: LOSE, naming them.",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "DROP", Source: "`claude plugin validate` 2.1.332: \"unknown hook event; entry ignored at runtime\" (a warning; the plugin passes)"},
		{Consumer: "VS", Reaction: "SKIP", Source: "promptValidator.ts validateHooks: 'promptValidator.unknownHookType' \"Unknown hook event type '{0}'. Supported: {1}.\" (Warning marker in agent `hooks:`; VS Code has no handler for the event)"},
		{Consumer: "VH", Reaction: "SKIP", Source: "the agent host's event list (customization-formats.md §5.7); not re-traced this session"},
		{Consumer: "CL", Reaction: "SKIP?", Source: "docs.github.com/en/copilot/reference/copilot-cli-reference/cli-hooks-reference: the hook types are sessionStart, sessionEnd, userPromptSubmitted, preToolUse, postToolUse, errorOccurred, … (camelCase; documented)"},
	},
}

var hooksFlatForClaude = &core.Rule{
	ID:       "hooks/flat-for-claude",
	Fix:      core.FixUnsafe,
	FixWhy:   "restructures the hooks, which changes what runs",
	Summary:  "A flat handler where Claude Code requires matcher groups.",
	Kinds:    core.HookKinds,
	Severity: "CC REJ.",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "SKIP", Source: "`claude plugin validate` 2.1.332: \"Hook matcher \\\"hooks\\\" must be an array of hook entries; received undefined; entry ignored at runtime\""},
	},
}

var hooksMatcherIgnored = &core.Rule{
	ID:       "hooks/matcher-ignored",
	Summary:  "VS Code ignores `matcher` and runs the hook on every such event.",
	Kinds:    core.HookKinds,
	Severity: "V LOSE (runs on every such event), only for a V target that runs the event (else hooks/event speaks) and only when the matcher selects less than everything (not `*`, `.*`, empty).",
	Evidence: []core.Evidence{
		{Consumer: "V", Reaction: "LOSE", Source: "VS Code hooks documentation [VD]: matchers are not applied, every handler of the event runs; not yet traced to a function in VS Code's source"},
	},
}

var hooksMatcherNoEffect = &core.Rule{
	ID:       "hooks/matcher-no-effect",
	Fix:      core.FixUnsafe,
	FixWhy:   "deletes the matcher",
	Summary:  "A `matcher` on an event Claude Code never filters.",
	Kinds:    core.HookKinds,
	Severity: "CC IGN.",
}

var hooksGroupKey = &core.Rule{
	ID:       "hooks/group-key",
	Summary:  "A matcher-group key other than `matcher` and `hooks`.",
	Kinds:    core.HookKinds,
	Severity: "V WARN in agent `hooks:`, IGN in hook files.",
	Evidence: []core.Evidence{
		{Consumer: "VS", Reaction: "WARN", Source: "promptValidator.ts validateHookCommand: 'promptValidator.unknownMatcherProperty' \"Unknown property '{0}' in hook matcher.\" (Warning, agent `hooks:`)"},
	},
}

var hooksType = &core.Rule{
	ID:       "hooks/type",
	Fix:      core.FixUnsafe,
	FixWhy:   "guesses the type",
	Summary:  "A handler `type` that is missing or unsupported by a consumer.",
	Kinds:    core.HookKinds,
	Severity: "REJ per target (CC: `command http mcp_tool prompt agent`; V, CL: `command`; VH: may be absent).",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "REJ", Source: "`claude plugin validate` 2.1.332: \"Unknown hook type \\\"shell\\\" …\" (error, success false)"},
		{Consumer: "VS", Reaction: "REJ?", Source: "promptValidator.ts validateHookCommand: 'hookTypeMustBeCommand', 'hookMissingType' (Error markers, agent `hooks:`)"},
		{Consumer: "V", Reaction: "LOSE?", Source: "a Claude Code type (prompt, agent, http, mcp_tool) in a hooks file: VS Code runs command hooks only, and the plugin still loads (the marker above is an editor marker, not a load failure); not traced to a loader function"},
	},
}

var HooksCommand = &core.Rule{
	ID:       "hooks/command",
	Fix:      core.FixUnsafe,
	FixWhy:   "adds a command another consumer then runs",
	Summary:  "A handler without the command field a consumer runs (or an `mcp_tool` hook without `server` and `tool`).",
	Kinds:    core.HookKinds,
	Severity: "REJ per target that finds none of its command fields.",
	Evidence: []core.Evidence{
		{Consumer: "CL", Reaction: "REJ?", Source: "docs.github.com/en/copilot/reference/copilot-cli-reference/cli-hooks-reference: a command hook needs \"One of bash/powershell\" (documented; the reaction is not observed)"},
		{Consumer: "CC", Reaction: "SKIP", Source: "`claude plugin validate` 2.1.332: \"Invalid command hook (command: Invalid input: expected string, received undefined); entry ignored at runtime\""},
		{Consumer: "VS", Reaction: "REJ?", Source: "promptValidator.ts validateHookCommand: 'hookMissingCommand' \"Hook command must specify at least one of 'command', 'windows', 'linux', or 'osx'.\" (Error marker)"},
		{Consumer: "CC", Reaction: "REJ (mcp_tool)", Source: "`claude plugin validate` 2.1.332 on {\"type\": \"mcp_tool\", \"tool\": \"x\"}: \"Invalid mcp_tool hook (server: Invalid input: expected string, received undefined)\" (error, success false)"},
	},
}

var hooksFieldType = &core.Rule{
	ID:       "hooks/field-type",
	Fix:      core.FixSafe,
	FixWhy:   "writes the quoted number as a number with the same value",
	Summary:  "A handler field of the wrong type (timeout, cwd, env, async).",
	Kinds:    "hooks, settings",
	Severity: "V LOSE (default used) · CC DROP (the hook is dropped, the file loads) · CL ?.",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "DROP", Source: "`claude plugin validate` 2.1.332: \"Invalid command hook (timeout: Invalid input: expected number, received string); entry ignored at runtime\" (the whole hook is dropped)"},
	},
}

var hooksFieldForm = &core.Rule{
	ID:       "hooks/field-form",
	Fix:      core.FixUnsafe,
	FixWhy:   "renames a key, which changes which consumer reads it",
	Summary:  "A field of the other hooks family (`timeoutSec` vs `timeout`) that is ignored.",
	Kinds:    "hooks, settings",
	Severity: "IGN, so the value is lost: LOSE.",
}

var hooksUnknownKey = &core.Rule{
	ID:       "hooks/unknown-key",
	Summary:  "A handler key no hooks family knows.",
	Kinds:    core.HookKinds,
	Severity: "V WARN in agent `hooks:`, IGN in hook files · CC ok.",
	Evidence: []core.Evidence{
		{Consumer: "VS", Reaction: "WARN", Source: "promptValidator.ts validateHookCommand: 'promptValidator.unknownHookProperty' (Warning, agent `hooks:`)"},
	},
}

var hooksUserConfig = &core.Rule{
	ID:       "hooks/user-config",
	Summary:  "`${user_config.*}` in a shell-form hook command, which Claude Code rejects.",
	Kinds:    "hooks, settings",
	Severity: "CC REJ.",
}

var hooksUnquotedRoot = &core.Rule{
	ID:       "hooks/unquoted-root",
	Fix:      core.FixUnsafe,
	FixWhy:   "quoting changes how the shell splits the command",
	Summary:  "`${CLAUDE_PLUGIN_ROOT}` unquoted in a shell command breaks on paths with spaces.",
	Kinds:    "hooks, settings",
	Severity: "CC WARN.",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "WARN", Source: "`claude plugin validate`: \"Shell command uses ${CLAUDE_PLUGIN_ROOT} without quotes … Wrap the placeholder in double quotes, or use exec form\""},
	},
}

var hooksScript = &core.Rule{
	ID:       "hooks/script",
	Summary:  "The script a hook runs does not exist.",
	Kinds:    "hooks, settings",
	Severity: "Fails on every run: Warning [I].",
}

var TokenPluginRoot = &core.Rule{
	ID:       "token/plugin-root",
	Fix:      core.FixUnsafe,
	FixWhy:   "changes the path the command uses",
	Summary:  "`${CLAUDE_PLUGIN_ROOT}` where no consumer expands it.",
	Kinds:    "hooks, settings, mcp, plugin, market",
	Severity: "LOSE (empty or literal text).",
}

var (
	ccHookEvents = []string{"SessionStart", "Setup", "UserPromptSubmit", "UserPromptExpansion", "PreToolUse", "PermissionRequest", "PermissionDenied", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Notification", "MessageDisplay", "SubagentStart", "SubagentStop", "TaskCreated", "TaskCompleted", "Stop", "StopFailure", "TeammateIdle", "InstructionsLoaded", "ConfigChange", "CwdChanged", "DirectoryAdded", "FileChanged", "WorktreeCreate", "WorktreeRemove", "PreCompact", "PostCompact", "Elicitation", "ElicitationResult", "SessionEnd", "PreModelSwitch", "PostModelSwitch", "PreSkillShellCommand"}
	vsHookEvents = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PreCompact", "SubagentStart", "SubagentStop", "Stop"}
	clHookEvents = []string{"sessionStart", "sessionEnd", "userPromptSubmitted", "preToolUse", "postToolUse", "agentStop", "subagentStop", "errorOccurred"}
	vhHookEvents = append(append(append([]string{}, vsHookEvents...), "SessionEnd", "ErrorOccurred"), clHookEvents...)

	// matcherNoEffect are the events whose matcher Claude Code never consults.
	matcherNoEffect = []string{"UserPromptSubmit", "PostToolBatch", "Stop", "TeammateIdle", "TaskCreated", "TaskCompleted", "WorktreeCreate", "WorktreeRemove", "MessageDisplay", "CwdChanged"}

	CCHookTypes = []string{"command", "http", "mcp_tool", "prompt", "agent"}

	// knownHandlerKeys is every handler key some hooks family reads.
	knownHandlerKeys = []string{
		"type", "command", "args", "timeout", "async", "asyncRewake", "if", "statusMessage", "once", "shell", "url", "headers", "allowedEnvVars", "prompt", "model", "server", "tool", "input", // Claude Code
		"windows", "linux", "osx", "cwd", "env", // VS Code
		"bash", "powershell", "timeoutSec", "comment", // Copilot
	}
	commandFields = []string{"command", "bash", "powershell", "windows", "linux", "osx"}
)

// HookEvents lists the hook event names target t runs, for completion; nil
// for targets that read no hooks.
func HookEvents(t model.Target) []string {
	var src []string
	switch t {
	case model.TargetClaudeCode:
		src = ccHookEvents
	case model.TargetVSCode:
		src = vsHookEvents
	case model.TargetVSCodeAgentHost:
		src = vhHookEvents
	case model.TargetCopilotCLI:
		src = clHookEvents
	}
	return append([]string(nil), src...)
}

const (
	ClaudeRootToken = "${CLAUDE_PLUGIN_ROOT}"
	PluginRootToken = "${PLUGIN_ROOT}"
)

// HooksWalk carries what the handler rules need to know about the file.
type HooksWalk struct {
	C       *core.JSONCheck
	copilot bool // top-level `version`: Copilot form
	// ccExpands: ${CLAUDE_PLUGIN_ROOT} expands in hook commands here.
	CcExpands bool
	// tokenFix replaces a ${CLAUDE_PLUGIN_ROOT} that does not expand.
	TokenFix string
	// scriptRel: ./ script paths resolve against the workspace folder.
	ScriptRel bool
	// unknownHome: a plugin file of unknown format; token rules stay quiet.
	unknownHome bool
}

func hooksReaders(f core.File, format model.PluginFormat) []model.Target {
	if strings.HasPrefix(f.Path, ".github/hooks/") {
		return core.JVCL
	}
	return core.JReadersFor(format)
}

func CheckHooksFile(f core.File, r *core.Reporter) {
	format, root := core.JPluginOf(f)
	c := core.NewJSONCheck(f, r, "hooks file", hooksReaders(f, format))
	c.Format, c.PluginRoot = format, root
	doc := c.Parse()
	if doc == nil {
		return
	}
	if !doc.Is(core.JSONObject) {
		c.Report(HooksShape, doc.Span, c.All(model.Reject), fmt.Sprintf("%%s cannot load this hooks file: its top level is %s, not an object.", doc.Kind))
		return
	}
	w := &HooksWalk{C: c, CcExpands: format == model.FormatClaude, ScriptRel: format == model.FormatNone}
	// A plugin hooks file whose plugin format is unknown (no Layout): the
	// root token may well expand there, so say nothing about it.
	w.unknownHome = format == model.FormatNone && !strings.HasPrefix(f.Path, ".github/hooks/")
	if w.unknownHome {
		w.ScriptRel = false
	}
	switch format {
	case model.FormatCopilot, model.FormatOpenPlugin:
		w.TokenFix = PluginRootToken
	}
	// Copilot CLI's form is told apart by structure, not by a top-level
	// 'version' alone: Claude-style {matcher, hooks: […]} groups make the
	// file Claude's whatever else it holds (Claude Code 2.1.332 loads such
	// a file with "version": 1 and lists its hooks).
	if vm := doc.Member("version"); vm != nil && copilotForm(doc.Get("hooks")) {
		w.copilot = true
		c.R.AddTarget(model.TargetCopilotCLI)
		if n, err := strconv.ParseFloat(vm.Value.Str, 64); !vm.Value.Is(core.JSONNumber) || err != nil || n != 1 {
			c.Report(hooksVersion, vm.Value.Span, model.Verdicts{model.TargetCopilotCLI: model.Reject},
				fmt.Sprintf("%%s cannot load this hooks file: 'version' must be 1, not %s.", core.JClip(string(c.Text[vm.Value.Span.Start:vm.Value.Span.End]))),
				core.JReplace("Set 'version' to 1", vm.Value.Span, "1"))
			c.DropReaders(model.TargetCopilotCLI) // it rejects the file: no cascade
		}
	}
	hm := doc.Member("hooks")
	if hm == nil {
		events := 0
		for _, m := range doc.Members {
			if !topLevelHookKey(m.Key) {
				events++
			}
		}
		if events > 0 {
			// VS Code reads a wrapper-less file's top level as the events.
			c.Report(HooksShape, model.Span{Start: doc.Span.Start, End: doc.Span.Start + 1},
				model.V(model.OK).With(model.Verdicts{model.TargetClaudeCode: model.Reject, model.TargetCopilotCLI: model.Reject}),
				"%s cannot load these hooks: the events must sit under a top-level 'hooks' object.")
			// Those consumers reject the whole file: the rest is VS Code's.
			c.DropReaders(model.TargetClaudeCode, model.TargetCopilotCLI)
		}
		w.Events(doc, true)
		return
	}
	if !hm.Value.Is(core.JSONObject) {
		c.Report(HooksShape, hm.Value.Span, c.All(model.Reject), fmt.Sprintf("%%s cannot load this hooks file: 'hooks' is %s, not an object of events.", hm.Value.Kind))
		return
	}
	w.Events(hm.Value, false)
}

// copilotForm tells a hooks file with a top-level 'version' by its
// structure: Claude-style groups (an entry with 'hooks') make it Claude's,
// handlers that run 'bash' or 'powershell', or Copilot CLI's camelCase
// event names, Copilot CLI's, and handlers that run only 'command' under
// PascalCase events VS Code's flat form (#25 P6). A file that shows
// none of these is taken at its 'version'.
func copilotForm(events *core.JSONValue) bool {
	bashOrPS, command := false, false
	for _, ev := range events.MembersOf() {
		if core.JHas(clHookEvents, ev.Key) {
			bashOrPS = true // Copilot CLI's camelCase event names
		}
		if !ev.Value.Is(core.JSONArray) {
			continue
		}
		for _, it := range ev.Value.Items {
			if it.Member("hooks") != nil {
				return false
			}
			if it.Member("bash") != nil || it.Member("powershell") != nil {
				bashOrPS = true
			}
			if it.Member("command") != nil {
				command = true
			}
		}
	}
	return bashOrPS || !command
}

func topLevelHookKey(k string) bool {
	switch k {
	case "version", "description", "$schema", "disableAllHooks":
		return true
	}
	return false
}

// knownEvents is what t runs in this file's form: VS Code also reads the
// Copilot form's camelCase names.
func (w *HooksWalk) knownEvents(t model.Target) []string {
	switch t {
	case model.TargetVSCode:
		if w.copilot {
			return vsCopilotEvents
		}
		return vsHookEvents
	case model.TargetClaudeCode:
		return ccHookEvents
	case model.TargetVSCodeAgentHost:
		return vhHookEvents
	case model.TargetCopilotCLI:
		return clHookEvents
	}
	return nil
}

var vsCopilotEvents = append(append([]string{}, vsHookEvents...), clHookEvents...)

func (w *HooksWalk) Events(events *core.JSONValue, topLevel bool) {
	c := w.C
	for _, m := range events.Members {
		if topLevel && topLevelHookKey(m.Key) {
			continue
		}
		w.event(m)
		if !m.Value.Is(core.JSONArray) {
			c.Report(HooksShape, m.Value.Span, c.All(model.Reject), fmt.Sprintf("%%s cannot load this hooks file: '%s' is %s, not an array of hooks.", core.JClip(m.Key), m.Value.Kind))
			continue
		}
		for _, item := range m.Value.Items {
			w.entry(m.Key, item)
		}
	}
}

// event applies hooks/event to one event key.
func (w *HooksWalk) event(m *core.JSONMember) {
	c := w.C
	if c.Capped(hooksEvent) {
		return
	}
	v, best, ok, report := unknownEvent(m.Key, core.JSONReaders, c.Reads, c.Effective, w.knownEvents)
	if !report {
		return
	}
	msg := fmt.Sprintf("%%s will never run hooks under '%s', an unknown event there.", core.JClip(m.Key))
	var fixes []model.Fix
	if ok {
		msg = fmt.Sprintf("%%s will never run hooks under '%s', an unknown event there (did you mean '%s'?).", core.JClip(m.Key), best)
		fixes = append(fixes, core.JReplace(fmt.Sprintf("Rename to '%s'", best), m.KeySpan, core.JQuote(best)))
	}
	c.Report(hooksEvent, m.KeySpan, v, msg, fixes...)
}

// unknownEvent decides hooks/event for one event name, for JSON hook files
// and frontmatter `hooks:` alike. Readers that know the name get ok; the
// others get Drop (the entry never runs in a file that loads) when no
// effective reader knows it, else Lose. report is
// false when every effective reader knows it. best is the name to offer:
// one every effective reader knows when possible, so a fix never trades
// one consumer's loss for another's; a name some effective reader knows is
// no typo, so then only a case fix (distance 0) is offered.
func unknownEvent(name string, readers []model.Target, reads, effective func(model.Target) bool, known func(model.Target) []string) (v model.Verdicts, best string, hasBest, report bool) {
	var eff, unknownEff []model.Target
	for _, t := range readers {
		if !effective(t) {
			continue
		}
		eff = append(eff, t)
		if !core.JHas(known(t), name) {
			unknownEff = append(unknownEff, t)
		}
	}
	if len(unknownEff) == 0 {
		return nil, "", false, false
	}
	reaction := model.Lose
	if len(unknownEff) == len(eff) {
		reaction = model.Drop
	}
	v = model.Verdicts{}
	for _, t := range readers {
		if !reads(t) {
			continue
		}
		if core.JHas(known(t), name) {
			v[t] = model.OK
		} else {
			v[t] = reaction
		}
	}
	var candidates, common []string
	for _, t := range unknownEff {
		for _, e := range known(t) {
			if !core.JHas(candidates, e) {
				candidates = append(candidates, e)
			}
		}
	}
	for _, e := range candidates {
		all := true
		for _, t := range eff {
			all = all && core.JHas(known(t), e)
		}
		if all {
			common = append(common, e)
		}
	}
	maxDist := 3
	if reaction == model.Lose {
		maxDist = 0
	}
	best, hasBest = core.JClosest(name, common, maxDist)
	if !hasBest && reaction == model.Drop {
		best, hasBest = core.JClosest(name, candidates, maxDist)
	}
	return v, best, hasBest, true
}

func (w *HooksWalk) entry(event string, item *core.JSONValue) {
	c := w.C
	if !item.Is(core.JSONObject) {
		c.Report(HooksShape, item.Span, c.All(model.Reject), fmt.Sprintf("%%s cannot load this hooks file: an entry of '%s' is %s, not an object.", core.JClip(event), item.Kind))
		return
	}
	gm := item.Member("hooks")
	if gm == nil || w.copilot {
		if !w.copilot && c.Reads(model.TargetClaudeCode) {
			raw := string(c.Text[item.Span.Start:item.Span.End])
			if c.Report(hooksFlatForClaude, item.Span, model.Verdicts{model.TargetClaudeCode: model.Reject},
				"%s cannot load this hook: it expects matcher groups, {\"hooks\": [ handler ]}, under each event.",
				core.JReplace("Wrap in a matcher group", item.Span, `{"hooks": [`+raw+`]}`)) {
				// Claude Code rejects this handler: the rest is for the others.
				saved := c.Readers
				c.DropReaders(model.TargetClaudeCode)
				w.handler(event, item)
				c.Readers = saved
				return
			}
		}
		w.handler(event, item)
		return
	}
	// A matcher group.
	for i, m := range item.Members {
		switch m.Key {
		case "hooks":
		case "matcher":
			if core.JHas(matcherNoEffect, event) {
				c.Report(hooksMatcherNoEffect, m.KeySpan, model.Verdicts{model.TargetClaudeCode: model.Ignore},
					fmt.Sprintf("%%s will ignore this matcher: '%s' hooks always run.", core.JClip(event)),
					model.Fix{Title: "Delete the matcher", Edits: []model.Edit{{Span: memberDeleteSpan(item, i)}}})
				continue
			}
			// A group of prompt/agent hooks only: VS Code runs none of them
			// (hooks/type says so), so it ignores no matcher there.
			if m.Value.Is(core.JSONString) && !matchesEverything(m.Value.Str) && !noCommandHooks(gm) {
				c.Report(hooksMatcherIgnored, m.Value.Span, matcherIgnored(event, w.knownEvents),
					fmt.Sprintf("%%s will run this hook on every '%s' event: it ignores the matcher '%s'.", core.JClip(event), core.JClip(m.Value.Str)))
			}
		default:
			c.Report(hooksGroupKey, m.KeySpan, model.V(model.Ignore),
				fmt.Sprintf("%%s will ignore '%s' in a matcher group, which holds only 'matcher' and 'hooks'.", core.JClip(m.Key)))
		}
	}
	if !gm.Value.Is(core.JSONArray) {
		c.Report(HooksShape, gm.Value.Span, c.All(model.Reject), fmt.Sprintf("%%s cannot load this hooks file: a group's 'hooks' is %s, not an array.", gm.Value.Kind))
		return
	}
	for _, h := range gm.Value.Items {
		w.handler(event, h)
	}
}

// matchesEverything reports a matcher that selects every tool anyway, so a
// consumer that ignores it loses nothing.
func matchesEverything(s string) bool {
	switch strings.TrimSpace(s) {
	case "", "*", ".*", ".+", "^.*$", "^.+$", "(.*)":
		return true
	}
	return false
}

// matcherIgnored is the verdict of hooks/matcher-ignored under event: only
// VS Code targets that run the event lose the matcher; where a target
// never runs the event, hooks/event has already said so (issue #13 repro 6).
// noCommandHooks reports a group's 'hooks' array whose every handler has
// a string 'type' other than "command".
func noCommandHooks(gm *core.JSONMember) bool {
	if gm == nil || !gm.Value.Is(core.JSONArray) || len(gm.Value.Items) == 0 {
		return false
	}
	for _, h := range gm.Value.Items {
		tv := h.Get("type")
		if !tv.Is(core.JSONString) || tv.Str == "command" {
			return false
		}
	}
	return true
}

func matcherIgnored(event string, known func(model.Target) []string) model.Verdicts {
	v := model.Verdicts{}
	for _, t := range []model.Target{model.TargetVSCode, model.TargetVSCodeAgentHost} {
		if core.JHas(known(t), event) {
			v[t] = model.Lose
		}
	}
	return v
}

// memberDeleteSpan is what to delete to remove member i, comma included.
func memberDeleteSpan(obj *core.JSONValue, i int) model.Span {
	m := obj.Members[i]
	if m.Comma >= 0 {
		return model.Span{Start: m.Comma, End: m.Value.Span.End}
	}
	if i+1 < len(obj.Members) {
		return model.Span{Start: m.KeySpan.Start, End: obj.Members[i+1].KeySpan.Start}
	}
	return model.Span{Start: m.KeySpan.Start, End: m.Value.Span.End}
}

// copyFieldFix adds a member named to with the same value right after m.
func copyFieldFix(text []byte, m *core.JSONMember, to string) model.Fix {
	at := m.Value.Span.End
	raw := string(text[m.Value.Span.Start:m.Value.Span.End])
	return model.Fix{Title: fmt.Sprintf("Add '%s' with the same command", to), Preferred: true,
		Edits: []model.Edit{{Span: model.Span{Start: at, End: at}, NewText: fmt.Sprintf(", %s: %s", core.JQuote(to), raw)}}}
}

func RenameKeyFix(m *core.JSONMember, to string) model.Fix {
	return core.JReplace(fmt.Sprintf("Rename '%s' to '%s'", core.JClip(m.Key), to), m.KeySpan, core.JQuote(to))
}

// commandKeys is which handler fields each target runs for type command.
func commandKeys(t model.Target, copilotForm bool) []string {
	if copilotForm && t == model.TargetVSCode {
		return []string{"bash", "powershell"} // VS Code reads the Copilot form's fields
	}
	switch t {
	case model.TargetClaudeCode:
		return []string{"command", "args"}
	case model.TargetVSCode:
		return []string{"command", "windows", "linux", "osx"}
	case model.TargetVSCodeAgentHost:
		return []string{"command", "windows", "linux", "osx", "bash", "powershell"}
	case model.TargetCopilotCLI:
		return []string{"bash", "powershell"}
	}
	return nil
}

func (w *HooksWalk) handler(event string, h *core.JSONValue) {
	c := w.C
	if !h.Is(core.JSONObject) {
		c.Report(HooksShape, h.Span, c.All(model.Reject), fmt.Sprintf("%%s cannot load this hooks file: a hook of '%s' is %s, not an object.", core.JClip(event), h.Kind))
		return
	}
	open := model.Span{Start: h.Span.Start, End: h.Span.Start + 1}
	typ := "command"
	if tm := h.Member("type"); tm == nil {
		c.Report(hooksType, open, model.V(model.Reject).With(model.Verdicts{model.TargetVSCodeAgentHost: model.OK, model.TargetClaudeCode: model.Reject, model.TargetCopilotCLI: model.Reject}),
			"%s will reject this hook: it has no 'type' (use \"type\": \"command\").",
			model.Fix{Title: "Add \"type\": \"command\"", Edits: []model.Edit{core.JInsertMember(h, `"type": "command"`)}, Preferred: true})
	} else if !tm.Value.Is(core.JSONString) {
		c.Report(hooksType, tm.Value.Span, c.All(model.Reject), fmt.Sprintf("%%s will reject this hook: 'type' is %s, not a string such as 'command'.", tm.Value.Kind),
			core.JReplace("Use \"command\"", tm.Value.Span, `"command"`))
		return
	} else {
		typ = tm.Value.Str
		v := model.Verdicts{}
		bad := false
		for _, t := range core.JSONReaders {
			if !c.Reads(t) {
				continue
			}
			ok := typ == "command"
			if t == model.TargetClaudeCode {
				ok = core.JHas(CCHookTypes, typ)
			}
			switch {
			case ok:
				v[t] = model.OK
			case core.JHas(CCHookTypes, typ) && t != model.TargetCopilotCLI:
				// A Claude Code type (prompt, agent, http, mcp_tool): VS Code
				// loads the file and the plugin and runs the other hooks;
				// this one is lost, not refused (#25).
				v[t], bad = model.Lose.Unverified(), true
			default:
				v[t], bad = model.Reject, true
			}
		}
		if bad {
			var fixes []model.Fix
			if !core.JHas(CCHookTypes, typ) {
				fixes = append(fixes, core.JReplace("Use \"command\"", tm.Value.Span, `"command"`))
			}
			c.Report(hooksType, tm.Value.Span, v, fmt.Sprintf("%%s cannot run this hook: type '%s' is not supported there.", core.JClip(typ)), fixes...)
			if !core.JHas(CCHookTypes, typ) {
				return // unknown everywhere: one cause, one diagnostic
			}
		}
	}
	w.commandPresence(h, typ, open)
	w.handlerFields(h)
	w.commands(h, typ)
	w.security(h, typ)
}

// security runs the security rules on a handler: its command strings and
// env values, an http hook's url and headers.
func (w *HooksWalk) security(h *core.JSONValue, typ string) {
	c := w.C
	switch typ {
	case "command":
		for _, key := range commandFields {
			commandRisks(c, h.Get(key))
		}
		if args := h.Get("args"); args.Is(core.JSONArray) {
			for _, a := range args.Items {
				commandRisks(c, a)
			}
		}
		for _, e := range h.Get("env").MembersOf() {
			secretValue(c, e.Value)
		}
	case "http":
		plainHTTPURL(c, h.Get("url"), "hook's endpoint")
		for _, e := range h.Get("headers").MembersOf() {
			secretValue(c, e.Value)
		}
	}
}

func (w *HooksWalk) commandPresence(h *core.JSONValue, typ string, open model.Span) {
	c := w.C
	switch typ {
	case "command":
		v := model.Verdicts{}
		var need []string
		var rename *model.Fix
		for _, t := range core.JSONReaders {
			if !c.Reads(t) {
				continue
			}
			keys := commandKeys(t, w.copilot)
			has := false
			for _, k := range keys {
				if h.Member(k) != nil {
					has = true
				}
			}
			if has {
				v[t] = model.OK
				continue
			}
			v[t] = model.Reject
			if c.R.Has(t) {
				named := []string{"command"}
				if t == model.TargetCopilotCLI || w.copilot && t == model.TargetVSCode {
					named = []string{"bash", "powershell"}
				}
				for _, k := range named {
					if !core.JHas(need, k) {
						need = append(need, k)
					}
				}
				// The other family's field is present: offer to copy it, which
				// keeps the consumers that read it working.
				if rename == nil {
					switch {
					case core.JHas(keys, "bash") && h.Member("command") != nil:
						f := copyFieldFix(c.Text, h.Member("command"), "bash")
						rename = &f
					case core.JHas(keys, "command") && h.Member("bash") != nil:
						f := copyFieldFix(c.Text, h.Member("bash"), "command")
						rename = &f
					}
				}
			}
		}
		if len(need) == 0 {
			return
		}
		var fixes []model.Fix
		if rename != nil {
			fixes = append(fixes, *rename)
		}
		c.Report(HooksCommand, open, v, fmt.Sprintf("%%s cannot run this hook: it has no %s field.", core.JListOr(need)), fixes...)
	case "http":
		if h.Member("url") == nil {
			c.Report(HooksCommand, open, model.Verdicts{model.TargetClaudeCode: model.Reject}, "%s cannot run this hook: an 'http' hook needs a 'url'.")
		}
	case "prompt", "agent":
		if h.Member("prompt") == nil {
			c.Report(HooksCommand, open, model.Verdicts{model.TargetClaudeCode: model.Reject}, fmt.Sprintf("%%s cannot run this hook: a '%s' hook needs a 'prompt'.", typ))
		}
	case "mcp_tool":
		for _, k := range []string{"server", "tool"} {
			if !h.Get(k).Is(core.JSONString) {
				c.Report(HooksCommand, open, model.Verdicts{model.TargetClaudeCode: model.Reject}, fmt.Sprintf("%%s cannot load this hook: an 'mcp_tool' hook needs '%s', a string.", k))
			}
		}
	}
}

func (w *HooksWalk) handlerFields(h *core.JSONValue) {
	c := w.C
	bad := model.V(model.Lose).With(model.Verdicts{model.TargetClaudeCode: model.Drop, model.TargetCopilotCLI: model.Unknown})
	for _, m := range h.Members {
		val := m.Value
		switch m.Key {
		case "timeout", "timeoutSec":
			if !(val.Is(core.JSONNumber) && !strings.HasPrefix(val.Str, "-") && strings.Trim(val.Str, "0.eE+") != "") {
				var fixes []model.Fix
				if val.Is(core.JSONString) && jPositive(val.Str) {
					fixes = append(fixes, core.JReplace(fmt.Sprintf("Use the number %s", val.Str), val.Span, val.Str))
				}
				c.Report(hooksFieldType, val.Span, bad, fmt.Sprintf("%%s will drop or ignore this hook's '%s': it must be a positive number of seconds.", m.Key), fixes...)
			}
		case "cwd":
			if !val.Is(core.JSONString) {
				c.Report(hooksFieldType, val.Span, bad, fmt.Sprintf("%%s will drop or ignore this hook's 'cwd': it is %s, not a string.", val.Kind))
			}
		case "async":
			if !val.Is(core.JSONBool) {
				c.Report(hooksFieldType, val.Span, bad, fmt.Sprintf("%%s will drop or ignore this hook's 'async': it is %s, not true or false.", val.Kind))
			}
		case "env":
			if !jStringMap(val) {
				c.Report(hooksFieldType, val.Span, bad, "%s will drop or ignore this hook's 'env': it must map names to strings.")
			}
		}
		switch {
		case m.Key == "timeoutSec" && !w.copilot:
			c.Report(hooksFieldForm, m.KeySpan, c.All(model.Lose), "%s will ignore 'timeoutSec' here, a Copilot-form key: this form uses 'timeout'.", RenameKeyFix(m, "timeout"))
		case m.Key == "timeout" && w.copilot:
			c.Report(hooksFieldForm, m.KeySpan, c.All(model.Lose), "%s will ignore 'timeout' in a Copilot-form hooks file: it uses 'timeoutSec'.", RenameKeyFix(m, "timeoutSec"))
		case !core.JHas(knownHandlerKeys, m.Key):
			c.Report(hooksUnknownKey, m.KeySpan, model.V(model.Ignore), fmt.Sprintf("%%s will ignore the hook field '%s', which no hooks format defines.", core.JClip(m.Key)))
		}
	}
}

func jPositive(s string) bool {
	if s == "" || strings.Trim(s, "0123456789.") != "" || strings.Count(s, ".") > 1 || strings.Trim(s, "0.") == "" {
		return false
	}
	return s[0] != '.' && s[len(s)-1] != '.'
}

func jStringMap(v *core.JSONValue) bool {
	if !v.Is(core.JSONObject) {
		return false
	}
	for _, m := range v.Members {
		if !m.Value.Is(core.JSONString) {
			return false
		}
	}
	return true
}

// commands applies the rules about what is inside command strings.
func (w *HooksWalk) commands(h *core.JSONValue, typ string) {
	c := w.C
	if typ != "command" {
		return
	}
	shellForm := h.Member("args") == nil
	for _, key := range commandFields {
		v := h.Get(key)
		if !v.Is(core.JSONString) {
			continue
		}
		if key == "command" && shellForm {
			for _, sp := range userConfigSpans(c.Text, v) {
				c.Report(hooksUserConfig, sp, model.Verdicts{model.TargetClaudeCode: model.Reject},
					fmt.Sprintf("%%s will reject this hook: '%s' is not allowed in a shell command.", core.JClip(string(c.Text[sp.Start:sp.End]))))
			}
		}
		if w.CcExpands {
			if key == "command" && shellForm {
				w.unquotedRoot(v)
			}
		} else if !w.unknownHome {
			for _, sp := range core.TokenSpans(c.Text, v, ClaudeRootToken) {
				w.tokenNoExpand(sp, "hook commands")
			}
		}
		w.script(h, v)
	}
	if args := h.Get("args"); args.Is(core.JSONArray) && !w.CcExpands && !w.unknownHome {
		for _, a := range args.Items {
			for _, sp := range core.TokenSpans(c.Text, a, ClaudeRootToken) {
				w.tokenNoExpand(sp, "hook commands")
			}
		}
	}
}

// tokenNoExpand reports token/plugin-root for a ${CLAUDE_PLUGIN_ROOT} in a
// hooks file that is not part of a Claude-format plugin.
func (w *HooksWalk) tokenNoExpand(sp model.Span, where string) {
	c := w.C
	var fixes []model.Fix
	switch {
	case w.TokenFix != "":
		fixes = append(fixes, core.JReplace("Use "+w.TokenFix, sp, w.TokenFix))
	case strings.HasPrefix(c.F.Path, ".claude/"):
		fixes = append(fixes, core.JReplace("Use $CLAUDE_PROJECT_DIR", sp, "$CLAUDE_PROJECT_DIR"))
	}
	c.Report(TokenPluginRoot, sp, c.All(model.Lose),
		fmt.Sprintf("%%s will leave '${CLAUDE_PLUGIN_ROOT}' empty: in %s it expands only in Claude plugins.", where), fixes...)
}

func userConfigSpans(text []byte, v *core.JSONValue) []model.Span {
	var out []model.Span
	s := v.Str
	for i := 0; ; {
		j := strings.Index(s[i:], "${user_config.")
		if j < 0 {
			return out
		}
		start := i + j
		end := strings.IndexByte(s[start:], '}')
		if end < 0 {
			end = len(s)
		} else {
			end = start + end + 1
		}
		out = append(out, v.StrSpan(text, start, end))
		i = end
	}
}

// unquotedRoot reports ${CLAUDE_PLUGIN_ROOT} outside shell quotes; the fix
// quotes the whole word it starts.
func (w *HooksWalk) unquotedRoot(v *core.JSONValue) {
	c := w.C
	s := v.Str
	inSingle, inDouble := false, false
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch == '\\' && !inSingle:
			i++
		case ch == '\'' && !inDouble:
			inSingle = !inSingle
		case ch == '"' && !inSingle:
			inDouble = !inDouble
		case !inSingle && !inDouble && strings.HasPrefix(s[i:], ClaudeRootToken):
			end := i
			for end < len(s) && !strings.ContainsRune(" \t\n;|&<>()'\"`", rune(s[end])) {
				end++
			}
			sp := v.StrSpan(c.Text, i, i+len(ClaudeRootToken))
			word := v.StrSpan(c.Text, i, end)
			c.Report(hooksUnquotedRoot, sp, model.Verdicts{model.TargetClaudeCode: model.Warn},
				"%s warns: an unquoted '${CLAUDE_PLUGIN_ROOT}' breaks when the plugin path has spaces.",
				model.Fix{Title: "Wrap the path in quotes", Preferred: true, Edits: []model.Edit{
					{Span: model.Span{Start: word.Start, End: word.Start}, NewText: `\"`},
					{Span: model.Span{Start: word.End, End: word.End}, NewText: `\"`},
				}})
			i = end - 1
		}
	}
}

// script checks that the file a command starts with exists.
func (w *HooksWalk) script(h *core.JSONValue, v *core.JSONValue) {
	c := w.C
	if c.F.FS == nil {
		return
	}
	s := v.Str
	lead := len(s) - len(strings.TrimLeft(s, " \t"))
	rest := s[lead:]
	q := byte(0)
	if rest != "" && (rest[0] == '"' || rest[0] == '\'') {
		q = rest[0]
		rest = rest[1:]
		lead++
	}
	end := 0
	for end < len(rest) {
		ch := rest[end]
		if q != 0 && ch == q || q == 0 && strings.ContainsRune(" \t\n;|&<>()'\"`", rune(ch)) {
			break
		}
		end++
	}
	word := rest[:end]
	var rel string
	switch {
	case strings.HasPrefix(word, ClaudeRootToken+"/") && c.Format == model.FormatClaude:
		rel = core.JJoin(c.PluginRoot, strings.TrimPrefix(word, ClaudeRootToken+"/"))
	case strings.HasPrefix(word, PluginRootToken+"/") && (c.Format == model.FormatCopilot || c.Format == model.FormatOpenPlugin):
		rel = core.JJoin(c.PluginRoot, strings.TrimPrefix(word, PluginRootToken+"/"))
	case strings.HasPrefix(word, "./") && w.ScriptRel:
		base := ""
		if cwd := h.Get("cwd"); cwd.Is(core.JSONString) {
			if strings.HasPrefix(cwd.Str, "/") || strings.Contains(cwd.Str, "$") {
				return
			}
			base = cwd.Str
		}
		rel = path.Join(base, word)
	default:
		return
	}
	if strings.ContainsAny(rel, "$*?[{") {
		return
	}
	rel = path.Clean(rel)
	if rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || strings.HasPrefix(rel, "/") {
		return
	}
	if _, err := c.F.FS.Stat(rel); err == nil {
		return
	}
	// The message names the script as written, not its workspace path, so
	// it reads the same whichever folder is the workspace (issue #13).
	c.Fixed(hooksScript, v.StrSpan(c.Text, lead, lead+end), model.SeverityWarning,
		fmt.Sprintf("This hook fails on every run: '%s' does not exist.", core.JClipN(word, 80)))
}

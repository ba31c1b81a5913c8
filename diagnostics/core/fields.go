package core

// The field catalogue (customization-formats.md §5.1 "Known keys" and the
// tables of §5.2–§5.5): which frontmatter keys each Markdown kind knows, for
// which consumer, with the enumerated values hover and completion offer.
// The shared field rules (field/*) read the same tables.

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core/syntax"

	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/ahpls-dev/ahpls/model"
)

// FieldRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var FieldRules = []*Rule{fieldType, fieldEmpty, fieldBool, fieldUnknown, FieldRenamed}

var fieldType = &Rule{
	ID:       "field/type",
	Fix:      FixSafe,
	FixWhy:   "quotes the value so it stays the text that was written",
	Summary:  "A frontmatter field has the wrong YAML type (e.g. a list where a string is required).",
	Kinds:    vsKinds,
	Severity: "VS WARN (validator Error marker; the file loads without the value) · VH LOSE? (value dropped).",
	Evidence: []Evidence{
		{"VS", "WARN", "VS Code promptValidator.ts validateName/validateDescription/validateArgumentHint: \"The 'name' attribute must be a string.\" (Error)"},
	},
}

var fieldEmpty = &Rule{
	ID:       "field/empty",
	Summary:  "'name', 'description', 'model', 'agent' or 'argument-hint' is empty, which VS Code rejects.",
	Kinds:    vsKinds,
	Severity: "VS WARN (validator Error marker; the file loads without the value) · VH LOSE? (value dropped); `argument-hint`: V WARN.",
	Evidence: []Evidence{
		{"VS", "WARN", "VS Code promptValidator.ts: 'promptValidator.nameShouldNotBeEmpty', 'descriptionShouldNotBeEmpty' (Error)"},
	},
}

var fieldBool = &Rule{
	ID:       "field/bool",
	Fix:      FixUnsafe,
	FixWhy:   "guesses the boolean a text meant",
	Summary:  "A boolean field is not a bare true/false.",
	Kinds:    vsKinds + ", ccagent, cmd",
	Severity: "VS WARN (validator Error marker; the file loads without the value) · VH LOSE? (value dropped) · CC ok (`yes/no/on/off/1/0`).",
	Evidence: []Evidence{
		{"VS", "WARN", "promptValidator.ts validateUserInvocable/validateDisableModelInvocation: \"must be 'true' or 'false'\" (Error marker)"},
	},
}

var fieldUnknown = &Rule{
	ID:       "field/unknown",
	Fix:      FixUnsafe,
	FixWhy:   "moves a key, which changes what consumers read",
	Summary:  "A frontmatter key the kind does not know for an effective consumer.",
	Kinds:    vsKinds + ", ccagent, cmd, rule, style",
	Severity: "V IGN · CC IGN · AS ok · UP REJ (skills); a near miss of a known key: LOSE.",
	Evidence: []Evidence{
		{"VS", "IGN", "VS Code promptValidator.ts checkForInvalidArguments: \"Attribute '{0}' is not supported …\" at MarkerSeverity.Hint with MarkerTag.Unnecessary"},
		{"UP", "REJ", "skills-ref/quick_validate.py: \"Unexpected fields in frontmatter\""},
		{"all", "LOSE", "a near miss (`Name` for `name`): YAML keys are case-sensitive, so the intended field is missing"},
		{"CC", "IGN", "Claude Code 2.1.332 output-style loaders read only name, description, keep-coding-instructions and force-for-plugin; the strict output-style schema (Txr().strict()) runs only as a shadow check that records an event, and `claude plugin validate` says nothing of other keys"},
	},
}

var FieldRenamed = &Rule{
	ID:       "field/renamed",
	Fix:      FixUnsafe,
	FixWhy:   "a renamed key is read by consumers that ignored it before",
	Summary:  "A renamed key or file type (user-invokable, mode, *.chatmode.md).",
	Kinds:    "skill, agent, prompt",
	Severity: "V WARN (Deprecated tag).",
	Evidence: []Evidence{
		{"VS", "WARN", "promptValidator.ts validateAgent: 'promptValidator.modeDeprecated' (Warning, MarkerTag.Deprecated)"},
	},
}

// FieldInfo describes one frontmatter key of a Markdown kind for hover and
// completion.
type FieldInfo struct {
	Key     string
	Doc     string
	Values  []string // enumerated values, if any
	Targets []model.Target
}

var (
	tV  = []model.Target{model.TargetVSCodeAgentHost, model.TargetVSCode}
	tCC = []model.Target{model.TargetClaudeCode}
	tCL = []model.Target{model.TargetCopilotCLI}
	tAS = []model.Target{model.TargetAgentSkills}
)

func tj(ts ...[]model.Target) []model.Target {
	var out []model.Target
	for _, t := range ts {
		out = append(out, t...)
	}
	return out
}

var bools = []string{"true", "false"}

// catalogue is every known key per kind, in the order completion offers them.
var catalogue = sync.OnceValue(func() map[model.Kind][]FieldInfo {
	return map[model.Kind][]FieldInfo{
		model.KindSkill: {
			{"name", "Skill name: lower-case letters, digits and '-', at most 64 characters, equal to the folder name.", nil, tj(tV, tCC, tCL, tAS)},
			{"description", "What the skill does and when to use it (at most 1024 characters); agents pick skills by it.", nil, tj(tV, tCC, tCL, tAS)},
			{"license", "License name or a bundled license file.", nil, tj(tV, tCC, tCL, tAS)},
			{"compatibility", "Environment requirements (at most 500 characters).", nil, tj(tV, tCC, tAS)},
			{"metadata", "A map of string keys to string values for extra properties.", nil, tj(tV, tCC, tAS)},
			{"allowed-tools", "Tools the skill may use without asking, as one space- or comma-separated string.", nil, tj(tCC, tAS)},
			{"argument-hint", "Hint shown for the skill's arguments when invoked as a slash command.", nil, tj(tV, tCC)},
			{"user-invocable", "Whether the skill appears as a slash command.", bools, tj(tV, tCC)},
			{"disable-model-invocation", "Keep the model from loading the skill on its own.", bools, tj(tV, tCC)},
			{"context", "Run the skill in a forked context.", []string{"fork"}, tj(tV, tCC)},
			{"when_to_use", "Extra trigger text appended to the description in Claude Code's skill listing.", nil, tCC},
			{"arguments", "Named arguments of the skill.", nil, tCC},
			{"disallowed-tools", "Tools the skill may not use.", nil, tCC},
			{"model", "Model to use while the skill runs.", nil, tCC},
			{"effort", "Reasoning effort while the skill runs.", []string{"low", "medium", "high", "xhigh", "max"}, tCC},
			{"agent", "Subagent type to run the skill in.", nil, tCC},
			{"background", "Run the skill in the background.", bools, tCC},
			{"hooks", "Hooks active while the skill runs.", nil, tCC},
			{"paths", "Glob patterns limiting when the skill is offered.", nil, tCC},
			{"shell", "Shell for the skill's command blocks.", []string{"bash", "powershell"}, tCC},
		},
		model.KindAgent: {
			{"name", "Agent name shown in the agent picker (defaults to the file name).", nil, tj(tV, tCL)},
			{"description", "What the agent does; shown as placeholder text and required by GitHub.com.", nil, tj(tV, tCL)},
			{"argument-hint", "Hint shown in the chat input.", nil, tV},
			{"model", "Model name, or a list tried in order.", nil, tj(tV, tCL)},
			{"tools", "Tools and tool sets available to the agent (a list).", nil, tj(tV, tCL)},
			{"handoffs", "Buttons offering to continue in another agent: items with label, agent, prompt, send.", nil, tV},
			{"agents", "Subagents this agent may call (a list of names).", nil, tV},
			{"target", "Where the agent runs.", []string{"vscode", "github-copilot"}, tj(tV, tCL)},
			{"hooks", "Hooks active while the agent runs.", nil, tV},
			{"user-invocable", "Whether the agent appears in the agent picker.", bools, tj(tV, tCL)},
			{"disable-model-invocation", "Keep other agents from calling this one as a subagent.", bools, tj(tV, tCL)},
			{"github", "GitHub.com settings such as permissions.", nil, tj(tV, tCL)},
			{"advancedOptions", "Advanced VS Code options.", nil, tV},
			{"mcp-servers", "MCP servers for the GitHub.com cloud agent (needs target: github-copilot).", nil, tCL},
			{"metadata", "Extra properties for GitHub.com.", nil, tCL},
		},
		model.KindClaudeAgent: {
			{"name", "Subagent name: lower-case letters and hyphens.", nil, tCC},
			{"description", "When Claude should delegate to this subagent; required.", nil, tCC},
			{"tools", "Tools the subagent may use (comma-separated string or list); all when omitted.", nil, tj(tCC, tV)},
			{"disallowedTools", "Tools the subagent may not use.", nil, tj(tCC, tV)},
			{"model", "Model alias or full model id.", []string{"sonnet", "opus", "haiku", "fable", "inherit"}, tj(tCC, tV)},
			{"permissionMode", "Permission mode while the subagent runs.", []string{"default", "acceptEdits", "auto", "dontAsk", "bypassPermissions", "plan", "manual"}, tCC},
			{"maxTurns", "Maximum agentic turns.", nil, tCC},
			{"skills", "Skills preloaded into the subagent.", nil, tCC},
			{"mcpServers", "MCP servers for the subagent (not applied in plugin agents).", nil, tCC},
			{"hooks", "Hooks active while the subagent runs (not applied in plugin agents).", nil, tCC},
			{"memory", "Persistent memory scope.", []string{"user", "project", "local"}, tCC},
			{"background", "Run the subagent in the background.", bools, tCC},
			{"effort", "Reasoning effort.", []string{"low", "medium", "high", "xhigh", "max"}, tCC},
			{"isolation", "Run in an isolated git worktree.", []string{"worktree"}, tCC},
			{"color", "Display colour.", []string{"red", "blue", "green", "yellow", "purple", "orange", "pink", "cyan"}, tCC},
			{"initialPrompt", "Prompt sent when the subagent starts as the main agent.", nil, tCC},
		},
		model.KindPrompt: {
			{"name", "Slash-command name (defaults to the file name).", nil, tV},
			{"description", "Short description shown in the prompt picker.", nil, tV},
			{"argument-hint", "Hint shown in the chat input.", nil, tV},
			{"agent", "Agent that runs the prompt.", []string{"agent", "ask", "edit", "plan"}, tV},
			{"model", "Model to use.", nil, tV},
			{"tools", "Tools available while the prompt runs (a list).", nil, tV},
		},
		model.KindInstructions: {
			{"name", "Display name.", nil, tV},
			{"description", "Short description.", nil, tV},
			{"applyTo", "Glob patterns (one comma-separated string) of files the instructions attach to.", nil, tj(tV, tCL)},
			{"excludeAgent", "Agent that does not read these instructions.", []string{"code-review", "coding-agent", "cloud-agent"}, tCL},
		},
		model.KindOutputStyle: {
			{"name", "Style name in the /config output style picker and in settings; defaults to the file name.", nil, tCC},
			{"description", "Shown in the output style picker; defaults to the body's first line.", nil, tCC},
			{"keep-coding-instructions", "Keep Claude Code's default coding instructions in the system prompt beside this style.", bools, tCC},
			{"force-for-plugin", "Plugin styles only: apply this style whenever the plugin is enabled.", bools, tCC},
		},
		model.KindRule: {
			{"paths", "Glob patterns (a list) of files the rule applies to; always loaded without it.", nil, tj(tCC, tV)},
			{"description", "Short description (VS Code only).", nil, tV},
		},
		model.KindCommand: {
			{"description", "Shown in the slash-command menu; defaults to the first line.", nil, tj(tCC, tCL)},
			{"argument-hint", "Hint for the command's arguments, e.g. '[file] [--fix]'.", nil, tCC},
			{"allowed-tools", "Tools the command may use without asking.", nil, tCC},
			{"model", "Model to use.", nil, tCC},
			{"disable-model-invocation", "Keep the model from running the command on its own.", bools, tCC},
			{"user-invocable", "Whether the command appears in the slash menu.", bools, tCC},
			{"license", "License name.", nil, tCC},
			{"compatibility", "Environment requirements.", nil, tCC},
			{"metadata", "Extra properties.", nil, tCC},
			{"context", "Run the command in a forked context.", []string{"fork"}, tCC},
			{"when_to_use", "Extra trigger text.", nil, tCC},
			{"arguments", "Named arguments.", nil, tCC},
			{"disallowed-tools", "Tools the command may not use.", nil, tCC},
			{"effort", "Reasoning effort.", []string{"low", "medium", "high", "xhigh", "max"}, tCC},
			{"agent", "Subagent type to run the command in.", nil, tCC},
			{"background", "Run in the background.", bools, tCC},
			{"hooks", "Hooks active while the command runs.", nil, tCC},
			{"shell", "Shell for command blocks.", []string{"bash", "powershell"}, tCC},
		},
	}
})

// Fields returns the known frontmatter keys of a Markdown kind with their
// documentation, enumerated values and the consumers that read them; nil for
// kinds without frontmatter fields.
func Fields(kind model.Kind) []FieldInfo {
	src := catalogue()[kind]
	out := make([]FieldInfo, len(src))
	copy(out, src)
	return out
}

// knownFor reports whether a kind knows key for target t (§5.1 sets).
func knownFor(kind model.Kind, key string, t model.Target) bool {
	for _, f := range catalogue()[kind] {
		if f.Key == key {
			for _, x := range f.Targets {
				if x == t {
					return true
				}
			}
			return false
		}
	}
	return false
}

// specSkillKeys are the six keys of the Agent Skills spec (claude.ai upload
// accepts only these).
var specSkillKeys = map[string]bool{"name": true, "description": true, "license": true, "compatibility": true, "metadata": true, "allowed-tools": true}

// anyKnown are keys some kind knows: a near miss of a key of this kind that
// is another kind's key is no typo (`mode` is not `model`).
var anyKnown = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{"mode": true, "infer": true, "user-invokable": true, "applyTo": true, "paths": true, "name": true}
	for _, fs := range catalogue() {
		for _, f := range fs {
			m[f.Key] = true
		}
	}
	return m
})

// sharedFieldKinds are the VS Code kinds the field/* rules cover.
func SharedFieldKind(k model.Kind) bool {
	switch k {
	case model.KindPrompt, model.KindAgent, model.KindSkill, model.KindInstructions:
		return true
	}
	return false
}

// FieldType reports wrong types and empty values of the shared string keys.
func (m *MDFile) FieldType(f *MDField) {
	switch f.Key {
	case "name", "description", "argument-hint", "agent", "target", "model":
	case "tools":
		if m.Kind == model.KindSkill {
			return
		}
		m.toolsType(f)
		return
	default:
		return
	}
	if m.Kind == model.KindSkill && f.Key != "name" && f.Key != "description" && f.Key != "argument-hint" {
		return // model/agent in a skill are Claude Code's
	}
	n := f.V
	if syntax.IsNull(n) || (n.Kind == yaml.ScalarNode && n.Tag == "!!str" && strings.TrimSpace(n.Value) == "") {
		if m.Kind == model.KindSkill && f.Key == "description" {
			return // skill/desc-empty
		}
		v := VsMarked()
		if f.Key == "argument-hint" {
			v = model.V(model.Warn)
		}
		if f.Key == "target" {
			return // agent/target
		}
		span := f.ValSpan
		if span.Empty() {
			span = f.KeySpan
		}
		m.Report(fieldEmpty, span, v, "{T} ignore{s} the empty "+syntax.Quote(f.Key)+" in this "+m.Kind.Noun()+".")
		return
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
		return
	}
	if f.Key == "model" && n.Kind == yaml.SequenceNode && AllStrings(n) {
		return
	}
	what := NodeWhat(n)
	var fixes []model.Fix
	src := m.ValueText(f)
	if n.Kind == yaml.ScalarNode || (n.Kind == yaml.SequenceNode && n.Style&yaml.FlowStyle != 0 && !strings.Contains(src, "\n")) {
		fixes = append(fixes, ReplaceValue("Quote the value", f, "'"+strings.ReplaceAll(src, "'", "''")+"'", true))
	}
	want := "a string"
	if f.Key == "model" {
		want = "a string or a list of strings"
	}
	m.Report(fieldType, f.ValSpan, VsMarked(),
		"{T} ignore{s} "+syntax.Quote(f.Key)+" in this "+m.Kind.Noun()+": it must be "+want+", not "+what+".", fixes...)
}

func (m *MDFile) toolsType(f *MDField) {
	n := f.V
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag == "!!str":
		return
	case n.Kind == yaml.SequenceNode && AllStrings(n):
		return
	case syntax.IsNull(n):
		return
	}
	m.Report(fieldType, f.ValSpan, VsMarked(),
		"{T} ignore{s} 'tools' in this "+m.Kind.Noun()+": it must be a list of tool names, not "+NodeWhat(n)+".")
}

func AllStrings(n *yaml.Node) bool {
	for _, c := range n.Content {
		if c.Kind != yaml.ScalarNode || c.Tag != "!!str" {
			return false
		}
	}
	return true
}

func NodeWhat(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.AliasNode:
		return "an alias"
	}
	switch n.Tag {
	case "!!int", "!!float":
		return "a number"
	case "!!bool":
		return "a boolean"
	case "!!null":
		return "empty"
	case "!!str":
		return "a string"
	}
	return "a " + strings.TrimPrefix(n.Tag, "!!")
}

var boolKeys = map[string]bool{"user-invocable": true, "disable-model-invocation": true}

// FieldBool reports booleans VS Code does not read as booleans.
func (m *MDFile) FieldBool(f *MDField) {
	if !boolKeys[f.Key] {
		return
	}
	m.CheckBool(f.V, m.Doc.Span(f.V), f.Key)
}

func (m *MDFile) CheckBool(n *yaml.Node, span model.Span, key string) {
	if n.Kind == yaml.ScalarNode && n.Style == 0 && (n.Value == "true" || n.Value == "false") {
		return
	}
	var fixes []model.Fix
	if n.Kind == yaml.ScalarNode {
		switch strings.ToLower(n.Value) {
		case "true", "yes", "on", "1", "y":
			fixes = append(fixes, model.Fix{Title: "Write true", Preferred: true, Edits: []model.Edit{{Span: span, NewText: "true"}}})
		case "false", "no", "off", "0", "n":
			fixes = append(fixes, model.Fix{Title: "Write false", Preferred: true, Edits: []model.Edit{{Span: span, NewText: "false"}}})
		}
	}
	m.Report(fieldBool, span, VsMarked().With(model.Verdicts{model.TargetClaudeCode: model.OK}),
		"{T} ignore{s} "+syntax.Quote(key)+": it must be a bare true or false, not "+syntax.Quote(m.SrcOf(span))+".", fixes...)
}

func (m *MDFile) SrcOf(s model.Span) string { return string(m.Text[s.Start:s.End]) }

// FieldRenamed reports renamed keys; it returns true when it did.
func (m *MDFile) FieldRenamed(f *MDField) bool {
	rename := ""
	switch {
	case f.Key == "user-invokable" && (m.Kind == model.KindSkill || m.Kind == model.KindAgent || m.Kind == model.KindPrompt):
		rename = "user-invocable"
	case f.Key == "mode" && m.Kind == model.KindPrompt:
		rename = "agent"
	default:
		return false
	}
	return m.Report(FieldRenamed, f.KeySpan, model.V(model.Warn),
		"{T} warn{s}: "+syntax.Quote(f.Key)+" was renamed to "+syntax.Quote(rename)+".",
		model.Fix{Title: "Rename to '" + rename + "'", Preferred: true, Edits: []model.Edit{{Span: f.KeySpan, NewText: rename}}})
}

// FieldUnknown reports keys the kind does not know for an effective reader.
func (m *MDFile) FieldUnknown(f *MDField) {
	key := f.Key
	v := model.Verdicts{}
	switch m.Kind {
	case model.KindSkill:
		if !knownFor(m.Kind, key, model.TargetVSCode) {
			v = v.With(model.V(model.Ignore))
		}
		if !knownFor(m.Kind, key, model.TargetClaudeCode) {
			v[model.TargetClaudeCode] = model.Ignore
		}
		if !specSkillKeys[key] {
			v[model.TargetClaudeUpload] = model.Reject
		}
	case model.KindAgent, model.KindPrompt, model.KindInstructions:
		if !knownFor(m.Kind, key, model.TargetVSCode) && !knownFor(m.Kind, key, model.TargetCopilotCLI) {
			v = v.With(model.V(model.Ignore))
		}
	case model.KindClaudeAgent, model.KindCommand, model.KindOutputStyle:
		if !knownFor(m.Kind, key, model.TargetClaudeCode) {
			v[model.TargetClaudeCode] = model.Ignore
		}
	case model.KindRule:
		if !knownFor(m.Kind, key, model.TargetVSCode) {
			v = v.With(model.V(model.Ignore))
		}
		if !knownFor(m.Kind, key, model.TargetClaudeCode) {
			v[model.TargetClaudeCode] = model.Ignore
		}
	default:
		return
	}
	if len(v) == 0 {
		return
	}
	// A near miss of this kind's key that no kind knows is a typo: its
	// value is lost, not merely ignored.
	if best := closestKey(m.Kind, key); best != "" && utf8.RuneCountInString(key) >= 4 && !anyKnown()[key] {
		for t, r := range v {
			if r == model.Ignore {
				v[t] = model.Lose
			}
		}
		m.Report(fieldUnknown, f.KeySpan, v,
			"{T} ignore{s} "+syntax.Quote(key)+" and lose{s} its value: it looks like a typo for "+syntax.Quote(best)+".",
			model.Fix{Title: "Rename to '" + best + "'", Preferred: true, Edits: []model.Edit{{Span: f.KeySpan, NewText: best}}})
		return
	}
	var fixes []model.Fix
	// Moving a key some consumer reads (Claude Code's `allowed-tools`,
	// `model`) under `metadata:` would hide it from that consumer.
	if m.Kind == model.KindSkill && readersOf(m.Kind, key) == "" {
		if fx, ok := m.moveUnderMetadata(f); ok {
			fixes = append(fixes, fx)
		}
	}
	noun := m.Kind.Noun()
	article := "a "
	if strings.ContainsRune("aeiou", rune(noun[0])) {
		article = "an "
	}
	msg := "{T} ignore{s} " + syntax.Quote(key) + ": it is not " + article + noun + " key."
	if readers := readersOf(m.Kind, key); readers != "" {
		msg = "{T} ignore{s} " + syntax.Quote(key) + ": only " + readers + " read" + map[bool]string{true: "s", false: ""}[!strings.Contains(readers, " and ")] + " this " + m.Kind.Noun() + " key."
	}
	m.Report(fieldUnknown, f.KeySpan, v, msg, fixes...)
}

// readersOf names the consumers that know key for a kind ("Claude Code").
func readersOf(kind model.Kind, key string) string {
	for _, f := range catalogue()[kind] {
		if f.Key != key {
			continue
		}
		var ts []model.Target
		for _, t := range f.Targets {
			if t != model.TargetVSCode { // VS Code and its agent host read alike
				ts = append(ts, t)
			}
		}
		return targetNames(ts)
	}
	return ""
}

func kindKeys(k model.Kind) []string { return kindKeyLists()[k] }

// kindKeyLists is every kind's keys in catalogue order, built once.
var kindKeyLists = sync.OnceValue(func() map[model.Kind][]string {
	m := map[model.Kind][]string{}
	for k, fields := range catalogue() {
		for _, f := range fields {
			m[k] = append(m[k], f.Key)
		}
	}
	return m
})

// moveUnderMetadata moves a one-line scalar entry under `metadata:`.
func (m *MDFile) moveUnderMetadata(f *MDField) (model.Fix, bool) {
	if f.V.Kind != yaml.ScalarNode || strings.ContainsAny(m.ValueText(f), "\r\n") || !m.Fm.Closed {
		return model.Fix{}, false
	}
	root := m.Doc.Root
	idx := -1
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i] == f.k {
			idx = i
		}
	}
	if idx < 0 {
		return model.Fix{}, false
	}
	del := m.EntryLines(root, idx)
	value := YamlScalar(f.V.Value)
	entry := f.Key + ": " + value
	fx := model.Fix{Title: "Move '" + f.Key + "' under 'metadata:'"}
	md := m.Field("metadata")
	switch {
	case md == nil:
		fx.Edits = []model.Edit{{Span: del}, {Span: model.Span{Start: m.Fm.Close.Start, End: m.Fm.Close.Start}, NewText: "metadata:" + m.Nl + "  " + entry + m.Nl}}
	case md.V.Kind == yaml.MappingNode && md.V.Style&yaml.FlowStyle == 0 && len(md.V.Content) > 0:
		_, next := syntax.LineAt(m.Text, md.ValSpan.End)
		ind := m.Doc.IndentOf(m.Doc.SrcOff(md.V.Content[0].Line, md.V.Content[0].Column))
		_ = ind
		col := md.V.Content[0].Column - 1
		if next <= del.Start || next >= del.End {
			fx.Edits = []model.Edit{{Span: model.Span{Start: next, End: next}, NewText: strings.Repeat(" ", col) + entry + m.Nl}, {Span: del}}
			if next > del.Start {
				fx.Edits[0], fx.Edits[1] = fx.Edits[1], fx.Edits[0]
			}
		} else {
			return model.Fix{}, false
		}
	default:
		return model.Fix{}, false
	}
	sort.SliceStable(fx.Edits, func(i, j int) bool { return fx.Edits[i].Span.Start < fx.Edits[j].Span.Start })
	return fx, true
}

// Closest returns the candidate within maxDist edits of s (case-insensitive
// match first), or "".
func Closest(s string, candidates []string, maxDist int) string {
	for _, c := range candidates {
		if strings.EqualFold(s, c) && s != c {
			return c
		}
	}
	best, bestD := "", maxDist+1
	for _, c := range candidates {
		if c == s {
			return ""
		}
		if d := levenshtein(strings.ToLower(s), strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// closestKey is closest(key, kindKeys(kind), 2), remembered: the same
// unknown keys (license, version, author, …) recur in file after file. The
// memo stops growing at closestMemoMax entries (keys come from files).
func closestKey(kind model.Kind, key string) string {
	type memoKey struct {
		kind model.Kind
		key  string
	}
	mk := memoKey{kind, key}
	if v, ok := closestMemo.Load(mk); ok {
		return v.(string)
	}
	best := Closest(key, kindKeys(kind), 2)
	if best != "" && !plausibleTypo(key, best) {
		best = ""
	}
	if closestMemoLen.Load() < closestMemoMax {
		if _, loaded := closestMemo.LoadOrStore(mk, best); !loaded {
			closestMemoLen.Add(1)
		}
	}
	return best
}

// plausibleTypo keeps a two-edit near miss only where a typo is likely: a
// swap or two slips in a word of the same length ('modle' → 'model'), or a
// long key ('disableModelInvocation' → 'disable-model-invocation'). Two
// edits that also change the length of a short word turn a real key into
// another ('parent' → 'agent', #25).
func plausibleTypo(key, best string) bool {
	k, b := strings.ToLower(key), strings.ToLower(best)
	if strings.EqualFold(key, best) || levenshtein(k, b) <= 1 {
		return true
	}
	return len(k) == len(b) || len(b) >= 10
}

const closestMemoMax = 4096

var (
	closestMemo    sync.Map
	closestMemoLen atomic.Int64
)

func levenshtein(a, b string) int {
	if len(a) > 4*64 || len(b) > 4*64 {
		return 99
	}
	var ba, bb [64]rune
	ra, rb := ba[:0], bb[:0]
	for _, r := range a {
		if len(ra) == 64 {
			return 99
		}
		ra = append(ra, r)
	}
	for _, r := range b {
		if len(rb) == 64 {
			return 99
		}
		rb = append(rb, r)
	}
	var rows [2][65]int
	prev, cur := rows[0][:len(rb)+1], rows[1][:len(rb)+1]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// EnumFix offers the closest allowed value.
func EnumFix(f *MDField, value string, allowed []string, dist int) []model.Fix {
	if c := Closest(value, allowed, dist); c != "" {
		return []model.Fix{ReplaceValue("Change to '"+c+"'", f, c, true)}
	}
	return nil
}

// Kebab turns a name into plain kebab-case: `Plugin Settings` →
// `plugin-settings`.
func Kebab(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	return b.String()
}

// InHeader reports whether a byte offset lies inside the YAML header's body
// (where key completion applies).
func InHeader(text []byte, offset int) bool {
	fm := syntax.SplitFrontmatter(text)
	return fm.Present && offset >= fm.Body.Start && offset <= fm.Body.End
}

// KeyAt returns the top-level frontmatter key at a byte offset (on the key
// or anywhere in its value) with the key's and the value's spans, for hover
// and completion. ok is false outside the header or on an unparsable one.
func KeyAt(text []byte, offset int) (key string, keySpan, valueSpan model.Span, ok bool) {
	fm := syntax.SplitFrontmatter(text)
	if !fm.Present || offset < fm.Body.Start || offset > fm.Body.End {
		return "", model.Span{}, model.Span{}, false
	}
	body := text[fm.Body.Start:fm.Body.End]
	base := fm.Body.Start
	doc, err := syntax.ParseYAML(body, func(o int) int { return base + o })
	if err != nil {
		res, changed := syntax.CCRetry(body)
		if !changed {
			return "", model.Span{}, model.Span{}, false
		}
		doc, err = syntax.ParseYAML(res.Src, func(o int) int {
			if o >= len(res.Orig) {
				o = len(res.Orig) - 1
			}
			return base + res.Orig[o]
		})
		if err != nil {
			return "", model.Span{}, model.Span{}, false
		}
	}
	if doc.Root == nil || doc.Root.Kind != yaml.MappingNode {
		return "", model.Span{}, model.Span{}, false
	}
	c := doc.Root.Content
	for i := 0; i+1 < len(c); i += 2 {
		ks := doc.KeySpan(c[i])
		vs := doc.Span(c[i+1])
		lineStart := ks.Start
		for lineStart > fm.Body.Start && text[lineStart-1] != '\n' && text[lineStart-1] != '\r' {
			lineStart--
		}
		end := vs.End
		if end < ks.End {
			end = ks.End
		}
		if e, _ := syntax.LineAt(text, end); offset >= lineStart && offset <= e {
			if syntax.IsNull(c[i+1]) {
				vs = model.Span{Start: ks.End + 1, End: ks.End + 1}
				if vs.Start > e {
					vs = model.Span{Start: e, End: e}
				}
			}
			return c[i].Value, ks, vs, true
		}
	}
	return "", model.Span{}, model.Span{}, false
}

// VsMarked is the verdict for a value VS Code's validator marks with an
// Error marker (promptValidator.ts) while the file still loads without
// that value: VS Code warns, the agent host, which runs no validator,
// loses the value (unverified). A marker is not a refusal: by the
// severity policy an Error needs a consumer that refuses or fails to load
// the file (issue #13 repro 6).
func VsMarked() model.Verdicts {
	return model.Verdicts{model.TargetVSCode: model.Warn, model.TargetVSCodeAgentHost: model.Lose.Unverified()}
}

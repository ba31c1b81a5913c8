package view

import (
	"path"
	"sort"
	"strings"

	"github.com/ahpls-dev/ahpls/model"
)

// Which consumer reads which path, for files outside any plugin. This is
// customization-formats.md §2.1 ("read by" column) turned into code, with
// the agent host reading what ahpls publishes to it (virtualplugin:
// loose skills, agents, prompts and commands, instructions and rules,
// hooks and the root .mcp.json; always-on files are not published).

// workspaceSkillRoots are the workspace skill folders (VS Code's order).
var workspaceSkillRoots = []string{".github/skills", ".claude/skills", ".agents/skills"}

// skillRootOf reports the workspace skill root of rel (root/<folder>/SKILL.md).
func skillRootOf(rel string) (root, folder string, ok bool) {
	for _, r := range workspaceSkillRoots {
		if rest, ok := strings.CutPrefix(rel, r+"/"); ok && strings.Count(rest, "/") == 1 {
			return r, path.Dir(rest), true
		}
	}
	return "", "", false
}

// agentSkillsMiss says why the Agent Skills client guide never discovers
// the SKILL.md at rel (one not at <dir>/skills/<name>/SKILL.md): it sits
// below another skill's folder (skills/<x>/…/<y>/SKILL.md), or in no
// skills/ folder at all (a top-level template/SKILL.md).
func agentSkillsMiss(rel string) string {
	segs := strings.Split(rel, "/")
	for i := 0; i < len(segs)-3; i++ {
		if segs[i] == "skills" {
			return "a SKILL.md below another skill's folder (" + strings.Join(segs[:i+2], "/") + "/) is never discovered"
		}
	}
	return "skills are discovered as <dir>/skills/<name>/SKILL.md, and " + path.Dir(rel) + "/ is not in a skills/ folder"
}

// scanned reports whether t looks at the loose file f at all, and if not,
// why not (one clause, read after "not scanned: ").
func scanned(t model.Target, f File) (bool, string) {
	if agentTarget(t) {
		return agentScanned(t, f)
	}
	rel := f.Rel
	switch f.Kind {
	case model.KindSkill:
		return skillScanned(t, rel)
	case model.KindAgent:
		switch t {
		case model.TargetVSCode, model.TargetCopilotCLI:
			if strings.HasPrefix(rel, ".github/agents/") {
				return true, ""
			}
			return false, "agents are read from .github/agents"
		case model.TargetVSCodeAgentHost:
			if strings.HasPrefix(rel, ".github/agents/") {
				return true, ""
			}
			return false, "ahpls publishes agents from .github/agents only"
		case model.TargetClaudeCode:
			return false, "Claude Code reads subagents from .claude/agents"
		}
	case model.KindClaudeAgent:
		switch t {
		case model.TargetClaudeCode, model.TargetVSCode, model.TargetVSCodeAgentHost:
			return true, ""
		case model.TargetCopilotCLI:
			return false, "Copilot CLI reads agents from .github/agents"
		}
	case model.KindPrompt:
		switch t {
		case model.TargetVSCode, model.TargetVSCodeAgentHost:
			if strings.HasPrefix(rel, ".github/prompts/") {
				return true, ""
			}
			return false, "prompt files are read from .github/prompts"
		case model.TargetClaudeCode:
			return false, "Claude Code has no prompt files; its commands live in .claude/commands"
		case model.TargetCopilotCLI:
			return false, "Copilot CLI reads no prompt files"
		}
	case model.KindCommand:
		switch t {
		case model.TargetClaudeCode, model.TargetCopilotCLI, model.TargetVSCodeAgentHost:
			return true, ""
		case model.TargetVSCode:
			return false, "VS Code reads prompt files (.github/prompts), not .claude/commands"
		}
	case model.KindInstructions:
		switch t {
		case model.TargetVSCode, model.TargetVSCodeAgentHost, model.TargetCopilotCLI:
			if strings.HasPrefix(rel, ".github/instructions/") {
				return true, ""
			}
			return false, "instructions files are read from .github/instructions"
		case model.TargetClaudeCode:
			return false, "Claude Code reads .claude/rules and CLAUDE.md, not *.instructions.md"
		}
	case model.KindRule:
		switch t {
		case model.TargetClaudeCode, model.TargetVSCode, model.TargetVSCodeAgentHost:
			return true, ""
		case model.TargetCopilotCLI:
			return false, "Copilot CLI does not read .claude/rules"
		}
	case model.KindMemory:
		return memoryScanned(t, rel)
	case model.KindHooks:
		switch t {
		case model.TargetVSCode, model.TargetCopilotCLI, model.TargetVSCodeAgentHost:
			if strings.HasPrefix(rel, ".github/hooks/") {
				return true, ""
			}
			return false, "hook files are read from .github/hooks"
		case model.TargetClaudeCode:
			return false, "Claude Code reads hooks from .claude/settings.json"
		}
	case model.KindSettings:
		switch t {
		case model.TargetClaudeCode, model.TargetVSCode:
			if strings.HasPrefix(rel, ".claude/") {
				return true, ""
			}
			return false, "it reads hooks from .claude/settings.json"
		case model.TargetVSCodeAgentHost:
			return false, "ahpls does not publish settings hooks to the agent host"
		case model.TargetCopilotCLI:
			return false, "Copilot CLI reads hooks from .github/hooks"
		}
	case model.KindMCP:
		switch t {
		case model.TargetClaudeCode, model.TargetVSCodeAgentHost:
			if rel == ".mcp.json" {
				return true, ""
			}
			return false, "only the workspace root's .mcp.json is read"
		case model.TargetVSCode:
			return false, "VS Code reads workspace MCP servers from .vscode/mcp.json"
		case model.TargetCopilotCLI:
			return false, "Copilot CLI does not read the workspace .mcp.json"
		}
	}
	return false, "" // the consumer has no such kind: not listed
}

// skillScanned is scanned for a skill file: which skills folders t reads.
func skillScanned(t model.Target, rel string) (bool, string) {
	root, _, ok := skillRootOf(rel)
	switch t {
	case model.TargetAgentSkills:
		// The client guide discovers <dir>/skills/<name>/SKILL.md (and
		// a plugin's root SKILL.md); one below another skill's folder
		// is never discovered (skill/nested).
		if below := path.Dir(path.Dir(rel)); path.Base(below) == "skills" || path.Dir(rel) == "." {
			return true, ""
		}
		return false, agentSkillsMiss(rel)
	case model.TargetClaudeCode:
		if root == ".claude/skills" {
			return true, ""
		}
		return false, "Claude Code reads project skills from .claude/skills/<name>/SKILL.md"
	}
	if ok {
		return true, ""
	}
	return false, "not in a skills folder it reads (.github/skills, .claude/skills, .agents/skills)"
}

// memoryScanned covers always-on files (copilot-instructions.md,
// AGENTS.md, CLAUDE*.md, GEMINI.md).
func memoryScanned(t model.Target, rel string) (bool, string) {
	base := path.Base(rel)
	nested := strings.Contains(rel, "/") && !strings.HasPrefix(rel, ".claude/") && !strings.HasPrefix(rel, ".github/")
	switch t {
	case model.TargetVSCodeAgentHost:
		return false, "ahpls does not publish always-on files to the agent host"
	case model.TargetAgentSkills:
		return false, ""
	}
	switch base {
	case "copilot-instructions.md":
		if t == model.TargetClaudeCode {
			return false, "Claude Code reads CLAUDE.md, not .github/copilot-instructions.md"
		}
		return true, ""
	case "AGENTS.md":
		if t == model.TargetClaudeCode {
			return false, "Claude Code reads CLAUDE.md, not AGENTS.md (import it with @AGENTS.md)"
		}
		if nested && t == model.TargetVSCode {
			return true, "" // chat.useNestedAgentsMdFiles
		}
		if nested {
			return false, "only the root AGENTS.md is read"
		}
		return true, ""
	case "CLAUDE.md", "CLAUDE.local.md":
		if t == model.TargetClaudeCode || t == model.TargetVSCode || t == model.TargetCopilotCLI {
			return true, ""
		}
	case "GEMINI.md":
		if t == model.TargetCopilotCLI {
			return true, ""
		}
		return false, "GEMINI.md is read by Gemini CLI and Copilot CLI"
	}
	return false, "not an always-on file it reads"
}

// category maps a file kind to the group its items are listed in.
func category(k model.Kind) Category {
	switch k {
	case model.KindSkill:
		return CatSkills
	case model.KindAgent, model.KindClaudeAgent:
		return CatAgents
	case model.KindPrompt, model.KindCommand:
		return CatCommands
	case model.KindInstructions, model.KindRule, model.KindMemory, model.KindCursorRule:
		return CatInstructions
	case model.KindGeminiCmd:
		return CatCommands
	case model.KindCodexPlugin, model.KindGeminiExt, model.KindCursorPlugin:
		return CatPlugins
	case model.KindKiroSteering, model.KindWindsurfRule, model.KindClineRule, model.KindRooRule:
		return CatInstructions
	case model.KindOCAgent, model.KindRooModes:
		return CatAgents
	case model.KindOCCommand, model.KindWindsurfFlow:
		return CatCommands
	case model.KindHooks, model.KindSettings:
		return CatHooks
	case model.KindMCP, model.KindCursorMCP:
		return CatMCP
	case model.KindPlugin:
		return CatPlugins
	}
	return ""
}

// itemName is the name t uses for the Markdown item f (outside plugins;
// prefix is "<plugin>:" inside one).
func itemName(t model.Target, f File, h header, prefix string) string {
	rel := f.Rel
	base := path.Base(rel)
	stem := strings.TrimSuffix(base, path.Ext(base))
	switch f.Kind {
	case model.KindSkill:
		folder := path.Base(path.Dir(rel))
		if path.Dir(rel) == "." || (prefix != "" && h.name != "" && !strings.Contains(rel, "/")) {
			folder = h.name // a plugin's root SKILL.md
		}
		switch t {
		case model.TargetVSCode, model.TargetClaudeCode:
			// VS Code: computeSkillDiscoveryInfo uses the folder name;
			// Claude Code: "Directory name" (skills docs, command name table).
			return prefix + folder
		}
		if h.name != "" {
			return prefix + h.name
		}
		return prefix + folder
	case model.KindAgent:
		if h.name != "" {
			return prefix + h.name
		}
		return prefix + strings.TrimSuffix(strings.TrimSuffix(base, ".md"), ".agent")
	case model.KindClaudeAgent:
		if h.name != "" {
			return prefix + h.name
		}
		return prefix + stem
	case model.KindPrompt:
		if h.name != "" {
			return "/" + prefix + h.name
		}
		return "/" + prefix + strings.TrimSuffix(base, ".prompt.md")
	case model.KindCommand:
		return "/" + prefix + commandName(rel)
	case model.KindInstructions:
		if h.name != "" {
			return h.name
		}
		return strings.TrimSuffix(base, ".instructions.md")
	case model.KindRule:
		if rest, ok := strings.CutPrefix(rel, ".claude/rules/"); ok {
			return strings.TrimSuffix(rest, ".md")
		}
	case model.KindClineRule:
		if h.name != "" {
			return h.name
		}
		return agentItemName(f)
	case model.KindGeminiCmd, model.KindCursorRule, model.KindKiroSteering, model.KindWindsurfRule, model.KindWindsurfFlow, model.KindRooRule, model.KindOCAgent, model.KindOCCommand:
		return agentItemName(f)
	}
	return rel
}

// commandName is a command's name from its path below its commands
// folder, sub-folders joined with ':' (Claude Code).
func commandName(rel string) string {
	segs := strings.Split(strings.TrimSuffix(rel, path.Ext(rel)), "/")
	for i := len(segs) - 2; i >= 0; i-- {
		if segs[i] == "commands" {
			return strings.Join(segs[i+1:], ":")
		}
	}
	return segs[len(segs)-1]
}

// shadow marks items whose name another loaded item of the same group
// already took, for the clashes the rules do not report: a Claude Code
// command named like a skill ("If a skill and a command share the same
// name, the skill takes precedence", Claude Code skills docs).
func (w *workspace) shadow(t model.Target, items []Item) {
	if t == model.TargetCodex {
		// Codex reads one file per folder: AGENTS.override.md before
		// AGENTS.md (agents_md.rs candidate_filenames, first found wins).
		for i := range items {
			it := &items[i]
			if it.Status != Loads || path.Base(it.Source) != "AGENTS.md" {
				continue
			}
			over := path.Join(path.Dir(it.Source), "AGENTS.override.md")
			if _, ok := w.byRel[over]; ok {
				it.Status, it.ShadowedBy = Shadowed, over
				it.Reason = "Codex reads AGENTS.override.md instead of AGENTS.md in the same folder"
			}
		}
		return
	}
	if t == model.TargetOpenCode {
		openCodeShadow(items)
		return
	}
	if t != model.TargetClaudeCode {
		return
	}
	skills := map[string]string{}
	for _, it := range items {
		if it.Category == CatSkills && it.Status == Loads {
			skills[it.Name] = it.Source
		}
	}
	for i := range items {
		it := &items[i]
		if it.Category != CatCommands || it.Status != Loads {
			continue
		}
		if src, ok := skills[strings.TrimPrefix(it.Name, "/")]; ok {
			it.Status, it.ShadowedBy = Shadowed, src
			it.Reason = "a skill of the same name takes precedence over a command"
		}
	}
}

// openCodeShadow keeps one skill per name, as OpenCode does: its skill
// map is keyed by name and it logs "duplicate skill name" for the others
// (opencode-ai 1.18.33). It loads the files concurrently, so which one
// wins is not fixed (two runs of `opencode debug skill` on
// 0xff0ay/my-ai-stack kept .claude/skills/ai-sdk, then
// .agents/skills/ai-sdk); the first source in path order is listed as
// loading and the reason says so.
func openCodeShadow(items []Item) {
	first := map[string]string{}
	idx := make([]int, 0, len(items))
	for i := range items {
		if items[i].Category == CatSkills && items[i].Status == Loads {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return items[idx[a]].Source < items[idx[b]].Source })
	for _, i := range idx {
		it := &items[i]
		if src, ok := first[it.Name]; ok {
			it.Status, it.ShadowedBy = Shadowed, src
			it.Reason = "OpenCode keeps one skill per name; which of them depends on the order it reads them in"
			continue
		}
		first[it.Name] = it.Source
	}
}

// pluginRootsFor lists the plugin roots t reads, sorted: those with a
// manifest, and for Claude Code the manifest-less folders its
// marketplaces list.
func (w *workspace) pluginRootsFor(t model.Target) []string {
	out := make([]string, 0, len(w.roots))
	for r := range w.roots {
		out = append(out, r)
	}
	if t == model.TargetClaudeCode {
		for r := range w.ccOnly {
			out = append(out, r)
		}
	}
	sort.Strings(out)
	return out
}

package model

import (
	"path"
	"strings"
)

// Kind is a customization file kind; its value is the rule-id prefix used in
// customization-formats.md §2.1.
type Kind string

const (
	KindNone         Kind = ""
	KindSkill        Kind = "skill"
	KindAgent        Kind = "agent"   // VS Code agent (*.agent.md, .github/agents/*.md)
	KindClaudeAgent  Kind = "ccagent" // Claude agent (.claude/agents/**/*.md)
	KindPrompt       Kind = "prompt"
	KindCommand      Kind = "cmd"
	KindInstructions Kind = "instr"
	KindRule         Kind = "rule" // Claude rule (.claude/rules/**/*.md)
	KindMemory       Kind = "memory"
	KindPlugin       Kind = "plugin" // plugin manifest
	KindMarketplace  Kind = "market"
	KindHooks        Kind = "hooks"
	KindMCP          Kind = "mcp"
	KindSettings     Kind = "settings"
	KindTools        Kind = "tools"      // ahpls' own client tool config, .ahpls/tools.json
	KindConfig       Kind = "config"     // ahpls' own workspace config, .ahpls/config.json
	KindOutputStyle  Kind = "style"      // Claude output style (.claude/output-styles/**/*.md, a Claude plugin's output-styles/)
	KindSetupSteps   Kind = "setup"      // Copilot coding agent's .github/workflows/copilot-setup-steps.yml
	KindCursorRule   Kind = "cursorrule" // Cursor rule: .cursor/rules/**/*.mdc (and .md, which Cursor ignores), legacy .cursorrules
	KindGeminiCmd    Kind = "gcmd"       // Gemini CLI command: .gemini/commands/**/*.toml, an extension's commands/**/*.toml
	KindGeminiExt    Kind = "gext"       // Gemini CLI extension manifest: gemini-extension.json
	KindCodexPlugin  Kind = "cxplugin"   // Codex plugin manifest: <P>/.codex-plugin/plugin.json
)

// CursorLegacyRules is the single rules file Cursor read before
// .cursor/rules (cursor.com/docs/rules: "still supported, but deprecated").
const CursorLegacyRules = ".cursorrules"

// GeminiExtensionManifest is the file that makes a folder a Gemini CLI
// extension (gemini-cli packages/cli/src/config/extension-manager.ts
// loadExtensionConfig, EXTENSIONS_CONFIG_FILENAME).
const GeminiExtensionManifest = "gemini-extension.json"

// GeminiExtensions is an optional extension of Layout: whether a folder
// holds gemini-extension.json, so that its commands/**/*.toml are Gemini
// CLI commands.
type GeminiExtensions interface {
	GeminiExtension(dir string) bool
}

// SetupStepsPath is the one place GitHub's Copilot coding agent reads its
// setup workflow from (GitHub's docs: "customizing the development
// environment for Copilot coding agent").
const SetupStepsPath = ".github/workflows/copilot-setup-steps.yml"

// Markdown reports whether the kind is a Markdown file with optional YAML
// frontmatter (as opposed to a JSON file).
func (k Kind) Markdown() bool {
	switch k {
	case KindSkill, KindAgent, KindClaudeAgent, KindPrompt, KindCommand, KindInstructions, KindRule, KindMemory, KindOutputStyle:
		return true
	}
	return false
}

// Noun is how messages and symbol lists name a file of the kind for people
// ("this subagent", "MCP config · .mcp.json").
func (k Kind) Noun() string {
	switch k {
	case KindSkill:
		return "skill"
	case KindAgent:
		return "agent"
	case KindClaudeAgent:
		return "subagent"
	case KindPrompt:
		return "prompt file"
	case KindCommand:
		return "command"
	case KindInstructions:
		return "instructions file"
	case KindRule:
		return "rule"
	case KindMemory:
		return "memory file"
	case KindPlugin:
		return "plugin"
	case KindMarketplace:
		return "marketplace"
	case KindHooks:
		return "hooks"
	case KindMCP:
		return "MCP config"
	case KindSettings:
		return "settings"
	case KindTools:
		return "client tools"
	case KindConfig:
		return "ahpls config"
	case KindOutputStyle:
		return "output style"
	case KindSetupSteps:
		return "Copilot setup steps"
	case KindCursorRule:
		return "Cursor rule"
	case KindGeminiCmd:
		return "Gemini CLI command"
	case KindGeminiExt:
		return "Gemini CLI extension"
	case KindCodexPlugin:
		return "Codex plugin"
	}
	return "file"
}

// PluginFormat is how a plugin folder is read (customization-formats.md §2.2).
type PluginFormat string

const (
	FormatNone       PluginFormat = ""
	FormatAP         PluginFormat = "agent-plugins" // root plugin.json with an agent-plugins.org $schema
	FormatOpenPlugin PluginFormat = "open-plugin"   // .plugin/plugin.json (our virtual plugins)
	FormatClaude     PluginFormat = "claude"        // .claude-plugin/plugin.json or a .claude path segment
	FormatCopilot    PluginFormat = "copilot"       // everything else
)

// ManifestPaths are the four manifest locations relative to a plugin root,
// in precedence order: the first present is effective.
var ManifestPaths = []string{".plugin/plugin.json", "plugin.json", ".github/plugin/plugin.json", ".claude-plugin/plugin.json"}

// MarketplacePaths are the marketplace locations relative to a workspace folder.
var MarketplacePaths = []string{"marketplace.json", ".plugin/marketplace.json", ".github/plugin/marketplace.json", ".claude-plugin/marketplace.json"}

// Layout answers which folders of a workspace are plugin roots. Classify
// works without one (nil) from path shape alone; discovery supplies one so
// that `<P>/agents/x.md` in a Claude plugin is a Claude agent.
type Layout interface {
	// PluginRoot reports the format of the plugin rooted at dir (a
	// slash-separated path relative to the workspace folder, "" for the
	// folder itself), or FormatNone when dir is no plugin root.
	PluginRoot(dir string) PluginFormat
}

// MaxDepth bounds what is not discovery: how many folders of a loose
// file's path (one outside every workspace folder) are read for its shape,
// and tree walks of cross-file rules. Classify and the walks of `ahpls
// check` and the server's diagnostics have no depth limit (issue #25): a
// file twelve folders deep is checked like one at the top.
const MaxDepth = 6

// MaxPluginDepth is how deep the virtual-plugin publisher looks for plugin
// roots: publication is bounded, checking is not.
const MaxPluginDepth = MaxDepth

// LoadedWhenIgnored reports the paths (relative to a workspace folder) that
// consumers load by their fixed location whatever .gitignore says, so a
// walk that honours .gitignore still checks them: Claude Code writes
// .claude/settings.local.json and CLAUDE.local.md to be ignored and reads
// them; VS Code resolves .github/agents, .github/prompts, .github/skills,
// .claude/skills, .agents/skills and the hook files
// .claude/settings{,.local}.json by path (promptFileLocations.ts
// DEFAULT_*_SOURCE_FOLDERS and DEFAULT_HOOK_FILE_PATHS), not by a search
// that honours ignore files. A folder answers true when files it holds may
// be loaded, so the walk enters it.
func LoadedWhenIgnored(rel string) bool {
	first, _, _ := strings.Cut(rel, "/")
	switch first {
	case ".claude", ".github", ".agents":
		return true
	}
	switch rel {
	case "CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", "GEMINI.md", ".mcp.json":
		return true
	}
	return false
}

// SkipDir reports folders discovery never enters.
func SkipDir(name string) bool {
	return name == ".git" || name == "node_modules"
}

// MaybeCustomization reports whether Classify could give rel a kind under
// some layout: only Markdown and JSON files are customizations, and the one
// YAML file SetupStepsPath. It costs no allocation, so walkers can drop the
// other files before classifying.
func MaybeCustomization(rel string) bool {
	n := len(rel)
	return (n >= 3 && rel[n-3] == '.' && lowerIs(rel[n-2:], "md")) ||
		(n >= 5 && rel[n-5] == '.' && lowerIs(rel[n-4:], "json")) ||
		(n >= 4 && rel[n-4] == '.' && lowerIs(rel[n-3:], "mdc")) ||
		(n >= 5 && rel[n-5] == '.' && lowerIs(rel[n-4:], "toml")) ||
		strings.HasSuffix(rel, CursorLegacyRules) ||
		strings.HasSuffix(rel, SetupStepsPath)
}

// lowerIs reports whether s equals the lower-case ASCII word w, ignoring
// case.
func lowerIs(s, w string) bool {
	for i := range len(w) {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != w[i] {
			return false
		}
	}
	return true
}

// Classify returns the kind of the file at rel, a slash-separated path
// relative to its workspace folder, following the first-match order of
// customization-formats.md §2.1. KindNone means the file is not ours.
func Classify(rel string, layout Layout) Kind {
	rel = strings.TrimPrefix(path.Clean("/"+rel), "/")
	if rel == "" || rel == "." || !MaybeCustomization(rel) {
		return KindNone
	}
	segs := strings.Split(rel, "/")
	for _, s := range segs[:len(segs)-1] {
		if SkipDir(s) {
			return KindNone
		}
	}
	base := segs[len(segs)-1]
	dir := path.Dir(rel)
	if dir == "." {
		dir = ""
	}
	lower := strings.ToLower(base)

	if strings.HasSuffix(lower, ".json") {
		return classifyJSON(rel, dir, base, layout)
	}
	if rel == SetupStepsPath {
		return KindSetupSteps
	}
	if base == CursorLegacyRules {
		if dir == "" {
			return KindCursorRule // Cursor reads it at the project root only
		}
		return KindNone
	}
	if strings.HasSuffix(lower, ".mdc") || (strings.HasSuffix(lower, ".md") && hasSegPair(segs, ".cursor", "rules")) {
		if hasSegPair(segs, ".cursor", "rules") {
			return KindCursorRule
		}
		return KindNone
	}
	if strings.HasSuffix(lower, ".toml") {
		return classifyTOML(segs, layout)
	}
	if !strings.HasSuffix(lower, ".md") {
		return KindNone
	}
	// Never a Markdown file below a skill folder except the skill itself
	// (skills/x/agents/grader.md is the skill's own material).
	if !strings.EqualFold(base, "SKILL.md") && belowSkill(segs) {
		return KindNone
	}
	switch {
	case strings.HasSuffix(base, ".prompt.md"):
		return KindPrompt
	case strings.HasSuffix(base, ".instructions.md"):
		return KindInstructions
	case base == "copilot-instructions.md":
		return KindMemory
	case strings.HasSuffix(base, ".agent.md"), strings.HasSuffix(base, ".chatmode.md"):
		return KindAgent
	case lower == "skill.md":
		return KindSkill
	}
	switch rel {
	case "AGENTS.md", "CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md", "GEMINI.md":
		return KindMemory
	}
	if base == "AGENTS.md" || base == "AGENTS.override.md" {
		return KindMemory // nested AGENTS.md (chat.useNestedAgentsMdFiles); Codex's local override
	}
	if base == "README.md" {
		return KindNone
	}
	if dir == ".github/agents" {
		return KindAgent
	}
	if hasSegPair(segs, ".claude", "agents") {
		return KindClaudeAgent
	}
	if hasSegPair(segs, ".claude", "rules") {
		return KindRule
	}
	if hasSegPair(segs, ".claude", "commands") {
		return KindCommand
	}
	if hasSegPair(segs, ".claude", "output-styles") {
		return KindOutputStyle
	}
	if layout != nil {
		for i := len(segs) - 2; i >= 0; i-- {
			if segs[i] != "agents" && segs[i] != "commands" && segs[i] != "output-styles" {
				continue
			}
			root := strings.Join(segs[:i], "/")
			f := layout.PluginRoot(root)
			if f == FormatNone {
				continue
			}
			if segs[i] == "commands" {
				return KindCommand
			}
			if segs[i] == "output-styles" {
				// Only Claude Code loads a plugin's output-styles/ (its
				// plugin loader's outputStylesPath); Copilot plugins have none.
				if f == FormatClaude {
					return KindOutputStyle
				}
				return KindNone
			}
			if f == FormatClaude {
				return KindClaudeAgent
			}
			return KindNone // Copilot/OpenPlugin agents must be *.agent.md
		}
	}
	return KindNone
}

// classifyTOML finds Gemini CLI commands: .gemini/commands/**/*.toml
// (Storage.getProjectCommandsDir) and <ext>/commands/**/*.toml of a folder
// holding gemini-extension.json (FileCommandLoader.getCommandDirectories).
func classifyTOML(segs []string, layout Layout) Kind {
	if hasSegPair(segs, ".gemini", "commands") {
		return KindGeminiCmd
	}
	ge, ok := layout.(GeminiExtensions)
	if !ok {
		return KindNone
	}
	for i := len(segs) - 2; i >= 0; i-- {
		if segs[i] == "commands" && ge.GeminiExtension(strings.Join(segs[:i], "/")) {
			return KindGeminiCmd
		}
	}
	return KindNone
}

func classifyJSON(rel, dir, base string, layout Layout) Kind {
	if base == GeminiExtensionManifest {
		return KindGeminiExt
	}
	if base == "plugin.json" && path.Base(dir) == ".codex-plugin" {
		return KindCodexPlugin
	}
	switch rel {
	case ".ahpls/tools.json":
		return KindTools
	case ".ahpls/config.json":
		return KindConfig
	case ".claude/settings.json", ".claude/settings.local.json", ".github/copilot/settings.json":
		return KindSettings
	}
	if _, ok := MarketplaceRoot(rel); ok {
		return KindMarketplace
	}
	if _, _, ok := ManifestRoot(rel); ok {
		return KindPlugin
	}
	if dir == ".github/hooks" {
		return KindHooks
	}
	if base == "hooks.json" {
		if path.Base(dir) == "hooks" {
			// <P>/hooks/hooks.json, when something loads P as a plugin: a
			// manifest, or a Claude marketplace listing it. A layout that
			// knows neither leaves a lone hooks/hooks.json to nobody (#25
			// P7a); without a layout the path's shape decides.
			if layout == nil {
				return KindHooks
			}
			p := path.Dir(dir)
			if p == "." {
				p = ""
			}
			if layout.PluginRoot(p) != FormatNone {
				return KindHooks
			}
			if cl, ok := layout.(ClaudeListing); ok && cl.ClaudeListed(p) {
				return KindHooks
			}
			return KindNone
		}
		if layout != nil && layout.PluginRoot(dir) != FormatNone {
			return KindHooks // Copilot <P>/hooks.json
		}
		return KindNone
	}
	if base == ".mcp.json" {
		if dir == ".vscode" {
			return KindNone
		}
		return KindMCP
	}
	if layout != nil {
		if base == "mcp.json" && layout.PluginRoot(dir) != FormatNone {
			return KindMCP
		}
		if rel == ".github/mcp.json" || strings.HasSuffix(rel, "/.github/mcp.json") {
			root := strings.TrimSuffix(strings.TrimSuffix(rel, ".github/mcp.json"), "/")
			if layout.PluginRoot(root) != FormatNone {
				return KindMCP
			}
		}
	}
	return KindNone
}

func hasSegPair(segs []string, a, b string) bool {
	for i := 0; i+1 < len(segs)-1; i++ {
		if segs[i] == a && segs[i+1] == b {
			return true
		}
	}
	return false
}

// belowSkill reports a path inside some skills/<name>/ folder, e.g.
// skills/x/agents/grader.md or skills/x/notes.md.
func belowSkill(segs []string) bool {
	for i := 0; i < len(segs)-2; i++ {
		if segs[i] == "skills" {
			return true
		}
	}
	return false
}

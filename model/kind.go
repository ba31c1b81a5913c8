package model

import (
	"path"
	"slices"
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
	KindKiroSteering Kind = "kiro"       // Kiro steering file: .kiro/steering/*.md
	KindWindsurfRule Kind = "windsurf"   // Windsurf rule: .windsurf/rules/*.md, legacy .windsurfrules
	KindWindsurfFlow Kind = "wsflow"     // Windsurf workflow: .windsurf/workflows/*.md (sub-folders classified for wsflow/nested)
	KindCodexMarket  Kind = "cxmarket"   // Codex marketplace: <M>/.agents/plugins/marketplace.json
	KindCursorPlugin Kind = "cuplugin"   // Cursor plugin manifest: <P>/.cursor-plugin/plugin.json
	KindCursorMarket Kind = "cumarket"   // Cursor marketplace: <M>/.cursor-plugin/marketplace.json
	KindCursorMCP    Kind = "cumcp"      // Cursor project MCP servers: .cursor/mcp.json
	KindClineRule    Kind = "cline"      // Cline rule: .clinerules (a file), .clinerules/**, .cline/rules/**
	KindRooRule      Kind = "roo"        // Roo Code rule: .roo/rules/**, .roo/rules-<mode>/**, legacy .roorules
	KindRooModes     Kind = "roomodes"   // Roo Code project custom modes: the root .roomodes (YAML, or JSON)
	KindOCConfig     Kind = "occonfig"   // OpenCode config: opencode.json, opencode.jsonc (also in .opencode/)
	KindOCAgent      Kind = "ocagent"    // OpenCode agent: .opencode/{agent,agents}/**/*.md, legacy .opencode/{mode,modes}/*.md
	KindOCCommand    Kind = "occmd"      // OpenCode command: .opencode/{command,commands}/**/*.md
)

// RooRules is Roo Code's legacy single rules file, read only when no
// .roo/rules folder holds a file (RooCodeInc/Roo-Code@cb836567
// custom-instructions.ts loadRuleFiles).
const RooRules = ".roorules"

// RooModes is Roo Code's project custom-modes file, read at the workspace
// root only, as YAML and, when that fails, as JSON
// (RooCodeInc/Roo-Code@cb836567 src/core/config/CustomModesManager.ts
// getWorkspaceRoomodes, parseYamlSafely).
const RooModes = ".roomodes"

// ClineRules is Cline's workspace rules path: one file, or a folder whose
// files directly in it are rules (cline/cline@21cb8d25
// sdk/packages/shared/src/storage/paths.ts, DEPRECATED_CONFIG_DIR).
const ClineRules = ".clinerules"

// clineOwnFolders are the sub-folders of .clinerules that hold Cline's
// workflows, hooks and skills, not rules (apps/vscode/src/core/storage/disk.ts
// GlobalFileNames: workflows, hooksDir, clineruleSkillsDir).
var clineOwnFolders = []string{"workflows", "hooks", "skills"}

// OpenCodeConfigNames are the project config files OpenCode reads in each
// folder from its working folder up to the worktree root, and in each
// .opencode folder on that way (opencode-ai 1.18.33: "loading config from
// <dir>/.opencode/opencode.json", then opencode.jsonc; the .jsonc wins).
var OpenCodeConfigNames = []string{"opencode.json", "opencode.jsonc"}

// WindsurfLegacyRules is the single rules file of a Windsurf workspace
// before .windsurf/rules (docs.windsurf.com, Memories & Rules).
const WindsurfLegacyRules = ".windsurfrules"

// WindsurfRuleChars is the most text of one file Windsurf's rules engine
// reads (docs.windsurf.com, Memories & Rules): its rule files, and the
// AGENTS.md files it feeds through the same engine.
const WindsurfRuleChars = 12000

// CodexMarketplacePath is where Codex reads a marketplace below its root
// (openai/codex core-plugins/src/marketplace.rs
// MARKETPLACE_MANIFEST_RELATIVE_PATHS, first of two).
const CodexMarketplacePath = ".agents/plugins/marketplace.json"

// CodexMarketplacePaths are the marketplaces Codex reads at a root, the
// first that exists (openai/codex@0e543a2c core-plugins/src/marketplace.rs
// MARKETPLACE_MANIFEST_RELATIVE_PATHS): its own, else Claude Code's.
var CodexMarketplacePaths = []string{CodexMarketplacePath, ".claude-plugin/marketplace.json"}

// CursorLegacyRules is the single rules file Cursor read before
// .cursor/rules (cursor.com/docs/rules: "still supported, but deprecated").
const CursorLegacyRules = ".cursorrules"

// GeminiExtensionManifest is the file that makes a folder a Gemini CLI
// extension (gemini-cli packages/cli/src/config/extension-manager.ts
// loadExtensionConfig, EXTENSIONS_CONFIG_FILENAME).
const GeminiExtensionManifest = "gemini-extension.json"

// Files is an optional extension of Layout: whether a regular file exists
// at rel (slash-separated, relative to the workspace folder). Classify
// asks it which folders are Gemini CLI extensions, SkillUnread for the
// package manifests of ConsumerSpec.PackageManifest.
type Files interface {
	HasFile(rel string) bool
}

// SetupStepsPath is the one place GitHub's Copilot coding agent reads its
// setup workflow from (GitHub's docs: "customizing the development
// environment for Copilot coding agent").
const SetupStepsPath = ".github/workflows/copilot-setup-steps.yml"

// KindSpec is one file kind as a value: everything about the kind that is
// not a rule or the path logic of Classify. Kind.Noun, Kind.Markdown,
// MaybeCustomization, the server's file watchers, the docs generator and
// the editors' generated file lists (VS Code's filekinds.ts, Neovim's
// filekinds.lua) all read KindSpecs, so adding a kind is one entry here,
// its case in Classify and its checker.
type KindSpec struct {
	Kind Kind
	// Noun is how messages and symbol lists name a file of the kind for
	// people ("this subagent", "MCP config · .mcp.json").
	Noun string
	// Title heads the kind's rules in docs/rules.md.
	Title string
	// Lang is the file's language: "markdown" (Markdown with optional YAML
	// frontmatter), "json", "yaml", "toml" or "mdc" (Markdown under a
	// Cursor header, which is not YAML). It names the docs' code fences too.
	Lang string
	// Ext is the file name's extension (".md", ".json"), matched without
	// regard to case; Paths instead names the few files of a kind whose
	// extension alone says nothing (a workflow's .yml), matched as the end
	// of a slash-separated path.
	Ext   string
	Paths []string
	// OtherExts are further extensions a file of the kind may have (Cline
	// reads .markdown and .txt rules beside .md).
	OtherExts []string
	// Languages are the editors' language ids of the kind's buffers (a
	// JSON file may be opened as jsonc): the VS Code extension activates
	// on them and Neovim attaches to those filetypes.
	Languages []string
	// Documents are VS Code glob patterns of the kind's files, matched
	// against the absolute path (the document selector; a little wider
	// than Classify, which has the last word).
	Documents []string
	// Activation are `workspaceContains:` patterns: only paths that are
	// certainly files of the kind.
	Activation []string
}

// Markdown reports whether files of the spec are Markdown.
func (s KindSpec) Markdown() bool { return s.Lang == "markdown" }

var (
	mdLangs   = []string{"markdown"}
	jsonLangs = []string{"json", "jsonc"}
)

// Kinds is every file kind, in the order docs and editors list them.
var Kinds = []KindSpec{
	{Kind: KindSkill, Noun: "skill", Title: "Skills (SKILL.md)", Lang: "markdown", Ext: ".md", Languages: mdLangs,
		Documents:  []string{"**/SKILL.md", "**/skill.md"},
		Activation: []string{"**/SKILL.md"}},
	{Kind: KindAgent, Noun: "agent", Title: "VS Code agents (*.agent.md)", Lang: "markdown", Ext: ".md", Languages: mdLangs,
		Documents:  []string{"**/*.agent.md", "**/*.chatmode.md", "**/.github/agents/**/*.md"},
		Activation: []string{"**/*.agent.md", "**/*.chatmode.md", "**/.github/agents/*.md"}},
	{Kind: KindClaudeAgent, Noun: "subagent", Title: "Claude subagents", Lang: "markdown", Ext: ".md", Languages: mdLangs,
		Documents:  []string{"**/.claude/agents/**/*.md", "**/agents/**/*.md"},
		Activation: []string{"**/.claude/agents/**/*.md"}},
	{Kind: KindPrompt, Noun: "prompt file", Title: "Prompts", Lang: "markdown", Ext: ".md", Languages: mdLangs,
		Documents:  []string{"**/*.prompt.md"},
		Activation: []string{"**/*.prompt.md"}},
	{Kind: KindCommand, Noun: "command", Title: "Claude commands", Lang: "markdown", Ext: ".md", Languages: mdLangs,
		Documents:  []string{"**/.claude/commands/**/*.md", "**/commands/**/*.md"},
		Activation: []string{"**/.claude/commands/**/*.md"}},
	{Kind: KindInstructions, Noun: "instructions file", Title: "Instructions", Lang: "markdown", Ext: ".md", Languages: mdLangs,
		Documents:  []string{"**/*.instructions.md"},
		Activation: []string{"**/*.instructions.md"}},
	{Kind: KindRule, Noun: "rule", Title: "Claude rules", Lang: "markdown", Ext: ".md", Languages: mdLangs,
		Documents:  []string{"**/.claude/rules/**/*.md"},
		Activation: []string{"**/.claude/rules/**/*.md"}},
	{Kind: KindMemory, Noun: "memory file", Title: "Always-on files (AGENTS.md, CLAUDE.md)", Lang: "markdown", Ext: ".md", Languages: mdLangs,
		Documents:  []string{"**/copilot-instructions.md", "**/{AGENTS,AGENTS.override,CLAUDE,CLAUDE.local,GEMINI}.md"},
		Activation: []string{"**/.github/copilot-instructions.md", "**/AGENTS.md", "**/CLAUDE.md"}},
	{Kind: KindPlugin, Noun: "plugin", Title: "Plugin manifests", Lang: "json", Ext: ".json", Languages: jsonLangs,
		Documents:  []string{"**/plugin.json"},
		Activation: []string{"**/.plugin/plugin.json", "**/.claude-plugin/plugin.json", "**/.github/plugin/plugin.json", "plugin.json"}},
	{Kind: KindMarketplace, Noun: "marketplace", Title: "Marketplaces", Lang: "json", Ext: ".json", Languages: jsonLangs,
		Documents:  []string{"**/marketplace.json"},
		Activation: []string{"**/.plugin/marketplace.json", "**/.claude-plugin/marketplace.json", "**/.github/plugin/marketplace.json", "marketplace.json"}},
	{Kind: KindSettings, Noun: "settings", Title: "Settings", Lang: "json", Ext: ".json", Languages: jsonLangs,
		Documents:  []string{"**/.claude/settings.json", "**/.claude/settings.local.json", "**/.github/copilot/settings.json"},
		Activation: []string{"**/.claude/settings.json", "**/.github/copilot/settings.json"}},
	{Kind: KindHooks, Noun: "hooks", Title: "Hooks", Lang: "json", Ext: ".json", Languages: jsonLangs,
		Documents:  []string{"**/hooks.json", "**/.github/hooks/*.json"},
		Activation: []string{"**/.github/hooks/*.json", "**/hooks/hooks.json", "**/hooks.json"}},
	{Kind: KindMCP, Noun: "MCP config", Title: "MCP servers", Lang: "json", Ext: ".json", Languages: jsonLangs,
		Documents:  []string{"**/{mcp,.mcp}.json"},
		Activation: []string{"**/.mcp.json"}},
	{Kind: KindTools, Noun: "client tools", Title: "Client tool config (.ahpls/tools.json)", Lang: "json", Ext: ".json", Languages: jsonLangs},
	{Kind: KindConfig, Noun: "ahpls config", Title: "Workspace config (.ahpls/config.json)", Lang: "json", Ext: ".json", Languages: jsonLangs},
	{Kind: KindOutputStyle, Noun: "output style", Title: "Claude output styles", Lang: "markdown", Ext: ".md", Languages: mdLangs,
		Documents: []string{"**/output-styles/**/*.md"}},
	{Kind: KindSetupSteps, Noun: "Copilot setup steps", Title: "Copilot setup steps (copilot-setup-steps.yml)", Lang: "yaml",
		Paths: []string{SetupStepsPath}, Languages: []string{"yaml"},
		Documents: []string{"**/" + SetupStepsPath}},
	// Other agents' kinds (issue #38). A Cursor rule's header is not YAML
	// (Lang "mdc": no YAML feature runs on it); no editor language is
	// registered for .mdc, so the document patterns carry it.
	{Kind: KindCursorRule, Noun: "Cursor rule", Title: "Cursor rules (.cursor/rules/*.mdc, .cursorrules)", Lang: "mdc",
		Ext: ".mdc", Paths: []string{CursorLegacyRules}, Languages: []string{"mdc"},
		Documents:  []string{"**/.cursor/rules/**/*.mdc", "**/.cursor/rules/**/*.md", "**/" + CursorLegacyRules},
		Activation: []string{"**/.cursor/rules/**/*.mdc", CursorLegacyRules}},
	{Kind: KindGeminiCmd, Noun: "Gemini CLI command", Title: "Gemini CLI commands (.gemini/commands/*.toml)", Lang: "toml",
		Ext: ".toml", Languages: []string{"toml"},
		Documents:  []string{"**/.gemini/commands/**/*.toml", "**/commands/**/*.toml"},
		Activation: []string{"**/.gemini/commands/**/*.toml"}},
	{Kind: KindGeminiExt, Noun: "Gemini CLI extension", Title: "Gemini CLI extensions (gemini-extension.json)", Lang: "json", Ext: ".json", Languages: jsonLangs,
		Documents:  []string{"**/" + GeminiExtensionManifest},
		Activation: []string{"**/" + GeminiExtensionManifest}},
	{Kind: KindCodexPlugin, Noun: "Codex plugin", Title: "Codex plugin manifests (.codex-plugin/plugin.json)", Lang: "json", Ext: ".json", Languages: jsonLangs,
		Documents:  []string{"**/.codex-plugin/plugin.json"},
		Activation: []string{"**/.codex-plugin/plugin.json"}},
	{Kind: KindKiroSteering, Noun: "Kiro steering file", Title: "Kiro steering (.kiro/steering/*.md)", Lang: "markdown", Ext: ".md", Languages: mdLangs,
		Documents:  []string{"**/.kiro/steering/*.md"},
		Activation: []string{"**/.kiro/steering/*.md"}},
	{Kind: KindWindsurfRule, Noun: "Windsurf rule", Title: "Windsurf rules (.windsurf/rules/*.md, .windsurfrules)", Lang: "markdown", Ext: ".md",
		Paths: []string{WindsurfLegacyRules}, Languages: mdLangs,
		Documents:  []string{"**/.windsurf/rules/*.md", "**/" + WindsurfLegacyRules},
		Activation: []string{"**/.windsurf/rules/*.md", WindsurfLegacyRules}},
	{Kind: KindWindsurfFlow, Noun: "Windsurf workflow", Title: "Windsurf workflows (.windsurf/workflows/*.md)", Lang: "markdown", Ext: ".md", Languages: mdLangs,
		Documents:  []string{"**/.windsurf/workflows/**/*.md"},
		Activation: []string{"**/.windsurf/workflows/*.md"}},
	{Kind: KindCodexMarket, Noun: "Codex marketplace", Title: "Codex marketplaces (.agents/plugins/marketplace.json)", Lang: "json", Ext: ".json", Languages: jsonLangs,
		Documents:  []string{"**/" + CodexMarketplacePath},
		Activation: []string{"**/" + CodexMarketplacePath}},
	{Kind: KindCursorPlugin, Noun: "Cursor plugin", Title: "Cursor plugin manifests (.cursor-plugin/plugin.json)", Lang: "json", Ext: ".json", Languages: jsonLangs,
		Documents:  []string{"**/.cursor-plugin/plugin.json"},
		Activation: []string{"**/.cursor-plugin/plugin.json"}},
	{Kind: KindCursorMarket, Noun: "Cursor marketplace", Title: "Cursor marketplaces (.cursor-plugin/marketplace.json)", Lang: "json", Ext: ".json", Languages: jsonLangs,
		Documents:  []string{"**/.cursor-plugin/marketplace.json"},
		Activation: []string{"**/.cursor-plugin/marketplace.json"}},
	{Kind: KindCursorMCP, Noun: "Cursor MCP config", Title: "Cursor MCP servers (.cursor/mcp.json)", Lang: "json", Ext: ".json", Languages: jsonLangs,
		Documents:  []string{"**/" + CursorMCPPath},
		Activation: []string{"**/" + CursorMCPPath}},
	{Kind: KindClineRule, Noun: "Cline rule", Title: "Cline rules (.clinerules, .clinerules/*.md, .markdown, .txt, .cline/rules/*.md)", Lang: "markdown", Ext: ".md",
		Paths: []string{ClineRules}, OtherExts: []string{".markdown", ".txt"}, Languages: mdLangs,
		Documents: []string{"**/.clinerules/**/*.md", "**/.clinerules/**/*.markdown", "**/.clinerules/**/*.txt", "**/.clinerules/**/*.mdc",
			"**/.cline/rules/**/*.md", "**/.cline/rules/**/*.markdown", "**/.cline/rules/**/*.txt", "**/" + ClineRules},
		Activation: []string{"**/.clinerules/*.md", "**/.clinerules/*.markdown", "**/.clinerules/*.txt", "**/.cline/rules/*.md", ClineRules}},
	{Kind: KindRooRule, Noun: "Roo Code rule", Title: "Roo Code rules (.roo/rules/, .roo/rules-<mode>/, .roorules)", Lang: "markdown", Ext: ".md",
		Paths: []string{RooRules}, Languages: mdLangs,
		Documents:  []string{"**/.roo/rules/**/*.md", "**/.roo/rules-*/**/*.md", "**/" + RooRules},
		Activation: []string{"**/.roo/rules/**/*.md", "**/.roo/rules-*/**/*.md", RooRules}},
	// .roomodes has no extension: no editor knows its language, so the
	// document pattern carries it (Neovim gives it the yaml filetype).
	{Kind: KindRooModes, Noun: "Roo Code modes file", Title: "Roo Code custom modes (.roomodes)", Lang: "yaml",
		Paths: []string{RooModes}, Languages: []string{"yaml"},
		Documents:  []string{"**/" + RooModes},
		Activation: []string{RooModes}},
	{Kind: KindOCConfig, Noun: "OpenCode config", Title: "OpenCode config (opencode.json, opencode.jsonc)", Lang: "json", Ext: ".json",
		Paths: []string{"opencode.jsonc"}, Languages: jsonLangs,
		Documents:  []string{"**/opencode.json", "**/opencode.jsonc"},
		Activation: []string{"opencode.json", "opencode.jsonc", ".opencode/opencode.json", ".opencode/opencode.jsonc"}},
	{Kind: KindOCAgent, Noun: "OpenCode agent", Title: "OpenCode agents (.opencode/agent/*.md)", Lang: "markdown", Ext: ".md", Languages: mdLangs,
		Documents:  []string{"**/.opencode/{agent,agents}/**/*.md", "**/.opencode/{mode,modes}/*.md"},
		Activation: []string{"**/.opencode/{agent,agents}/**/*.md"}},
	{Kind: KindOCCommand, Noun: "OpenCode command", Title: "OpenCode commands (.opencode/command/*.md)", Lang: "markdown", Ext: ".md", Languages: mdLangs,
		Documents:  []string{"**/.opencode/{command,commands}/**/*.md"},
		Activation: []string{"**/.opencode/{command,commands}/**/*.md"}},
}

// CursorMCPPath is the project MCP config Cursor reads at the root of the
// folder it opens (cursor.com/docs/mcp).
const CursorMCPPath = ".cursor/mcp.json"

// Spec returns the kind's entry of Kinds (ok false for KindNone and
// unknown kinds).
func (k Kind) Spec() (KindSpec, bool) {
	for _, s := range Kinds {
		if s.Kind == k {
			return s, true
		}
	}
	return KindSpec{}, false
}

// Markdown reports whether the kind is a Markdown file with optional YAML
// frontmatter (as opposed to a JSON or YAML file).
func (k Kind) Markdown() bool {
	s, _ := k.Spec()
	return s.Markdown()
}

// Noun is how messages and symbol lists name a file of the kind for people
// ("this subagent", "MCP config · .mcp.json").
func (k Kind) Noun() string {
	if s, ok := k.Spec(); ok {
		return s.Noun
	}
	return "file"
}

// customizationExts and customizationPaths are what MaybeCustomization
// matches, gathered from Kinds once.
var customizationExts, customizationPaths = func() (exts, paths []string) {
	for _, s := range Kinds {
		for _, e := range append([]string{s.Ext}, s.OtherExts...) {
			if e != "" && !slices.Contains(exts, e) {
				exts = append(exts, e)
			}
		}
		for _, p := range s.Paths {
			if !slices.Contains(paths, p) {
				paths = append(paths, p)
			}
		}
	}
	return exts, paths
}()

// CustomizationExts are the file extensions of every kind that has one
// (".md", ".json"): what file watchers look at.
func CustomizationExts() []string { return slices.Clone(customizationExts) }

// CustomizationPaths are the folder-relative paths of the kinds that have
// no extension of their own (SetupStepsPath).
func CustomizationPaths() []string { return slices.Clone(customizationPaths) }

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
// some layout: a file with a kind's extension (Markdown, JSON) or one of a
// kind's fixed paths (the YAML file SetupStepsPath). It costs no allocation, so walkers can drop the
// other files before classifying.
func MaybeCustomization(rel string) bool {
	for _, ext := range customizationExts {
		if n, e := len(rel), len(ext); n >= e && lowerIs(rel[n-e:], ext) {
			return true
		}
	}
	for _, p := range customizationPaths {
		if strings.HasSuffix(rel, p) {
			return true
		}
	}
	return false
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

	if base == "opencode.jsonc" {
		return KindOCConfig
	}
	if strings.HasSuffix(lower, ".json") {
		return classifyJSON(rel, dir, base, layout)
	}
	if rel == SetupStepsPath {
		return KindSetupSteps
	}
	if base == RooModes {
		if dir == "" {
			return KindRooModes
		}
		return KindNone // Roo Code reads the workspace root's only
	}
	if base == CursorLegacyRules || base == WindsurfLegacyRules || base == ClineRules || base == RooRules {
		return legacyRulesKind(base, dir)
	}
	if isClineRule(segs, lower) {
		return KindClineRule
	}
	if isRooRule(segs, lower) {
		return KindRooRule
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
	if k := rulesFolderKind(segs); k != KindNone {
		return k
	}
	if isWindsurfFlow(segs) {
		return KindWindsurfFlow
	}
	if k := openCodeKind(segs); k != KindNone {
		return k
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
	return pluginComponentKind(segs, layout)
}

// pluginComponentKind is the kind of a Markdown file in a plugin's
// agents/, commands/ or output-styles/ folder (KindNone elsewhere or
// without a layout).
func pluginComponentKind(segs []string, layout Layout) Kind {
	if layout == nil {
		return KindNone
	}
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
	return KindNone
}

// classifyTOML finds Gemini CLI commands: .gemini/commands/**/*.toml
// (Storage.getProjectCommandsDir) and <ext>/commands/**/*.toml of a folder
// holding gemini-extension.json (FileCommandLoader.getCommandDirectories).
func classifyTOML(segs []string, layout Layout) Kind {
	if hasSegPair(segs, ".gemini", "commands") {
		return KindGeminiCmd
	}
	files, ok := layout.(Files)
	if !ok {
		return KindNone
	}
	for i := len(segs) - 2; i >= 0; i-- {
		if segs[i] == "commands" && files.HasFile(path.Join(path.Join(segs[:i]...), GeminiExtensionManifest)) {
			return KindGeminiCmd
		}
	}
	return KindNone
}

func classifyJSON(rel, dir, base string, layout Layout) Kind {
	if base == "opencode.json" {
		return KindOCConfig
	}
	if base == GeminiExtensionManifest {
		return KindGeminiExt
	}
	if base == "plugin.json" && path.Base(dir) == ".codex-plugin" {
		return KindCodexPlugin
	}
	if rel == CodexMarketplacePath || strings.HasSuffix(rel, "/"+CodexMarketplacePath) {
		return KindCodexMarket
	}
	if rel == CursorMCPPath || strings.HasSuffix(rel, "/"+CursorMCPPath) {
		return KindCursorMCP
	}
	if path.Base(dir) == ".cursor-plugin" {
		switch base {
		case "plugin.json":
			return KindCursorPlugin
		case "marketplace.json":
			return KindCursorMarket
		}
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

// rulesFolderKind is the kind of a Markdown file directly in another
// agent's rules folder: .kiro/steering (kiro.dev/docs/steering: "markdown
// files in .kiro/steering/") or .windsurf/rules (docs.windsurf.com,
// Memories & Rules); KindNone elsewhere.
func rulesFolderKind(segs []string) Kind {
	n := len(segs)
	switch {
	case n < 3:
		return KindNone
	case segs[n-3] == ".kiro" && segs[n-2] == "steering":
		return KindKiroSteering
	case segs[n-3] == ".windsurf" && segs[n-2] == "rules":
		return KindWindsurfRule
	}
	return KindNone
}

// isWindsurfFlow reports a Markdown file below a .windsurf/workflows
// folder: Windsurf's workflows are the .md files there, in the workspace,
// its sub-folders and up to the git root (docs.windsurf.com/windsurf/
// cascade/workflows, read 2026-12-05). A file in a sub-folder of
// workflows/ is classified too, so that wsflow/nested can say the
// documentation does not name it.
func isWindsurfFlow(segs []string) bool {
	for i := 0; i+2 < len(segs); i++ {
		if segs[i] == ".windsurf" && segs[i+1] == "workflows" {
			return true
		}
	}
	return false
}

// openCodeKind is the kind of a Markdown file in a .opencode folder:
// OpenCode scans each config folder with `{agent,agents}/**/*.md`, the
// legacy `{mode,modes}/*.md` and `{command,commands}/**/*.md`
// (opencode-ai 1.18.33, its embedded config loader).
func openCodeKind(segs []string) Kind {
	for i := len(segs) - 3; i >= 0; i-- {
		if segs[i] != ".opencode" {
			continue
		}
		depth := len(segs) - i - 3 // folders below agent/, mode/, command/
		switch segs[i+1] {
		case "agent", "agents":
			return KindOCAgent
		case "mode", "modes":
			if depth == 0 {
				return KindOCAgent
			}
		case "command", "commands":
			return KindOCCommand
		}
		return KindNone
	}
	return KindNone
}

// legacyRulesKind is the kind of a single legacy rules file (.cursorrules,
// .windsurfrules): each agent reads it at the workspace root only.
func legacyRulesKind(base, dir string) Kind {
	switch {
	case base == ClineRules && path.Base(dir) == ClineRules:
		// A .clinerules file inside a .clinerules folder: Cline lists it
		// and skips it (no .md/.markdown/.txt extension); classified so
		// that cline/extension can say so.
		return KindClineRule
	case dir != "":
		return KindNone
	case base == CursorLegacyRules:
		return KindCursorRule
	case base == WindsurfLegacyRules:
		return KindWindsurfRule
	case base == ClineRules:
		return KindClineRule
	case base == RooRules:
		return KindRooRule
	}
	return KindNone
}

// isRooRule reports a Markdown (.md, .mdc) file at any depth below a
// .roo/rules or .roo/rules-<mode> folder: Roo Code reads every file there
// (RooCodeInc/Roo-Code@cb836567 custom-instructions.ts
// readTextFilesFromDirectory, a recursive readdir).
func isRooRule(segs []string, lower string) bool {
	if !strings.HasSuffix(lower, ".md") && !strings.HasSuffix(lower, ".mdc") {
		return false
	}
	for i := 0; i+2 < len(segs); i++ {
		if segs[i] == ".roo" && (segs[i+1] == "rules" || strings.HasPrefix(segs[i+1], "rules-") && len(segs[i+1]) > len("rules-")) {
			return true
		}
	}
	return false
}

// isClineRule reports a rule file (.md, .markdown, .txt, or a Cursor .mdc) anywhere below a
// .clinerules or .cline/rules folder, except in .clinerules' workflows/,
// hooks/ and skills/. Cline reads only the .md, .markdown and .txt files
// directly in the folder (cline/cline@21cb8d25
// sdk/packages/core/src/extensions/config/user-instruction-config-loader.ts
// discoverRulesLikeFiles); the others are classified too, so that the rules
// can say Cline does not load them.
func isClineRule(segs []string, lower string) bool {
	switch path.Ext(lower) {
	case ".md", ".markdown", ".txt": // what Cline reads (MARKDOWN_EXTENSIONS)
	case ".mdc": // a Cursor rule Cline skips: cline/extension says so
	default:
		return false
	}
	for i, s := range segs[:len(segs)-1] {
		switch {
		case s == ClineRules:
			return i+2 == len(segs) || !slices.Contains(clineOwnFolders, segs[i+1])
		case s == ".cline" && i+2 < len(segs) && segs[i+1] == "rules":
			return true
		}
	}
	return false
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

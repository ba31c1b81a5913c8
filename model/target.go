package model

import (
	"path"
	"slices"
	"sort"
	"strings"
)

// Target is a consumer of customization files whose real reaction to a
// mistake decides how loudly ahpls reports it (customization-formats.md §1).
type Target string

const (
	TargetVSCodeAgentHost Target = "vscode-agent-host" // VH
	TargetVSCode          Target = "vscode"            // VS
	TargetClaudeCode      Target = "claude-code"       // CC
	TargetCopilotCLI      Target = "copilot-cli"       // CL
	TargetAgentSkills     Target = "agent-skills"      // AS
	TargetClaudeUpload    Target = "claude-upload"     // UP, opt-in
	TargetCodex           Target = "codex"             // CX, OpenAI Codex (CLI, IDE, app)
	TargetCursor          Target = "cursor"            // CU
	TargetGeminiCLI       Target = "gemini-cli"        // GC
	TargetKiro            Target = "kiro"              // KI, Kiro (IDE, CLI, Web)
	TargetWindsurf        Target = "windsurf"          // WS, Windsurf's Cascade
	TargetCline           Target = "cline"             // CN, Cline (VS Code extension, CLI)
	TargetRoo             Target = "roo"               // RO, Roo Code
	TargetOpenCode        Target = "opencode"          // OC, sst's OpenCode (opencode-ai)
)

// ConsumerSpec is one consumer as a value: what it is called, whether it
// is a default target, what it reads and installs and where its behaviour
// is seen. AllTargets, DefaultTargets, KnownTarget, DisplayName, the
// documentation order of targets, the evidence codes of the rule table and
// the editors' `ahpls.targets` enum are all read from Consumers, so a new
// consumer is one entry here (and its reactions in the rules it changes).
type ConsumerSpec struct {
	Target Target
	// Name is the plain consumer name used in messages.
	Name string
	// Code is its code in docs/rules.md's legend and in rules' evidence.
	Code string
	// Groups are legend codes that stand for several consumers at once
	// ("V": both VS Code targets).
	Groups []string
	// Default: the consumer is a target when `ahpls.targets` is unset.
	Default bool
	// OptIn: the consumer is a target only when named (no path implies
	// it, see ImpliedTable).
	OptIn bool
	// Legend names the consumer in docs/rules.md's legend when that says
	// more than Name (other products that read files alike).
	Legend string
	// Reads names the paths and manifests the consumer loads.
	Reads []string
	// Install says how a plugin or file reaches it.
	Install string
	// Evidence is where its behaviour is seen (source, validator, spec).
	Evidence string
	// Fields lists, per kind, the header or JSON fields the consumer acts
	// on; a loss of any other field is Info (Consequence.Level, Uses). A
	// kind without a list counts every field as used.
	Fields map[Kind][]string
	// FieldsEvidence is where Fields is seen, per kind.
	FieldsEvidence map[Kind]string
	// SkillRoots are the workspace folders the consumer reads skills from,
	// and SkillDepth how deep below one a SKILL.md may sit (1:
	// <root>/<name>/SKILL.md); nil where the rules do not model it.
	SkillRoots []string
	SkillDepth int
	// PackageManifest is the manifest, relative to a package's root, of
	// the plugins or extensions the consumer installs: a skill outside
	// SkillRoots reaches it only from inside such a package ("" where
	// not modelled: such a skill is taken as read).
	PackageManifest string
	// AltPackageManifests are manifests the consumer also installs a
	// package by, from another agent's marketplace it falls back to:
	// PackageMarketplaces are the marketplaces it reads at the workspace
	// folder's root, the first that exists; when that is not its own (the
	// first), a folder with an AltPackageManifests manifest counts as its
	// package. Codex reads Claude Code's .claude-plugin/marketplace.json
	// where .agents/plugins/marketplace.json is missing and installs a
	// plugin with only .claude-plugin/plugin.json from it. (With its own
	// marketplace present, such a plugin is its only where that lists it,
	// which the rules do not read: taken as not its.)
	AltPackageManifests []string
	PackageMarketplaces []string
	// Implied is the implied-target rule of a consumer recognised by its
	// own folders and files (a row of ImpliedTable); nil where no path
	// names it alone.
	Implied *PathImplied
	// Kinds are the kinds of file the consumer reads at all; nil reads
	// every kind (the consumers whose reading the rules model kind by kind
	// through verdicts). A finding of fixed severity, which names no
	// consumer, is reported on a file only when some effective target reads
	// its kind (Reads).
	Kinds []Kind
	// PluginOnly are kinds of Kinds the consumer reads only inside a
	// plugin (Codex reads a plugin's .mcp.json, never a workspace's).
	PluginOnly []Kind
	// Memory is how the consumer reads memory files (AGENTS.md and its
	// like), for `ahpls list`; nil where view models it by hand (VS Code,
	// Claude Code, Copilot CLI).
	Memory *MemoryReads
}

// Reads reports whether t reads files of kind k at all (ConsumerSpec.Kinds).
func (t Target) Reads(k Kind) bool {
	spec, ok := t.Spec()
	if !ok || spec.Kinds == nil {
		return true
	}
	return slices.Contains(spec.Kinds, k)
}

// PathImplied adds a consumer to a file's targets when a folder of the
// file's path (Segs, one or more segments: ".agents/plugins") or the file's
// name (Bases) is the consumer's own.
type PathImplied struct {
	ID    string // the row's name in ImpliedTable and its tests
	When  string // the row's condition, for docs/rules.md
	Why   string // the consumer's discovery that loads such a file
	Segs  []string
	Bases []string
}

// Matches reports whether rel (workspace-relative, '/'-separated) is such
// a file.
func (p *PathImplied) Matches(rel string) bool {
	for _, s := range p.Segs {
		if hasSeg(rel, s) {
			return true
		}
	}
	base := path.Base(rel)
	for _, b := range p.Bases {
		if base == b {
			return true
		}
	}
	return false
}

// MemoryReads is which memory files a consumer reads and where.
type MemoryReads struct {
	// Files are the file names it reads.
	Files []MemoryFile
	// Other is the reason shown for a memory file of another name; ""
	// leaves it out silently.
	Other string
	// NotRead gives a reason per file name it does not read.
	NotRead map[string]string
}

// MemoryFile is one memory file name a consumer reads.
type MemoryFile struct {
	Name string
	// Anywhere: read in sub-folders too; else at the workspace root only.
	Anywhere bool
	// Elsewhere is the reason shown for one below the root ({dir} stands
	// for its folder); "" leaves it out silently.
	Elsewhere string
}

// ReadsName reports whether the consumer reads memory files of this base
// name anywhere (at the root or below it).
func (m *MemoryReads) ReadsName(base string) bool {
	for _, f := range m.Files {
		if f.Name == base {
			return true
		}
	}
	return false
}

// MemoryScanned reports whether the consumer reads the memory file at rel
// and, if not, why (see MemoryReads).
func (m *MemoryReads) MemoryScanned(rel string) (bool, string) {
	base, dir := path.Base(rel), path.Dir(rel)
	for _, f := range m.Files {
		if f.Name != base {
			continue
		}
		if f.Anywhere || dir == "." {
			return true, ""
		}
		return false, strings.ReplaceAll(f.Elsewhere, "{dir}", dir)
	}
	if why, ok := m.NotRead[base]; ok {
		return false, why
	}
	return false, m.Other
}

// Consumers is every known target, in documentation order.
var Consumers = []ConsumerSpec{
	{Target: TargetVSCodeAgentHost, Name: "the VS Code agent host", Code: "VH", Groups: []string{"V"}, Default: true,
		Reads:    []string{".github/{agents,prompts,instructions,skills}/", ".claude/{agents,skills}/", ".agents/skills/", "AGENTS.md", "CLAUDE.md", ".github/copilot-instructions.md", "plugins (all four manifest locations)"},
		Install:  "plugins published to its sessions (virtual plugins over AHP) or installed from a marketplace",
		Evidence: "the agent host's parsers in microsoft/vscode; the repros of issue #13"},
	{Target: TargetVSCode, Name: "VS Code", Code: "VS", Groups: []string{"V"},
		Reads:    []string{".github/{agents,prompts,instructions,skills}/", ".claude/{agents,skills,settings*.json}", "AGENTS.md", "CLAUDE.md", ".github/copilot-instructions.md", "plugins (all four manifest locations)"},
		Install:  "workspace files by location; plugins from chat.plugins marketplaces",
		Evidence: "microsoft/vscode src/vs/workbench/contrib/chat (promptValidator.ts, promptFileLocations.ts)"},
	{Target: TargetClaudeCode, Name: "Claude Code", Code: "CC",
		Reads:          []string{".claude/{agents,commands,output-styles,rules,skills}/", ".claude/settings*.json", "CLAUDE.md", "CLAUDE.local.md", ".mcp.json", ".claude-plugin/plugin.json", ".claude-plugin/marketplace.json"},
		Install:        "plugins from a marketplace (`/plugin marketplace add`); project files by location",
		Evidence:       "@anthropic-ai/claude-code 2.1.332 (`claude plugin validate DIR --json`, its loaders)",
		Fields:         map[Kind][]string{KindSkill: ccSkillFields, KindCommand: ccSkillFields},
		FieldsEvidence: map[Kind]string{KindSkill: ccSkillFieldsEvidence, KindCommand: ccSkillFieldsEvidence}},
	{Target: TargetCopilotCLI, Name: "Copilot CLI", Code: "CL", Legend: "Copilot CLI and the GitHub.com cloud agent",
		Reads:    []string{".github/{agents,skills,hooks}/", ".github/plugin/plugin.json", ".github/plugin/marketplace.json", "plugin.json", "AGENTS.md"},
		Install:  "a folder with a root plugin.json, or from a marketplace",
		Evidence: "GitHub's Copilot CLI documentation (no source to run): reactions without evidence are Info at most"},
	{Target: TargetAgentSkills, Name: "the Agent Skills spec", Code: "AS", Default: true,
		Reads:    []string{"SKILL.md and its folder"},
		Install:  "none: a specification and its reference validator",
		Evidence: "agentskills.io specification and skills-ref (agentskills/agentskills)"},
	{Target: TargetClaudeUpload, Name: "claude.ai upload", Code: "UP", OptIn: true, Legend: "claude.ai upload and the Skills API",
		Reads:    []string{"SKILL.md and its folder (a zip upload)"},
		Install:  "a skill uploaded to claude.ai or the Skills API",
		Evidence: "anthropics/skills skill-creator/scripts/quick_validate.py"},
	{Target: TargetCodex, Name: "Codex", Code: "CX", Legend: "OpenAI Codex",
		Kinds: []Kind{KindSkill, KindMemory, KindCodexPlugin, KindCodexMarket, KindPlugin, KindMarketplace, KindHooks, KindMCP},
		// MCP servers: the project's come from .codex/config.toml, a
		// plugin's from its .mcp.json (core-plugins loader.rs).
		PluginOnly: []Kind{KindMCP},
		Reads:      []string{"AGENTS.override.md or AGENTS.md per folder, project root to working folder (32 KiB together)", ".agents/skills/ and .codex/skills/ (depth 6)", "<P>/.codex-plugin/plugin.json, else <P>/.claude-plugin/plugin.json", ".agents/plugins/marketplace.json, else .claude-plugin/marketplace.json (marketplace)"},
		Install:    "project files by location; plugins from a marketplace",
		SkillRoots: []string{".agents/skills", ".codex/skills"}, SkillDepth: 6, PackageManifest: ".codex-plugin/plugin.json",
		AltPackageManifests: []string{".claude-plugin/plugin.json"}, PackageMarketplaces: CodexMarketplacePaths,
		Evidence: "openai/codex source: codex-rs/core/src/agents_md.rs @0cf644af, core-skills/src/loader.rs @c9d127cf, core-plugins/src/manifest.rs @01b4840b, core-plugins/src/marketplace.rs @0324d09f and @0e543a2c (MARKETPLACE_MANIFEST_RELATIVE_PATHS), core-plugins/src/store.rs @03d21135, utils/plugins/src/plugin_namespace.rs @10596f25 (find_plugin_manifest_path), core-plugins/src/loader.rs (plugin skills/ by default)",
		Implied: &PathImplied{ID: "codex-dir", When: "a `.codex`, `.codex-plugin` or `.agents/plugins` folder in the path",
			Why:  "Codex reads .codex/skills (its project config folder), a plugin's .codex-plugin/plugin.json and the marketplace .agents/plugins/marketplace.json (openai/codex core-skills loader.rs, core-plugins manifest.rs, marketplace.rs)",
			Segs: []string{".codex-plugin", ".codex", ".agents/plugins"}},
		Memory: &MemoryReads{Other: "Codex reads AGENTS.override.md or AGENTS.md", Files: []MemoryFile{
			{Name: "AGENTS.md", Elsewhere: "Codex reads the AGENTS.md files from the project root down to the folder it starts in: this one only when it starts in {dir}/"},
			{Name: "AGENTS.override.md", Elsewhere: "Codex reads the AGENTS.md files from the project root down to the folder it starts in: this one only when it starts in {dir}/"}}}},
	{Target: TargetCursor, Name: "Cursor", Code: "CU",
		Reads:      []string{".cursor/rules/**/*.mdc", ".cursorrules (legacy)", "AGENTS.md (root and sub-folders)", ".cursor/skills/, .agents/skills/, .claude/skills/, .codex/skills/", ".cursor/mcp.json (the opened folder's)", ".cursor-plugin/plugin.json and marketplace.json (installed plugins)"},
		Install:    "project files by location; plugins from a marketplace",
		SkillRoots: []string{".cursor/skills", ".agents/skills", ".claude/skills", ".codex/skills"}, SkillDepth: 1, PackageManifest: ".cursor-plugin/plugin.json",
		// Its project MCP servers are .cursor/mcp.json (kind cumcp); a
		// workspace .mcp.json is read only as a plugin's.
		PluginOnly: []Kind{KindMCP},
		Evidence:   "cursor.com/docs/rules and cursor.com/docs/context/skills (closed source: documentation only, read 2026-12)",
		Implied: &PathImplied{ID: "cursor-dir", When: "a `.cursor` or `.cursor-plugin` folder in the path, or `.cursorrules`",
			Why:  "Cursor reads .cursor/rules/*.mdc and the legacy .cursorrules (cursor.com/docs/rules)",
			Segs: []string{".cursor", ".cursor-plugin"}, Bases: []string{".cursorrules"}},
		Memory: &MemoryReads{Files: []MemoryFile{{Name: "AGENTS.md", Anywhere: true}}}},
	{Target: TargetGeminiCLI, Name: "Gemini CLI", Code: "GC",
		Kinds:      []Kind{KindSkill, KindMemory, KindGeminiCmd, KindGeminiExt, KindHooks},
		Reads:      []string{"GEMINI.md (context.fileName)", ".gemini/commands/**/*.toml", ".gemini/skills/, .agents/skills/", "gemini-extension.json and its commands/, skills/"},
		Install:    "project files by location; extensions with `gemini extensions install`",
		SkillRoots: []string{".gemini/skills", ".agents/skills"}, SkillDepth: 1, PackageManifest: GeminiExtensionManifest,
		Evidence: "google-gemini/gemini-cli @5411f113 (FileCommandLoader.ts, extension-manager.ts, skillLoader.ts) and `gemini extensions validate` 0.61.0",
		Implied: &PathImplied{ID: "gemini-dir", When: "a `.gemini` folder in the path, or a `gemini-extension.json`",
			Why:  "Gemini CLI reads .gemini/commands, .gemini/skills and an extension's gemini-extension.json (google-gemini/gemini-cli FileCommandLoader.ts, extension-manager.ts)",
			Segs: []string{".gemini"}, Bases: []string{GeminiExtensionManifest}},
		Memory: &MemoryReads{Files: []MemoryFile{{Name: "GEMINI.md", Anywhere: true}},
			NotRead: map[string]string{"AGENTS.md": "Gemini CLI reads GEMINI.md unless its context.fileName setting names AGENTS.md"}}},
	{Target: TargetKiro, Name: "Kiro", Code: "KI",
		Kinds:      []Kind{KindSkill, KindMemory, KindKiroSteering},
		Reads:      []string{".kiro/steering/*.md (inclusion: always, fileMatch, manual, auto)", "AGENTS.md (root, always included)", ".kiro/skills/<name>/SKILL.md"},
		Install:    "project files by location",
		SkillRoots: []string{".kiro/skills"}, SkillDepth: 1,
		Evidence: "kiro.dev/docs/skills (workspace skills reside under .kiro/skills/, one folder per skill), kiro.dev/docs/steering (closed source: documentation only, read 2026-12-05 through stored copies; see diagnostics/kiro/kirosteering.go)",
		Implied: &PathImplied{ID: "kiro-dir", When: "a `.kiro` folder in the path",
			Why:  "Kiro reads the steering files in .kiro/steering/ and the skills in .kiro/skills/ of the workspace (kiro.dev/docs/steering, kiro.dev/docs/skills)",
			Segs: []string{".kiro"}},
		// AGENTS.md of the workspace root, always included (kiro.dev/docs/steering, "AGENTS.md").
		Memory: &MemoryReads{Files: []MemoryFile{{Name: "AGENTS.md", Elsewhere: "Kiro reads the AGENTS.md at the root of the workspace"}}}},
	{Target: TargetWindsurf, Name: "Windsurf", Code: "WS",
		Kinds:      []Kind{KindSkill, KindMemory, KindWindsurfRule, KindWindsurfFlow},
		Reads:      []string{".windsurf/rules/*.md (in the workspace, its sub-folders and up to the git root; trigger: always_on, manual, model_decision, glob)", ".windsurfrules (legacy)", ".windsurf/workflows/*.md (in the workspace, its sub-folders and up to the git root; invoked by hand as /<file name>)", "AGENTS.md", ".windsurf/skills/<name>/SKILL.md, .agents/skills/<name>/SKILL.md (.claude/skills only with Claude Code config reading turned on)"},
		Install:    "project files by location",
		SkillRoots: []string{".windsurf/skills", ".agents/skills"}, SkillDepth: 1,
		Evidence: "docs.windsurf.com Cascade Skills (skill scopes: .windsurf/skills, and .agents/skills for cross-agent compatibility; .claude/skills when Claude Code config reading is enabled) Memories & Rules and Workflows (closed source: documentation only, read 2026-12-05 through stored copies; see diagnostics/windsurf/windsurfrule.go and workflow.go)",
		Implied: &PathImplied{ID: "windsurf-dir", When: "a `.windsurf` folder in the path, or `.windsurfrules`",
			Why:  "Windsurf's Cascade reads .windsurf/rules/*.md, the legacy .windsurfrules and the workflows in .windsurf/workflows/ (docs.windsurf.com, Memories & Rules, Workflows)",
			Segs: []string{".windsurf"}, Bases: []string{WindsurfLegacyRules}},
		// The root AGENTS.md always on, one in a sub-folder as a glob rule
		// for that folder (docs.windsurf.com, Memories & Rules).
		Memory: &MemoryReads{Files: []MemoryFile{{Name: "AGENTS.md", Anywhere: true}}}},
	{Target: TargetCline, Name: "Cline", Code: "CN",
		Kinds:   []Kind{KindSkill, KindMemory, KindClineRule},
		Reads:   []string{".clinerules (one file) or the .md, .markdown and .txt files directly in a .clinerules/ folder (sub-folders not read; workflows/, hooks/ and skills/ are its workflows, hooks and skills)", ".cline/rules/ (the same files)", "AGENTS.md (root)", ".clinerules/skills/, .cline/skills/, .agents/skills/ (<folder>/SKILL.md one level down)", "not .cursorrules, .cursor/rules or .windsurfrules: at this commit they are listed with toggles in its Rules panel, but their text reaches no prompt"},
		Install: "project files by location",
		// sdk/packages/shared/src/storage/paths.ts getWorkspaceSkillDirectories;
		// user-instruction-config-loader.ts discoverSkillFiles reads one
		// level (each sub-folder's SKILL.md). Its plugins are JS/TS modules
		// (plugin-config-loader.ts), not a manifest folder: no PackageManifest.
		SkillRoots: []string{".clinerules/skills", ".cline/skills", ".agents/skills"}, SkillDepth: 1,
		Fields:         map[Kind][]string{KindClineRule: {"name", "disabled", "enabled"}},
		Evidence:       "cline/cline@21cb8d25 (2026-08-22) sdk/packages/core/src/extensions/config/user-instruction-config-loader.ts (discoverSkillFiles: a SKILL.md in a skills folder or one folder below it), sdk/packages/shared/src/storage/paths.ts resolveRulesConfigSearchPaths and getWorkspaceSkillDirectories (.clinerules/skills, .cline/skills, .agents/skills), sdk/packages/core/src/runtime/safety/rules.ts; the VS Code extension runs its sessions through this SDK (apps/vscode/src/sdk/vscode-session-host.ts)",
		FieldsEvidence: map[Kind]string{KindClineRule: "cline/cline@21cb8d25 sdk/packages/core/src/extensions/config/user-instruction-config-loader.ts parseRuleConfigFromMarkdown reads name, disabled and enabled; the rest of the header is kept and read by nothing (sdk/packages/core/src/runtime/safety/rules.ts)"},
		Implied: &PathImplied{ID: "cline-rules", When: "a `.clinerules` file or folder in the path, or a `.cline/rules` folder",
			Why:  "Cline reads the workspace's .clinerules (a file, or the files directly in the folder) and .cline/rules (cline/cline@21cb8d25 sdk/packages/shared/src/storage/paths.ts resolveRulesConfigSearchPaths)",
			Segs: []string{ClineRules, ".cline/rules"}, Bases: []string{ClineRules}},
		// The SDK's rule search paths start with <workspace>/AGENTS.md.
		Memory: &MemoryReads{Files: []MemoryFile{{Name: "AGENTS.md", Elsewhere: "Cline reads the AGENTS.md at the root of the workspace"}}}},
	{Target: TargetRoo, Name: "Roo Code", Code: "RO",
		Kinds:      []Kind{KindSkill, KindMemory, KindRooRule, KindClineRule, KindRooModes},
		Reads:      []string{".roomodes (project custom modes, YAML or JSON; root)", ".roo/rules/ (every file at any depth, as text; no header is read)", ".roo/rules-<mode>/ (the same, for that mode)", ".roorules, then .clinerules (one file each), only when no .roo/rules holds a file; .roorules-<mode>, then .clinerules-<mode>, only when no .roo/rules-<mode> does", "AGENTS.md or AGENT.md, and AGENTS.local.md (root)", ".roo/skills/<name>/SKILL.md and .agents/skills/<name>/SKILL.md (and their skills-<mode>/ twins)"},
		Install:    "project files by location",
		SkillRoots: []string{".roo/skills", ".agents/skills"}, SkillDepth: 1,
		Evidence: "RooCodeInc/Roo-Code@cb836567 (2026-04-14) src/core/prompts/sections/custom-instructions.ts (loadRuleFiles, addCustomInstructions), src/services/roo-config/index.ts getRooDirectoriesForCwd, src/services/skills/SkillsManager.ts (getSkillsDirectories, scanSkillsDirectory: one folder below each skills folder), src/core/config/CustomModesManager.ts (getWorkspaceRoomodes, loadModesFromFile)",
		Implied: &PathImplied{ID: "roo-dir", When: "a `.roo` folder in the path, `.roorules` or `.roomodes`",
			Why:  "Roo Code reads .roo/rules/ and .roo/rules-<mode>/ of the workspace and, without them, the legacy .roorules (RooCodeInc/Roo-Code@cb836567 src/core/prompts/sections/custom-instructions.ts), and its project modes from the root .roomodes (src/core/config/CustomModesManager.ts getWorkspaceRoomodes)",
			Segs: []string{".roo"}, Bases: []string{RooRules, RooModes}},
		// loadAgentRulesFileFromDirectory: AGENTS.md (or AGENT.md) of the workspace root.
		Memory: &MemoryReads{Files: []MemoryFile{{Name: "AGENTS.md", Elsewhere: "Roo Code reads the AGENTS.md at the root of the workspace (a sub-folder's only with its enableSubfolderRules setting)"}}}},
	{Target: TargetOpenCode, Name: "OpenCode", Code: "OC",
		Kinds: []Kind{KindSkill, KindMemory, KindOCConfig, KindOCAgent, KindOCCommand},
		Reads: []string{"opencode.json, opencode.jsonc (JSONC; each folder from the working folder up to the worktree root, and .opencode/)",
			".opencode/{agent,agents}/**/*.md, legacy .opencode/{mode,modes}/*.md", ".opencode/{command,commands}/**/*.md",
			".opencode/{skill,skills}/**/SKILL.md, .claude/skills/**/SKILL.md, .agents/skills/**/SKILL.md", "AGENTS.md, CLAUDE.md, CONTEXT.md (instruction files)"},
		Install:    "project files by location; plugins as npm packages named in opencode.json `plugin` or .opencode/plugin(s)/*.{ts,js}",
		SkillRoots: []string{".opencode/skills", ".opencode/skill", ".claude/skills", ".agents/skills"}, SkillDepth: 32,
		Evidence: "opencode-ai 1.18.33 (npm opencode-linux-x64@1.18.33, its embedded JS read with strings; `opencode --pure debug config`, `debug skill` run in isolated folders; see docs/rules.md)",
		Implied: &PathImplied{ID: "opencode-dir", When: "a `.opencode` folder in the path, or `opencode.json` / `opencode.jsonc`",
			Why:  "OpenCode reads opencode.json(c) and .opencode/{agent,command,skill}s (opencode-ai 1.18.33)",
			Segs: []string{".opencode"}, Bases: []string{"opencode.json", "opencode.jsonc"}},
		// Its instruction files are AGENTS.md, else CLAUDE.md, CONTEXT.md
		// (opencode-ai 1.18.33: `y=["AGENTS.md",…"CLAUDE.md"…,"CONTEXT.md"]`);
		// only the root AGENTS.md is listed.
		Memory: &MemoryReads{Files: []MemoryFile{{Name: "AGENTS.md"}}}},
}

// otherAgentsSkillRoots are workspace skill folders of consumers whose
// discovery is not in SkillRoots (VS Code and Copilot, Claude Code).
var otherAgentsSkillRoots = []string{".github/skills", ".claude/skills"}

// InAnotherAgentsSkillFolder reports a skill at rel that sits in a
// workspace skill folder of some consumer but in none of t's SkillRoots:
// t never discovers it there (a skill of its own plugin or extension sits
// in no such folder), so t's reaction to its content is none (issue #38:
// `--targets codex` gave an Error for a .github/skills skill Codex never
// reads, while `ahpls list` said it is not scanned). False for consumers
// without SkillRoots.
func InAnotherAgentsSkillFolder(t Target, rel string) bool {
	spec, ok := t.Spec()
	if !ok || len(spec.SkillRoots) == 0 {
		return false
	}
	under := func(root string) bool { return strings.HasPrefix(rel, root+"/") }
	for _, r := range spec.SkillRoots {
		if under(r) {
			return false
		}
	}
	for _, r := range otherAgentsSkillRoots {
		if under(r) {
			return true
		}
	}
	for _, c := range Consumers {
		for _, r := range c.SkillRoots {
			if under(r) {
				return true
			}
		}
	}
	return false
}

// SkillUnread reports a skill at rel that t never discovers where it is:
// one in another agent's skill folder (InAnotherAgentsSkillFolder), or one
// outside t's skill roots and in none of its packages (a folder holding
// t's PackageManifest: a Codex plugin, whose skills/ or manifest-named
// folders Codex reads once it is installed, openai/codex core-plugins
// loader.rs DEFAULT_SKILLS_DIR_NAME; a Gemini CLI extension, whose skills/
// Gemini CLI reads, gemini-cli extension-manager.ts loadSkillsFromDir; a
// Cursor plugin; a consumer without packages, OpenCode, reads none outside
// its roots). layout answers which files exist; without model.Files (a
// lone file) a skill that a package could hold is taken as read.
func SkillUnread(t Target, rel string, layout Layout) bool {
	if InAnotherAgentsSkillFolder(t, rel) {
		return true
	}
	spec, ok := t.Spec()
	if !ok || len(spec.SkillRoots) == 0 {
		return false // t's skill discovery is not modelled
	}
	// A skill root below the workspace folder counts too: an agent reads
	// the skill folders of the folder it starts in, which may be one of
	// the workspace's sub-projects.
	for _, r := range spec.SkillRoots {
		if strings.HasPrefix(rel, r+"/") || strings.Contains(rel, "/"+r+"/") {
			return false
		}
	}
	if spec.PackageManifest == "" {
		// No packages carry skills to t (OpenCode): outside its roots it
		// never reads one (issue #38: --targets opencode gave 41 Errors
		// on locales/zh-CN/skills, docs/zh-CN/skills and a root skills/).
		return true
	}
	files, hasFiles := layout.(Files)
	if !hasFiles {
		return false
	}
	return !InPackage(t, rel, files)
}

// InPackage reports whether some folder above rel holds t's
// ConsumerSpec.PackageManifest (rel is inside a Codex plugin, a Gemini CLI
// extension, a Cursor plugin), as files says. False where t models none.
func InPackage(t Target, rel string, files Files) bool {
	spec, ok := t.Spec()
	if !ok || spec.PackageManifest == "" {
		return false
	}
	manifests := packageManifests(spec, files)
	segs := strings.Split(rel, "/")
	return inPackageDir(segs[:max(len(segs)-2, 0)], manifests, files)
}

// InPackageDir reports whether dir or a folder above it holds t's package
// manifest: a file directly in a Codex plugin's root (its .mcp.json) is in
// the package, which InPackage, asked about skills a folder further down,
// does not look at.
func InPackageDir(t Target, dir string, files Files) bool {
	spec, ok := t.Spec()
	if !ok || spec.PackageManifest == "" {
		return false
	}
	manifests := packageManifests(spec, files)
	var segs []string
	if dir != "" && dir != "." {
		segs = strings.Split(dir, "/")
	}
	return inPackageDir(segs, manifests, files)
}

// packageManifests are the manifests that make a folder one of spec's
// packages: its own, and the alternates when the workspace's marketplace
// is one that takes them (Codex reading .claude-plugin/marketplace.json).
func packageManifests(spec ConsumerSpec, files Files) []string {
	manifests := []string{spec.PackageManifest}
	for i, m := range spec.PackageMarketplaces {
		if files.HasFile(m) {
			if i > 0 {
				manifests = append(manifests, spec.AltPackageManifests...)
			}
			break
		}
	}
	return manifests
}

// inPackageDir looks for one of manifests in the folder segs names and
// each folder above it.
func inPackageDir(segs, manifests []string, files Files) bool {
	for i := len(segs); i >= 0; i-- {
		for _, m := range manifests {
			if files.HasFile(path.Join(path.Join(segs[:i]...), m)) {
				return true
			}
		}
	}
	return false
}

// AllTargets lists every known target id in documentation order.
var AllTargets = func() []Target {
	out := make([]Target, len(Consumers))
	for i, c := range Consumers {
		out[i] = c.Target
	}
	return out
}()

// DefaultTargets is what `ahpls.targets` means when unset or empty.
var DefaultTargets = func() []Target {
	var out []Target
	for _, c := range Consumers {
		if c.Default {
			out = append(out, c.Target)
		}
	}
	return out
}()

// Spec returns the target's entry of Consumers.
func (t Target) Spec() (ConsumerSpec, bool) {
	for _, c := range Consumers {
		if c.Target == t {
			return c, true
		}
	}
	return ConsumerSpec{}, false
}

// KnownTarget reports whether id names a target.
func KnownTarget(id string) bool {
	_, ok := Target(id).Spec()
	return ok
}

// DisplayName is the plain consumer name used in messages.
func (t Target) DisplayName() string {
	if c, ok := t.Spec(); ok {
		return c.Name
	}
	return string(t)
}

// TargetsOfCode returns the targets an evidence code of the legend covers:
// a consumer's own code or a group code; nil for an unknown code. The
// caller must not change the slice.
func TargetsOfCode(code string) []Target { return codeTargets[code] }

var codeTargets = func() map[string][]Target {
	m := map[string][]Target{}
	for _, c := range Consumers {
		for _, code := range append([]string{c.Code}, c.Groups...) {
			m[code] = append(m[code], c.Target)
		}
	}
	return m
}()

// Reaction is what a consumer does with a mistake. A trailing "?" marks an
// unverified reaction; a bare "?" means unknown.
type Reaction string

const (
	Skip         Reaction = "skip"     // the file is silently not loaded
	Reject       Reaction = "rej"      // loud failure: the file or plugin does not load
	NoHeader     Reaction = "noheader" // loads with its whole header dropped (empty metadata)
	Drop         Reaction = "drop"     // loads, one entry of it is dropped (never runs)
	Lose         Reaction = "lose"     // loads, fields silently dropped, cut or changed
	Warn         Reaction = "warn"     // loads, the consumer warns
	Ignore       Reaction = "ign"      // unsupported field ignored
	ShadowedBy   Reaction = "shadowed" // another file of the same name wins
	Wins         Reaction = "wins"     // this file wins over another of the same name
	Undiscovered Reaction = "undiscovered"
	LinkedOnly   Reaction = "linked" // not discovered, read through a link of another file
	Spec         Reaction = "spec"   // only spec text forbids it
	Should       Reaction = "should" // spec recommendation
	OK           Reaction = "ok"     // accepted
	Unknown      Reaction = "?"
)

func splitGuess(r Reaction) (Reaction, bool) {
	base, guessed := strings.CutSuffix(string(r), "?")
	return Reaction(base), guessed
}

// Reactions lists every reaction code in documentation order; a code with
// a trailing "?" (e.g. "lose?") is that reaction, unverified.
var Reactions = []Reaction{Skip, Reject, NoHeader, Drop, Lose, Warn, ShadowedBy, Wins, Undiscovered, LinkedOnly, Ignore, Spec, Should, OK, Unknown}

// Words says r as a table cell ("silently not loaded"): the editor's hover
// and every other place a person or a model reads a reaction.
func (r Reaction) Words() string {
	base, guessed := strings.CutSuffix(string(r), "?")
	var w string
	switch Reaction(base) {
	case Skip:
		w = "silently not loaded"
	case Reject:
		w = "fails loudly"
	case NoHeader:
		w = "loads with its whole header dropped"
	case Drop:
		w = "loads, drops this entry"
	case ShadowedBy:
		w = "loads another file of the name instead"
	case Wins:
		w = "loads this one over another of the name"
	case Undiscovered:
		w = "does not discover it"
	case LinkedOnly:
		w = "reads it only through a link"
	case Lose:
		w = "loads, silently drops something"
	case Warn:
		w = "loads with a warning"
	case Ignore:
		w = "ignores it"
	case Spec:
		w = "only the spec forbids it"
	case Should:
		w = "spec recommendation"
	case OK:
		w = "accepts it"
	default:
		w = "unknown"
	}
	if guessed && base != "" {
		w += " (unverified)"
	}
	return w
}

// Sentence says what consumer t does, as a clause a model can read without
// the code table: "Claude Code refuses it", "VS Code ignores this field".
func (r Reaction) Sentence(t Target) string {
	base, guessed := strings.CutSuffix(string(r), "?")
	var verb string
	switch Reaction(base) {
	case Skip:
		verb = "does not load it (silently)"
	case Reject:
		verb = "refuses it (with an error)"
	case NoHeader:
		verb = "loads it with its whole header dropped"
	case Drop:
		verb = "loads the file but drops this entry (it never runs)"
	case ShadowedBy:
		verb = "loads another file of the same name instead of this one"
	case Wins:
		verb = "loads this one and not another file of the same name"
	case Undiscovered:
		verb = "does not discover it"
	case LinkedOnly:
		verb = "reads it only through another file's link"
	case Lose:
		verb = "loads it but silently drops part of it"
	case Warn:
		verb = "loads it with a warning"
	case Ignore:
		verb = "ignores this field"
	case Spec:
		verb = "accepts it, though the spec forbids it"
	case Should:
		verb = "accepts it; the spec recommends otherwise"
	case OK:
		verb = "accepts it"
	default:
		return "what " + t.DisplayName() + " does is unknown (not verified)"
	}
	if t == TargetAgentSkills {
		// The spec is not a program that loads files: it forbids or advises.
		switch Reaction(base) {
		case Skip, Reject, Lose, Warn, Spec:
			verb = "forbids it"
		case Ignore:
			verb = "does not define this field"
		case Should:
			verb = "recommends otherwise"
		}
	}
	out := t.DisplayName() + " " + verb
	if guessed {
		out += " (unverified)"
	}
	return out
}

// Unverified marks r as a guess ("rej" → "rej?").
func (r Reaction) Unverified() Reaction {
	if r == Unknown || strings.HasSuffix(string(r), "?") {
		return r
	}
	return r + "?"
}

// Severity maps a reaction to a diagnostic severity when the consumer uses
// what is lost; report is false for reactions that deserve no diagnostic.
func (r Reaction) Severity() (s Severity, report bool) { return r.Level(true) }

// Level maps a reaction to a severity through its consequence
// (Consequence.Level); used says whether the consumer uses what the finding
// loses. Unverified reactions cap at Warning and an unknown one is Info:
// never an Error on a guess.
func (r Reaction) Level(used bool) (s Severity, report bool) {
	if r == Unknown {
		return SeverityInfo, true
	}
	c, ok := r.Consequence()
	if !ok {
		return 0, false
	}
	s = c.Level(used)
	if _, guessed := splitGuess(r); guessed && s < SeverityWarning {
		s = SeverityWarning
	}
	return s, true
}

// Verdicts holds every target's reaction to one finding.
type Verdicts map[Target]Reaction

// V is shorthand for the two VS Code targets that react alike.
func V(r Reaction) Verdicts {
	return Verdicts{TargetVSCode: r, TargetVSCodeAgentHost: r}
}

// With returns a copy of v with more verdicts added.
func (v Verdicts) With(more Verdicts) Verdicts {
	out := make(Verdicts, len(v)+len(more))
	for t, r := range v {
		out[t] = r
	}
	for t, r := range more {
		out[t] = r
	}
	return out
}

// Decide returns the severity over the effective targets (the most severe
// one wins), the targets that drove it (most severe first, then by
// documentation order) and whether anything is to be reported at all.
func (v Verdicts) Decide(effective []Target) (sev Severity, by []Target, report bool) {
	return v.DecideUsing(effective, nil)
}

// DecideUsing is Decide where used(t) says whether consumer t uses what the
// finding loses (nil: every consumer does).
func (v Verdicts) DecideUsing(effective []Target, used func(Target) bool) (sev Severity, by []Target, report bool) {
	for _, t := range effective {
		r, ok := v[t]
		if !ok {
			continue
		}
		s, rep := r.Level(used == nil || used(t))
		if !rep {
			continue
		}
		switch {
		case !report || s < sev:
			sev, by, report = s, []Target{t}, true
		case s == sev:
			by = append(by, t)
		}
	}
	sort.SliceStable(by, func(i, j int) bool { return targetOrder(by[i]) < targetOrder(by[j]) })
	return sev, by, report
}

func targetOrder(t Target) int {
	for i, x := range AllTargets {
		if x == t {
			return i
		}
	}
	return len(AllTargets)
}

// EffectiveTargets is the configured target set plus the families a file's
// path implies (`ahpls.impliedTargets`, ImpliedTable): `.claude/**`,
// `.claude-plugin/**`, `CLAUDE*.md` and Claude plugins add claude-code;
// `.github/plugin/**` and Copilot plugins add copilot-cli. Callers with a
// layout use EffectiveTargetsIn, which also knows whether a Claude
// marketplace lists the plugin; the hooks rules add copilot-cli for a hooks
// file in Copilot CLI's format themselves (that needs the content).
func EffectiveTargets(configured []Target, implied bool, rel string, pluginFormat PluginFormat) []Target {
	if len(configured) == 0 {
		configured = DefaultTargets
	}
	out := append([]Target(nil), configured...)
	if !implied {
		return out
	}
	add := func(t Target) {
		for _, x := range out {
			if x == t {
				return
			}
		}
		out = append(out, t)
	}
	base := path.Base(rel)
	if hasSeg(rel, ".claude") || hasSeg(rel, ".claude-plugin") { // claude-dir, claude-plugin-dir
		add(TargetClaudeCode)
	}
	if strings.HasPrefix(base, "CLAUDE") && strings.HasSuffix(base, ".md") { // claude-md
		add(TargetClaudeCode)
	}
	if hasSeg(rel, ".github/plugin") { // copilot-plugin-dir
		add(TargetCopilotCLI)
	}
	for _, c := range Consumers {
		if c.Implied != nil && c.Implied.Matches(rel) {
			add(c.Target)
		}
	}
	switch pluginFormat {
	case FormatClaude:
		add(TargetClaudeCode)
	case FormatCopilot:
		add(TargetCopilotCLI)
	}
	return out
}

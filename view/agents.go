package view

import (
	"path"
	"strings"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

// Codex, Cursor and Gemini CLI (issue #38): which workspace files each
// reads, for `ahpls list`. Each answer cites the consumer's discovery:
//   - Codex, openai/codex core-skills/src/loader.rs (commit c9d127cf):
//     repo skills in <project>/.codex/skills (the project config folder)
//     and .agents/skills, searched to depth 6, dot-entries skipped;
//     core/src/agents_md.rs (commit 0cf644af): per folder from the project
//     root to the working folder, AGENTS.override.md, else AGENTS.md.
//   - Cursor, cursor.com/docs/rules and /docs/context/skills (read
//     2026-12): .cursor/rules/**/*.mdc, the legacy .cursorrules, AGENTS.md
//     at the root and in sub-folders; skills in .cursor/skills,
//     .agents/skills and, for compatibility, .claude/skills and
//     .codex/skills.
//   - Gemini CLI, google-gemini/gemini-cli (commit 5411f113):
//     core/src/skills/skillLoader.ts loadSkillsFromDir globs SKILL.md and
//     */SKILL.md in .gemini/skills and .agents/skills
//     (config/storage.ts); cli/src/services/FileCommandLoader.ts reads
//     .gemini/commands/**/*.toml, named by their path with ':'; GEMINI.md
//     is its context file (context.fileName).
//   - Kiro, kiro.dev/docs/steering (read 2026-12-05): .kiro/steering/*.md
//     of the workspace it opens, named #<file name> in chat, and the
//     root AGENTS.md, always included; skills in .kiro/skills (kiro.dev/docs/skills).
//   - Windsurf, docs.windsurf.com Memories & Rules (read 2026-12-05):
//     .windsurf/rules/*.md of the workspace, its sub-folders and up to the
//     git root, the legacy root .windsurfrules, and AGENTS.md (root always
//     on, a sub-folder's as a glob rule); skills in .windsurf/skills and .agents/skills
//     (docs.windsurf.com, Cascade Skills); workflows, the .md files in
//     .windsurf/workflows/ of the workspace, its sub-folders and up to the
//     git root, each invoked by hand as /<file name>
//     (docs.windsurf.com/windsurf/cascade/workflows, read 2026-12-05).
//   - Cline, cline/cline@21cb8d25 (sdk/packages/shared/src/storage/paths.ts
//     resolveRulesConfigSearchPaths, core/src/extensions/config/
//     user-instruction-config-loader.ts): the workspace root's AGENTS.md,
//     .clinerules (one file, or the .md/.markdown/.txt files directly in
//     the folder) and .cline/rules, each rule named by its header's name
//     or its file name without the extension; skills in .clinerules/skills,
//     .cline/skills and .agents/skills, one folder down. Its workflows are
//     not modelled; .cursorrules and .windsurfrules reach no prompt there.
//   - Roo Code, RooCodeInc/Roo-Code@cb836567 (src/core/prompts/sections/
//     custom-instructions.ts): every file below the workspace root's
//     .roo/rules and .roo/rules-<mode>, the legacy .roorules only without
//     them (roo/legacy-shadowed says when), AGENTS.md or AGENT.md at the
//     root. A sub-folder's .roo only with its enableSubfolderRules setting.
//     Skills in .roo/skills and .agents/skills, one folder down
//     (src/services/skills/SkillsManager.ts; skills-<mode>/ not modelled).
//   - OpenCode, opencode-ai 1.18.33 (its embedded JS; `opencode --pure
//     debug config`, `debug skill`): the .opencode folders from the folder
//     it starts in up to the worktree root, with agents in
//     {agent,agents}/**/*.md, commands in {command,commands}/**/*.md and
//     skills in {skill,skills}/**/SKILL.md; .claude/skills and
//     .agents/skills (skills/**/SKILL.md, any depth); AGENTS.md.

// agentTarget reports the consumers this file answers for: every one but
// those scan.go models by hand (the VS Code family, Claude Code, Copilot
// CLI and the Agent Skills readers), so a new consumer's value is all
// `ahpls list` needs.
func agentTarget(t model.Target) bool {
	switch t {
	case model.TargetVSCode, model.TargetVSCodeAgentHost, model.TargetClaudeCode, model.TargetCopilotCLI,
		model.TargetAgentSkills, model.TargetClaudeUpload:
		return false
	}
	return true
}

// agentSkillRoots are the workspace skill folders each reads, and how deep
// below one a SKILL.md may sit (1: <root>/<name>/SKILL.md).
func agentSkillRoots(t model.Target) (roots []string, depth int) {
	spec, _ := t.Spec()
	return spec.SkillRoots, spec.SkillDepth
}

// agentScanned is scanned() for Codex, Cursor, Gemini CLI, Kiro, Windsurf
// and OpenCode.
func agentScanned(t model.Target, f File) (bool, string) {
	rel := f.Rel
	name := t.DisplayName()
	switch f.Kind {
	case model.KindSkill:
		roots, depth := agentSkillRoots(t)
		if len(roots) == 0 {
			return false, "" // no skill folders in the consumer's value
		}
		for _, r := range roots {
			rest, ok := strings.CutPrefix(rel, r+"/")
			if !ok {
				continue
			}
			d := strings.Count(rest, "/")
			if d == 0 && (t == model.TargetGeminiCLI || t == model.TargetOpenCode || t == model.TargetCline) {
				return true, "" // a SKILL.md directly in the folder (OpenCode: {skill,skills}/**/SKILL.md; Cline: discoverSkillFiles)
			}
			if d < 1 || d > depth {
				return false, name + " looks for <folder>/SKILL.md " + depthWords(depth) + " below " + r
			}
			for _, s := range strings.Split(rest, "/") {
				if strings.HasPrefix(s, ".") && t == model.TargetCodex {
					return false, "Codex skips folders whose name starts with a dot"
				}
			}
			return true, ""
		}
		return false, name + " reads project skills from " + strings.Join(roots, ", ")
	case model.KindMemory:
		return agentMemoryScanned(t, rel)
	case model.KindCursorRule:
		if t == model.TargetCursor {
			return true, ""
		}
	case model.KindCursorMCP:
		if t == model.TargetCursor {
			if rel == model.CursorMCPPath {
				return true, ""
			}
			return false, "Cursor reads .cursor/mcp.json at the root of the folder it opens: this one only when it opens " + strings.TrimSuffix(rel, "/"+model.CursorMCPPath) + "/"
		}
	case model.KindKiroSteering:
		if t == model.TargetKiro {
			if strings.HasPrefix(rel, ".kiro/steering/") {
				return true, ""
			}
			return false, "Kiro reads .kiro/steering at the root of the workspace it opens: this one only when it opens " + strings.TrimSuffix(rel[:strings.Index(rel, ".kiro/steering/")], "/") + "/"
		}
	case model.KindWindsurfRule:
		if t == model.TargetWindsurf {
			return true, "" // the workspace's .windsurf/rules and those of its sub-folders
		}
	case model.KindWindsurfFlow:
		if t == model.TargetWindsurf {
			// The workspace's .windsurf/workflows and those of its
			// sub-folders. A file in a sub-folder of workflows/ is not
			// listed: the documentation does not say whether Windsurf
			// reads it, nor its /name (wsflow/nested says so).
			_, after, _ := strings.Cut(rel[strings.LastIndex(rel, ".windsurf/workflows/")+1:], "workflows/")
			return !strings.Contains(after, "/"), ""
		}
	case model.KindClineRule:
		if t == model.TargetCline {
			if rel == model.ClineRules || strings.HasPrefix(rel, model.ClineRules+"/") || strings.HasPrefix(rel, ".cline/rules/") {
				return true, "" // what cline/nested and cline/extension say decides the rest
			}
			return false, "Cline reads .clinerules and .cline/rules at the root of the workspace it opens: this one only when it opens " + clineRoot(rel)
		}
	case model.KindRooRule:
		if t == model.TargetRoo {
			if rel == model.RooRules || strings.HasPrefix(rel, ".roo/") {
				return true, ""
			}
			return false, "Roo Code reads .roo at the root of the workspace (a sub-folder's only with its enableSubfolderRules setting)"
		}
	case model.KindRooModes:
		if t == model.TargetRoo {
			return true, "" // classified at the workspace root only
		}
	case model.KindOCAgent, model.KindOCCommand:
		if t == model.TargetOpenCode {
			if strings.HasPrefix(rel, ".opencode/") {
				return true, ""
			}
			return false, "OpenCode reads the .opencode folders from the folder it starts in up to the worktree root: this one only when it starts in " + strings.TrimSuffix(rel[:strings.Index(rel, ".opencode/")], "/") + "/"
		}
	case model.KindGeminiCmd:
		if t == model.TargetGeminiCLI {
			if strings.HasPrefix(rel, ".gemini/commands/") {
				return true, ""
			}
			if strings.Contains(rel, "/.gemini/commands/") {
				return false, "Gemini CLI reads the project's .gemini/commands, at the root of the folder it starts in"
			}
			return true, "" // an extension's command: listed with Install
		}
	}
	return false, ""
}

// clineRoot is the folder holding the .clinerules or .cline folder of rel.
func clineRoot(rel string) string {
	i := strings.Index(rel, "/"+model.ClineRules+"/")
	if j := strings.Index(rel, "/.cline/rules/"); i < 0 || j >= 0 && j < i {
		i = j
	}
	return rel[:i+1]
}

// agentMemoryScanned is agentScanned for AGENTS.md and the other memory
// files: what the consumer's value says it reads (model.MemoryReads).
func agentMemoryScanned(t model.Target, rel string) (bool, string) {
	spec, _ := t.Spec()
	if spec.Memory == nil {
		return false, ""
	}
	return spec.Memory.MemoryScanned(rel)
}

func depthWords(depth int) string {
	if depth == 1 {
		return "directly"
	}
	if depth > 9 {
		return "at any depth"
	}
	return "at most " + string(rune('0'+depth)) + " folders"
}

// agentItemName names the items of the kinds only these consumers read.
func agentItemName(f File) string {
	rel := f.Rel
	switch f.Kind {
	case model.KindGeminiCmd:
		segs := strings.Split(strings.TrimSuffix(rel, path.Ext(rel)), "/")
		for i := len(segs) - 2; i >= 0; i-- {
			if segs[i] == "commands" {
				return "/" + strings.Join(segs[i+1:], ":")
			}
		}
	case model.KindCursorRule:
		if i := strings.Index(rel, ".cursor/rules/"); i >= 0 {
			return strings.TrimSuffix(rel[i+len(".cursor/rules/"):], path.Ext(rel))
		}
	case model.KindOCAgent, model.KindOCCommand:
		// An agent is named by its path below agent(s)/ or mode(s)/ (@name
		// in the prompt), a command by its path below command(s)/
		// (/name), without .md (opencode-ai 1.18.33:
		// `.replace(/^(command|commands)\//,"").replace(/\.md$/,"")`).
		segs := strings.Split(strings.TrimSuffix(rel, path.Ext(rel)), "/")
		for i := len(segs) - 2; i >= 1; i-- {
			if segs[i-1] == ".opencode" {
				name := strings.Join(segs[i+1:], "/")
				if f.Kind == model.KindOCCommand {
					return "/" + name
				}
				return "@" + name
			}
		}
	case model.KindKiroSteering:
		// Chat names a steering file by #<file name>.
		return "#" + strings.TrimSuffix(path.Base(rel), path.Ext(rel))
	case model.KindClineRule:
		// A rule is named by its header's name, else its file name
		// without the extension (resolveRuleFallbackName).
		if rel == model.ClineRules {
			return rel
		}
		return strings.TrimSuffix(path.Base(rel), path.Ext(rel))
	case model.KindRooRule:
		// Roo Code names a rule by its path in the prompt ("# Rules from
		// .roo/rules/x.md:"); a mode's rules say the mode.
		if i := strings.Index(rel, ".roo/rules-"); i >= 0 {
			mode, _, _ := strings.Cut(rel[i+len(".roo/rules-"):], "/")
			return mode + ": " + path.Base(rel)
		}
		return path.Base(rel)
	case model.KindWindsurfRule:
		if rel == model.WindsurfLegacyRules {
			return rel
		}
		// Cascade's input names a rule by @<file name>.
		return "@" + strings.TrimSuffix(path.Base(rel), path.Ext(rel))
	case model.KindWindsurfFlow:
		// A workflow is invoked as /<file name> (docs.windsurf.com,
		// Workflows: "/[name-of-workflow]").
		return "/" + strings.TrimSuffix(path.Base(rel), path.Ext(rel))
	}
	return rel
}

// agentManifestItem is the plugin item of a Codex plugin or a Gemini CLI
// extension for its consumer: it loads once installed.
func (w *workspace) agentManifestItem(t model.Target, f File) []Item {
	want := model.TargetCodex
	switch f.Kind {
	case model.KindGeminiExt:
		want = model.TargetGeminiCLI
	case model.KindCursorPlugin:
		want = model.TargetCursor
	}
	if t != want {
		return nil
	}
	root := path.Dir(f.Rel)
	if f.Kind == model.KindCodexPlugin || f.Kind == model.KindCursorPlugin || f.Kind == model.KindPlugin {
		root = path.Dir(root)
	}
	if root == "." {
		root = ""
	}
	name := path.Base(root)
	if root == "" {
		name = "(workspace)"
	}
	if h := jsonName(f.Text); h != "" {
		name = h
	}
	it := Item{Category: CatPlugins, Name: name, Source: f.Rel, Status: Loads}
	applyFindings(t, &it, f.Findings, nil)
	if it.Status == Loads {
		noun := "plugin"
		if f.Kind == model.KindGeminiExt {
			noun = "extension"
		}
		it.Install = "once " + noun + " " + name + " is installed"
		if f.Kind == model.KindCodexPlugin || f.Kind == model.KindCursorPlugin || f.Kind == model.KindPlugin {
			it.Install = w.install(t, root, name) // names the agent's marketplace listing it
		}
	}
	return []Item{it}
}

// jsonName is a manifest's top-level "name" string, or "".
func jsonName(text []byte) string {
	v, _ := diagnostics.ParseJSON(text)
	if n := v.Get("name"); n.Is(diagnostics.JSONString) {
		return n.Str
	}
	return ""
}

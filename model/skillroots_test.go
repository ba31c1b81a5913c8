package model

import "testing"

func TestInAnotherAgentsSkillFolder(t *testing.T) {
	for _, c := range []struct {
		t    Target
		rel  string
		want bool
	}{
		{TargetCodex, ".github/skills/x/SKILL.md", true},  // Codex reads .agents/skills and .codex/skills only
		{TargetCodex, ".claude/skills/x/SKILL.md", true},  // Claude Code's folder
		{TargetCodex, ".agents/skills/x/SKILL.md", false}, // its own
		{TargetCodex, ".codex/skills/a/b/SKILL.md", false},
		{TargetCursor, ".claude/skills/x/SKILL.md", false}, // Cursor reads .claude/skills for compatibility
		{TargetCursor, ".gemini/skills/x/SKILL.md", true},
		{TargetGeminiCLI, ".cursor/skills/x/SKILL.md", true},
		{TargetGeminiCLI, "skills/x/SKILL.md", false},           // an extension's or a plugin's: not decided here
		{TargetGeminiCLI, "plugins/p/skills/x/SKILL.md", false}, // likewise
		{TargetClaudeCode, ".github/skills/x/SKILL.md", false},  // no SkillRoots modelled: unchanged
		{TargetVSCode, ".agents/skills/x/SKILL.md", false},      // likewise
		{TargetCodex, "docs/.github/skills/x/SKILL.md", false},  // not a workspace root
	} {
		if got := InAnotherAgentsSkillFolder(c.t, c.rel); got != c.want {
			t.Errorf("InAnotherAgentsSkillFolder(%s, %s) = %v, want %v", c.t, c.rel, got, c.want)
		}
	}
}

// files is a layout that knows which files exist.
type files map[string]bool

func (files) PluginRoot(string) PluginFormat { return FormatNone }
func (f files) HasFile(rel string) bool      { return f[rel] }

// Each agent reads skills from its roots and from inside its packages (a
// Codex plugin, a Gemini CLI extension, a Cursor plugin); a root skills/
// in a folder that is none of them is read by none (issue #38's judged
// false skill/name-missing). Without a layout the skill is taken as read.
func TestSkillUnread(t *testing.T) {
	ws := files{"ext/gemini-extension.json": true, "p/.codex-plugin/plugin.json": true, "c/.cursor-plugin/plugin.json": true}
	for _, c := range []struct {
		t      Target
		rel    string
		layout Layout
		want   bool
	}{
		{TargetGeminiCLI, "skills/x/SKILL.md", ws, true},
		{TargetGeminiCLI, "skills/x/SKILL.md", files{"gemini-extension.json": true}, false}, // the workspace is the extension
		{TargetGeminiCLI, "ext/skills/x/SKILL.md", ws, false},
		{TargetGeminiCLI, "p/skills/x/SKILL.md", ws, true}, // a Codex plugin's
		{TargetGeminiCLI, ".gemini/skills/x/SKILL.md", ws, false},
		{TargetGeminiCLI, ".agents/skills/x/SKILL.md", ws, false},
		{TargetGeminiCLI, "sub/.gemini/skills/x/SKILL.md", ws, false}, // a sub-project's
		{TargetGeminiCLI, ".github/skills/x/SKILL.md", ws, true},      // another agent's folder
		{TargetGeminiCLI, "skills/x/SKILL.md", nil, false},            // no layout: not decided
		{TargetCodex, "skills/x/SKILL.md", ws, true},
		{TargetCodex, "p/skills/x/SKILL.md", ws, false},
		{TargetCodex, "p/more/x/SKILL.md", ws, false}, // a path its manifest may name
		{TargetCodex, "ext/skills/x/SKILL.md", ws, true},
		{TargetCursor, "c/skills/x/SKILL.md", ws, false},
		{TargetCursor, "skills/x/SKILL.md", ws, true},
		{TargetClaudeCode, "skills/x/SKILL.md", ws, false}, // no package manifest modelled
		{TargetAgentSkills, "skills/x/SKILL.md", ws, false},
	} {
		if got := SkillUnread(c.t, c.rel, c.layout); got != c.want {
			t.Errorf("SkillUnread(%s, %s) = %v, want %v", c.t, c.rel, got, c.want)
		}
	}
}

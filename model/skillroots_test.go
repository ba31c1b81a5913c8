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

type extLayout map[string]bool

func (extLayout) PluginRoot(string) PluginFormat    { return FormatNone }
func (l extLayout) GeminiExtension(dir string) bool { return l[dir] }

// Gemini CLI reads skills from its two roots and from an installed
// extension's skills/; a root skills/ in a folder without
// gemini-extension.json is none of them (issue #38's judged false
// skill/name-missing). Without a layout the skill is taken as read.
func TestSkillUnread(t *testing.T) {
	ext := extLayout{"ext": true, "": false}
	for _, c := range []struct {
		t      Target
		rel    string
		layout Layout
		want   bool
	}{
		{TargetGeminiCLI, "skills/x/SKILL.md", ext, true},
		{TargetGeminiCLI, "skills/x/SKILL.md", extLayout{"": true}, false}, // the workspace is the extension
		{TargetGeminiCLI, "ext/skills/x/SKILL.md", ext, false},
		{TargetGeminiCLI, ".gemini/skills/x/SKILL.md", ext, false},
		{TargetGeminiCLI, ".agents/skills/x/SKILL.md", ext, false},
		{TargetGeminiCLI, "sub/.gemini/skills/x/SKILL.md", ext, false}, // a sub-project's
		{TargetGeminiCLI, ".github/skills/x/SKILL.md", ext, true},      // another agent's folder
		{TargetGeminiCLI, "skills/x/SKILL.md", nil, false},             // no layout: not decided
		{TargetCodex, "skills/x/SKILL.md", ext, false},                 // only Gemini CLI's extensions modelled here
		{TargetClaudeCode, "skills/x/SKILL.md", ext, false},
	} {
		if got := SkillUnread(c.t, c.rel, c.layout); got != c.want {
			t.Errorf("SkillUnread(%s, %s) = %v, want %v", c.t, c.rel, got, c.want)
		}
	}
}

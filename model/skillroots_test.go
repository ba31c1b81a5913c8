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

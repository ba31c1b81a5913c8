package view

import "testing"

// OpenCode keeps one skill per name: of two same-named skills in
// .agents/skills and .claude/skills, one is listed as shadowed by the
// other (0xff0ay/my-ai-stack, where `opencode debug skill` lists one of
// each pair).
func TestOpenCodeShadow(t *testing.T) {
	items := []Item{
		{Category: CatSkills, Name: "ai-sdk", Source: ".claude/skills/ai-sdk/SKILL.md", Status: Loads},
		{Category: CatSkills, Name: "ai-sdk", Source: ".agents/skills/ai-sdk/SKILL.md", Status: Loads},
		{Category: CatSkills, Name: "other", Source: ".claude/skills/other/SKILL.md", Status: Loads},
	}
	openCodeShadow(items)
	if items[0].Status != Shadowed || items[0].ShadowedBy != ".agents/skills/ai-sdk/SKILL.md" {
		t.Errorf("the .claude copy: %+v", items[0])
	}
	if items[1].Status != Loads || items[2].Status != Loads {
		t.Errorf("want the first by path and the unique skill loading: %+v %+v", items[1], items[2])
	}
}

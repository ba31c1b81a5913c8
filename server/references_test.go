package server

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Definition on a name another customization resolves: a prompt's agent,
// a subagent's skills.
func TestDefinitionOfReferencedNames(t *testing.T) {
	root := t.TempDir()
	agent := writeFile(t, root, ".github/agents/reviewer.agent.md", "---\nname: reviewer\ndescription: Reviews.\n---\n")
	prompt := writeFile(t, root, ".github/prompts/review.prompt.md", "---\ndescription: Review.\nagent: reviewer\n---\nGo.\n")
	skill := writeFile(t, root, ".claude/skills/db-migrate/SKILL.md", "---\nname: db-migrate\ndescription: D.\n---\n")
	sub := writeFile(t, root, ".claude/agents/helper.md", "---\nname: helper\ndescription: Helps.\nskills: [db-migrate, missing]\n---\n")
	c := newTestClient(t, clientSetup{folders: []string{root}})
	wait := func(params, want string) {
		t.Helper()
		var got string
		for i := 0; i < 300; i++ {
			if got = c.request("textDocument/definition", params); got == want {
				return
			}
			sleepBriefly()
		}
		assert.Equal(t, want, got)
	}
	wait(posParams(prompt, 2, 10), fmt.Sprintf(`[{"range":%s,"uri":%q}]`, rng(1, 6, 1, 14), agent))
	wait(posParams(sub, 3, 12), fmt.Sprintf(`[{"range":%s,"uri":%q}]`, rng(1, 6, 1, 16), skill))
	assert.Equal(t, `[]`, c.request("textDocument/definition", posParams(sub, 3, 23)), "an unknown name")
	assert.Equal(t, `[]`, c.request("textDocument/definition", posParams(sub, 2, 15)), "a key that names nothing")
}

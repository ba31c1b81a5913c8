package diagnostics

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"

	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/model"
)

func TestFrontmatterHooks(t *testing.T) {
	const agent = ".github/agents/a.agent.md"
	const skill = ".claude/skills/a/SKILL.md"
	V := []model.Target{model.TargetVSCode, model.TargetVSCodeAgentHost}
	for _, c := range []struct {
		name, path, text string
		targets          []model.Target
		rule, at         string // at: the text the span covers
		sev              model.Severity
	}{
		{"typo event in an agent", agent, "---\nhooks:\n  PostToolUze:\n    - type: command\n      command: x\n---\n", nil, "hooks/event", "PostToolUze", model.SeverityWarning},
		{"agent host only event, VS Code too", agent, "---\nhooks:\n  SessionEnd:\n    - type: command\n      command: x\n---\n", V, "hooks/event", "SessionEnd", model.SeverityWarning},
		{"VS Code only", agent, "---\nhooks:\n  SessionEnd:\n    - type: command\n      command: x\n---\n", []model.Target{model.TargetVSCode}, "hooks/event", "SessionEnd", model.SeverityWarning},
		{"Claude event in a VS Code agent", agent, "---\nhooks:\n  Notification:\n    - type: command\n      command: x\n---\n", nil, "hooks/event", "Notification", model.SeverityWarning},
		{"hooks not a map", agent, "---\nhooks: [a]\n---\n", nil, "hooks/shape", "[a]", model.SeverityError},
		{"handler not a map", agent, "---\nhooks:\n  Stop:\n    - run it\n---\n", nil, "hooks/shape", "run it", model.SeverityError},
		{"group hooks not a list", agent, "---\nhooks:\n  Stop:\n    - hooks: x\n---\n", nil, "hooks/shape", "x", model.SeverityError},
		{"missing type", agent, "---\nhooks:\n  Stop:\n    - command: x\n---\n", V, "hooks/type", "command: x", model.SeverityError},
		{"missing command", agent, "---\nhooks:\n  Stop:\n    - type: command\n---\n", nil, "hooks/command", "type: command", model.SeverityError},
		{"group key", agent, "---\nhooks:\n  Stop:\n    - label: x\n      hooks:\n        - type: command\n          command: x\n---\n", nil, "hooks/group-key", "label", model.SeverityWarning},
		{"unknown handler key", agent, "---\nhooks:\n  Stop:\n    - type: command\n      command: x\n      retries: 2\n---\n", nil, "hooks/unknown-key", "retries", model.SeverityWarning},
		{"matcher ignored", agent, "---\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: x\n---\n", nil, "hooks/matcher-ignored", "Bash", model.SeverityWarning},
		{"flat in a skill", skill, "---\nname: a\ndescription: d\nhooks:\n  Stop:\n    - type: command\n      command: x\n---\n", nil, "hooks/flat-for-claude", "type: command", model.SeverityError},
		{"http without url", skill, "---\nname: a\ndescription: d\nhooks:\n  Stop:\n    - hooks:\n        - type: http\n---\n", nil, "hooks/command", "type: http", model.SeverityError},
		{"bad timeout", skill, "---\nname: a\ndescription: d\nhooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: x\n          timeout: soon\n---\n", nil, "hooks/field-type", "soon", model.SeverityWarning},
		{"after the Claude Code retry", ".claude/agents/a.md", "---\nname: a\ndescription: Use: this\nhooks:\n  Stopp:\n    - hooks:\n        - type: command\n          command: x\n---\n", nil, "hooks/event", "Stopp", model.SeverityWarning},
	} {
		t.Run(c.name, func(t *testing.T) {
			ds := checkText(c.path, c.text, c.targets...)
			d := find(ds, c.rule)
			require.NotNil(t, d, "got %v", rulesOf(ds))
			assert.Equal(t, c.at, c.text[d.Span.Start:d.Span.End])
			assert.Equal(t, c.sev, d.Severity, d.Message)
		})
	}
}

func TestFrontmatterHooksQuiet(t *testing.T) {
	for _, c := range []struct{ name, path, text string }{
		{"clean agent", ".github/agents/a.agent.md", "---\nhooks:\n  PostToolUse:\n    - type: command\n      command: ./fmt.sh\n  Stop:\n    - hooks:\n        - type: command\n          command: x\n---\n"},
		{"clean skill", ".claude/skills/a/SKILL.md", "---\nname: a\ndescription: d\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: x\n          if: Bash(git *)\n          async: true\n---\n"},
		{"prompt has no hooks", ".github/prompts/a.prompt.md", "---\nhooks:\n  Nope: 1\n---\n"},
		{"skill read only by VS Code", ".github/skills/a/SKILL.md", "---\nname: a\ndescription: d\nhooks:\n  Nope: 1\n---\n"},
		{"empty hooks", ".github/agents/a.agent.md", "---\nhooks:\n---\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, d := range checkText(c.path, c.text) {
				assert.False(t, strings.HasPrefix(d.Rule, "hooks/"), "%s: %s", d.Rule, d.Message)
			}
		})
	}
}

// Claude Code does not apply hooks in a plugin's subagent: that is
// ccagent/plugin-ignored's one diagnostic.
func TestFrontmatterHooksInPluginAgent(t *testing.T) {
	text := []byte("---\nname: a\ndescription: d\nhooks:\n  Nope: 1\n---\n")
	ds := Check(core.File{Path: "plugins/p/agents/a.md", Text: text, Layout: mapLayout{"plugins/p": model.FormatClaude}}, core.Options{})
	require.Equal(t, []string{"ccagent/plugin-ignored"}, rulesOf(ds))
	ds = Check(core.File{Path: ".claude/agents/a.md", Text: text}, core.Options{})
	assert.Equal(t, []string{"hooks/event", "hooks/shape"}, rulesOf(ds), "the same header in a project subagent")
}

func TestFrontmatterHookFixes(t *testing.T) {
	text := "---\nhooks:\n  preToolUSE:\n    - type: command\n      command: x\n---\n"
	d := find(checkText(".github/agents/a.agent.md", text), "hooks/event")
	require.NotNil(t, d)
	fx, ok := preferred(d)
	require.True(t, ok)
	fixed := applyFix(text, fx)
	assert.Equal(t, "---\nhooks:\n  PreToolUse:\n    - type: command\n      command: x\n---\n", fixed)
	assert.Nil(t, find(checkText(".github/agents/a.agent.md", fixed), "hooks/event"))

	text = "---\nname: a\ndescription: d\nhooks:\n  Stop:\n    - matcher: \"*.go\"\n      hooks:\n        - type: command\n          command: x\n---\n"
	d = find(checkText(".claude/skills/a/SKILL.md", text), "hooks/matcher-no-effect")
	require.NotNil(t, d)
	require.Len(t, d.Fixes, 1)
	fixed = applyFix(text, d.Fixes[0])
	assert.Equal(t, "---\nname: a\ndescription: d\nhooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: x\n---\n", fixed)
	for _, d := range checkText(".claude/skills/a/SKILL.md", fixed) {
		assert.False(t, strings.HasPrefix(d.Rule, "hooks/"), "%s after the fix: %s", d.Rule, d.Message)
	}

	text = "---\nname: a\ndescription: d\nhooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: x\n      matcher: y\n---\n"
	d = find(checkText(".claude/skills/a/SKILL.md", text), "hooks/matcher-no-effect")
	require.NotNil(t, d)
	assert.Equal(t, "---\nname: a\ndescription: d\nhooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: x\n---\n", applyFix(text, d.Fixes[0]), "a last matcher goes with its line")

	text = "---\nhooks:\n  Stop:\n    - type: script\n      command: x\n---\n"
	d = find(checkText(".github/agents/a.agent.md", text), "hooks/type")
	require.NotNil(t, d)
	fx, ok = preferred(d)
	require.True(t, ok)
	assert.Empty(t, checkText(".github/agents/a.agent.md", applyFix(text, fx)))
}

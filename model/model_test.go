package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

type fakeLayout map[string]PluginFormat

func (f fakeLayout) PluginRoot(dir string) PluginFormat { return f[dir] }

func TestClassify(t *testing.T) {
	layout := fakeLayout{"plugins/cc": FormatClaude, "plugins/gh": FormatCopilot}
	cases := []struct {
		rel  string
		want Kind
	}{
		{".github/skills/lint/SKILL.md", KindSkill},
		{".claude/skills/lint/skill.md", KindSkill},
		{"plugins/cc/skills/x/SKILL.md", KindSkill},
		{"plugins/cc/skills/x/agents/grader.md", KindNone},
		{".github/skills/x/notes.md", KindNone},
		{".github/agents/reviewer.agent.md", KindAgent},
		{".github/agents/reviewer.md", KindAgent},
		{".github/agents/README.md", KindNone},
		{".github/chatmodes/old.chatmode.md", KindAgent},
		{".claude/agents/sub/reviewer.md", KindClaudeAgent},
		{"plugins/cc/agents/reviewer.md", KindClaudeAgent},
		{"plugins/gh/agents/reviewer.md", KindNone},
		{"plugins/gh/agents/reviewer.agent.md", KindAgent},
		{".github/prompts/a/b.prompt.md", KindPrompt},
		{".github/instructions/go.instructions.md", KindInstructions},
		{".github/copilot-instructions.md", KindMemory},
		{"AGENTS.md", KindMemory},
		{"CLAUDE.md", KindMemory},
		{".claude/rules/style.md", KindRule},
		{".claude/commands/deploy/prod.md", KindCommand},
		{"plugins/gh/commands/x.md", KindCommand},
		{".claude/output-styles/terse.md", KindOutputStyle},
		{"a/.claude/output-styles/team/terse.md", KindOutputStyle},
		{"plugins/cc/output-styles/teacher.md", KindOutputStyle},
		{"plugins/gh/output-styles/teacher.md", KindNone}, // only Claude Code loads plugin output styles
		{"output-styles/teacher.md", KindNone},            // no plugin around it
		{".github/workflows/copilot-setup-steps.yml", KindSetupSteps},
		{".github/workflows/copilot-setup-steps.yaml", KindNone}, // GitHub reads the .yml name only
		{".github/workflows/ci.yml", KindNone},
		{"sub/.github/workflows/copilot-setup-steps.yml", KindNone}, // only the repository root's
		{"docs/readme.md", KindNone},
		{"plugin.json", KindPlugin},
		{".claude-plugin/plugin.json", KindPlugin},
		{"plugins/cc/.claude-plugin/plugin.json", KindPlugin},
		{"a/b/c/d/e/.plugin/plugin.json", KindPlugin},                       // plugin roots are found at any depth (#13)
		{"d7/l1/l2/l3/l4/l5/bad-folder/SKILL.md", KindSkill},                // no depth cap (#25 repro 1)
		{"a/b/c/d/e/f/g/h/i/j/k/.claude-plugin/plugin.json", KindPlugin},    // no depth cap
		{"a/b/c/d/e/f/g/h/i/j/k/l/.claude/agents/deep.md", KindClaudeAgent}, // no depth cap
		{"claude-plugin/plugin.json", KindNone},                             // a manifest folder's dotless twin (#25 repro 6)
		{"tests/fixtures/codex-plugin/plugin.json", KindNone},
		{"r1/.codex-plugin/plugin.json", KindCodexPlugin}, // Codex's manifest folder: a file of its own kind (#38), never a plugin of ours (#13 repro 1)
		{".cursor/rules/ts.mdc", KindCursorRule},
		{"web/.cursor/rules/sub/react.mdc", KindCursorRule},
		{".cursor/rules/plain.md", KindCursorRule}, // Cursor ignores it: cursorrule/md-ignored says so
		{"docs/notes.mdc", KindNone},
		{".cursorrules", KindCursorRule},
		{"sub/.cursorrules", KindNone},
		{".gemini/commands/git/commit.toml", KindGeminiCmd},
		{"commands/x.toml", KindNone}, // no layout saying a gemini-extension.json sits above
		{"Cargo.toml", KindNone},
		{"gemini-extension.json", KindGeminiExt},
		{"ext/gemini-extension.json", KindGeminiExt},
		{".kiro/steering/tech.md", KindKiroSteering},
		{"opencode.json", KindOCConfig},
		{"opencode.jsonc", KindOCConfig},
		{".opencode/opencode.jsonc", KindOCConfig},
		{"pkg/opencode.json", KindOCConfig},
		{".opencode/agent/review.md", KindOCAgent},
		{".opencode/agents/team/review.md", KindOCAgent},
		{".opencode/mode/fast.md", KindOCAgent},
		{".opencode/mode/sub/fast.md", KindNone}, // modes are read one level deep ({mode,modes}/*.md)
		{".opencode/command/test.md", KindOCCommand},
		{".opencode/commands/git/commit.md", KindOCCommand},
		{".opencode/plans/today.md", KindNone},
		{".opencode/skills/x/SKILL.md", KindSkill},
		{"web/.kiro/steering/README.md", KindKiroSteering},
		{".kiro/steering/sub/deep.md", KindNone}, // Kiro's docs name the folder's own files only
		{".kiro/specs/login/design.md", KindNone},
		{".windsurf/rules/ts.md", KindWindsurfRule},
		{"web/.windsurf/rules/react.md", KindWindsurfRule},
		{".windsurfrules", KindWindsurfRule},
		{"sub/.windsurfrules", KindNone},
		{".windsurf/workflows/deploy.md", KindWindsurfFlow},
		{"web/.windsurf/workflows/deploy.md", KindWindsurfFlow},
		{".windsurf/workflows/ops/rotate.md", KindWindsurfFlow},
		{".windsurf/workflows/notes.txt", KindNone},
		{".windsurf/deploy.md", KindNone},
		{".clinerules", KindClineRule},
		{"sub/.clinerules", KindNone}, // Cline reads the workspace root's
		{".clinerules/style.md", KindClineRule},
		{".clinerules/README.md", KindClineRule},    // Cline loads every .md directly in the folder
		{".clinerules/cursor.mdc", KindClineRule},   // not loaded: cline/extension says so
		{".clinerules/web/react.md", KindClineRule}, // not loaded: cline/nested says so
		{".clinerules/workflows/release.md", KindNone},
		{".clinerules/hooks/notes.md", KindNone},
		{".clinerules/skills/x/SKILL.md", KindSkill},
		{".clinerules/config.json", KindNone},
		{".cline/rules/style.md", KindClineRule},
		{"web/.cline/rules/style.md", KindClineRule},
		{".cline/skills/x/SKILL.md", KindSkill},
		{".cline/workflows/a.md", KindNone},
		{".roo/rules/style.md", KindRooRule},
		{".roo/rules/web/react.md", KindRooRule}, // Roo Code reads the folder recursively
		{".roo/rules-code/ts.md", KindRooRule},
		{".roo/rules-/x.md", KindNone},
		{".roo/rules.md", KindNone},
		{".roo/skills/x/SKILL.md", KindSkill},
		{".roorules", KindRooRule},
		{"sub/.roorules", KindNone},
		{".roomodes", KindRooModes},
		{"sub/.roomodes", KindNone},
		{".cursor-plugin/plugin.json", KindCursorPlugin}, // Cursor's own format, judged for Cursor only
		{"plugins/x/.cursor-plugin/plugin.json", KindCursorPlugin},
		{".cursor-plugin/marketplace.json", KindCursorMarket},
		{".agents/plugins/marketplace.json", KindCodexMarket},
		{"sub/.agents/plugins/marketplace.json", KindCodexMarket},
		{".agents/marketplace.json", KindNone},
		{"cli-tool/components/.claude-plugin/marketplace.json", KindMarketplace}, // #13 repro 4
		{"x/.github/plugin/plugin.json", KindPlugin},
		{".claude-plugin/marketplace.json", KindMarketplace},
		{"nested/marketplace.json", KindNone},
		{".github/hooks/format.json", KindHooks},
		{"plugins/cc/hooks/hooks.json", KindHooks},
		{"hooks/hooks.json", KindNone}, // no plugin loads it (#25 corpus P7a)
		{"lone/x/hooks/hooks.json", KindNone},
		{"plugins/gh/hooks.json", KindHooks},
		{"random/hooks.json", KindNone},
		{".mcp.json", KindMCP},
		{"plugins/gh/mcp.json", KindMCP},
		{"plugins/gh/.github/mcp.json", KindMCP},
		{".vscode/mcp.json", KindNone},
		{".claude/settings.json", KindSettings},
		{".ahpls/tools.json", KindTools},
		{".ahpls/config.json", KindConfig},
		{"node_modules/x/.github/skills/a/SKILL.md", KindNone},
		{"a/b/c/d/e/f/g/SKILL.md", KindSkill}, // below the old depth cap of 6 (#25)
		{"../escape/SKILL.md", KindSkill},     // cleaned: paths never climb above the folder
	}
	for _, c := range cases {
		t.Run(c.rel, func(t *testing.T) {
			assert.Equal(t, c.want, Classify(c.rel, layout))
		})
	}
}

func TestLineIndexEncodings(t *testing.T) {
	text := []byte("a: é😀x\r\nb\rc\n")
	x := NewLineIndex(text)
	assert.Equal(t, 4, x.Lines())
	xOff := len("a: é😀")
	assert.Equal(t, Position{0, 6}, x.Position(xOff, UTF16)) // 😀 is two UTF-16 units
	assert.Equal(t, Position{0, 5}, x.Position(xOff, UTF32))
	assert.Equal(t, Position{0, xOff}, x.Position(xOff, UTF8))
	assert.Equal(t, Position{1, 0}, x.Position(len("a: é😀x\r\n"), UTF16))
	assert.Equal(t, Position{2, 0}, x.Position(len("a: é😀x\r\nb\r"), UTF16))
	// Offsets on the CR of a CRLF clamp to the line's end.
	assert.Equal(t, Position{0, 7}, x.Position(xOff+2, UTF16))
	for _, enc := range []Encoding{UTF8, UTF16, UTF32} {
		p := x.Position(xOff, enc)
		off, ok := x.Offset(p, enc)
		assert.True(t, ok, enc)
		assert.Equal(t, xOff, off, enc)
	}
	_, ok := x.Offset(Position{0, 99}, UTF16)
	assert.False(t, ok)
	_, ok = x.Offset(Position{9, 0}, UTF16)
	assert.False(t, ok)
}

func TestVerdictsDecide(t *testing.T) {
	v := V(Reject).With(Verdicts{TargetClaudeCode: OK, TargetAgentSkills: Spec, TargetCopilotCLI: Reject.Unverified()})
	sev, by, report := v.Decide(DefaultTargets)
	assert.True(t, report)
	assert.Equal(t, SeverityError, sev)
	assert.Equal(t, []Target{TargetVSCodeAgentHost}, by)

	sev, by, report = v.Decide([]Target{TargetCopilotCLI, TargetAgentSkills})
	assert.True(t, report)
	assert.Equal(t, SeverityWarning, sev, "an unverified reject caps at Warning")
	assert.Equal(t, []Target{TargetCopilotCLI}, by)

	_, _, report = v.Decide([]Target{TargetClaudeCode})
	assert.False(t, report, "ok reports nothing")

	sev, _, _ = Verdicts{TargetClaudeCode: Unknown}.Decide([]Target{TargetClaudeCode})
	assert.Equal(t, SeverityInfo, sev)
}

func TestEffectiveTargets(t *testing.T) {
	assert.Equal(t, DefaultTargets, EffectiveTargets(nil, true, ".github/skills/a/SKILL.md", FormatNone))
	assert.Contains(t, EffectiveTargets(nil, true, ".claude/skills/a/SKILL.md", FormatNone), TargetClaudeCode)
	assert.NotContains(t, EffectiveTargets(nil, false, ".claude/skills/a/SKILL.md", FormatNone), TargetClaudeCode)
	assert.Contains(t, EffectiveTargets(nil, true, ".github/plugin/plugin.json", FormatNone), TargetCopilotCLI)
}

func TestLoadedWhenIgnored(t *testing.T) {
	for rel, want := range map[string]bool{
		".claude":                     true,
		".claude/settings.local.json": true,
		".github/agents/a.agent.md":   true,
		".agents/skills/x/SKILL.md":   true,
		"CLAUDE.local.md":             true,
		"pkg/CLAUDE.local.md":         false,
		"dist/skills/x/SKILL.md":      false,
		"vendor":                      false,
	} {
		assert.Equal(t, want, LoadedWhenIgnored(rel), rel)
	}
}

// Every kind has its own noun: messages ("this subagent") and the symbol
// list ("MCP config · .mcp.json") name kinds through Noun alone.
func TestKindNoun(t *testing.T) {
	kinds := []Kind{KindSkill, KindAgent, KindClaudeAgent, KindPrompt, KindCommand, KindInstructions, KindRule,
		KindMemory, KindPlugin, KindMarketplace, KindHooks, KindMCP, KindSettings, KindTools}
	seen := map[string]Kind{}
	for _, k := range kinds {
		n := k.Noun()
		assert.NotEqual(t, "file", n, "kind %s has no noun", k)
		prev, dup := seen[n]
		assert.False(t, dup, "kinds %s and %s share the noun %q", prev, k, n)
		seen[n] = k
	}
	assert.Equal(t, "subagent", KindClaudeAgent.Noun())
	assert.Equal(t, "file", KindNone.Noun())
}

// TestKindSpecs checks the kind table: one entry per kind, each with what
// messages, docs and editors read, and every kind Classify returns has one.
func TestKindSpecs(t *testing.T) {
	seen := map[Kind]bool{}
	for _, s := range Kinds {
		assert.False(t, seen[s.Kind], "kind %q listed twice", s.Kind)
		seen[s.Kind] = true
		assert.NotEqual(t, KindNone, s.Kind)
		assert.NotEmpty(t, s.Noun, s.Kind)
		assert.NotEmpty(t, s.Title, s.Kind)
		assert.Contains(t, []string{"markdown", "json", "yaml", "mdc", "toml"}, s.Lang, s.Kind)
		assert.True(t, s.Ext != "" || len(s.Paths) > 0, "kind %q: no extension and no path", s.Kind)
		assert.NotEmpty(t, s.Languages, s.Kind)
		assert.Equal(t, s.Kind.Noun(), s.Noun)
	}
	assert.Equal(t, "file", KindNone.Noun())
	assert.False(t, KindNone.Markdown())
	for _, rel := range []string{".github/skills/x/SKILL.md", ".github/agents/a.agent.md", ".claude/agents/a.md",
		"a.prompt.md", ".claude/commands/c.md", "a.instructions.md", ".claude/rules/r.md", "AGENTS.md",
		"plugin.json", "marketplace.json", ".github/hooks/h.json", ".mcp.json", ".claude/settings.json",
		".ahpls/tools.json", ".ahpls/config.json", ".claude/output-styles/s.md", SetupStepsPath,
		".cursor/rules/a.mdc", CursorLegacyRules, ".gemini/commands/c.toml", GeminiExtensionManifest, "p/.codex-plugin/plugin.json"} {
		k := Classify(rel, nil)
		assert.True(t, seen[k], "%s: kind %q has no KindSpec", rel, k)
		assert.True(t, MaybeCustomization(rel), rel)
	}
}

// TestConsumerSpecs checks the consumer table and what is derived from it.
func TestConsumerSpecs(t *testing.T) {
	codes := map[string]bool{}
	for i, c := range Consumers {
		assert.Equal(t, c.Target, AllTargets[i])
		assert.NotEmpty(t, c.Name, c.Target)
		assert.Equal(t, c.Name, c.Target.DisplayName())
		assert.False(t, codes[c.Code], "code %s twice", c.Code)
		codes[c.Code] = true
		assert.True(t, KnownTarget(string(c.Target)))
		assert.Equal(t, []Target{c.Target}, TargetsOfCode(c.Code))
	}
	assert.Equal(t, []Target{TargetVSCodeAgentHost, TargetAgentSkills}, DefaultTargets)
	assert.ElementsMatch(t, []Target{TargetVSCode, TargetVSCodeAgentHost}, TargetsOfCode("V"))
	assert.False(t, KnownTarget("emacs"))
	assert.Equal(t, "emacs", Target("emacs").DisplayName())
}

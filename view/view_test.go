package view

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/model"
)

// layout is a fixed model.Layout for tests.
type layout map[string]model.PluginFormat

func (l layout) PluginRoot(dir string) model.PluginFormat { return l[dir] }

func md(rel string, kind model.Kind, header string) File {
	return File{Rel: rel, Kind: kind, Text: []byte("---\n" + header + "\n---\nBody.\n")}
}

func itemsOf(v View, t model.Target) []Item {
	for _, c := range v.Consumers {
		if c.Target == t {
			return c.Items
		}
	}
	return nil
}

func find(items []Item, source string) (Item, bool) {
	for _, it := range items {
		if it.Source == source {
			return it, true
		}
		if c, ok := find(it.Components, source); ok {
			return c, true
		}
	}
	return Item{}, false
}

func TestStatusesPerConsumer(t *testing.T) {
	files := []File{
		md(".claude/skills/pdf/SKILL.md", model.KindSkill, "name: pdf\ndescription: Read PDFs."),
		md(".github/prompts/fix.prompt.md", model.KindPrompt, "description: Fix it."),
		{Rel: ".claude/agents/x.md", Kind: model.KindClaudeAgent, Text: []byte("---\ndescription: no name\n---\n"),
			Findings: []model.Diagnostic{{Rule: "ccagent/name-missing", Verdicts: map[model.Target]model.Reaction{model.TargetClaudeCode: model.Skip}}}},
		{Rel: ".github/skills/dup/SKILL.md", Kind: model.KindSkill, Text: []byte("---\nname: dup\ndescription: d\n---\n")},
		{Rel: ".claude/skills/dup/SKILL.md", Kind: model.KindSkill, Text: []byte("---\nname: dup\ndescription: other\n---\n"),
			Findings: []model.Diagnostic{{Rule: "skill/name-duplicate", Verdicts: model.V(model.Skip), Related: []model.Related{{Path: ".github/skills/dup/SKILL.md"}}}}},
		// An unverified reaction is never a failure.
		{Rel: ".agents/skills/maybe/SKILL.md", Kind: model.KindSkill, Text: []byte("---\nname: maybe\ndescription: d\n---\n"),
			Findings: []model.Diagnostic{{Rule: "x/guess", Verdicts: map[model.Target]model.Reaction{model.TargetCopilotCLI: model.Skip.Unverified()}}}},
	}
	v := Build(Input{Files: files, State: State{Disabled: map[string]string{".github/prompts/fix.prompt.md": "session"}}})
	for _, tc := range []struct {
		target model.Target
		source string
		status Status
		name   string
	}{
		{model.TargetClaudeCode, ".claude/skills/pdf/SKILL.md", Loads, "pdf"},
		{model.TargetClaudeCode, ".github/prompts/fix.prompt.md", NotScanned, "/fix"},
		{model.TargetVSCode, ".github/prompts/fix.prompt.md", Disabled, "/fix"},
		{model.TargetCopilotCLI, ".github/prompts/fix.prompt.md", NotScanned, "/fix"},
		{model.TargetClaudeCode, ".claude/agents/x.md", Fails, "x"},
		{model.TargetVSCode, ".claude/agents/x.md", Loads, "x"},
		{model.TargetVSCode, ".claude/skills/dup/SKILL.md", Shadowed, "dup"},
		{model.TargetClaudeCode, ".claude/skills/dup/SKILL.md", Loads, "dup"},
		{model.TargetCopilotCLI, ".agents/skills/maybe/SKILL.md", Loads, "maybe"},
	} {
		it, ok := find(itemsOf(v, tc.target), tc.source)
		require.Truef(t, ok, "%s: %s not listed", tc.target, tc.source)
		assert.Equalf(t, tc.status, it.Status, "%s %s: %+v", tc.target, tc.source, it)
		assert.Equalf(t, tc.name, it.Name, "%s %s", tc.target, tc.source)
	}
	assert.Equal(t, []string{"Claude Code: loads as `dup`"}, filter(v.Summary(".claude/skills/dup/SKILL.md"), "Claude"))
	assert.Equal(t, []string{"VS Code: shadowed by .github/skills/dup/SKILL.md"}, filter(v.Summary(".claude/skills/dup/SKILL.md"), "VS Code:"))
}

func filter(lines []string, prefix string) []string {
	var out []string
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

// TestClaudeListing: each entry is cut at 1536 characters (description,
// " - ", when_to_use) and the listing is measured against 8,000.
func TestClaudeListing(t *testing.T) {
	long := strings.Repeat("é", 1000)
	files := []File{md(".claude/skills/a/SKILL.md", model.KindSkill, "name: a\ndescription: "+long+"\nwhen_to_use: "+long)}
	for i := range 8 {
		n := string(rune('b' + i))
		files = append(files, md(".claude/skills/"+n+"/SKILL.md", model.KindSkill, "name: "+n+"\ndescription: "+long))
	}
	v := Build(Input{Files: files, Targets: []model.Target{model.TargetClaudeCode}})
	a, ok := find(itemsOf(v, model.TargetClaudeCode), ".claude/skills/a/SKILL.md")
	require.True(t, ok)
	require.NotNil(t, a.Description)
	assert.True(t, a.Description.Truncated)
	assert.Equal(t, 2003, a.Description.Length)
	assert.Equal(t, 1536, len([]rune(a.Description.Text)))
	l := v.Consumers[0].Listing
	require.NotNil(t, l)
	assert.Equal(t, 8000, l.Budget)
	assert.Equal(t, (1+4+1536)+8*(1+4+1000)+8, l.Chars)
	assert.True(t, l.Over)
}

// TestClaudePluginComponents: the manifest's `commands` replaces the
// default folder, `skills` adds to it, agents are named by `name`, and a
// plugin Claude Code refuses takes its components with it.
func TestClaudePluginComponents(t *testing.T) {
	files := []File{
		{Rel: "p/.claude-plugin/plugin.json", Kind: model.KindPlugin, Text: []byte(`{"name": "p", "commands": "./cmds", "skills": ["./extra"]}`)},
		md("p/skills/one/SKILL.md", model.KindSkill, "name: one\ndescription: d"),
		md("p/extra/two/SKILL.md", model.KindSkill, "name: two\ndescription: d"),
		md("p/commands/old.md", model.KindCommand, "description: d"),
		md("p/cmds/sub/new.md", model.KindNone, "description: d"),
		md("p/agents/a.md", model.KindClaudeAgent, "name: helper\ndescription: d"),
		{Rel: "q/.claude-plugin/plugin.json", Kind: model.KindPlugin, Text: []byte(`{"name": "claude-q"}`),
			Findings: []model.Diagnostic{{Rule: "plugin/name-reserved", Verdicts: map[model.Target]model.Reaction{model.TargetClaudeCode: model.Reject}}}},
		md("q/skills/s/SKILL.md", model.KindSkill, "name: s\ndescription: d"),
	}
	v := Build(Input{Files: files, Layout: layout{"p": model.FormatClaude, "q": model.FormatClaude}, Targets: []model.Target{model.TargetClaudeCode}})
	var names []string
	var q Item
	for _, it := range v.Consumers[0].Items {
		if it.Name == "claude-q" {
			q = it
		}
		for _, c := range it.Components {
			if c.Status == Loads {
				names = append(names, c.Name)
			}
		}
	}
	assert.ElementsMatch(t, []string{"p:one", "p:two", "/p:sub:new", "p:helper"}, names)
	assert.Equal(t, Fails, q.Status)
	require.Len(t, q.Components, 1)
	assert.Equal(t, Fails, q.Components[0].Status)
	assert.Equal(t, "plugin/name-reserved", q.Components[0].Rule)
}

// TestPluginInstallSemantics covers the four wrong `ahpls list` claims of
// issue #38: Copilot CLI reads a root plugin.json whatever $schema it
// names; Claude Code installs a plugin its marketplace lists though it has
// no .claude-plugin/plugin.json; plugin content loads "once installed",
// naming the plugin and marketplace; an Agent Skills miss says its true
// reason.
func TestPluginInstallSemantics(t *testing.T) {
	files := []File{
		{Rel: ".claude-plugin/marketplace.json", Kind: model.KindMarketplace, Text: []byte(`{"name": "mk", "plugins": [{"name": "bare-entry", "source": "./plugins/bare"}, {"name": "ap", "source": "./plugins/ap"}]}`)},
		// No manifest at all: only the Claude marketplace makes it a plugin.
		md("plugins/bare/skills/s/SKILL.md", model.KindSkill, "name: s\ndescription: d"),
		md("plugins/bare/commands/c.md", model.KindCommand, "description: d"),
		// A root plugin.json naming the open agent-plugins schema.
		{Rel: "plugins/ap/plugin.json", Kind: model.KindPlugin, Text: []byte(`{"$schema": "https://agent-plugins.org/schemas/v1/plugin.schema.json", "name": "ap"}`)},
		md("plugins/ap/skills/t/SKILL.md", model.KindSkill, "name: t\ndescription: d"),
		// Only an OpenPlugin manifest: Copilot CLI does not read it.
		{Rel: "op/.plugin/plugin.json", Kind: model.KindPlugin, Text: []byte(`{"name": "op"}`)},
		md("template/SKILL.md", model.KindSkill, "name: template\ndescription: d"),
		md("skills/outer/inner/x/SKILL.md", model.KindSkill, "name: x\ndescription: d"),
	}
	lay := layout{"plugins/ap": model.FormatAP, "op": model.FormatOpenPlugin}
	v := Build(Input{Files: files, Layout: lay})

	ap, ok := find(itemsOf(v, model.TargetCopilotCLI), "plugins/ap/plugin.json")
	require.True(t, ok)
	assert.Equal(t, Loads, ap.Status, ap.Reason)
	assert.Equal(t, "once plugin ap from marketplace mk is installed", ap.Install)
	op, ok := find(itemsOf(v, model.TargetCopilotCLI), "op/.plugin/plugin.json")
	require.True(t, ok)
	assert.Equal(t, NotScanned, op.Status)

	cc := itemsOf(v, model.TargetClaudeCode)
	var bare Item
	for _, it := range cc {
		if it.Name == "bare-entry" {
			bare = it
		}
	}
	require.Equal(t, ".claude-plugin/marketplace.json", bare.Source, "the manifest-less listed plugin is listed under Claude Code")
	assert.Equal(t, Loads, bare.Status)
	s, ok := find(bare.Components, "plugins/bare/skills/s/SKILL.md")
	require.True(t, ok)
	assert.Equal(t, "bare-entry:s", s.Name)
	assert.Equal(t, "loads as `bare-entry:s` once plugin bare-entry from marketplace mk is installed", s.Phrase())
	_, ok = find(bare.Components, "plugins/bare/commands/c.md")
	assert.True(t, ok)
	// The other consumers read no manifest-less folder as a plugin: its
	// skill stays a loose file they judge by path.
	for _, c := range v.Consumers {
		if c.Target == model.TargetClaudeCode {
			continue
		}
		for _, it := range c.Items {
			assert.NotEqual(t, "bare-entry", it.Name, c.Target)
		}
	}

	as := itemsOf(v, model.TargetAgentSkills)
	tpl, ok := find(as, "template/SKILL.md")
	require.True(t, ok)
	assert.Equal(t, NotScanned, tpl.Status)
	assert.NotContains(t, tpl.Reason, "below another skill")
	assert.Contains(t, tpl.Reason, "template/ is not in a skills/ folder")
	nested, ok := find(as, "skills/outer/inner/x/SKILL.md")
	require.True(t, ok)
	assert.Contains(t, nested.Reason, "below another skill's folder (skills/outer/)")
}

// TestOtherAgents: what Codex, Cursor and Gemini CLI read (issue #38).
func TestOtherAgents(t *testing.T) {
	files := []File{
		md(".agents/skills/a/SKILL.md", model.KindSkill, "name: a\ndescription: d"),
		md(".codex/skills/group/deep/SKILL.md", model.KindSkill, "name: deep\ndescription: d"),
		md(".gemini/skills/g/SKILL.md", model.KindSkill, "name: gee\ndescription: d"),
		md(".claude/skills/c/SKILL.md", model.KindSkill, "name: c\ndescription: d"),
		{Rel: "AGENTS.md", Kind: model.KindMemory, Text: []byte("# A\n")},
		{Rel: "AGENTS.override.md", Kind: model.KindMemory, Text: []byte("# O\n")},
		{Rel: "GEMINI.md", Kind: model.KindMemory, Text: []byte("# G\n")},
		{Rel: ".cursor/rules/ts.mdc", Kind: model.KindCursorRule, Text: []byte("---\nalwaysApply: true\n---\nx\n")},
		{Rel: ".cursor/rules/plain.md", Kind: model.KindCursorRule, Text: []byte("x\n"),
			Findings: []model.Diagnostic{{Rule: "cursorrule/md-ignored", Verdicts: model.Verdicts{model.TargetCursor: model.Skip}}}},
		{Rel: ".gemini/commands/git/commit.toml", Kind: model.KindGeminiCmd, Text: []byte("prompt = \"x\"\n")},
		{Rel: "ext/gemini-extension.json", Kind: model.KindGeminiExt, Text: []byte(`{"name": "my-ext", "version": "1.0.0"}`)},
		{Rel: "p/.codex-plugin/plugin.json", Kind: model.KindCodexPlugin, Text: []byte(`{"name": "cx"}`)},
		md("ext/skills/e/SKILL.md", model.KindSkill, "name: e\ndescription: d"),
		md("skills/loose/SKILL.md", model.KindSkill, "name: loose\ndescription: d"),
		md("p/skills/cs/SKILL.md", model.KindSkill, "name: cs\ndescription: d"),
	}
	v := Build(Input{Files: files})
	for _, tc := range []struct {
		target model.Target
		source string
		status Status
		name   string
	}{
		{model.TargetCodex, ".agents/skills/a/SKILL.md", Loads, "a"},
		{model.TargetCodex, ".codex/skills/group/deep/SKILL.md", Loads, "deep"},
		{model.TargetCodex, ".gemini/skills/g/SKILL.md", NotScanned, "gee"},
		{model.TargetCodex, "AGENTS.md", Shadowed, "AGENTS.md"},
		{model.TargetCodex, "AGENTS.override.md", Loads, "AGENTS.override.md"},
		{model.TargetCodex, "p/.codex-plugin/plugin.json", Loads, "cx"},
		{model.TargetCursor, ".claude/skills/c/SKILL.md", Loads, "c"},
		{model.TargetCursor, ".codex/skills/group/deep/SKILL.md", NotScanned, "deep"},
		{model.TargetCursor, ".cursor/rules/ts.mdc", Loads, "ts"},
		{model.TargetCursor, ".cursor/rules/plain.md", Fails, "plain"},
		{model.TargetCursor, "AGENTS.md", Loads, "AGENTS.md"},
		{model.TargetGeminiCLI, ".gemini/skills/g/SKILL.md", Loads, "gee"},
		{model.TargetGeminiCLI, ".agents/skills/a/SKILL.md", Loads, "a"},
		{model.TargetGeminiCLI, "GEMINI.md", Loads, "GEMINI.md"},
		{model.TargetGeminiCLI, "AGENTS.md", NotScanned, "AGENTS.md"},
		{model.TargetGeminiCLI, ".gemini/commands/git/commit.toml", Loads, "/git:commit"},
		{model.TargetGeminiCLI, "ext/gemini-extension.json", Loads, "my-ext"},
		{model.TargetGeminiCLI, "ext/skills/e/SKILL.md", Loads, "e"},          // the extension's skills/
		{model.TargetGeminiCLI, "skills/loose/SKILL.md", NotScanned, "loose"}, // no extension there
	} {
		it, ok := find(itemsOf(v, tc.target), tc.source)
		require.Truef(t, ok, "%s: %s not listed", tc.target, tc.source)
		assert.Equalf(t, tc.status, it.Status, "%s %s: %+v", tc.target, tc.source, it)
		assert.Equalf(t, tc.name, it.Name, "%s %s", tc.target, tc.source)
	}
	ext, _ := find(itemsOf(v, model.TargetGeminiCLI), "ext/gemini-extension.json")
	assert.Equal(t, "once extension my-ext is installed", ext.Install)
	extSkill, _ := find(itemsOf(v, model.TargetGeminiCLI), "ext/skills/e/SKILL.md")
	assert.Equal(t, "once its extension is installed", extSkill.Install)
	cxSkill, _ := find(itemsOf(v, model.TargetCodex), "p/skills/cs/SKILL.md")
	assert.Equal(t, "once its plugin is installed", cxSkill.Install)
	// The consumers that do not read a kind do not list it.
	_, ok := find(itemsOf(v, model.TargetVSCode), ".cursor/rules/ts.mdc")
	assert.False(t, ok)
}

// TestCodexMarketplaceInstall: a Codex plugin a Codex marketplace lists
// loads "once plugin X from marketplace Y is installed" for Codex (its
// entry name), and that marketplace says nothing to the other consumers.
func TestCodexMarketplaceInstall(t *testing.T) {
	files := []File{
		{Rel: ".agents/plugins/marketplace.json", Kind: model.KindCodexMarket, Text: []byte(`{"name": "cxm", "plugins": [{"name": "demo", "source": {"source": "local", "path": "./plugins/demo"}}]}`)},
		{Rel: "plugins/demo/.codex-plugin/plugin.json", Kind: model.KindCodexPlugin, Text: []byte(`{"name": "demo"}`)},
		{Rel: "other/.codex-plugin/plugin.json", Kind: model.KindCodexPlugin, Text: []byte(`{"name": "other"}`)},
	}
	v := Build(Input{Files: files, Layout: layout{}})
	it, ok := find(itemsOf(v, model.TargetCodex), "plugins/demo/.codex-plugin/plugin.json")
	require.True(t, ok)
	assert.Equal(t, "once plugin demo from marketplace cxm is installed", it.Install)
	it, ok = find(itemsOf(v, model.TargetCodex), "other/.codex-plugin/plugin.json")
	require.True(t, ok)
	assert.Equal(t, "once plugin other is installed", it.Install)
	_, ok = find(itemsOf(v, model.TargetClaudeCode), "plugins/demo/.codex-plugin/plugin.json")
	assert.False(t, ok)
}

// TestCursorPluginInstall: a Cursor plugin loads for Cursor only, "once
// plugin X from marketplace Y is installed" when a Cursor marketplace
// lists it; VS Code and Claude Code do not read .cursor-plugin/.
func TestCursorPluginInstall(t *testing.T) {
	files := []File{
		{Rel: ".cursor-plugin/marketplace.json", Kind: model.KindCursorMarket, Text: []byte(`{"name": "cum", "plugins": [{"name": "a", "source": "./plugins/a"}]}`)},
		{Rel: "plugins/a/.cursor-plugin/plugin.json", Kind: model.KindCursorPlugin, Text: []byte(`{"name": "a"}`)},
	}
	v := Build(Input{Files: files, Layout: layout{}})
	it, ok := find(itemsOf(v, model.TargetCursor), "plugins/a/.cursor-plugin/plugin.json")
	require.True(t, ok)
	assert.Equal(t, "once plugin a from marketplace cum is installed", it.Install)
	for _, other := range []model.Target{model.TargetClaudeCode, model.TargetVSCode, model.TargetCodex} {
		_, ok = find(itemsOf(v, other), "plugins/a/.cursor-plugin/plugin.json")
		assert.False(t, ok, other)
	}
}

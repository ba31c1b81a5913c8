package diagnostics

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/shared"

	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/model"
)

// mapLayout names plugin roots and their formats for tests.
type mapLayout map[string]model.PluginFormat

func (m mapLayout) PluginRoot(dir string) model.PluginFormat { return m[dir] }

var testLayout = mapLayout{"plugins/p": model.FormatClaude, "plugins/my-tool": model.FormatClaude, "plugins/gh": model.FormatCopilot}

func findRule(diags []model.Diagnostic, rule string) *model.Diagnostic {
	for i := range diags {
		if diags[i].Rule == rule {
			return &diags[i]
		}
	}
	return nil
}

func countRule(diags []model.Diagnostic, rule string) int {
	n := 0
	for _, d := range diags {
		if d.Rule == rule {
			n++
		}
	}
	return n
}

// weight sums a rule's findings by severity (an Error counts 4, a Hint 1), so
// a fix that turns a skip into a partial loss counts as progress.
func weight(diags []model.Diagnostic, rule string) int {
	n := 0
	for _, d := range diags {
		if d.Rule == rule {
			// A finding's level first, then how many consumers it hurts:
			// a fix that leaves one consumer of three dropping an entry
			// helps even when the level stays.
			n += 10 * (5 - int(d.Severity))
			for _, r := range d.Verdicts {
				if _, rep := r.Severity(); rep {
					n++
				}
			}
		}
	}
	return n
}

// TestJSONQuickFixes applies the fixes a user would pick and checks the text
// they get: the fixes the spec says must exist.
func TestJSONQuickFixes(t *testing.T) {
	cases := []struct {
		name, path, text string
		targets          []model.Target
		rule, fix        string // fix title prefix
		want             string
	}{
		{"event case", ".github/hooks/a.json", `{"hooks": {"preToolUse": [{"type": "command", "command": "x"}]}}`,
			[]model.Target{model.TargetVSCode}, "hooks/event", "Rename to 'PreToolUse'",
			`{"hooks": {"PreToolUse": [{"type": "command", "command": "x"}]}}`},
		{"event typo", ".github/hooks/a.json", `{"hooks": {"PostToolUze": []}}`,
			nil, "hooks/event", "Rename to 'PostToolUse'", `{"hooks": {"PostToolUse": []}}`},
		{"plugin name kebab", "plugins/p/.claude-plugin/plugin.json", `{"name": "Plugin Settings", "version": "1"}`,
			nil, "plugin/name-format", "Use kebab-case", `{"name": "plugin-settings", "version": "1"}`},
		{"plugin name camel", "plugins/p/.claude-plugin/plugin.json", `{"name": "myPlugin", "version": "1"}`,
			nil, "plugin/name-format", "Use kebab-case", `{"name": "my-plugin", "version": "1"}`},
		{"plugin name prefix", "plugins/p/.claude-plugin/plugin.json", `{"name": "org/tools", "version": "1"}`,
			nil, "plugin/name-format", "Drop the prefix", `{"name": "tools", "version": "1"}`},
		{"plugin name missing", "plugins/my-tool/.claude-plugin/plugin.json", `{"version": "1"}`,
			nil, "plugin/name-missing", "Add", `{"name": "my-tool", "version": "1"}`},
		{"servers wrapper", ".mcp.json", `{"servers": {"a": {"command": "x"}}}`,
			nil, "mcp/wrapper", "Rename", `{"mcpServers": {"a": {"command": "x"}}}`},
		{"url without type", "plugins/p/.mcp.json", `{"mcpServers": {"a": {"url": "https://x.example/mcp"}}}`,
			[]model.Target{model.TargetClaudeCode}, "mcp/url-no-type", "Add", `{"mcpServers": {"a": {"type": "http", "url": "https://x.example/mcp"}}}`},
		{"path prefix", "plugins/p/.claude-plugin/plugin.json", `{"name": "p", "version": "1", "skills": "skills/"}`,
			nil, "plugin/path-prefix", "Prefix", `{"name": "p", "version": "1", "skills": "./skills/"}`},
		{"market source prefix", ".claude-plugin/marketplace.json", `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "a", "source": "plugins/a"}]}`,
			nil, "market/source-path", "Prefix", `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "a", "source": "./plugins/a"}]}`},
		{"flat for claude", ".claude/settings.json", `{"hooks": {"Stop": [{"type": "command", "command": "x"}]}}`,
			nil, "hooks/flat-for-claude", "Wrap", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}`},
		{"unquoted root", "plugins/p/hooks/hooks.json", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/a b"}]}]}}`,
			nil, "hooks/unquoted-root", "Wrap", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "\"${CLAUDE_PLUGIN_ROOT}/a\" b"}]}]}}`},
		{"token in settings", ".claude/settings.json", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/x"}]}]}}`,
			nil, "token/plugin-root", "Use $CLAUDE_PROJECT_DIR", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "$CLAUDE_PROJECT_DIR/x"}]}]}}`},
		{"timeout string", ".github/hooks/a.json", `{"hooks": {"Stop": [{"type": "command", "command": "x", "timeout": "30"}]}}`,
			nil, "hooks/field-type", "Use the number", `{"hooks": {"Stop": [{"type": "command", "command": "x", "timeout": 30}]}}`},
		{"missing type", ".github/hooks/a.json", `{"hooks": {"Stop": [{"command": "x"}]}}`,
			[]model.Target{model.TargetVSCode}, "hooks/type", "Add", `{"hooks": {"Stop": [{"type": "command", "command": "x"}]}}`},
		{"copilot command field", ".github/hooks/a.json", `{"version": 1, "hooks": {"sessionStart": [{"type": "command", "command": "x"}]}}`,
			nil, "hooks/command", "Add 'bash'", `{"version": 1, "hooks": {"sessionStart": [{"type": "command", "command": "x", "bash": "x"}]}}`},
		{"secret", ".mcp.json", `{"mcpServers": {"gh": {"command": "x", "env": {"GITHUB_TOKEN": "ghp_abcdefghijklmnopqrstuvwxyz"}}}}`,
			nil, "mcp/secret", "Use ${GITHUB_TOKEN}", `{"mcpServers": {"gh": {"command": "x", "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}}}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.ToSlash(filepath.Clean(c.path))
			diags := Check(core.File{Path: p, Text: []byte(c.text), Layout: testLayout}, core.Options{Targets: c.targets})
			d := findRule(diags, c.rule)
			require.NotNil(t, d, "no %s in %v", c.rule, diags)
			var fix *model.Fix
			for i := range d.Fixes {
				if strings.HasPrefix(d.Fixes[i].Title, c.fix) {
					fix = &d.Fixes[i]
				}
			}
			require.NotNil(t, fix, "no fix %q in %+v", c.fix, d.Fixes)
			got := applyEdits([]byte(c.text), fix.Edits)
			assert.Equal(t, c.want, got)
			after := Check(core.File{Path: p, Text: []byte(got), Layout: testLayout}, core.Options{Targets: c.targets})
			assert.Less(t, countRule(after, c.rule), countRule(diags, c.rule), "the fix removes the finding")
		})
	}
}

// TestEveryJSONFixHelps applies every fix offered on the golden workspace's
// JSON files: the result stays valid JSON and has fewer findings of the rule.
func TestEveryJSONFixHelps(t *testing.T) {
	fixes := 0
	err := filepath.WalkDir(goldenRoot, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(p, ".json") {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, goldenRoot+string(filepath.Separator)))
		kind := model.Classify(rel, dirLayout(goldenRoot))
		if kind == model.KindNone || kind.Markdown() {
			return nil
		}
		text, err := os.ReadFile(p)
		require.NoError(t, err)
		f := core.File{Path: rel, Kind: kind, Text: text, FS: dirFS(goldenRoot), Layout: dirLayout(goldenRoot)}
		before := Check(f, core.Options{Targets: model.AllTargets})
		for _, d := range before {
			for _, fx := range d.Fixes {
				fixes++
				f2 := f
				f2.Text = []byte(applyEdits(text, fx.Edits))
				after := Check(f2, core.Options{Targets: model.AllTargets})
				assert.Nil(t, findRule(after, "json/syntax"), "%s: fix %q of %s breaks the JSON:\n%s", rel, fx.Title, d.Rule, f2.Text)
				assert.Less(t, weight(after, d.Rule), weight(before, d.Rule), "%s: fix %q of %s does not help", rel, fx.Title, d.Rule)
			}
		}
		return nil
	})
	require.NoError(t, err)
	assert.Greater(t, fixes, 30)
	t.Logf("%d fixes applied", fixes)
}

func TestHooksEventVerdicts(t *testing.T) {
	text := []byte(`{"hooks": {"Setup": [{"hooks": [{"type": "command", "command": "x"}]}]}}`)
	// Claude Code knows Setup, the agent host does not: a partial loss.
	d := Check(core.File{Path: ".claude/settings.json", Text: text}, core.Options{})
	ev := findRule(d, "hooks/event")
	require.NotNil(t, ev)
	assert.Equal(t, model.SeverityWarning, ev.Severity)
	assert.Contains(t, ev.Message, "The VS Code agent host will never run")
	assert.Empty(t, ev.Fixes, "an event some consumer knows is no typo")
	assert.Equal(t, model.OK, ev.Verdicts[model.TargetClaudeCode])

	// Only Claude Code: nothing to say.
	d = Check(core.File{Path: ".claude/settings.json", Text: text}, core.Options{Targets: []model.Target{model.TargetClaudeCode}})
	assert.Nil(t, findRule(d, "hooks/event"))

	// A top-level version implies Copilot CLI, which knows only camelCase.
	d = Check(core.File{Path: ".github/hooks/x.json", Text: []byte(`{"version": 1, "hooks": {"PreToolUse": [{"type": "command", "bash": "x"}]}}`)}, core.Options{})
	ev = findRule(d, "hooks/event")
	require.NotNil(t, ev)
	assert.Contains(t, ev.Message, "Copilot CLI")
	require.NotEmpty(t, ev.Fixes)
	assert.Equal(t, `"preToolUse"`, ev.Fixes[0].Edits[0].NewText)
}

func TestJSONFalsePositiveGuard(t *testing.T) {
	all := core.Options{Targets: model.AllTargets}
	cases := []struct{ name, path, text string }{
		{"bare-map plugin mcp", "plugins/p/.mcp.json", `{"docs": {"command": "x", "args": ["${CLAUDE_PLUGIN_ROOT}/y"]}}`},
		{"claude hook keys", ".claude/settings.json", `{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "x", "if": "Bash(git *)", "async": true, "once": true, "statusMessage": "s"}]}]}}`},
		{"unset variables", ".mcp.json", `{"mcpServers": {"a": {"type": "http", "url": "${API_URL}", "headers": {"Authorization": "Bearer ${TOKEN}"}}}}`},
		{"env numbers", "plugins/gh/.mcp.json", `{"mcpServers": {"a": {"command": "x", "env": {"PORT": 8080}}}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.ToSlash(filepath.Clean(c.path))
			opts := all
			if c.name == "env numbers" {
				opts = core.Options{} // VS Code takes numbers in env
			}
			assert.Empty(t, Check(core.File{Path: p, Text: []byte(c.text), Layout: testLayout}, opts))
		})
	}
	// Bare plugins/x sources are fine where only Copilot CLI reads them.
	d := Check(core.File{Path: ".github/plugin/marketplace.json", Text: []byte(`{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "a", "source": "plugins/a"}]}`)}, all)
	assert.Nil(t, findRule(d, "market/source-path"))
}

func TestReadersLimitVerdicts(t *testing.T) {
	// Claude Code never reads .github/hooks files: configuring it must not
	// turn a flat VS Code handler into an error.
	text := []byte(`{"hooks": {"Stop": [{"type": "command", "command": "x"}]}}`)
	d := Check(core.File{Path: ".github/hooks/a.json", Text: text}, core.Options{Targets: []model.Target{model.TargetClaudeCode, model.TargetVSCode}})
	assert.Empty(t, d)
}

func TestHookEventsAndFields(t *testing.T) {
	assert.Contains(t, shared.HookEvents(model.TargetClaudeCode), "PreToolUse")
	assert.Contains(t, shared.HookEvents(model.TargetCopilotCLI), "preToolUse")
	assert.NotContains(t, shared.HookEvents(model.TargetVSCode), "SessionEnd")
	assert.Contains(t, shared.HookEvents(model.TargetVSCodeAgentHost), "SessionEnd")
	assert.Nil(t, shared.HookEvents(model.TargetAgentSkills))
	shared.HookEvents(model.TargetVSCode)[0] = "mutated"
	assert.Equal(t, "SessionStart", shared.HookEvents(model.TargetVSCode)[0], "callers get a copy")

	for _, k := range []model.Kind{model.KindPlugin, model.KindMarketplace, model.KindHooks, model.KindMCP, model.KindSettings} {
		fs := JSONFields(k)
		require.NotEmpty(t, fs, k)
		for _, f := range fs {
			assert.NotEmpty(t, f.Doc, "%s.%s", k, f.Key)
			assert.NotEmpty(t, f.Targets, "%s.%s", k, f.Key)
		}
	}
	assert.Nil(t, JSONFields(model.KindSkill))
}

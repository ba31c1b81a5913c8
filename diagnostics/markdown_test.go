package diagnostics

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/syntax"

	"io/fs"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/model"
)

func sp(text, sub string) model.Span {
	i := strings.Index(text, sub)
	if i < 0 {
		panic("no " + sub)
	}
	return model.Span{Start: i, End: i + len(sub)}
}

func TestSplitFrontmatter(t *testing.T) {
	cases := []struct {
		name     string
		text     string
		present  bool
		closed   bool
		bom      bool
		leading  string // text of the leading span
		body     string
		markdown string
	}{
		{"plain", "---\nname: a\n---\nBody\n", true, true, false, "", "name: a\n", "Body\n"},
		{"crlf", "---\r\nname: a\r\n---\r\nBody\r\n", true, true, false, "", "name: a\r\n", "Body\r\n"},
		{"bom", "\ufeff---\nname: a\n---\nB", true, true, true, "", "name: a\n", "B"},
		{"trailing blanks on dashes", "---  \nname: a\n--- \t\nB", true, true, false, "", "name: a\n", "B"},
		{"empty header", "---\n---\nB", true, true, false, "", "", "B"},
		{"unclosed", "---\nname: a\n# Title\n", true, false, false, "", "name: a\n# Title\n", ""},
		{"dashes in body", "---\nname: a\n---\nx\n---\ny\n", true, true, false, "", "name: a\n", "x\n---\ny\n"},
		{"no header", "# Title\n\nText\n---\nMore: text\n---\n", false, false, false, "", "", "# Title\n\nText\n---\nMore: text\n---\n"},
		{"hr after two lines, then a known key", "# T\nText\n---\nname: x\n---\nB", true, true, false, "# T\nText\n", "name: x\n", "B"},
		{"blank first line", "\n---\nname: a\n---\nB", true, true, false, "\n", "name: a\n", "B"},
		{"two leading lines, known key", "<!-- x -->\nnote\n---\nname: a\n---\nB", true, true, false, "<!-- x -->\nnote\n", "name: a\n", "B"},
		{"leading line, no known key", "Intro\n---\nfoo: a\n---\nB", false, false, false, "", "", "Intro\n---\nfoo: a\n---\nB"},
		{"three leading lines", "a\nb\nc\n---\nname: x\n---\n", false, false, false, "", "", "a\nb\nc\n---\nname: x\n---\n"},
		{"leading line, unclosed", "Intro\n---\nname: a\n", false, false, false, "", "", "Intro\n---\nname: a\n"},
		{"four dashes are no header", "----\nname: a\n----\n", false, false, false, "", "", "----\nname: a\n----\n"},
		{"lone CR", "---\rname: a\r---\rB", true, true, false, "", "name: a\r", "B"},
		{"empty file", "", false, false, false, "", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := []byte(c.text)
			fm := syntax.SplitFrontmatter(text)
			assert.Equal(t, c.present, fm.Present)
			assert.Equal(t, c.closed, fm.Closed)
			assert.Equal(t, c.bom, fm.BOM)
			get := func(s model.Span) string { return string(text[s.Start:s.End]) }
			assert.Equal(t, c.markdown, get(fm.Markdown))
			if !c.present {
				return
			}
			assert.Equal(t, c.leading, get(fm.Leading))
			assert.Equal(t, "---", strings.TrimRight(get(fm.Open), " \t"))
			assert.Equal(t, c.body, get(fm.Body))
			if c.closed {
				assert.Equal(t, "---", strings.TrimRight(get(fm.Close), " \t"))
			} else {
				assert.True(t, fm.Close.Empty())
			}
		})
	}
	assert.Equal(t, 3, syntax.SplitFrontmatter([]byte("---\r\n")).CR)
	assert.Equal(t, -1, syntax.SplitFrontmatter([]byte("---\n")).CR)
}

// mdOf runs the header pipeline on text as a file of kind at rel and returns it.
func mdOf(t *testing.T, rel, text string) *core.MDFile {
	t.Helper()
	f := core.File{Path: rel, Kind: model.Classify(rel, nil), Text: []byte(text)}
	r := core.NewReporter(f, core.Options{})
	m := core.NewMD(f, r)
	m.CheckHeader()
	return m
}

func TestYAMLPositions(t *testing.T) {
	text := "\ufeff---\r\n" +
		"name: é-x # comment\r\n" +
		"description: \"quoted: 😀\"\r\n" +
		"tools: [a, 'b c']\r\n" +
		"body: |\r\n  line one\r\n\r\n  line two\r\n" +
		"multi: plain words\r\n  continue here\r\n" +
		"nested:\r\n  k: v\r\n  list:\r\n    - x\r\n" +
		"empty:\r\n" +
		"last: z\r\n" +
		"---\r\n"
	m := mdOf(t, ".github/skills/a/SKILL.md", text)
	require.True(t, m.Mapping)
	want := map[string][2]string{
		"name":        {"name", "é-x"},
		"description": {"description", "\"quoted: 😀\""},
		"tools":       {"tools", "[a, 'b c']"},
		"body":        {"body", "|\r\n  line one\r\n\r\n  line two"},
		"multi":       {"multi", "plain words\r\n  continue here"},
		"nested":      {"nested", "k: v\r\n  list:\r\n    - x"},
		"last":        {"last", "z"},
	}
	for key, w := range want {
		f := m.Field(key)
		require.NotNil(t, f, key)
		assert.Equal(t, w[0], text[f.KeySpan.Start:f.KeySpan.End], key)
		assert.Equal(t, w[1], text[f.ValSpan.Start:f.ValSpan.End], key)
	}
	e := m.Field("empty")
	require.NotNil(t, e)
	assert.Equal(t, sp(text, "empty:").End, e.ValSpan.Start, "an empty value sits after its colon")
	assert.True(t, e.ValSpan.Empty())
	// Items of a flow list.
	tools := m.Field("tools").V
	assert.Equal(t, "'b c'", text[m.Doc.Span(tools.Content[1]).Start:m.Doc.Span(tools.Content[1]).End])
}

func TestYAMLErrorLocation(t *testing.T) {
	cases := []struct {
		name, text, token string
	}{
		{"colon in value", "---\nname: a\ndescription: Use this: for x\nlicense: m\n---\n", "this:"},
		{"continuation line with user:", "---\nname: a\ndescription: Use it.\n  user: \"hi\"\n---\n", "user:"},
		{"text after bracket", "---\nname: a\nx: [a] [--b]\n---\n", "[--b]"},
		{"tab", "---\nname: a\nmeta:\n\tk: v\n---\n", "\t"},
		{"unclosed flow", "---\nname: a\nx: [a, b\ny: c\n---\n", "y: c"},
		{"unknown alias", "---\nname: *nope\n---\n", "*nope"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fm := syntax.SplitFrontmatter([]byte(c.text))
			base := fm.Body.Start
			_, err := syntax.ParseYAML([]byte(c.text[fm.Body.Start:fm.Body.End]), func(o int) int { return base + o })
			require.NotNil(t, err)
			assert.Equal(t, c.token, c.text[err.Span.Start:err.Span.End], err.Msg)
		})
	}
}

func TestCCRetry(t *testing.T) {
	body := []byte("name: x\ndescription: Use when: asked \"now\"\nhint: [a] [--b]\nlist: [a, b]\nblock: |\n\tindented\n")
	res, changed := syntax.CCRetry(body)
	require.True(t, changed)
	assert.Equal(t, "name: x\ndescription: \"Use when: asked \\\"now\\\"\"\nhint: \"[a] [--b]\"\nlist: [a, b]\nblock: |\n  indented\n", string(res.Src))
	require.Len(t, res.Orig, len(res.Src)+1)
	// Every byte maps back to a byte of the original with the same
	// content, except the quotes and escapes the retry added.
	for i, o := range res.Orig[:len(res.Src)] {
		c := res.Src[i]
		if c == '"' || c == '\\' || body[o] == '\t' {
			continue
		}
		assert.Equal(t, string(body[o]), string(c), "byte %d", i)
	}
	// Rules on the retried tree point at the original text.
	text := "---\nname: x\nargument-hint: [a] [--b] \"q\"\nmetadata:\n\towner: me\n---\n"
	m := mdOf(t, ".github/skills/x/SKILL.md", text)
	require.True(t, m.Retry)
	f := m.Field("argument-hint")
	require.NotNil(t, f)
	assert.Equal(t, "[a] [--b] \"q\"", text[f.ValSpan.Start:f.ValSpan.End])
	assert.Equal(t, "argument-hint", text[f.KeySpan.Start:f.KeySpan.End])
	_, unchanged := syntax.CCRetry([]byte("name: x\ntools: [a, b]\n"))
	assert.False(t, unchanged)
}

func TestVSSubset(t *testing.T) {
	text := "---\nname: a\ndescription: &d x\nalias: *d\ntag: !!str 5\nempty:\nnested:\n  k: v\nseq:\n- a\ncut: a: b\nlater: lost\n---\n"
	fm := syntax.SplitFrontmatter([]byte(text))
	res := syntax.VsSimulate([]byte(text), fm.Body)
	var got []string
	for _, is := range res.Issues {
		got = append(got, text[is.Span.Start:is.Span.End])
	}
	assert.Equal(t, []string{"&d", "*d", "!!str", "empty", ": b"}, got)
	require.GreaterOrEqual(t, res.Stopped, 0)
	assert.Equal(t, syntax.VsCut, res.Issues[res.Stopped].Kind)
	assert.True(t, res.Errs(), "an empty key is an error")
	docEnd := "---\na: 1\n...\nb: 2\n---\n"
	res = syntax.VsSimulate([]byte(docEnd), syntax.SplitFrontmatter([]byte(docEnd)).Body)
	require.Len(t, res.Issues, 1)
	assert.Equal(t, syntax.VsDocEnd, res.Issues[0].Kind)
}

func checkText(rel, text string, targets ...model.Target) []model.Diagnostic {
	return Check(core.File{Path: rel, Text: []byte(text)}, core.Options{Targets: targets})
}

func rulesOf(ds []model.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Rule)
	}
	return out
}

func find(ds []model.Diagnostic, rule string) *model.Diagnostic {
	for i := range ds {
		if ds[i].Rule == rule {
			return &ds[i]
		}
	}
	return nil
}

// applyFix applies a fix's edits (to the diagnosed file only).
func applyFix(text string, fx model.Fix) string {
	edits := append([]model.Edit(nil), fx.Edits...)
	sort.Slice(edits, func(i, j int) bool { return edits[i].Span.Start > edits[j].Span.Start })
	for _, e := range edits {
		text = text[:e.Span.Start] + e.NewText + text[e.Span.End:]
	}
	return text
}

func preferred(d *model.Diagnostic) (model.Fix, bool) {
	for _, f := range d.Fixes {
		if f.Preferred {
			return f, true
		}
	}
	return model.Fix{}, false
}

// TestFixesRepair applies each rule's preferred fix and checks that the
// finding is gone and nothing new appeared: a fix that breaks the file is
// worse than none.
func TestFixesRepair(t *testing.T) {
	cases := []struct {
		rule, rel, text, want string
		targets               []model.Target
	}{
		{"skill/name-charset", ".github/skills/plugin-settings/SKILL.md", "---\nname: Plugin Settings\ndescription: d\n---\n", "name: plugin-settings\n", nil},
		{"skill/name-charset", ".github/skills/deploy/SKILL.md", "---\nname: org:deploy\ndescription: d\n---\n", "name: deploy\n", nil},
		{"skill/name-charset", ".github/skills/deploy/SKILL.md", "---\nname: org/deploy\ndescription: d\n---\n", "name: deploy\n", nil},
		{"skill/name-dir", ".github/skills/lint/SKILL.md", "---\nname: linter\ndescription: d\n---\n", "name: lint\n", nil},
		{"skill/name-missing", ".github/skills/lint/SKILL.md", "---\ndescription: d\n---\n", "name: lint\n", nil},
		{"skill/desc-missing", ".github/skills/lint/SKILL.md", "---\nname: lint\n---\n# Lint\n\nRuns the linter. Then reports.\n", "description: Runs the linter.\n", nil},
		{"skill/desc-empty", ".github/skills/lint/SKILL.md", "---\nname: lint\ndescription:\n---\nChecks code: fast.\n", "description: 'Checks code: fast.'\n", nil},
		{"fm/missing", ".github/skills/lint/SKILL.md", "Lints Go code. More.\n", "---\nname: lint\ndescription: Lints Go code.\n---\n", nil},
		{"fm/bom", ".github/skills/lint/SKILL.md", "\ufeff---\nname: lint\ndescription: d\n---\n", "---\nname", nil},
		{"fm/unclosed", ".github/skills/lint/SKILL.md", "---\nname: lint\ndescription: d\n# Title\nText\n", "description: d\n---\n# Title", nil},
		{"yaml/unquoted-special", ".github/skills/lint/SKILL.md", "---\nname: lint\ndescription: Use when: asked\n---\n", "description: 'Use when: asked'\n", nil},
		{"yaml/tab-indent", ".github/skills/lint/SKILL.md", "---\nname: lint\ndescription: d\nmetadata:\n\towner: me\n---\n", "\n  owner: me\n", nil},
		{"yaml/duplicate-key", ".github/skills/lint/SKILL.md", "---\nname: lint\ndescription: a\ndescription: b\n---\n", "---\nname: lint\ndescription: a\n---\n", nil},
		{"yaml/syntax", ".claude/agents/r.md", "---\nname: r\ndescription: Use it. For example\n  user: \"hi\"\n  assistant: \"ok\"\n---\n", "description: |\n  Use it. For example\n  user: \"hi\"\n  assistant: \"ok\"\n---", nil},
		{"yaml/vscode-subset", ".github/skills/lint/SKILL.md", "---\nname: lint\ndescription: d\nlicense:\n---\n", "license: ''\n", nil},
		{"field/bool", ".github/prompts/p.prompt.md", "---\ndescription: d\nuser-invocable: yes\n---\n", "user-invocable: true\n", nil},
		{"field/renamed", ".github/prompts/p.prompt.md", "---\ndescription: d\nmode: ask\n---\n", "agent: ask\n", nil},
		{"field/type", ".github/prompts/p.prompt.md", "---\ndescription: d\nargument-hint: [file]\n---\n", "argument-hint: '[file]'\n", nil},
		{"field/unknown", ".github/prompts/p.prompt.md", "---\ndescription: d\nmodle: gpt-5\n---\n", "model: gpt-5\n", nil},
		{"ccagent/name-case", ".claude/agents/x.md", "---\nname: WinFormsExpert\ndescription: d\n---\n", "name: winformsexpert\n", nil},
		{"ccagent/name-skip", ".claude/agents/x.md", "---\nname: team:reviewer\ndescription: d\n---\n", "name: reviewer\n", nil},
		{"ccagent/name-missing", ".claude/agents/code-reviewer.md", "---\ndescription: d\n---\n", "name: code-reviewer\n", nil},
		{"ccagent/enum", ".claude/agents/x.md", "---\nname: x\ndescription: d\nmodel: Claude Sonnet 4.5\n---\n", "model: sonnet\n", nil},
		{"instr/apply-to", ".github/instructions/x.instructions.md", "---\napplyTo: [\"*.ts\", \"*.tsx\"]\n---\n", "applyTo: '*.ts, *.tsx'\n", nil},
		{"rule/apply-to", ".claude/rules/x.md", "---\napplyTo: \"*.py, *.pyi\"\n---\n", "paths: ['*.py', '*.pyi']\n", nil},
		{"cmd/ignored-key", ".claude/commands/x.md", "---\ndescription: d\nname: x\n---\n", "---\ndescription: d\n---\n", nil},
		{"agent/infer", ".github/agents/a.agent.md", "---\ndescription: d\ninfer: false\n---\n", "disable-model-invocation: true\n", nil},
	}
	for _, c := range cases {
		t.Run(c.rule+" "+c.rel, func(t *testing.T) {
			ds := checkText(c.rel, c.text, c.targets...)
			d := find(ds, c.rule)
			require.NotNil(t, d, "rule did not fire; got %v", rulesOf(ds))
			fx, ok := preferred(d)
			require.True(t, ok, "no preferred fix")
			fixed := applyFix(c.text, fx)
			assert.Contains(t, fixed, c.want)
			after := checkText(c.rel, fixed, c.targets...)
			assert.Nil(t, find(after, c.rule), "fix did not repair:\n%s\n%v", fixed, after)
			assert.LessOrEqual(t, len(after), len(ds)-1, "the fix introduced findings: %v", rulesOf(after))
		})
	}
}

func TestMoveUnderMetadata(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"---\nname: a\ndescription: d\nversion: 1.0.0\n---\n", "---\nname: a\ndescription: d\nmetadata:\n  version: 1.0.0\n---\n"},
		{"---\nname: a\nauthor: me\nmetadata:\n  team: x\ndescription: d\n---\n", "---\nname: a\nmetadata:\n  team: x\n  author: me\ndescription: d\n---\n"},
	} {
		ds := checkText(".github/skills/a/SKILL.md", c.text)
		d := find(ds, "field/unknown")
		require.NotNil(t, d, "%v", rulesOf(ds))
		require.Len(t, d.Fixes, 1)
		fixed := applyFix(c.text, d.Fixes[0])
		assert.Equal(t, c.want, fixed)
		assert.Empty(t, checkText(".github/skills/a/SKILL.md", fixed))
	}
}

func TestExpandFix(t *testing.T) {
	text := "---\nname: a\ndescription: &d Does things.\nlicense: *d\n---\n"
	ds := checkText(".github/skills/a/SKILL.md", text)
	var fixed = text
	var fixes []model.Fix
	for _, d := range ds {
		require.Equal(t, "yaml/vscode-subset", d.Rule)
		require.Len(t, d.Fixes, 1)
		fixes = append(fixes, d.Fixes[0])
	}
	require.Len(t, fixes, 2)
	fixed = applyFix(fixed, model.Fix{Edits: append(append([]model.Edit{}, fixes[0].Edits...), fixes[1].Edits...)})
	assert.Equal(t, "---\nname: a\ndescription: Does things.\nlicense: Does things.\n---\n", fixed)
}

// TestFalsePositiveGuard: the §6 cases that must stay silent under every
// target.
func TestFalsePositiveGuard(t *testing.T) {
	all := model.AllTargets
	// Claude-only files are checked under the default targets (Claude Code
	// implied by the path); the rest under every target.
	cases := []struct{ rel, text string }{
		{".github/skills/fmt/SKILL.md", "---\nname: fmt\ndescription: Formats code.\nmetadata:\n  tags: \"a, b\"\n---\nBody\n\n---\n\nMore.\n"},
		{".github/agents/review.agent.md", "---\nname: Code Reviewer\ndescription: 'Reviews: style and tests.'\ntools: [read, search]\nmodel: [GPT-5, Claude Sonnet 4.5]\n---\nBody\n"},
		{".claude/commands/gen.md", "---\ndescription: Generate a component\nargument-hint: [name] [--typescript]\n---\nGo.\n"},
		{".claude/commands/plain.md", "Run it.\n\n---\n\nThen report.\n"},
		{".github/instructions/go.instructions.md", "Always test.\n\n---\n\nMore rules.\n"},
		{".github/instructions/ts.instructions.md", "---\napplyTo: \"**/*.ts, **/*.tsx\"\n---\nStrict.\n"},
		{"AGENTS.md", "# Agents\n\n---\n\nRules.\n"},
		{".claude/agents/rev.md", "---\nname: rev\ndescription: Reviews. Use after edits.\ntools: Read, Grep\n---\nBody\n"},
	}
	for _, c := range cases {
		t.Run(c.rel, func(t *testing.T) {
			targets := all
			if strings.HasPrefix(c.rel, ".claude/commands/") {
				targets = nil
			}
			ds := checkText(c.rel, c.text, targets...)
			for _, d := range ds {
				if c.rel == "AGENTS.md" && d.Rule == "memory/agents-md" {
					continue
				}
				assert.Fail(t, "unexpected diagnostic", "%s %s: %s", d.Severity, d.Rule, d.Message)
			}
		})
	}
	// Flow lists are valid YAML: never a syntax error, whatever the kind.
	for _, rel := range []string{".github/skills/a/SKILL.md", ".github/prompts/a.prompt.md", ".claude/agents/a.md", ".claude/rules/a.md"} {
		ds := checkText(rel, "---\nname: a\ndescription: d\ntools: [a, b]\npaths: [\"x/**\", \"y\"]\n---\n", all...)
		for _, d := range ds {
			assert.NotContains(t, d.Rule, "yaml/", "%s: %s", rel, d.Message)
		}
	}
}

func TestUploadOnlyRules(t *testing.T) {
	up := []model.Target{model.TargetClaudeUpload}
	text := "---\r\nname: claude-helper\r\ndescription: d\r\nversion: 1\r\n---\r\n"
	ds := checkText(".github/skills/claude-helper/SKILL.md", text, up...)
	crlf := find(ds, "fm/crlf")
	require.NotNil(t, crlf, "%v", rulesOf(ds))
	assert.Equal(t, model.SeverityError, crlf.Severity)
	assert.Equal(t, model.Span{Start: 3, End: 4}, crlf.Span)
	fixed := applyFix(text, crlf.Fixes[0])
	assert.NotContains(t, fixed, "\r")
	res := find(ds, "skill/name-reserved")
	require.NotNil(t, res)
	assert.Equal(t, "claude", text[res.Span.Start:res.Span.End])
	unk := find(ds, "field/unknown")
	require.NotNil(t, unk, "claude.ai upload rejects non-spec keys")
	assert.Equal(t, model.SeverityError, unk.Severity)
	// Under the default targets none of these is an error.
	for _, d := range checkText(".github/skills/claude-helper/SKILL.md", text) {
		assert.NotEqual(t, "fm/crlf", d.Rule)
		assert.NotEqual(t, model.SeverityError, d.Severity, d.Message)
	}
}

// TestRootSkillName: a workspace-root SKILL.md is not compared with the
// folder name '.' (#25 corpus P10).
func TestRootSkillName(t *testing.T) {
	ds := checkText("SKILL.md", "---\nname: anything\ndescription: Does one thing.\n---\nBody.\n")
	assert.NotContains(t, rulesOf(ds), "skill/name-dir")
	ds = checkText("x/SKILL.md", "---\nname: anything\ndescription: Does one thing.\n---\nBody.\n")
	assert.Contains(t, rulesOf(ds), "skill/name-dir")
}

func TestOneDiagnosticPerName(t *testing.T) {
	// 'Plugin Settings' in folder 'settings' is a charset error, not also
	// a folder mismatch.
	ds := checkText(".github/skills/settings/SKILL.md", "---\nname: Plugin Settings\ndescription: d\n---\n")
	assert.Equal(t, []string{"skill/name-charset"}, rulesOf(ds))
	// Only Claude Code effective: it loads the skill anyway, so the spec's
	// rule is an Info (#25).
	ds = checkText(".claude/skills/settings/SKILL.md", "---\nname: Plugin Settings\ndescription: d\n---\n", model.TargetClaudeCode)
	require.Len(t, ds, 1)
	assert.Equal(t, model.SeverityInfo, ds[0].Severity)
	// A file opening with a Markdown rule and never closing it is one
	// finding, not also a header that is no mapping.
	ds = checkText(".github/instructions/x.instructions.md", "---\nJust text.\n")
	assert.Equal(t, []string{"fm/unclosed"}, rulesOf(ds))
	// An unparsable header gets yaml/syntax only: no missing-field cascade.
	ds = checkText(".github/skills/x/SKILL.md", "---\nname: x\ndescription: a\n  user: \"b\"\n---\n")
	assert.Equal(t, []string{"yaml/syntax"}, rulesOf(ds))
}

func TestMessagesNameConsumers(t *testing.T) {
	ds := checkText(".github/skills/settings/SKILL.md", "---\nname: Plugin Settings\ndescription: d\n---\n", model.TargetVSCode, model.TargetVSCodeAgentHost)
	require.Len(t, ds, 1)
	// Issue #13 repro 6: VS Code's validator marks the name and the skill
	// still loads (folder name); the agent host takes the name as written.
	assert.Equal(t, "VS Code flags skill name 'Plugin Settings' (only a–z, 0–9 and '-') and loads the skill under its folder name 'settings'.", ds[0].Message)
	assert.Equal(t, model.SeverityWarning, ds[0].Severity)
	assert.Equal(t, model.Warn, ds[0].Verdicts[model.TargetVSCode])
	assert.Equal(t, model.Spec, ds[0].Verdicts[model.TargetVSCodeAgentHost])
	// The agent host alone loads the skill anyway: the spec's rule is an
	// Info, not silence (#25).
	ds = checkText(".github/skills/settings/SKILL.md", "---\nname: Plugin Settings\ndescription: d\n---\n", model.TargetVSCodeAgentHost)
	require.Len(t, ds, 1)
	assert.Equal(t, model.SeverityInfo, ds[0].Severity, "the agent host alone loads it anyway")
	// claude.ai upload does refuse it.
	ds = checkText(".github/skills/settings/SKILL.md", "---\nname: Plugin Settings\ndescription: d\n---\n", model.TargetClaudeUpload)
	require.Len(t, ds, 1)
	assert.Equal(t, model.SeverityError, ds[0].Severity)
	assert.Contains(t, ds[0].Message, "rejects skill name")
	assert.NotContains(t, ds[0].Verdicts, model.Target("nobody"))
	// Verdicts for targets that do not read the kind are dropped.
	ds = checkText(".github/prompts/p.prompt.md", "---\ndescription: a\ndescription: b\n---\n")
	d := find(ds, "yaml/duplicate-key")
	require.NotNil(t, d)
	assert.NotContains(t, d.Verdicts, model.TargetAgentSkills)
	require.Len(t, d.Related, 1)
	assert.Equal(t, sp("---\ndescription: a\ndescription: b\n---\n", "description"), d.Related[0].Span)
	for _, d := range ds {
		assert.LessOrEqual(t, len([]rune(d.Message)), 130, d.Message)
	}
}

func TestKeyAtAndFields(t *testing.T) {
	text := "---\nname: lint\ndescription: >\n  Lints code.\nmodel:\n---\nBody\n"
	key, ks, vs, ok := core.KeyAt([]byte(text), strings.Index(text, "Lints"))
	require.True(t, ok)
	assert.Equal(t, "description", key)
	assert.Equal(t, "description", text[ks.Start:ks.End])
	assert.Equal(t, ">\n  Lints code.", text[vs.Start:vs.End])
	key, _, vs, ok = core.KeyAt([]byte(text), strings.Index(text, "model:")+2)
	require.True(t, ok)
	assert.Equal(t, "model", key)
	assert.Equal(t, strings.Index(text, "model:")+len("model:"), vs.Start)
	_, _, _, ok = core.KeyAt([]byte(text), strings.Index(text, "Body"))
	assert.False(t, ok)
	// The Claude Code retry still finds keys in a header strict YAML rejects.
	bad := "---\nargument-hint: [a] [--b]\n---\n"
	key, _, _, ok = core.KeyAt([]byte(bad), strings.Index(bad, "--b"))
	require.True(t, ok)
	assert.Equal(t, "argument-hint", key)

	var effort core.FieldInfo
	for _, f := range core.Fields(model.KindSkill) {
		if f.Key == "effort" {
			effort = f
		}
	}
	assert.Equal(t, []string{"low", "medium", "high", "xhigh", "max"}, effort.Values)
	assert.Equal(t, []model.Target{model.TargetClaudeCode}, effort.Targets)
	for _, k := range []model.Kind{model.KindSkill, model.KindAgent, model.KindClaudeAgent, model.KindPrompt, model.KindCommand, model.KindInstructions, model.KindRule} {
		fs := core.Fields(k)
		assert.NotEmpty(t, fs, k)
		for _, f := range fs {
			assert.NotEmpty(t, f.Doc, "%s %s", k, f.Key)
			assert.NotEmpty(t, f.Targets, "%s %s", k, f.Key)
		}
	}
	assert.Empty(t, core.Fields(model.KindMemory))
}

// memFS is a workspace in memory that can also read files.
type memFS map[string]string

type memInfo struct{ dir bool }

func (i memInfo) Name() string       { return "" }
func (i memInfo) Size() int64        { return 0 }
func (i memInfo) Mode() fs.FileMode  { return 0 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return i.dir }
func (i memInfo) Sys() any           { return nil }

func (m memFS) Stat(rel string) (fs.FileInfo, error) {
	if _, ok := m[rel]; ok {
		return memInfo{}, nil
	}
	for p := range m {
		if strings.HasPrefix(p, rel+"/") {
			return memInfo{dir: true}, nil
		}
	}
	return nil, fs.ErrNotExist
}

func (m memFS) ReadFile(rel string) ([]byte, error) {
	if s, ok := m[rel]; ok {
		return []byte(s), nil
	}
	return nil, fs.ErrNotExist
}

func TestRulesReadingOtherFiles(t *testing.T) {
	nested := ".github/skills/parent/sub/SKILL.md"
	sub := "---\nname: sub\ndescription: d\n---\n"
	check := func(ws memFS, rel string) []model.Diagnostic {
		return Check(core.File{Path: rel, Text: []byte(ws[rel]), FS: ws}, core.Options{Targets: []model.Target{model.TargetVSCode, model.TargetClaudeCode}})
	}
	ws := memFS{nested: sub, ".github/skills/parent/SKILL.md": "---\nname: parent\ndescription: d\n---\nSee sub/SKILL.md.\n"}
	d := find(check(ws, nested), "skill/nested")
	require.NotNil(t, d)
	assert.Equal(t, model.SeverityInfo, d.Severity, "the parent links to it")
	ws[".github/skills/parent/SKILL.md"] = "---\nname: parent\ndescription: d\n---\nNo mention.\n"
	d = find(check(ws, nested), "skill/nested")
	require.NotNil(t, d)
	assert.Equal(t, model.SeverityWarning, d.Severity)

	ws = memFS{"AGENTS.md": "# Agents\n", "CLAUDE.md": "# Claude\n@AGENTS.md\n"}
	assert.Nil(t, find(check(ws, "AGENTS.md"), "memory/agents-md"))
	ws["CLAUDE.md"] = "# Claude\nNo import.\n"
	d = find(check(ws, "AGENTS.md"), "memory/agents-md")
	require.NotNil(t, d)
	assert.Equal(t, model.SeverityHint, d.Severity)
	delete(ws, "CLAUDE.md")
	d = find(check(ws, "AGENTS.md"), "memory/agents-md")
	require.NotNil(t, d)
	require.Len(t, d.Fixes, 1)
	assert.Equal(t, "CLAUDE.md", d.Fixes[0].Edits[0].Path)

	ws = memFS{"CLAUDE.md": "@docs/a.md @docs/b.md @nobody `@docs/c.md`\n", "docs/a.md": "x"}
	ds := check(ws, "CLAUDE.md")
	require.Len(t, ds, 1, "%v", rulesOf(ds))
	assert.Equal(t, "docs/b.md", ws["CLAUDE.md"][ds[0].Span.Start:ds[0].Span.End])
}

func TestInHeader(t *testing.T) {
	text := []byte("---\nname: a\n\n---\nBody\n")
	assert.True(t, core.InHeader(text, 12))
	assert.False(t, core.InHeader(text, 20))
	assert.False(t, core.InHeader([]byte("Body"), 1))
}

func FuzzSplitFrontmatter(f *testing.F) {
	for _, s := range []string{"---\nname: a\n---\nB", "\ufeff---\r\nx: 1\r\n---\r\n", "a\nb\n---\nname: x\n---\n", "---\n", "\r\r---\r", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		text := []byte(s)
		fm := syntax.SplitFrontmatter(text)
		for _, span := range []model.Span{fm.Leading, fm.Open, fm.Body, fm.Close, fm.Markdown} {
			if span.Start < 0 || span.End > len(text) || span.Start > span.End {
				t.Fatalf("bad span %v in %q", span, s)
			}
		}
		if fm.Present && (fm.Open.End > fm.Body.Start || (fm.Closed && fm.Body.End > fm.Close.Start)) {
			t.Fatalf("out of order: %+v", fm)
		}
	})
}

// FuzzYAMLWalker drives the whole Markdown pipeline (split, strict YAML,
// retry, VS simulation, field rules, fixes) for every Markdown kind: no
// panic may escape and every span must lie in the text.
func FuzzYAMLWalker(f *testing.F) {
	for _, s := range []string{
		"---\nname: a\ndescription: Use: x\ntools: [a, b]\n---\nB [l](x/y.md)\n",
		"---\nname: a\n\tk: v\nd: |\n\tx\n---\n",
		"---\nhandoffs:\n  - label: a\n    agent: b\n  - x\n---\n",
		"---\na: &x 1\nb: *x\n? c\n: d\n...\n---\n",
		"---\n- a\n---\n",
		"---\nname: \"é😀\n---\n",
		"---\nhooks:\n  Stop:\n    - matcher: x\n      hooks:\n        - type: command\n          timeout: -1\n  preToolUse: [1]\n---\n",
		"---\nhooks: {Stop: [{hooks: [{type: http}]}, {matcher: a, hooks: 3}], X: {}}\n---\n",
	} {
		f.Add(s)
	}
	paths := []string{".github/skills/a/SKILL.md", ".github/agents/a.agent.md", ".claude/agents/a.md", ".github/prompts/a.prompt.md",
		".claude/commands/a.md", ".github/instructions/a.instructions.md", ".claude/rules/a.md", "CLAUDE.md"}
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range paths {
			ds := Check(core.File{Path: p, Text: []byte(s)}, core.Options{Targets: model.AllTargets})
			for _, d := range ds {
				if d.Rule == "internal/error" {
					t.Fatalf("%s: %s", p, d.Message)
				}
				for _, fx := range d.Fixes {
					for _, e := range fx.Edits {
						if e.Path == "" && (e.Span.Start < 0 || e.Span.End > len(s) || e.Span.Start > e.Span.End) {
							t.Fatalf("%s: bad edit span %v for %s", p, e.Span, d.Rule)
						}
					}
				}
			}
		}
		for i := 0; i <= len(s); i += 7 {
			core.KeyAt([]byte(s), i)
		}
	})
}

// TestLargeHeader guards against quadratic work on big headers.
func TestLargeHeader(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("---\nname: big\ndescription: d\n")
	for i := 0; i < 20000; i++ {
		sb.WriteString("k")
		sb.WriteString(strings.Repeat("x", i%7))
		sb.WriteString(string(rune('a' + i%26)))
		sb.WriteString(": |\n  line\n")
	}
	sb.WriteString("---\n")
	ds := Check(core.File{Path: ".github/skills/big/SKILL.md", Text: []byte(sb.String())}, core.Options{})
	assert.NotEmpty(t, ds, "duplicate and unknown keys are reported")
}

func BenchmarkCheckSkill4KB(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("---\nname: pdf-tools\ndescription: Extracts text and tables from PDF files, fills forms and merges documents. Use when the user mentions PDFs.\nlicense: Apache-2.0\ncompatibility: Requires python3 and pdfplumber\nmetadata:\n  author: example\n  version: \"1.0\"\nallowed-tools: Read Bash\n---\n\n# PDF tools\n\n")
	for sb.Len() < 4000 {
		sb.WriteString("Use `pdfplumber` to read pages; see [the reference](references/REFERENCE.md) for form fields and merging.\n\n")
	}
	text := []byte(sb.String())
	f := core.File{Path: ".github/skills/pdf-tools/SKILL.md", Kind: model.KindSkill, Text: text}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		Check(f, core.Options{})
	}
}

// CommonMark fences (issue #13 repro 7): the closing fence repeats the
// opening character at least as often and carries nothing else.
func TestCodeFence(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		in    []bool // step's answer per line
	}{
		{"three backticks", []string{"```", "x", "```", "y"}, []bool{true, true, true, false}},
		{"inner shorter fence is content", []string{"````markdown", "```markdown", "[a](b.md)", "```", "````", "z"}, []bool{true, true, true, true, true, false}},
		{"tilde does not close backticks", []string{"```", "~~~", "```"}, []bool{true, true, true}},
		{"closing fence with info text is content", []string{"```", "``` x", "```"}, []bool{true, true, true}},
		{"four spaces is no fence", []string{"    ```", "x"}, []bool{false, false}},
		{"backtick in info string is no fence", []string{"``` a`b", "x"}, []bool{false, false}},
		{"unclosed runs to the end", []string{"~~~~", "~~~", "x"}, []bool{true, true, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f core.CodeFence
			for i, l := range tc.lines {
				assert.Equal(t, tc.in[i], f.Step([]byte(l)), "line %d %q", i, l)
			}
		})
	}
}

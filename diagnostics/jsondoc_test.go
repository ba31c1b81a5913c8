package diagnostics

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"

	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/model"
)

// pos renders a byte offset as 1-based line:col (UTF-16), as goldens do.
func pos(text []byte, off int) string {
	p := model.NewLineIndex(text).Position(off, model.UTF16)
	return fmt.Sprintf("%d:%d", p.Line+1, p.Character+1)
}

func TestParseJSONSyntaxErrorsPointAtTheFailingToken(t *testing.T) {
	cases := []struct {
		name, text string
		at, token  string // position of the range start, and its text
		msg        string
	}{
		{"missing comma between members", "{\n  \"a\": 1\n  \"b\": 2\n}", "3:3", `"b"`, "',' is missing"},
		{"missing comma between elements", "[\n 1\n 2\n]", "3:2", "2", "expected ',' or ']'"},
		{"unquoted key", "{\n  name: \"x\"\n}", "2:3", "name", "double-quoted key"},
		{"single quotes", "{\"a\": 'x'}", "1:7", "'", "double quotes"},
		{"bare word value", "{\"a\": yes}", "1:7", "yes", "not a JSON value"},
		{"missing colon", "{\"a\" 1}", "1:6", "1", "expected ':'"},
		{"bad escape", "{\"a\": \"x\\q\"}", "1:9", `\q`, "not a JSON escape"},
		{"unterminated string", "{\"a\": \"abc\n}", "1:7", `"abc`, "never closed"},
		{"raw tab in string", "{\"a\": \"x\ty\"}", "1:9", "\t", "control characters"},
		{"leading zero", "{\"a\": 01}", "1:7", "01", "not a valid JSON number"},
		{"unclosed object reported at the end", "{\n  \"a\": [1, 2]\n", "2:13", "]", "'{' on line 1 is closed"},
		{"unclosed array", "[1,\n2", "2:1", "2", "'[' on line 1"},
		{"trailing garbage", "{}\n}", "2:1", "}", "after the end"},
		{"unclosed comment", "{} /* x", "1:4", "/*", "never closed"},
		{"missing value", "{\"a\": }", "1:7", "}", "value is missing"},
		{"empty file", "  \n", "1:1", "", "empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := []byte(c.text)
			v, diags := core.ParseJSON(text)
			assert.Nil(t, v, "a syntax error yields no tree")
			require.NotEmpty(t, diags)
			d := diags[len(diags)-1]
			assert.Equal(t, "json/syntax", d.Rule)
			assert.Equal(t, model.SeverityError, d.Severity)
			assert.Equal(t, c.at, pos(text, d.Span.Start))
			assert.Equal(t, c.token, string(text[d.Span.Start:d.Span.End]))
			assert.Contains(t, d.Message, c.msg)
		})
	}
}

func TestParseJSONCKeepsParsing(t *testing.T) {
	text := []byte("{\n  // why\n  \"a\": [1, 2,],\n  /* block */ \"b\": {\"c\": true,},\n}\n")
	v, diags := core.ParseJSON(text)
	require.NotNil(t, v, "comments and trailing commas still give a tree")
	var got []string
	for _, d := range diags {
		assert.Equal(t, "json/jsonc", d.Rule)
		assert.Equal(t, model.SeverityWarning, d.Severity, "rejections by Claude Code and Copilot CLI are unverified")
		got = append(got, string(text[d.Span.Start:d.Span.End]))
		require.Len(t, d.Fixes, 1)
	}
	assert.Equal(t, []string{"// why", ",", "/* block */", ",", ","}, got)
	assert.True(t, v.Get("b").Get("c").Is(core.JSONBool))
	assert.Len(t, v.Get("a").Items, 2)
}

func TestParseJSONDuplicateKey(t *testing.T) {
	text := []byte("{\"a\": 1,\n \"b\": 2,\n \"a\": 3}")
	v, diags := core.ParseJSON(text)
	require.NotNil(t, v)
	require.Len(t, diags, 1)
	d := diags[0]
	assert.Equal(t, "json/duplicate-key", d.Rule)
	assert.Equal(t, "3:2", pos(text, d.Span.Start), "points at the second key")
	require.Len(t, d.Related, 1)
	assert.Equal(t, "1:2", pos(text, d.Related[0].Span.Start), "related: the first key")
	assert.Equal(t, "3", v.Get("a").Str, "the last value wins, as for every consumer")
	require.Len(t, d.Fixes, 1)
	fixed := applyEdits(text, d.Fixes[0].Edits)
	assert.Equal(t, "{\"a\": 1,\n \"b\": 2}", fixed)
}

func TestParseJSONDuplicateKeyInLargeObject(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "\"k%d\": %d, ", i, i)
	}
	b.WriteString("\"k3\": 0, \"k39\": 0, \"k3\": 1}")
	text := []byte(b.String())
	_, diags := core.ParseJSON(text)
	require.Len(t, diags, 3)
	first := strings.Index(string(text), `"k3"`)
	for _, d := range diags {
		assert.Equal(t, "json/duplicate-key", d.Rule)
		if string(text[d.Span.Start:d.Span.End]) == `"k3"` {
			assert.Equal(t, first, d.Related[0].Span.Start, "related is always the first occurrence")
		}
	}
}

func TestJSONValueSpansAndEscapes(t *testing.T) {
	text := []byte("\uFEFF{\"k\\u00e9y\": \"a\\tb\\\"c ${X} \\ud83d\\ude00 z\", \"n\": -1.5e3, \"l\": [null, false]}")
	v, diags := core.ParseJSON(text)
	require.Empty(t, diags, "a BOM is tolerated")
	m := v.Member("kéy")
	require.NotNil(t, m)
	assert.Equal(t, `"k\u00e9y"`, string(text[m.KeySpan.Start:m.KeySpan.End]))
	s := m.Value
	assert.Equal(t, "a\tb\"c ${X} 😀 z", s.Str)
	i := strings.Index(s.Str, "${X}")
	sp := s.StrSpan(text, i, i+4)
	assert.Equal(t, "${X}", string(text[sp.Start:sp.End]), "decoded offsets map back across escapes")
	j := strings.Index(s.Str, "z")
	sp = s.StrSpan(text, j, j+1)
	assert.Equal(t, "z", string(text[sp.Start:sp.End]), "also after a surrogate pair")
	assert.Equal(t, "-1.5e3", v.Get("n").Str)
	assert.True(t, v.Get("l").Items[0].Is(core.JSONNull))
	assert.Nil(t, v.Get("missing"))
	assert.Nil(t, v.Get("n").Get("x"), "Get on a non-object is nil, not a panic")
}

func TestParseJSONDepthLimit(t *testing.T) {
	deep := strings.Repeat("[", core.MaxJSONDepth+1) + strings.Repeat("]", core.MaxJSONDepth+1)
	v, diags := core.ParseJSON([]byte(deep))
	assert.Nil(t, v)
	require.NotEmpty(t, diags)
	assert.Contains(t, diags[0].Message, "nested")
	ok := strings.Repeat("[", core.MaxJSONDepth) + strings.Repeat("]", core.MaxJSONDepth)
	v, _ = core.ParseJSON([]byte(ok))
	assert.NotNil(t, v)
}

func TestMCPServerKeySpan(t *testing.T) {
	cases := []struct{ text, name, want string }{
		{`{"mcpServers": {"docs": {"command": "x"}}}`, "docs", `"docs"`},
		{`{"servers": {"docs": {"command": "x"}}}`, "docs", `"docs"`},
		{`{"docs": {"command": "x"}}`, "docs", `"docs"`},
		{`{"mcp\u0053ervers": {"d\u006fcs": {}}}`, "docs", `"d\u006fcs"`},
	}
	for _, c := range cases {
		sp, ok := core.MCPServerKeySpan([]byte(c.text), c.name)
		require.True(t, ok, c.text)
		assert.Equal(t, c.want, c.text[sp.Start:sp.End])
	}
	_, ok := core.MCPServerKeySpan([]byte(`{"mcpServers": {"a": {}}}`), "docs")
	assert.False(t, ok)
	_, ok = core.MCPServerKeySpan([]byte(`{"mcpServers": `), "docs")
	assert.False(t, ok, "broken JSON has no servers")
}

// applyEdits applies non-overlapping edits (any order) to text.
func applyEdits(text []byte, edits []model.Edit) string {
	es := append([]model.Edit(nil), edits...)
	for i := 1; i < len(es); i++ {
		for j := i; j > 0 && es[j].Span.Start > es[j-1].Span.Start; j-- {
			es[j], es[j-1] = es[j-1], es[j]
		}
	}
	out := append([]byte(nil), text...)
	for _, e := range es {
		out = append(out[:e.Span.Start], append([]byte(e.NewText), out[e.Span.End:]...)...)
	}
	return string(out)
}

func FuzzParseJSON(f *testing.F) {
	seeds := []string{
		`{"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "x"}]}]}}`,
		`{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "${CLAUDE_PLUGIN_ROOT}/x"}]}}`,
		`{"mcpServers": {"a": {"url": "http://x", "env": {"K": "ghp_0123456789abcdef0123"}}}}`,
		`{"name": "My Plugin", "skills": "skills", "agnets": [], "author": "x"}`,
		`{"name": "m", "owner": "o", "plugins": [{"name": "a", "source": {"source": "github"}}, 1]}`,
		"{\n // c\n \"a\": [1,],\n}",
		`{"a": "\ud83d\ude00\u00e9\n", "a": -0.5e-3}`,
		`[`, `{"a"`, `"\u12`, `/*`, "\uFEFF{}",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	paths := []string{".github/hooks/f.json", ".mcp.json", "plugins/p/.claude-plugin/plugin.json", "plugin.json", ".claude-plugin/marketplace.json", ".claude/settings.json", "plugins/p/hooks/hooks.json"}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, diags := core.ParseJSON(b)
		syntax := false
		for _, d := range diags {
			if d.Span.Start < 0 || d.Span.End > len(b) || d.Span.Start > d.Span.End {
				t.Fatalf("span %v out of bounds for %d bytes", d.Span, len(b))
			}
			if d.Rule == "json/syntax" {
				syntax = true
			}
		}
		if syntax != (v == nil) {
			t.Fatalf("syntax error %v but tree %v", syntax, v != nil)
		}
		if v != nil {
			checkSpans(t, v, len(b))
		}
		// Differential check against encoding/json where the dialects agree.
		nesting := bytes.Count(b, []byte("[")) + bytes.Count(b, []byte("{"))
		bom := bytes.HasPrefix(b, []byte("\uFEFF"))
		if json.Valid(b) && !bom && nesting < core.MaxJSONDepth && v == nil {
			t.Fatalf("valid JSON rejected: %v", diags)
		}
		if v != nil && len(diags) == 0 && !bom && !json.Valid(b) {
			t.Fatalf("invalid JSON accepted without a finding: %q", b)
		}
		for _, p := range paths {
			for _, d := range Check(core.File{Path: p, Text: b}, core.Options{Targets: model.AllTargets}) {
				if d.Rule == "internal/error" {
					t.Fatalf("%s: %s", p, d.Message)
				}
			}
		}
	})
}

func checkSpans(t *testing.T, v *core.JSONValue, n int) {
	if v.Span.Start < 0 || v.Span.End > n || v.Span.Start >= v.Span.End {
		t.Fatalf("value span %v out of bounds (%d)", v.Span, n)
	}
	for _, m := range v.Members {
		if m.KeySpan.Start < v.Span.Start || m.KeySpan.End > m.Value.Span.Start {
			t.Fatalf("key span %v misplaced", m.KeySpan)
		}
		checkSpans(t, m.Value, n)
	}
	for _, it := range v.Items {
		checkSpans(t, it, n)
	}
}

// bigHooks builds a realistic Claude-form hooks file of about size bytes.
func bigHooks(size int) []byte {
	var b strings.Builder
	b.WriteString("{\n  \"description\": \"generated\",\n  \"hooks\": {\n")
	events := []string{"PreToolUse", "PostToolUse", "SessionStart", "Stop", "UserPromptSubmit", "SubagentStop", "PreCompact", "Notification"}
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, "    \"%s\": [\n", events[i%len(events)])
		for g := 0; g < 6; g++ {
			if g > 0 {
				b.WriteString(",\n")
			}
			fmt.Fprintf(&b, "      {\"matcher\": \"Write|Edit|Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"./scripts/hook-%d-%d.sh --flag \\\"value\\\"\", \"timeout\": 30, \"env\": {\"MODE\": \"fix\"}}]}", i, g)
		}
		b.WriteString("\n    ]")
	}
	b.WriteString("\n  }\n}\n")
	return []byte(b.String())
}

func BenchmarkParseJSON50KB(b *testing.B) {
	text := bigHooks(50 << 10)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if v, _ := core.ParseJSON(text); v == nil {
			b.Fatal("parse failed")
		}
	}
}

func BenchmarkCheckHooks50KB(b *testing.B) {
	text := bigHooks(50 << 10)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	f := core.File{Path: ".github/hooks/big.json", Text: text}
	opts := core.Options{Targets: model.AllTargets}
	for b.Loop() {
		Check(f, opts)
	}
}

package diagnostics

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/syntax"
	"github.com/ahpls-dev/ahpls/diagnostics/gemini"
	"github.com/ahpls-dev/ahpls/diagnostics/memory"

	"strings"
	"testing"

	"github.com/ahpls-dev/ahpls/model"
)

// FuzzMDCHeader: Cursor's header reader never panics, keeps every span
// inside the text and ordered, and the body starts after the header.
func FuzzMDCHeader(f *testing.F) {
	for _, s := range []string{
		"---\ndescription: d\nglobs: **/*.ts, *.tsx\nalwaysApply: true\n---\nBody\n",
		"---\nglobs:\n  - a\n  - b\n---\n",
		"\ufeff---\r\nx: y\r\n---\r\n",
		"---\n", "", "no header", "---\n:\n: x\n---",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		h := syntax.ParseMDCHeader(b)
		n := len(b)
		if h.Body.Start < 0 || h.Body.Start > h.Body.End || h.Body.End > n {
			t.Fatalf("body %+v outside %d bytes", h.Body, n)
		}
		for _, fd := range h.Fields {
			if fd.Line.Start > fd.Val.Start || fd.Val.Start > fd.Val.End || fd.Val.End > fd.Line.End || fd.Line.End > n {
				t.Fatalf("field %+v out of order in %d bytes", fd, n)
			}
			if h.Closed && fd.Line.End > h.Body.Start {
				t.Fatalf("field %+v after the body start %d", fd, h.Body.Start)
			}
		}
		if len(h.Fields) > syntax.MaxMDCFields {
			t.Fatalf("%d fields", len(h.Fields))
		}
		Check(core.File{Path: ".cursor/rules/x.mdc", Kind: model.KindCursorRule, Text: b}, core.Options{Targets: []model.Target{model.TargetCursor}})
	})
}

// FuzzGeminiCommand: the TOML command rules never panic and every span
// lies in the text.
func FuzzGeminiCommand(f *testing.F) {
	for _, s := range []string{
		"prompt = \"x\"\ndescription = \"d\"\n",
		"prompt = \"\"\"\nmulti\n\"\"\"\n[table]\nk = 1\n",
		"a.b.c = 1\nprompt = 2\n",
		"description = \"unterminated\n",
		"prompt = 'x'\nprompt = 'y'\n",
		"[[x]]\n[[x]]\n", "", "=",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, k := range gemini.TopLevelTOMLKeys(b) {
			if k.Key.Start < 0 || k.Key.Start > k.Key.End || k.Key.End > len(b) {
				t.Fatalf("key %+v outside %d bytes", k, len(b))
			}
		}
		for _, d := range Check(core.File{Path: ".gemini/commands/x.toml", Kind: model.KindGeminiCmd, Text: b}, core.Options{Targets: []model.Target{model.TargetGeminiCLI}}) {
			if d.Rule == internalError.ID {
				t.Fatalf("internal error: %s", d.Message)
			}
			if d.Span.End > len(b) {
				t.Fatalf("%s span %+v outside %d bytes", d.Rule, d.Span, len(b))
			}
		}
	})
}

// FuzzStrictJSONManifests: gemini-extension.json and .codex-plugin/plugin.json
// (JSONC-tolerant tree, strict verdict) never panic.
func FuzzStrictJSONManifests(f *testing.F) {
	for _, s := range []string{
		`{"name":"a","version":"1.0.0","contextFileName":["A.md"]}`,
		`{"name":"a","skills":["./s"]}`, `{/*c*/"a":1,}`, `[`, `"x"`, `{"skills":"./../x"}`,
		`{"name":"m","plugins":[{"name":"p","source":{"source":"local","path":"./p"},"policy":{"installation":"AVAILABLE"}}]}`,
		`{"name":"m n","plugins":[{"name":"","source":7},{"name":"q","source":{"source":"github"}},"x"]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, p := range []struct {
			path string
			kind model.Kind
		}{{"e/gemini-extension.json", model.KindGeminiExt}, {"p/.codex-plugin/plugin.json", model.KindCodexPlugin},
			{"m/.agents/plugins/marketplace.json", model.KindCodexMarket},
			{"p/.cursor-plugin/plugin.json", model.KindCursorPlugin}, {"m/.cursor-plugin/marketplace.json", model.KindCursorMarket}} {
			for _, d := range Check(core.File{Path: p.path, Kind: p.kind, Text: b}, core.Options{Targets: model.AllTargets}) {
				if d.Rule == internalError.ID {
					t.Fatalf("%s: internal error: %s", p.path, d.Message)
				}
			}
		}
	})
}

// TestCodexDocSize: a big AGENTS.md is a Warning only when Codex is a
// configured target; AGENTS.md alone names no agent, so otherwise Info.
func TestCodexDocSize(t *testing.T) {
	text := []byte("# Notes\n\n" + repeat("- a line of notes\n", 2000))
	find := func(targets []model.Target) model.Severity {
		for _, d := range Check(core.File{Path: "AGENTS.md", Kind: model.KindMemory, Text: text}, core.Options{Targets: targets}) {
			if d.Rule == memory.MemoryCodexSize.ID {
				return d.Severity
			}
		}
		return 0
	}
	if got := find(nil); got != model.SeverityInfo {
		t.Fatalf("default targets: %v, want info", got)
	}
	if got := find([]model.Target{model.TargetCodex}); got != model.SeverityWarning {
		t.Fatalf("codex configured: %v, want warning", got)
	}
	small := Check(core.File{Path: "AGENTS.md", Kind: model.KindMemory, Text: []byte("# Small\n\nText.\n")}, core.Options{Targets: []model.Target{model.TargetCodex}})
	for _, d := range small {
		if d.Rule == memory.MemoryCodexSize.ID {
			t.Fatal("a small AGENTS.md is within Codex's budget")
		}
	}
}

func repeat(s string, n int) string {
	out := make([]byte, 0, len(s)*n)
	for range n {
		out = append(out, s...)
	}
	return string(out)
}

// A skill in another agent's skill folder gets no verdict of a consumer
// that never discovers it there (issue #38: `--targets codex` gave an Error
// for a .github/skills skill that `ahpls list` says Codex does not scan),
// while the same skill in that consumer's own folder keeps it.
func TestSkillVerdictOnlyWhereTheConsumerDiscoversIt(t *testing.T) {
	text := []byte("---\nname: x\ndescription: \"\"\n---\nBody.\n")
	rules := func(rel string, tg model.Target) []string {
		var ids []string
		for _, d := range Check(core.File{Path: rel, Kind: model.KindSkill, Text: text}, core.Options{Targets: []model.Target{tg}, NoImpliedTargets: true}) {
			ids = append(ids, d.Rule+"/"+d.Severity.String())
		}
		return ids
	}
	for _, c := range []struct {
		rel  string
		tg   model.Target
		want bool
	}{
		{".github/skills/x/SKILL.md", model.TargetCodex, false},
		{".agents/skills/x/SKILL.md", model.TargetCodex, true},
		{".cursor/skills/x/SKILL.md", model.TargetGeminiCLI, false},
		{".gemini/skills/x/SKILL.md", model.TargetGeminiCLI, false}, // desc-empty carries no Gemini verdict
	} {
		got := rules(c.rel, c.tg)
		has := false
		for _, id := range got {
			if strings.HasPrefix(id, "skill/desc-empty/") {
				has = true
			}
		}
		if has != c.want {
			t.Errorf("%s with %s: findings %v, want skill/desc-empty %v", c.rel, c.tg, got, c.want)
		}
	}
}

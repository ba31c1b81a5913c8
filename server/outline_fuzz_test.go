package server

import (
	"testing"

	"go.lsp.dev/protocol"

	"github.com/ahpls-dev/ahpls/model"
)

// The outline, link, folding-line and completion helpers take any text and
// offset without panicking (go test -fuzz FuzzOutline ./server).
func FuzzOutline(f *testing.F) {
	f.Add([]byte(outlineSkill), 10)
	f.Add([]byte("---\nhooks:\n  Stop:\n---\n# x #\n~~~\n[a](b)\n"), 12)
	f.Add([]byte("\ufeff---\r\nname: a\r\n---\r\n```\n"), 3)
	f.Add([]byte(`{"hooks":{"Stop":[{"hooks":[{"command":"${CLAUDE_PLUGIN_ROOT}/x.sh"}]}]}}`), 20)
	f.Fuzz(func(t *testing.T, text []byte, off int) {
		if off < 0 {
			off = -off
		}
		off %= len(text) + 1
		idx := model.NewLineIndex(text)
		rng := func(sp model.Span) protocol.Range { return lspRange(idx.Range(sp, model.UTF16)) }
		_ = markdownSymbols(text, rng)
		_ = markdownRefs(text)
		_ = commandPaths(string(text))
		_ = wordAt(text, off)
		_ = parentKey(text, off, 0)
		_ = jsonKeysAround(text, off)
		for _, k := range []model.Kind{model.KindSkill, model.KindAgent, model.KindHooks} {
			if k.Markdown() {
				_ = completeMarkdown(k, ".github/skills/a/SKILL.md", text, off, nil)
			}
			fs := &fileState{kind: k, snap: Snapshot{Text: text}}
			hookEventHover(fs.kind, fs.snap.Text, off)
		}
	})
}

package server

import (
	"bytes"

	"go.lsp.dev/protocol"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

// Definition of a name one customization gives another, where a consumer
// resolves it: a prompt's `agent`, a VS Code agent's `agents` and its
// handoffs' `agent`, a Claude subagent's `skills`. The name under the
// cursor is looked up among the workspace's customizations of the kinds
// that key names.

// nameRefKinds maps a header key to the kinds whose names it holds.
var nameRefKinds = map[string][]model.Kind{
	"agent":  {model.KindAgent, model.KindClaudeAgent},
	"agents": {model.KindAgent, model.KindClaudeAgent},
	"skills": {model.KindSkill},
}

// nameDefinition resolves the customization name under the cursor of a
// Markdown header, or returns nil.
func nameDefinition(d docInfo, off int, index *symbolIndex) protocol.LocationSlice {
	entries, ok := diagnostics.FrontmatterEntries(d.text)
	if !ok {
		return nil
	}
	key := ""
	var find func(es []diagnostics.FrontmatterEntry, parent string)
	find = func(es []diagnostics.FrontmatterEntry, parent string) {
		for _, e := range es {
			if off >= e.ValueSpan.Start && off <= e.ValueSpan.End {
				if _, ok := nameRefKinds[e.Key]; ok {
					key = e.Key
				}
				// handoffs are list items: their `agent` is not an entry
				// of ours; the word test below still finds it.
				if e.Key == "handoffs" {
					key = "agent"
				}
				find(e.Children, e.Key)
			}
		}
	}
	find(entries, "")
	if key == "" {
		return nil
	}
	name := wordAt(d.text, off)
	if name == "" || name == key {
		return nil
	}
	kinds := nameRefKinds[key]
	return index.named(name, kinds)
}

// wordAt returns the name-like word (letters, digits, '-', '_', '.', ':')
// around off.
func wordAt(text []byte, off int) string {
	isWord := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || bytes.IndexByte([]byte("-_.:"), c) >= 0 || c >= 0x80
	}
	s, e := off, off
	for s > 0 && isWord(text[s-1]) {
		s--
	}
	for e < len(text) && isWord(text[e]) {
		e++
	}
	w := string(text[s:e])
	// "agent: x" typed without a space after the colon is not a name.
	if i := bytes.LastIndexByte(text[s:e], ':'); i >= 0 && s+i < off {
		w = string(text[s+i+1 : e])
	}
	return w
}

package server

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"go.lsp.dev/protocol"

	"github.com/ahpls-dev/ahpls/model"
)

func TestApplyChanges(t *testing.T) {
	rng := func(l1, c1, l2, c2 uint32) protocol.Range {
		return protocol.Range{Start: protocol.Position{Line: l1, Character: c1}, End: protocol.Position{Line: l2, Character: c2}}
	}
	part := func(r protocol.Range, text string) protocol.TextDocumentContentChangeEvent {
		return &protocol.TextDocumentContentChangePartial{Range: r, Text: text}
	}
	cases := []struct {
		name     string
		text     string
		enc      model.Encoding
		changes  []protocol.TextDocumentContentChangeEvent
		want     string
		problems int
	}{
		{"insert", "ab\ncd\n", model.UTF16, []protocol.TextDocumentContentChangeEvent{part(rng(1, 1, 1, 1), "X")}, "ab\ncXd\n", 0},
		{"replace across lines", "ab\ncd\n", model.UTF16, []protocol.TextDocumentContentChangeEvent{part(rng(0, 1, 1, 1), "-")}, "a-d\n", 0},
		{"sequence applies in order", "abc", model.UTF16, []protocol.TextDocumentContentChangeEvent{part(rng(0, 3, 0, 3), "d"), part(rng(0, 4, 0, 4), "e")}, "abcde", 0},
		{"whole document", "old", model.UTF16, []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: "new"}}, "new", 0},
		{"utf-16 surrogate pair", "a😀b", model.UTF16, []protocol.TextDocumentContentChangeEvent{part(rng(0, 1, 0, 3), "")}, "ab", 0},
		{"utf-8 bytes", "é!", model.UTF8, []protocol.TextDocumentContentChangeEvent{part(rng(0, 2, 0, 3), "?")}, "é?", 0},
		{"crlf line breaks", "a\r\nb", model.UTF16, []protocol.TextDocumentContentChangeEvent{part(rng(1, 0, 1, 1), "c")}, "a\r\nc", 0},
		{"past the end is clamped", "ab", model.UTF16, []protocol.TextDocumentContentChangeEvent{part(rng(5, 0, 7, 2), "Z")}, "abZ", 1},
		{"past the line end is clamped", "ab\ncd", model.UTF16, []protocol.TextDocumentContentChangeEvent{part(rng(0, 9, 0, 9), "Z")}, "abZ\ncd", 1},
		{"reversed range", "abcd", model.UTF16, []protocol.TextDocumentContentChangeEvent{part(rng(0, 3, 0, 1), "")}, "ad", 0},
		{"nil change", "ab", model.UTF16, []protocol.TextDocumentContentChangeEvent{nil}, "ab", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, problems := applyChanges([]byte(c.text), c.changes, c.enc)
			assert.Equal(t, c.want, string(got))
			assert.Len(t, problems, c.problems)
		})
	}
}

func TestJSONKeyAt(t *testing.T) {
	text := []byte("{\n  \"hooks\": {\"Stop\": []},\n  \"x\": \"val\"\n}")
	k, ok := jsonKeyAt(text, 5)
	assert.True(t, ok)
	assert.Equal(t, "hooks", k)
	k, ok = jsonKeyAt(text, 15)
	assert.True(t, ok)
	assert.Equal(t, "Stop", k)
	_, ok = jsonKeyAt(text, len("{\n  \"hooks\": {\"Stop\": []},\n  \"x\": \"va"))
	assert.False(t, ok, "a string value is no key")
}

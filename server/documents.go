package server

import (
	"fmt"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/model"
)

// document is an open editor buffer. text is never modified in place: each
// edit builds a new slice, so a snapshot handed to a check stays valid while
// the user keeps typing.
type document struct {
	uri     uri.URI
	text    []byte
	version int32
}

// Snapshot is a file's text as a check saw it.
type Snapshot struct {
	URI     uri.URI
	Text    []byte
	Version int32
	Open    bool // from an editor buffer (Version meaningful) rather than disk
}

// DocumentSnapshot returns the open buffer for u, if any.
func (s *Server) DocumentSnapshot(u uri.URI) (Snapshot, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[u]
	if !ok {
		return Snapshot{}, false
	}
	return Snapshot{URI: u, Text: d.text, Version: d.version, Open: true}, true
}

// applyChanges applies didChange content changes in order. Positions are in
// the negotiated encoding. An edit that lies outside the document is clamped
// to it (the same choice editors make when applying a slightly-off edit) and
// reported, so the buffer is never dropped; the user sees a warning in the
// log and the next full sync or reopen repairs any drift.
func applyChanges(text []byte, changes []protocol.TextDocumentContentChangeEvent, enc model.Encoding) ([]byte, []string) {
	var problems []string
	for i, c := range changes {
		switch c := c.(type) {
		case *protocol.TextDocumentContentChangeWholeDocument:
			text = []byte(strings.Clone(c.Text))
		case *protocol.TextDocumentContentChangePartial:
			idx := model.NewLineIndex(text)
			start, ok1 := idx.Offset(model.Position{Line: int(c.Range.Start.Line), Character: int(c.Range.Start.Character)}, enc)
			end, ok2 := idx.Offset(model.Position{Line: int(c.Range.End.Line), Character: int(c.Range.End.Character)}, enc)
			if !ok1 || !ok2 {
				problems = append(problems, fmt.Sprintf("change %d: range %d:%d-%d:%d is outside the document (%d lines); clamped",
					i, c.Range.Start.Line, c.Range.Start.Character, c.Range.End.Line, c.Range.End.Character, idx.Lines()))
			}
			if end < start {
				start, end = end, start
			}
			next := make([]byte, 0, len(text)-(end-start)+len(c.Text))
			next = append(next, text[:start]...)
			next = append(next, c.Text...)
			next = append(next, text[end:]...)
			text = next
		case nil:
			problems = append(problems, fmt.Sprintf("change %d is empty; ignored", i))
		}
	}
	return text, problems
}

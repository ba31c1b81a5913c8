package server

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

// textDocument/rename on a skill's `name`. Consumers find a skill by its
// folder and most of them require the two to agree (skill/name-dir), so a
// rename changes both: the value, then the folder, in one WorkspaceEdit
// with a RenameFile. A client that cannot rename files gets the value edit
// only and a message saying which folder to rename by hand.

// skillNameRE is a name every consumer accepts: kebab-case a–z, 0–9.
var skillNameRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// errRequestFailed is LSP's RequestFailed (-32803): the request was valid
// but cannot be carried out here.
const errRequestFailed = jsonrpc2.Code(protocol.LSPErrorCodesRequestFailed)

// skillNameAt finds the `name` value of a skill under the cursor.
func (s *Server) skillNameAt(u uri.URI, pos protocol.Position) (d docInfo, value model.Span, err error) {
	d, ok := s.doc(u)
	if !ok || d.kind != model.KindSkill {
		return d, value, jsonrpc2.NewError(errRequestFailed, "ahpls renames a skill's name: put the cursor on the value of 'name' in a SKILL.md")
	}
	off := offsetAt(d.text, pos, s.Encoding())
	key, _, vs, found := diagnostics.KeyAt(d.text, off)
	if !found || key != "name" {
		return d, value, jsonrpc2.NewError(errRequestFailed, "ahpls renames a skill's name: put the cursor on the value of 'name'")
	}
	return d, vs, nil
}

func (l *lspServer) PrepareRename(ctx context.Context, p *protocol.PrepareRenameParams) (protocol.PrepareRenameResult, error) {
	d, vs, err := l.s.skillNameAt(p.TextDocument.URI, p.Position)
	if err != nil {
		return nil, err
	}
	r := lspRange(model.NewLineIndex(d.text).Range(vs, l.s.Encoding()))
	return &protocol.PrepareRenamePlaceholder{Range: r, Placeholder: unquote(string(d.text[vs.Start:vs.End]))}, nil
}

func (l *lspServer) Rename(ctx context.Context, p *protocol.RenameParams) (*protocol.WorkspaceEdit, error) {
	s := l.s
	d, vs, err := s.skillNameAt(p.TextDocument.URI, p.Position)
	if err != nil {
		return nil, err
	}
	name := p.NewName
	if !skillNameRE.MatchString(name) || len(name) > 64 {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("'%s' is no skill name every consumer accepts: use 1–64 characters a–z, 0–9 and single '-' inside", name))
	}
	r := lspRange(model.NewLineIndex(d.text).Range(vs, s.Encoding()))
	edit := protocol.TextEdit{Range: r, NewText: yamlPlain(name)}

	dir := filepath.Dir(d.loc.path)
	target := filepath.Join(filepath.Dir(dir), name)
	moveFolder := filepath.Base(dir) != name
	if moveFolder {
		if _, err := os.Lstat(target); err == nil {
			return nil, jsonrpc2.NewError(errRequestFailed, fmt.Sprintf("cannot rename the skill folder to '%s': %s already exists", name, target))
		}
	}
	s.mu.Lock()
	canRename := s.caps.renameFiles
	s.mu.Unlock()
	if !moveFolder || !canRename {
		if moveFolder {
			s.ShowMessage(protocol.MessageTypeWarning, fmt.Sprintf(
				"ahpls changed the skill's name only: your editor cannot rename folders through the language server. Rename the folder '%s' to '%s' so consumers find the skill under its new name.",
				filepath.Base(dir), name))
		}
		return &protocol.WorkspaceEdit{Changes: map[uri.URI][]protocol.TextEdit{d.uri: {edit}}}, nil
	}
	// The text edit names the file where it is now; the folder moves after.
	id := protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: d.uri}}
	if snap, open := s.DocumentSnapshot(d.uri); open {
		v := snap.Version
		id.Version = &v
	}
	return &protocol.WorkspaceEdit{DocumentChanges: []protocol.DocumentChange{
		&protocol.TextDocumentEdit{TextDocument: id, Edits: []protocol.TextDocumentEditElement{&edit}},
		&protocol.RenameFile{Kind: "rename", OldURI: uri.File(dir), NewURI: uri.File(target)},
	}}, nil
}

// yamlPlain writes a kebab-case name as a YAML scalar that reads back as
// the same string (digits alone or words like "yes" would not).
func yamlPlain(name string) string {
	if digitsRE.MatchString(name) || slices.Contains([]string{"y", "n", "yes", "no", "on", "off", "true", "false", "null"}, name) {
		return `"` + name + `"`
	}
	return name
}

var digitsRE = regexp.MustCompile(`^[0-9]+$`)

// unquote strips the quotes of a one-line quoted YAML scalar.
func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
		return v[1 : len(v)-1]
	}
	return v
}

// readFeatureCaps reads the client capabilities the #18 features depend on.
func readFeatureCaps(p *protocol.InitializeParams, c *clientCaps) {
	if w := p.Capabilities.Workspace; w != nil && w.WorkspaceEdit != nil {
		e := w.WorkspaceEdit
		// Resource operations exist only inside documentChanges, so listing
		// "rename" implies documentChanges (Neovim 0.7 lists the one without
		// the other and applies both).
		c.renameFiles = slices.Contains(e.ResourceOperations, protocol.ResourceOperationKindRename)
	}
}

package server

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/wsfs"
)

// textDocument/rename on a skill's `name`. Consumers find a skill by its
// folder and most of them require the two to agree (skill/name-dir), so a
// rename changes both: the value, then the folder, in one WorkspaceEdit
// with a RenameFile. A client that cannot rename files gets the value edit
// only and a message saying which folder to rename by hand. Only the
// skill's own folder moves: never the workspace folder, a hidden or
// container folder (.github/SKILL.md keeps .github) or a plugin's root;
// then the value changes and the message says why. The same edit updates
// the references to the skill ahpls knows (rename_refs.go), and plans the
// move through wsfs.RenameSteps (a case-only rename takes a temporary
// name, which case-insensitive file systems need).

// skillNameRE is a name every consumer accepts: kebab-case a–z, 0–9.
var skillNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`) })

// errRequestFailed is LSP's RequestFailed (-32803): the request was valid
// but cannot be carried out here.
const errRequestFailed = jsonrpc2.Code(protocol.LSPErrorCodesRequestFailed)

// skillNameAt finds the `name` value of a skill under the cursor.
func (part renamer) skillNameAt(u uri.URI, pos protocol.Position) (d docInfo, value model.Span, err error) {
	s := part.s
	d, ok := s.doc(u)
	if !ok || d.kind != model.KindSkill {
		return d, value, jsonrpc2.NewError(errRequestFailed, "ahpls renames a skill's name: put the cursor on the value of 'name' in a SKILL.md")
	}
	if !editable(d.loc, u) {
		// The editor would write the new name through the link.
		return d, value, jsonrpc2.NewError(errRequestFailed, "ahpls does not rename this skill: its SKILL.md is a link that leads out of the workspace folder")
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
	if !skillNameRE().MatchString(name) || len(name) > 64 {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("'%s' is no skill name every consumer accepts: use 1–64 characters a–z, 0–9 and single '-' inside", name))
	}
	r := lspRange(model.NewLineIndex(d.text).Range(vs, s.Encoding()))
	edit := protocol.TextEdit{Range: r, NewText: yamlPlain(name)}
	mv := skillMove{oldName: unquote(string(d.text[vs.Start:vs.End])), newName: name}

	dir := filepath.Dir(d.loc.path)
	s.mu.Lock()
	canRename, annotate := s.caps.renameFiles, s.caps.changeAnnotations
	s.mu.Unlock()
	why := notOwnFolder(d.loc, dir)
	var steps []string
	if why == "" && filepath.Base(dir) != name {
		oldRel := path.Dir(d.loc.rel)
		steps, err = wsfs.RenameSteps(d.loc.root, oldRel, path.Join(path.Dir(oldRel), name))
		if wsfs.ReasonOf(err) == wsfs.Exists {
			return nil, jsonrpc2.NewError(errRequestFailed, fmt.Sprintf("cannot rename the skill folder to '%s': %s already exists", name, filepath.Join(filepath.Dir(dir), name)))
		}
		if err != nil {
			why = "not a folder ahpls can move (" + err.Error() + ")"
		}
	}
	moveFolder := why == "" && len(steps) > 1 && canRename
	if moveFolder {
		mv.oldDir, mv.newDir = dir, filepath.Join(filepath.Dir(dir), name)
	}
	refs := s.renameRefs(mv)
	if !moveFolder {
		s.explainValueOnly(dir, name, why, canRename)
		we := &protocol.WorkspaceEdit{Changes: map[uri.URI][]protocol.TextEdit{d.uri: {edit}}}
		for _, u := range sortedURIs(refs) {
			for _, e := range s.refTextEdits(u, refs[u].text, refs[u].edits, false) {
				we.Changes[u] = append(we.Changes[u], *e.(*protocol.TextEdit))
			}
		}
		return we, nil
	}
	// Text edits name files where they are now; the folder moves after.
	we := &protocol.WorkspaceEdit{}
	self := []protocol.TextDocumentEditElement{&edit}
	if own, ok := refs[d.uri]; ok && bytes.Equal(own.text, d.text) {
		self = append(self, s.refTextEdits(d.uri, d.text, own.edits, false)...)
	}
	delete(refs, d.uri) // one TextDocumentEdit per file
	we.DocumentChanges = append(we.DocumentChanges, &protocol.TextDocumentEdit{TextDocument: s.docID(d.uri), Edits: self})
	for _, u := range sortedURIs(refs) {
		we.DocumentChanges = append(we.DocumentChanges, &protocol.TextDocumentEdit{TextDocument: s.docID(u), Edits: s.refTextEdits(u, refs[u].text, refs[u].edits, annotate)})
	}
	if annotate && len(refs) > 0 {
		// Labelled for the refactor preview, applied by default: a rename
		// that moved the folder but left the marketplace on the old path
		// would break the plugin (VS Code shows edits needing confirmation
		// unticked, and Apply then skipped them).
		desc := fmt.Sprintf("Paths and names that refer to the skill '%s' in other files", mv.oldName)
		we.ChangeAnnotations = map[protocol.ChangeAnnotationIdentifier]protocol.ChangeAnnotation{
			refAnnotation: {Label: "Update references to the renamed skill", Description: &desc},
		}
	}
	for i := 1; i < len(steps); i++ {
		we.DocumentChanges = append(we.DocumentChanges, &protocol.RenameFile{Kind: "rename",
			OldURI: uri.File(filepath.Join(d.loc.root, filepath.FromSlash(steps[i-1]))),
			NewURI: uri.File(filepath.Join(d.loc.root, filepath.FromSlash(steps[i])))})
	}
	return we, nil
}

// docID names a file in a TextDocumentEdit, with its version when open.
func (part renamer) docID(u uri.URI) protocol.OptionalVersionedTextDocumentIdentifier {
	s := part.s
	id := protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}}
	if snap, open := s.DocumentSnapshot(u); open {
		v := snap.Version
		id.Version = &v
	}
	return id
}

// notOwnFolder says why dir, the folder of a SKILL.md, is not the skill's
// own folder to move with its name, or "" when it is: the workspace folder
// itself, a folder outside every workspace folder, a hidden or container
// folder (.github, skills), or a plugin's root.
func notOwnFolder(loc location, dir string) string {
	switch {
	case loc.root == "":
		return "outside every workspace folder"
	case dir == loc.root || !strings.Contains(loc.rel, "/"):
		return "the workspace folder itself"
	}
	base := filepath.Base(dir)
	if strings.HasPrefix(base, ".") || slices.Contains([]string{"skills", "agents", "commands", "prompts", "plugins"}, strings.ToLower(base)) {
		return "'" + base + "', which holds more than this skill"
	}
	for _, m := range model.ManifestPaths {
		if _, err := wsfs.NewRoot(loc.root).Stat(path.Join(path.Dir(loc.rel), m)); err == nil {
			return "a plugin's root folder"
		}
	}
	return ""
}

// explainValueOnly tells the user why a rename changed the name only.
func (part renamer) explainValueOnly(dir, name, why string, canRename bool) {
	s := part.s
	if filepath.Base(dir) == name {
		return
	}
	switch {
	case why != "":
		s.ShowMessage(protocol.MessageTypeWarning, fmt.Sprintf(
			"ahpls changed the skill's name only: its SKILL.md sits in %s, not in a folder of its own, so no folder was moved. Move the skill into a folder named '%s' so consumers find it under its new name.",
			why, name))
	case !canRename:
		s.ShowMessage(protocol.MessageTypeWarning, fmt.Sprintf(
			"ahpls changed the skill's name only: your editor cannot rename folders through the language server. Rename the folder '%s' to '%s' so consumers find the skill under its new name.",
			filepath.Base(dir), name))
	}
}

// yamlPlain writes a kebab-case name as a YAML scalar that reads back as
// the same string (digits alone or words like "yes" would not).
func yamlPlain(name string) string {
	if digitsRE().MatchString(name) || slices.Contains([]string{"y", "n", "yes", "no", "on", "off", "true", "false", "null"}, name) {
		return `"` + name + `"`
	}
	return name
}

var digitsRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9]+$`) })

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
		c.changeAnnotations = e.ChangeAnnotationSupport != nil
	}
}

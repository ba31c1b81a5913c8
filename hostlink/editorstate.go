package hostlink

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/ahpls-dev/ahpls/ahpclient"
	"github.com/ahpls-dev/ahpls/ahpclient/wire"
	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/enablement"
	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/tools"
	"github.com/ahpls-dev/ahpls/virtualplugin"
)

// Editor state diagnostics (enablement.md §7.4, client tools issue item 6):
// what the user decided, or the host decided for them, shown on the file
// it concerns.
//
//   - enablement/state (Hint): a customization of our published plugins
//     that is off, with the row's reason ("Disabled for this session",
//     "Disabled because plugin ‹name› is disabled (globally (this
//     editor))"), and a local decision the host has not confirmed yet.
//     Nothing is said about things that are on: a hint on every file would
//     be noise.
//   - tools/untrusted (Warning): each command tool of .ahpls/tools.json,
//     at its "command" key, while the workspace is not trusted (such tools
//     are not registered).
//
// Both sets are recomputed from scratch (rows of every joined session, the
// registries' trust flag, the config's current text) on every republish,
// which every input change goes through: host state, the local store, file
// changes and trust. Like the load diagnostics they are merged per file
// with the link's other diagnostics before the Editor sees them.

// Rule ids of the editor state diagnostics.
const (
	RuleEnablementState = "enablement/state"
	RuleToolsUntrusted  = "tools/untrusted"
)

// PendingPrefix starts the message of a decision the host has not
// confirmed.
const PendingPrefix = "Not confirmed by the agent host yet: "

// editorState computes the enablement hints and the untrusted-tool
// warnings and hands them to the board.
type editorState struct {
	client *ahpclient.Client
	host   hostView
	set    *folderSet
	pub    *publisher
	board  *board
	rows   func(session string) []enablement.Row // toggler.Rows

	// mu serialises refreshes, so a slower, older computation never lands
	// after a newer one; it is taken before the board's locks.
	mu sync.Mutex
	st hintCache // guarded by mu
}

// hintCache is what one refresh keeps for the next.
type hintCache struct {
	// texts keeps, by content hash, the text of the files hinted at the
	// last refresh: a host action changes no file, and reading every
	// hinted file again on each would dominate the refresh.
	texts map[[32]byte][]byte
	// files caches stateFiles per built plugin tree (immutable; a new
	// build is a new pointer), since the entry is rebuilt on every
	// republish while the trees rarely change.
	files map[*virtualplugin.Plugin][]stateFile
}

// refresh recomputes the enablement hints and untrusted-tool warnings and
// publishes the files whose set changed.
func (e *editorState) refresh() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.pub.live() {
		return
	}
	enab := e.enablementDiags()
	untrusted := e.untrustedToolDiags()
	if dirty, ok := e.board.setEditorState(enab, untrusted); ok {
		e.board.publish(dirty)
	}
}

// sameDiags compares the fields this file sets.
func sameDiags(a, b []model.Diagnostic) bool {
	return slices.EqualFunc(a, b, func(x, y model.Diagnostic) bool {
		return x.Rule == y.Rule && x.Severity == y.Severity && x.Message == y.Message && x.Span == y.Span
	})
}

// stateFile is one file of a published plugin the hints may land on.
type stateFile struct {
	abs   string
	pp    *pubPlugin
	vpath string
	kind  model.Kind
	file  *virtualplugin.File
}

// stateFiles lists the customization files of our published plugins:
// Markdown customizations, hook files, .mcp.json and manifests. Resources
// a skill carries (scripts, references) get nothing of their own. Called
// with mu held.
func (e *editorState) stateFiles() []stateFile {
	pubs, _ := e.pub.published()
	var out []stateFile
	cache := map[*virtualplugin.Plugin][]stateFile{}
	defer func() { e.st.files = cache }()
	for _, p := range pubs {
		if fs, ok := e.st.files[p.source]; ok {
			cache[p.source] = fs
			for _, f := range fs {
				f.pp = p
				out = append(out, f)
			}
			continue
		}
		var mine []stateFile
		for _, f := range p.source.Files {
			if f.Source == "" {
				continue
			}
			abs := editorPath(p.folder, f.Source)
			kind := model.KindNone
			if rel, err := filepath.Rel(p.folder.abs, abs); err == nil {
				kind = model.Classify(filepath.ToSlash(rel), nil)
			}
			if kind == model.KindNone {
				kind = model.Classify(f.VPath, nil)
			}
			if f.VPath == ".mcp.json" {
				kind = model.KindMCP
			}
			if slices.Contains(model.ManifestPaths, f.VPath) {
				kind = model.KindPlugin
			}
			mine = append(mine, stateFile{abs: abs, pp: p, vpath: f.VPath, kind: kind, file: f})
		}
		cache[p.source] = mine
		out = append(out, mine...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].abs < out[j].abs })
	return out
}

// hint is one enablement finding of one session before sessions merge.
type hint struct {
	file string
	span model.Span
	text string
}

// enablementDiags computes the enablement/state hints of every joined
// session (or, with none joined, of our own items as published).
func (e *editorState) enablementDiags() map[string][]model.Diagnostic {
	files := e.stateFiles()
	if len(files) == 0 {
		return nil
	}
	sessions := e.client.Joined()
	labels := e.host.labels(sessions)
	if len(sessions) == 0 {
		sessions = []string{""}
	}
	texts := &publishedTexts{old: e.st.texts, cur: map[[32]byte][]byte{}}
	defer func() { e.st.texts = texts.cur }()
	hs := &hintSet{found: map[hint][]string{}}
	w := hintWriter{pluginFolder: e.set.pluginFolder}
	for _, s := range sessions {
		var custs []wire.Customization
		if s != "" {
			custs = e.host.customizations(s)
		}
		w.sessionHints(s, e.rows(s), custs, files, texts, hs)
	}
	return hs.diagnostics(labels)
}

// hintWriter words the enablement hints of rows: pure functions of the
// rows and this editor's stored decisions (pluginFolder finds the store).
type hintWriter struct {
	pluginFolder func(key string) *folder
}

// sessionHints adds the hints of every state file in session s ("": no
// session joined) to hs.
func (w hintWriter) sessionHints(s string, rows []enablement.Row, custs []wire.Customization, files []stateFile, texts *publishedTexts, hs *hintSet) {
	byID := map[string]enablement.Row{}
	for _, r := range rows {
		byID[r.ID] = r
	}
	// Leaves the host lists for each of our plugins, by virtual URI.
	leaves := map[string]string{}
	if s != "" {
		for _, c := range custs {
			for _, ch := range c.Children {
				if ch.Type != enablement.TypeMCPServer {
					leaves[ch.URI] = ch.ID
				}
			}
		}
	}
	for _, f := range files {
		switch f.kind {
		case model.KindMCP:
			for _, r := range rows {
				if r.Type != enablement.TypeMCPServer || r.Owner != f.pp.id {
					continue
				}
				msg, ok := w.stateText(r, byID)
				if !ok {
					continue
				}
				text := texts.of(f)
				span, ok := diagnostics.MCPServerKeySpan(text, r.Name)
				if !ok {
					span = firstLine(text)
				}
				hs.add(hint{file: f.abs, span: span, text: msg}, s)
			}
		case model.KindNone:
			// not a customization of its own
		default:
			if msg, ok := w.fileStateText(f, leaves, byID); ok {
				hs.add(hint{file: f.abs, span: firstLine(texts.of(f)), text: msg}, s)
			}
		}
	}
}

// fileStateText is the hint for a customization file: its own leaf's state
// where the host lists one, else its plugin's.
func (w hintWriter) fileStateText(f stateFile, leaves map[string]string, byID map[string]enablement.Row) (string, bool) {
	r, ok := enablement.Row{}, false
	if id, leaf := leaves[f.pp.source.URI+"/"+f.vpath]; leaf && f.kind != model.KindPlugin {
		r, ok = byID[id]
	}
	if !ok {
		r, ok = byID[f.pp.id]
	}
	if !ok {
		return "", false
	}
	msg, ok := w.stateText(r, byID)
	if !ok {
		return "", false
	}
	if r.ID == f.pp.id && f.kind != model.KindPlugin && !r.Pending {
		// A file the host shows no leaf for is off with its plugin: say
		// that, not the plugin's own reason.
		msg = "Disabled because plugin " + r.Name + " is disabled"
		if w := w.scopeWords(r); w != "" {
			msg += " (" + w + ")"
		}
	}
	return msg, true
}

// publishedTexts is the text each file was published with: the same the
// span is computed against until the next rebuild, which refreshes again.
// cur keeps the texts used by this refresh (the next one's old).
type publishedTexts struct {
	old, cur map[[32]byte][]byte
}

func (t *publishedTexts) of(f stateFile) []byte {
	if b, ok := t.cur[f.file.Sum]; ok {
		return b
	}
	b, ok := t.old[f.file.Sum]
	if !ok {
		b = fileData(f.file)
	}
	t.cur[f.file.Sum] = b
	return b
}

// hintSet collects hints in first-seen order with the sessions each holds in.
type hintSet struct {
	found map[hint][]string
	order []hint
}

func (hs *hintSet) add(h hint, session string) {
	in := hs.found[h]
	if in == nil {
		hs.order = append(hs.order, h)
	}
	if len(in) == 0 || in[len(in)-1] != session {
		hs.found[h] = append(in, session)
	}
}

// diagnostics are the hints by file. With several sessions joined, a hint
// that does not hold in all of them names where it does.
func (hs *hintSet) diagnostics(labels map[string]string) map[string][]model.Diagnostic {
	out := map[string][]model.Diagnostic{}
	for _, h := range hs.order {
		msg := h.text
		if in := hs.found[h]; len(labels) > 1 && len(in) < len(labels) {
			names := make([]string, len(in))
			for i, s := range in {
				names[i] = labels[s]
			}
			sort.Strings(names)
			word := "session "
			if len(names) > 1 {
				word = "sessions "
			}
			msg += " (" + word + strings.Join(names, ", ") + ")"
		}
		out[h.file] = append(out[h.file], model.Diagnostic{Rule: RuleEnablementState, Severity: model.SeverityHint, Message: msg, Span: h.span})
	}
	for _, ds := range out {
		sort.SliceStable(ds, func(i, j int) bool { return ds[i].Span.Start < ds[j].Span.Start })
	}
	return out
}

// localValue is the Global decision ahpls publishes for an own item, and
// whether the user made one (the store keeps only differences from the
// source default).
func (w hintWriter) localValue(r enablement.Row) (value, decided bool) {
	if !r.Item.Owned || r.Item.Key == "" {
		return true, false
	}
	f := w.pluginFolder(r.Item.Key)
	if f == nil || !f.store.Loaded() {
		return r.Item.SourceDefault, false
	}
	v := f.store.Value(r.Item.Key, r.Item.SourceDefault)
	return v, v != r.Item.SourceDefault
}

// stateText is the hint for a row, ok false when there is nothing to say
// (it is on and confirmed).
func (w hintWriter) stateText(r enablement.Row, byID map[string]enablement.Row) (string, bool) {
	if r.Pending {
		// An untouched default waiting for the host is the normal start
		// of every publication: only a decision of the user is worth a
		// hint while unconfirmed.
		_, decided := w.localValue(r)
		if r.On && !decided {
			return "", false
		}
		state := "enabled"
		if !r.On {
			state = "disabled"
			if own, _ := w.localValue(r); !own {
				state += " globally (this editor)"
			} else if r.Owner != "" {
				if p, ok := byID[r.Owner]; ok && !p.On {
					state += " because plugin " + p.Name + " is disabled"
				}
			}
		}
		return PendingPrefix + state, true
	}
	if r.On {
		return "", false
	}
	if r.Cause != nil && r.Cause.Kind == enablement.ReasonPlugin && r.Cause.Plugin != nil {
		if p, ok := byID[r.Cause.Plugin.ID]; ok {
			if w := w.scopeWords(p); w != "" {
				return fmt.Sprintf("Disabled because plugin %s is disabled (%s)", r.Cause.Plugin.Name, w), true
			}
		}
	}
	if r.Cause != nil && r.Cause.Kind == enablement.ReasonSelf {
		return "Disabled " + w.scopeWords(r), true
	}
	if r.Reason != "" {
		return r.Reason, true
	}
	return "Disabled", true
}

// scopeWords says where a row's own decision was made: "for this
// session", "in workspace …", "globally (this editor)", "globally
// (host)". The boolean dialect carries no scope: a disabled own item
// whose local Global is off was decided here.
func (w hintWriter) scopeWords(r enablement.Row) string {
	if r.Cause != nil && r.Cause.Kind == enablement.ReasonSelf && !r.Overridden {
		if v, _ := w.localValue(r); !v {
			return "globally (this editor)"
		}
	}
	if r.Cause == nil {
		if v, _ := w.localValue(r); !v {
			return "globally (this editor)"
		}
		return ""
	}
	return strings.TrimPrefix(r.Reason, "Disabled ")
}

// untrustedToolDiags marks every command tool of each folder's
// .ahpls/tools.json while that folder's tools are not trusted.
func (e *editorState) untrustedToolDiags() map[string][]model.Diagnostic {
	out := map[string][]model.Diagnostic{}
	for _, f := range e.set.folders {
		if f.tools.Trusted() {
			continue
		}
		abs := filepath.Join(f.abs, filepath.FromSlash(tools.ConfigFile))
		text, ok := e.set.readText(abs)
		if !ok {
			continue
		}
		for _, p := range tools.ValidateConfig(text, tools.ConfigOptions{Root: f.abs, Source: tools.SourceWorkspace, Trusted: false}) {
			if p.Severity != tools.SeverityWarning || !strings.HasSuffix(p.Message, tools.UntrustedReason) {
				continue
			}
			out[abs] = append(out[abs], model.Diagnostic{
				Rule:     RuleToolsUntrusted,
				Severity: model.SeverityWarning,
				Message:  p.Message,
				Span:     model.Span{Start: p.Start, End: p.End},
			})
		}
	}
	return out
}

package view

import (
	"path"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

// workspace indexes the input once for every consumer.
type workspace struct {
	tree
	// roots maps each plugin root to its format and effective manifest.
	roots map[string]pluginRoot
	// listed maps a plugin folder to the marketplaces of the workspace
	// that list it by a local source, in path order.
	listed map[string][]marketEntry
	// ccOnly are the plugin folders a Claude Code marketplace lists that
	// hold no manifest: Claude Code installs them (its manifest is
	// optional), and no other consumer reads them as plugins.
	ccOnly map[string]bool
}

// marketEntry is one marketplace entry for a plugin folder.
type marketEntry struct {
	market string // the marketplace's name (its folder when unnamed)
	file   string // the marketplace file
	entry  string // the plugin's name in the marketplace
	claude bool   // a Claude Code marketplace (.claude-plugin/marketplace.json)
	codex  bool   // a Codex marketplace (.agents/plugins/marketplace.json)
	cursor bool   // a Cursor marketplace (.cursor-plugin/marketplace.json)
}

type pluginRoot struct {
	format   model.PluginFormat
	manifest string // effective manifest (first of model.ManifestPaths present)
	claude   string // .claude-plugin/plugin.json when present (what Claude Code reads)
}

func newWorkspace(in Input) *workspace {
	w := &workspace{tree: tree{in: in, byRel: map[string]*File{}}, roots: map[string]pluginRoot{}, listed: map[string][]marketEntry{}, ccOnly: map[string]bool{}}
	w.files = append([]File(nil), in.Files...)
	sort.Slice(w.files, func(i, j int) bool { return w.files[i].Rel < w.files[j].Rel })
	for i := range w.files {
		f := &w.files[i]
		w.byRel[f.Rel] = f
	}
	for _, f := range w.files {
		if f.Kind != model.KindPlugin {
			continue
		}
		root, _, ok := model.ManifestRoot(f.Rel)
		if !ok {
			continue
		}
		pr := w.roots[root]
		if pr.manifest == "" {
			format := model.FormatNone
			if in.Layout != nil {
				format = in.Layout.PluginRoot(root)
			}
			if format == model.FormatNone {
				continue
			}
			pr.format = format
			for _, m := range model.ManifestPaths {
				if _, ok := w.byRel[join(root, m)]; ok {
					pr.manifest = join(root, m)
					break
				}
			}
		}
		if strings.HasSuffix(f.Rel, ".claude-plugin/plugin.json") {
			pr.claude = f.Rel
		}
		w.roots[root] = pr
	}
	w.readMarketplaces()
	return w
}

// readMarketplaces fills listed and ccOnly from the walked marketplaces.
func (w *workspace) readMarketplaces() {
	for _, f := range w.files {
		if f.Kind == model.KindCodexMarket {
			name, entries := model.CodexMarketplaceEntries(f.Text, f.Rel)
			for _, e := range entries {
				w.listed[e.Dir] = append(w.listed[e.Dir], marketEntry{market: name, file: f.Rel, entry: e.Name, codex: true})
			}
			continue
		}
		if f.Kind == model.KindCursorMarket {
			m := strings.TrimSuffix(strings.TrimSuffix(f.Rel, ".cursor-plugin/marketplace.json"), "/")
			name, entries := model.MarketplaceEntries(f.Text, m)
			for _, e := range entries {
				w.listed[e.Dir] = append(w.listed[e.Dir], marketEntry{market: name, file: f.Rel, entry: e.Name, cursor: true})
			}
			continue
		}
		if f.Kind != model.KindMarketplace {
			continue
		}
		m, ok := model.MarketplaceRoot(f.Rel)
		if !ok {
			continue
		}
		name, entries := model.MarketplaceEntries(f.Text, m)
		if name == "" {
			name = path.Base(m)
			if m == "" {
				name = "(workspace)"
			}
		}
		claude := model.ClaudeMarketplace(f.Rel)
		if cut, ok := strings.CutSuffix(f.Rel, model.CodexMarketplacePaths[1]); ok && !w.HasFile(cut+model.CodexMarketplacePath) {
			// Codex reads Claude Code's marketplace where its own is missing.
			cname, centries := model.CodexMarketplaceEntries(f.Text, f.Rel)
			for _, e := range centries {
				w.listed[e.Dir] = append(w.listed[e.Dir], marketEntry{market: cname, file: f.Rel, entry: e.Name, codex: true})
			}
		}
		for _, e := range entries {
			w.listed[e.Dir] = append(w.listed[e.Dir], marketEntry{market: name, file: f.Rel, entry: e.Name, claude: claude})
			if _, has := w.roots[e.Dir]; !has && claude && model.PluginRootDir(e.Dir) {
				w.ccOnly[e.Dir] = true
			}
		}
	}
}

// install says when t loads the plugin at root: "once plugin X from
// marketplace Y is installed" (the first marketplace listing it, a Claude
// Code one for Claude Code), or "once plugin X is installed".
func (w *workspace) install(t model.Target, root, name string) string {
	for _, l := range w.listed[root] {
		if t == model.TargetClaudeCode && !l.claude || (t == model.TargetCodex) != l.codex || (t == model.TargetCursor) != l.cursor {
			continue
		}
		n := l.entry
		if n == "" {
			n = name
		}
		return "once plugin " + n + " from marketplace " + l.market + " is installed"
	}
	return "once plugin " + name + " is installed"
}

func join(dir, p string) string {
	if dir == "" {
		return p
	}
	return dir + "/" + p
}

// pluginOf returns the nearest plugin root holding rel ("" is the
// workspace folder itself); ok is false when rel is in no plugin.
func (w *workspace) pluginOf(rel string) (string, bool) {
	return w.pluginOfFor("", rel)
}

// pluginOfFor is pluginOf as t reads the workspace: Claude Code also
// installs the manifest-less folders its marketplaces list.
func (w *workspace) pluginOfFor(t model.Target, rel string) (string, bool) {
	dir := path.Dir(rel)
	for {
		if dir == "." || dir == "/" {
			dir = ""
		}
		if _, ok := w.roots[dir]; ok {
			return dir, true
		}
		if t == model.TargetClaudeCode && w.ccOnly[dir] {
			return dir, true
		}
		if dir == "" {
			return "", false
		}
		dir = path.Dir(dir)
	}
}

// header is what listings use from a Markdown file's YAML header.
type header struct {
	name, description, whenToUse string
}

// readHeader reads name, description and when_to_use; a header that is
// not valid YAML yields nothing (its findings say what the consumer does).
func readHeader(text []byte) header {
	fm := diagnostics.SplitFrontmatter(text)
	if !fm.Present {
		return header{}
	}
	var m map[string]any
	if yaml.Unmarshal(text[fm.Body.Start:fm.Body.End], &m) != nil {
		return header{}
	}
	s := func(k string) string {
		v, _ := m[k].(string)
		return v
	}
	return header{name: s("name"), description: s("description"), whenToUse: s("when_to_use")}
}

// items are the items of one file as t sees them. prefix is the name + ":"
// of the plugin the file is a component of, and format that plugin's
// format ("" and FormatNone for a loose file, which scanned() judges).
func (w *workspace) items(t model.Target, f File, prefix string, format model.PluginFormat) []Item {
	cat := category(f.Kind)
	if f.Kind == model.KindCodexPlugin || f.Kind == model.KindGeminiExt || f.Kind == model.KindCursorPlugin {
		return w.agentManifestItem(t, f)
	}
	if t == model.TargetCodex && w.codexClaudePlugin(f) {
		return w.agentManifestItem(t, f)
	}
	if cat == "" || cat == CatPlugins {
		return nil
	}
	if t == model.TargetAgentSkills && f.Kind != model.KindSkill {
		return nil // the spec covers skills only
	}
	ok, why := true, ""
	extSkill := false
	if prefix == "" && format == model.FormatNone {
		ok, why = scanned(t, f)
		if !ok && f.Kind == model.KindSkill && model.InPackage(t, f.Rel, w) {
			ok, why, extSkill = true, "", true
		}
		if !ok && why == "" {
			return nil
		}
	}
	switch f.Kind {
	case model.KindHooks, model.KindSettings:
		return w.hookItems(t, f, ok, why)
	case model.KindMCP, model.KindCursorMCP:
		return w.mcpItems(t, f, prefix, ok, why)
	case model.KindRooModes:
		if items := rooModeItems(t, f, ok, why); items != nil {
			return items
		}
	}
	h := readHeader(f.Text)
	it := Item{Category: cat, Name: itemName(t, f, h, prefix), Source: f.Rel, Status: Loads}
	if !ok {
		it.Status, it.Reason = NotScanned, why
		return []Item{it}
	}
	applyFindings(t, &it, f.Findings, nil)
	if extSkill && it.Status == Loads {
		it.Install = "once its plugin is installed"
	}
	if (f.Kind == model.KindGeminiCmd && !strings.HasPrefix(f.Rel, ".gemini/") || extSkill && t == model.TargetGeminiCLI) && it.Status == Loads {
		it.Install = "once its extension is installed"
	}
	if f.Kind == model.KindSkill || f.Kind == model.KindCommand || f.Kind == model.KindPrompt || f.Kind == model.KindAgent || f.Kind == model.KindClaudeAgent {
		it.Description = describe(t, f.Kind, h)
	}
	return []Item{it}
}

// applyFindings sets the status from the rules' verdicts for t: a
// verified skip or reject fails the item (a name clash shadows it
// instead); a verified loss, and an unverified skip or reject, become
// notes. in, when set, limits the
// findings to those whose span starts inside it (one server of a file).
func applyFindings(t model.Target, it *Item, diags []model.Diagnostic, in *model.Span) {
	for _, d := range diags {
		if in != nil && (d.Span.Start < in.Start || d.Span.Start >= in.End) {
			continue
		}
		r, ok := d.Verdicts[t]
		if !ok {
			continue
		}
		switch r {
		case model.Skip, model.Reject, model.Drop, model.ShadowedBy, model.ShadowedBy.Unverified():
			// Drop: the item is the entry the consumer drops (a server, a hook).
			if it.Status != Loads {
				continue
			}
			if isClash(d.Rule) && len(d.Related) > 0 {
				it.Status, it.ShadowedBy = Shadowed, d.Related[0].Path
				it.Reason = d.Message
				it.Rule = d.Rule
				continue
			}
			it.Status, it.Rule, it.Reason = Fails, d.Rule, d.Message
		case model.LinkedOnly:
			// Not discovered where it is; reached only through another
			// file that names it (a Cline memory bank below .clinerules).
			if it.Status == Loads {
				it.Status, it.Rule, it.Reason = NotScanned, d.Rule, d.Message
			}
		case model.Lose, model.Warn, model.NoHeader:
			it.Notes = append(it.Notes, d.Rule+": "+d.Message)
		case model.Skip.Unverified(), model.Reject.Unverified(), model.Drop.Unverified():
			// No evidence that the consumer refuses it: say so, but do
			// not claim it fails (COMMON: evidence or silence).
			it.Notes = append(it.Notes, "unverified: "+d.Rule+": "+d.Message)
		}
	}
}

// isClash reports a rule about a name another item already took.
func isClash(rule string) bool {
	r, ok := diagnostics.LookupRule(rule)
	return ok && r.NameClash
}

// fileLevel reports a rule about a whole file (not one entry).
func fileLevel(rule string) bool {
	r, ok := diagnostics.LookupRule(rule)
	return ok && r.WholeFile
}

// fileNotes are the unverified refusals of a whole file, for each of its
// items.
func fileNotes(t model.Target, diags []model.Diagnostic) []string {
	var out []string
	for _, d := range diags {
		if r := d.Verdicts[t]; fileLevel(d.Rule) && (r == model.Skip.Unverified() || r == model.Reject.Unverified()) {
			out = append(out, "unverified: "+d.Rule+": "+d.Message)
		}
	}
	return out
}

// fileFails is the first finding that makes t refuse the whole file
// (unparsable JSON, wrong shape), for files that hold several items.
func fileFails(t model.Target, diags []model.Diagnostic) (model.Diagnostic, bool) {
	for _, d := range diags {
		if !fileLevel(d.Rule) {
			continue
		}
		if r := d.Verdicts[t]; r == model.Skip || r == model.Reject {
			return d, true
		}
	}
	return model.Diagnostic{}, false
}

// rooModeItems lists one item per mode of a .roomodes, named by its slug
// (nil when the file holds no list of modes: the file is the item). One
// refusal anywhere drops every mode (Roo Code's loadModesFromFile returns
// none), so each mode fails with the file's first refusal; the other
// findings go to the mode they are in.
func rooModeItems(t model.Target, f File, ok bool, why string) []Item {
	modes := diagnostics.RooModes(f.Text)
	if len(modes) == 0 {
		return nil
	}
	fail, bad := fileFails(t, f.Findings)
	out := make([]Item, 0, len(modes))
	for i, m := range modes {
		name := m.Slug
		if name == "" {
			name = "mode " + strconv.Itoa(i+1)
		}
		it := Item{Category: CatAgents, Name: name, Source: f.Rel, Status: Loads}
		switch {
		case !ok:
			it.Status, it.Reason = NotScanned, why
		case bad:
			it.Status, it.Rule, it.Reason = Fails, fail.Rule, fail.Message
		default:
			applyFindings(t, &it, f.Findings, &m.Span)
		}
		out = append(out, it)
	}
	return out
}

// hookItems lists one item per hook handler, named by its event.
func (w *workspace) hookItems(t model.Target, f File, ok bool, why string) []Item {
	root, _ := diagnostics.ParseJSON(f.Text)
	if f.Kind == model.KindSettings && (root == nil || root.Get("hooks") == nil) {
		return nil // settings without hooks hold nothing to list
	}
	if !ok {
		return []Item{{Category: CatHooks, Name: path.Base(f.Rel), Source: f.Rel, Status: NotScanned, Reason: why}}
	}
	if d, bad := fileFails(t, f.Findings); bad || root == nil {
		it := Item{Category: CatHooks, Name: path.Base(f.Rel), Source: f.Rel, Status: Fails, Rule: d.Rule, Reason: d.Message}
		return []Item{it}
	}
	var out []Item
	for _, h := range hookHandlers(root) {
		it := Item{Category: CatHooks, Name: h.event, Source: f.Rel, Status: Loads, Description: &Description{Text: h.command, Length: len([]rune(h.command))}}
		sp := h.span
		applyFindings(t, &it, f.Findings, &sp)
		it.Notes = append(it.Notes, fileNotes(t, f.Findings)...)
		out = append(out, it)
	}
	return out
}

// handler is one hook handler: its event, command and bytes.
type handler struct {
	event, typ, command string
	span                model.Span
}

// hookHandlers reads the handlers of a hooks document in every form
// (Claude matcher groups, flat, Copilot), in source order.
func hookHandlers(root *diagnostics.JSONValue) []handler {
	events := root.Get("hooks")
	if events == nil {
		events = root // VS Code reads a wrapper-less file's top level
	}
	if !events.Is(diagnostics.JSONObject) {
		return nil
	}
	var out []handler
	add := func(event string, v *diagnostics.JSONValue) {
		if !v.Is(diagnostics.JSONObject) {
			return
		}
		h := handler{event: event, span: v.Span}
		if s := v.Get("type"); s.Is(diagnostics.JSONString) {
			h.typ = s.Str
		}
		for _, k := range []string{"command", "bash", "powershell", "url", "prompt"} {
			if s := v.Get(k); s.Is(diagnostics.JSONString) {
				h.command = s.Str
				break
			}
		}
		out = append(out, h)
	}
	for _, m := range events.Members {
		if !m.Value.Is(diagnostics.JSONArray) {
			continue
		}
		for _, g := range m.Value.Items {
			if inner := g.Get("hooks"); inner.Is(diagnostics.JSONArray) {
				for _, h := range inner.Items {
					add(m.Key, h)
				}
				continue
			}
			add(m.Key, g)
		}
	}
	return out
}

// mcpItems lists one item per MCP server.
func (w *workspace) mcpItems(t model.Target, f File, prefix string, ok bool, why string) []Item {
	root, _ := diagnostics.ParseJSON(f.Text)
	if !ok {
		return []Item{{Category: CatMCP, Name: path.Base(f.Rel), Source: f.Rel, Status: NotScanned, Reason: why}}
	}
	if d, bad := fileFails(t, f.Findings); bad || root == nil {
		return []Item{{Category: CatMCP, Name: path.Base(f.Rel), Source: f.Rel, Status: Fails, Rule: d.Rule, Reason: d.Message}}
	}
	if f.Kind == model.KindCursorMCP && !root.Get("mcpServers").Is(diagnostics.JSONObject) {
		return nil // Cursor documents no other shape (cumcp/servers says so)
	}
	var out []Item
	for _, s := range mcpServers(root) {
		it := Item{Category: CatMCP, Name: prefix + s.name, Source: f.Rel, Status: Loads}
		sp := model.Span{Start: s.span.Start, End: s.span.End}
		applyFindings(t, &it, f.Findings, &sp)
		it.Notes = append(it.Notes, fileNotes(t, f.Findings)...)
		out = append(out, it)
	}
	return out
}

type server struct {
	name string
	span model.Span // key through value
}

// mcpServers reads the servers of an MCP document: {"mcpServers": {…}}
// or, in plugins, a bare map.
func mcpServers(root *diagnostics.JSONValue) []server {
	if !root.Is(diagnostics.JSONObject) {
		return nil
	}
	m := root.Get("mcpServers")
	if m == nil {
		m = root
	}
	if !m.Is(diagnostics.JSONObject) {
		return nil
	}
	var out []server
	for _, mem := range m.Members {
		if !mem.Value.Is(diagnostics.JSONObject) {
			continue
		}
		out = append(out, server{name: mem.Key, span: model.Span{Start: mem.KeySpan.Start, End: mem.Value.Span.End}})
	}
	return out
}

// codexClaudePlugin reports a Claude Code manifest that Codex installs its
// plugin by: a listed folder of a marketplace Codex reads, without a
// .codex-plugin/plugin.json of its own (Codex's find_plugin_manifest_path
// takes that first).
func (w *workspace) codexClaudePlugin(f File) bool {
	root, ok := strings.CutSuffix(f.Rel, ".claude-plugin/plugin.json")
	if f.Kind != model.KindPlugin || !ok || w.HasFile(root+".codex-plugin/plugin.json") {
		return false
	}
	for _, l := range w.listed[strings.TrimSuffix(root, "/")] {
		if l.codex {
			return true
		}
	}
	return false
}

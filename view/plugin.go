package view

import (
	"io/fs"
	"path"
	"strings"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

// Plugins: one item per plugin root and consumer, with its components.
// Claude Code's components follow its own reading of the manifest
// (plugin.go's ccComponents, checked against `claude plugin validate`'s
// "provides" on the differential corpus); the other consumers list the
// classified files below the root.

// plugin builds the item of the plugin at root for t.
func (w *workspace) plugin(t model.Target, root string) Item {
	pr := w.roots[root]
	manifest := pr.manifest
	if t == model.TargetClaudeCode && pr.claude != "" {
		manifest = pr.claude
	}
	ccListed := t == model.TargetClaudeCode && pr.claude == "" && w.claudeListed(root)
	if ccListed {
		// Claude Code reads no root plugin.json: a listed plugin without
		// .claude-plugin/plugin.json takes its name from the marketplace.
		manifest = ""
	}
	mf := w.byRel[manifest]
	var doc *diagnostics.JSONValue
	if mf != nil {
		doc, _ = diagnostics.ParseJSON(mf.Text)
	}
	name := path.Base(root)
	if root == "" {
		name = "(workspace)"
	}
	if n := doc.Get("name"); n.Is(diagnostics.JSONString) && n.Str != "" {
		name = n.Str
	}
	source := manifest
	if ccListed {
		for _, l := range w.listed[root] {
			if l.claude {
				source = l.file
				if l.entry != "" {
					name = l.entry
				}
				break
			}
		}
	}
	it := Item{Category: CatPlugins, Name: name, Source: source, Status: Loads}
	switch t {
	case model.TargetClaudeCode:
		if pr.claude == "" && !ccListed {
			it.Status, it.Reason = NotScanned, "Claude Code installs a plugin that has .claude-plugin/plugin.json or that a Claude Code marketplace (.claude-plugin/marketplace.json) lists"
		}
	case model.TargetCopilotCLI:
		// Copilot CLI's plugin reference: a plugin.json at the plugin's
		// root is its manifest, whatever $schema it names; it also reads
		// .github/plugin/plugin.json and .claude-plugin/plugin.json.
		if !w.exists(join(root, "plugin.json")) && !w.exists(join(root, ".github/plugin/plugin.json")) && pr.claude == "" {
			it.Status, it.Reason = NotScanned, "Copilot CLI reads plugin.json at the plugin root, .github/plugin/plugin.json or .claude-plugin/plugin.json; this plugin has only "+path.Base(path.Dir(pr.manifest))+"/plugin.json"
		}
	case model.TargetVSCode:
		it.Notes = append(it.Notes, "VS Code loads a plugin once it is installed or listed in chat.pluginLocations")
	}
	if mf != nil && it.Status == Loads {
		applyFindings(t, &it, mf.Findings, nil)
	}
	if t != model.TargetVSCodeAgentHost && it.Status == Loads {
		// The agent host gets the workspace's plugins from ahpls; every
		// other consumer reads a plugin where it installs it.
		it.Install = w.install(t, root, name)
	}
	var comps []Item
	if t == model.TargetClaudeCode && (pr.claude != "" || ccListed) {
		comps = w.ccComponents(root, name, doc)
	} else {
		comps = w.components(t, root, name, pr.format)
	}
	for i := range comps {
		if it.Status != Loads && comps[i].Status == Loads {
			comps[i].Status = it.Status
			if it.Status == NotScanned {
				comps[i].Reason = "its plugin is not read"
			} else {
				comps[i].Rule, comps[i].Reason = it.Rule, "its plugin does not load"
			}
		}
		if comps[i].Status == Loads {
			comps[i].Install = it.Install
		}
	}
	it.Components = comps
	return it
}

// claudeListed reports a plugin folder that a Claude Code marketplace of
// the workspace lists.
func (w *workspace) claudeListed(root string) bool {
	for _, l := range w.listed[root] {
		if l.claude {
			return true
		}
	}
	return false
}

// components are the classified files of the plugin at root, named
// "<plugin>:<name>" (VS Code's getCanonicalPluginCommandId).
func (w *workspace) components(t model.Target, root, name string, format model.PluginFormat) []Item {
	var out []Item
	for _, f := range w.files {
		if r, ok := w.pluginOf(f.Rel); !ok || r != root || f.Kind == model.KindPlugin || f.Kind == model.KindMarketplace {
			continue
		}
		if workspaceLocated(strings.TrimPrefix(strings.TrimPrefix(f.Rel, root), "/")) && root == "" {
			continue // listed as a workspace file
		}
		out = append(out, w.items(t, f, name+":", format)...)
	}
	return out
}

// workspaceLocated reports files a workspace folder holds for consumers
// in its own right (they are workspace items even when the folder is a
// plugin root as well).
func workspaceLocated(rel string) bool {
	for _, p := range []string{".github/", ".claude/", ".agents/"} {
		if strings.HasPrefix(rel, p) {
			return true
		}
	}
	switch rel {
	case "AGENTS.md", "CLAUDE.md", "CLAUDE.local.md", "GEMINI.md", ".mcp.json":
		return true
	}
	return false
}

// manifestPaths reads a manifest field that holds one path or a list.
func manifestPaths(v *diagnostics.JSONValue) (paths []string, set bool) {
	switch {
	case v.Is(diagnostics.JSONString):
		return []string{v.Str}, true
	case v.Is(diagnostics.JSONArray):
		for _, x := range v.Items {
			if x.Is(diagnostics.JSONString) {
				paths = append(paths, x.Str)
			}
		}
		return paths, true
	}
	return nil, false
}

// resolve joins a manifest path to the plugin root; ok is false for one
// that leaves it (Claude Code refuses those: plugin/path-escape).
func resolve(root, p string) (string, bool) {
	if strings.HasPrefix(p, "/") {
		return "", false
	}
	j := path.Clean(join(root, p))
	if j == "." {
		j = ""
	}
	if root != "" && j != root && !strings.HasPrefix(j, root+"/") {
		return "", false
	}
	if root == "" && (j == ".." || strings.HasPrefix(j, "../")) {
		return "", false
	}
	return j, true
}

// ccComponents are a Claude-format plugin's components as Claude Code
// reads them (plugins reference: default folders; the manifest's `skills`
// adds folders, `commands` and `agents` replace theirs, `hooks` and
// `mcpServers` merge with hooks/hooks.json and .mcp.json), named
// "<plugin>:<name>".
func (w *workspace) ccComponents(root, name string, doc *diagnostics.JSONValue) []Item {
	prefix := name + ":"
	out := w.ccSkills(root, name, prefix, doc)
	out = append(out, w.ccMarkdown(root, prefix, doc, "commands", "commands", model.KindCommand)...)
	out = append(out, w.ccMarkdown(root, prefix, doc, "agents", "agents", model.KindClaudeAgent)...)
	out = append(out, w.ccHooks(root, doc)...)
	return append(out, w.ccMCP(root, prefix, doc)...)
}

// ccSkills are the skills of a Claude Code plugin at root.
func (w *workspace) ccSkills(root, name, prefix string, doc *diagnostics.JSONValue) []Item {
	t := model.TargetClaudeCode
	var out []Item
	// Skills: skills/ plus the manifest's folders; a folder holding a
	// SKILL.md is one skill, else each sub-folder with one is.
	var dirs []string
	if w.isDir(join(root, "skills")) {
		dirs = append(dirs, join(root, "skills"))
	}
	if ps, ok := manifestPaths(doc.Get("skills")); ok {
		for _, p := range ps {
			if d, ok := resolve(root, p); ok {
				dirs = append(dirs, d)
			}
		}
	}
	if len(dirs) == 0 && w.exists(join(root, "SKILL.md")) {
		dirs = append(dirs, root)
	}
	seen := map[string]bool{}
	addSkill := func(rel, n string) {
		if seen[n] {
			return
		}
		seen[n] = true
		f := w.file(rel, model.KindSkill)
		h := readHeader(f.Text)
		it := Item{Category: CatSkills, Name: prefix + n, Source: rel, Status: Loads, Description: describe(t, model.KindSkill, h)}
		applyFindings(t, &it, f.Findings, nil)
		out = append(out, it)
	}
	for _, d := range dirs {
		if w.exists(join(d, "SKILL.md")) {
			n := path.Base(d)
			if d == "" {
				n = name
			}
			if h := readHeader(w.file(join(d, "SKILL.md"), model.KindSkill).Text); h.name != "" && d == root {
				n = h.name
			}
			addSkill(join(d, "SKILL.md"), n)
			continue
		}
		for _, e := range w.readDir(d) {
			if e.IsDir() && w.exists(join(d, e.Name()+"/SKILL.md")) {
				addSkill(join(d, e.Name()+"/SKILL.md"), e.Name())
			}
		}
	}
	return out
}

// ccMarkdown are the commands or agents (kind) of a Claude Code plugin at
// root, from the manifest's field or the default folder.
func (w *workspace) ccMarkdown(root, prefix string, doc *diagnostics.JSONValue, field, folder string, kind model.Kind) []Item {
	t := model.TargetClaudeCode
	var out []Item
	// Commands and agents: the default folder unless the manifest names
	// its own (which replace it).
	var paths []string
	if ps, ok := manifestPaths(doc.Get(field)); ok {
		for _, p := range ps {
			if r, ok := resolve(root, p); ok {
				paths = append(paths, r)
			}
		}
	} else {
		paths = []string{join(root, folder)}
	}
	names := map[string]bool{}
	for _, p := range paths {
		for _, rel := range w.markdownUnder(p) {
			f := w.file(rel, kind)
			h := readHeader(f.Text)
			var n string
			if kind == model.KindCommand {
				if rel == p {
					n = strings.TrimSuffix(path.Base(rel), ".md")
				} else {
					n = strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(rel, p+"/"), ".md"), "/", ":")
				}
			} else {
				n = h.name
				if n == "" {
					n = strings.TrimSuffix(path.Base(rel), ".md")
				}
			}
			if names[n] {
				continue
			}
			names[n] = true
			cat := CatCommands
			if kind == model.KindClaudeAgent {
				cat = CatAgents
			}
			shown := prefix + n
			if kind == model.KindCommand {
				shown = "/" + shown
			}
			it := Item{Category: cat, Name: shown, Source: rel, Status: Loads, Description: describe(t, kind, h)}
			applyFindings(t, &it, f.Findings, nil)
			out = append(out, it)
		}
	}
	return out
}

// ccHooks are the hooks of a Claude Code plugin at root.
func (w *workspace) ccHooks(root string, doc *diagnostics.JSONValue) []Item {
	t := model.TargetClaudeCode
	var out []Item
	// Hooks: hooks/hooks.json, then the manifest's files or inline object.
	hookDoc := func(rel string, v *diagnostics.JSONValue, diags []model.Diagnostic) {
		if v == nil {
			return
		}
		for _, h := range hookHandlers(v) {
			it := Item{Category: CatHooks, Name: h.event, Source: rel, Status: Loads, Description: &Description{Text: h.command, Length: len([]rune(h.command))}}
			sp := h.span
			applyFindings(t, &it, diags, &sp)
			out = append(out, it)
		}
	}
	hooksFile := join(root, "hooks/hooks.json")
	hv := doc.Get("hooks")
	if v, diags := w.jsonFile(hooksFile); v != nil {
		hookDoc(hooksFile, v, diags)
	}
	if hv.Is(diagnostics.JSONObject) {
		hookDoc(w.manifestOf(root), hv, nil)
	} else if ps, ok := manifestPaths(hv); ok {
		for _, p := range ps {
			if r, ok := resolve(root, p); ok && r != hooksFile {
				v, diags := w.jsonFile(r)
				hookDoc(r, v, diags)
			}
		}
	}
	return out
}

// ccMCP are the MCP servers of a Claude Code plugin at root.
func (w *workspace) ccMCP(root, prefix string, doc *diagnostics.JSONValue) []Item {
	t := model.TargetClaudeCode
	var out []Item
	// MCP servers: .mcp.json, then the manifest's files or inline map.
	servers := map[string]bool{}
	mcpDoc := func(rel string, v *diagnostics.JSONValue, diags []model.Diagnostic) {
		for _, s := range mcpServers(v) {
			if servers[s.name] {
				continue
			}
			servers[s.name] = true
			it := Item{Category: CatMCP, Name: prefix + s.name, Source: rel, Status: Loads}
			sp := s.span
			applyFindings(t, &it, diags, &sp)
			out = append(out, it)
		}
	}
	mv := doc.Get("mcpServers")
	if mv.Is(diagnostics.JSONObject) {
		mcpDoc(w.manifestOf(root), mv, nil)
	} else if ps, ok := manifestPaths(mv); ok {
		for _, p := range ps {
			if r, ok := resolve(root, p); ok {
				v, diags := w.jsonFile(r)
				mcpDoc(r, v, diags)
			}
		}
	}
	if v, diags := w.jsonFile(join(root, ".mcp.json")); v != nil {
		mcpDoc(join(root, ".mcp.json"), v, diags)
	}
	return out
}

func (w *workspace) manifestOf(root string) string {
	if pr := w.roots[root]; pr.claude != "" {
		return pr.claude
	}
	return w.roots[root].manifest
}

// maxComponents bounds how many files one component folder lists.
const maxComponents = 2000

type dirEntry struct {
	name string
	dir  bool
}

func (d dirEntry) Name() string { return d.name }
func (d dirEntry) IsDir() bool  { return d.dir }
func (d dirEntry) Type() fs.FileMode {
	if d.dir {
		return fs.ModeDir
	}
	return 0
}
func (d dirEntry) Info() (fs.FileInfo, error) { return nil, fs.ErrInvalid }

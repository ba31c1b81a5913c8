package ahptest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// manifestPaths are the four manifest locations, in the order a host picks
// the effective one (docs/customization-formats.md §2.2).
var manifestPaths = []string{".plugin/plugin.json", "plugin.json", ".github/plugin/plugin.json", ".claude-plugin/plugin.json"}

// parsedPlugin is what the host makes of a plugin tree it read: the wire
// objects of its children and either a fatal error (load "error"), a list
// of per-file problems (load "degraded") or nothing (load "loaded").
type parsedPlugin struct {
	version  string
	children []map[string]any
	problems []string // "<path>: <why>", sorted by path
	fatal    string
	// mcpErrors: child id → why the server cannot start (no command/url).
	mcpErrors map[string]string
}

// loadState is the CustomizationLoadState the parse result calls for.
func (p *parsedPlugin) loadState() map[string]any {
	switch {
	case p.fatal != "":
		return map[string]any{"kind": "error", "message": p.fatal}
	case len(p.problems) > 0:
		return map[string]any{"kind": "degraded", "message": strings.Join(p.problems, "; ")}
	}
	return map[string]any{"kind": "loaded"}
}

// childOrder sorts children by kind as the spec lists them, then by name,
// so republishing the same tree gives the same object.
var childOrder = map[string]int{"skill": 0, "agent": 1, "prompt": 2, "rule": 3, "hook": 4, "mcpServer": 5}

// parsePlugin parses a plugin tree (slash paths relative to the root →
// content) the way a host would. Child ids are "<id>/<kind>/<name>", stable
// across reloads. It never panics on any input.
func parsePlugin(id, root string, files map[string][]byte) *parsedPlugin {
	p := &parsedPlugin{mcpErrors: map[string]string{}}
	if p.version, p.fatal = readManifest(files); p.fatal != "" {
		return p
	}
	b := &childBuilder{p: p, id: id, root: strings.TrimSuffix(root, "/")}
	paths := make([]string, 0, len(files))
	for rel := range files {
		paths = append(paths, rel)
	}
	sort.Strings(paths)
	for _, rel := range paths {
		b.file(rel, files[rel])
	}
	sort.SliceStable(p.children, func(i, j int) bool {
		a, b := p.children[i], p.children[j]
		if oa, ob := childOrder[a["type"].(string)], childOrder[b["type"].(string)]; oa != ob {
			return oa < ob
		}
		return a["name"].(string) < b["name"].(string)
	})
	p.children = dedupeIDs(p.children)
	return p
}

// readManifest finds and checks the plugin manifest: fatal says why the
// plugin cannot load (no manifest, bad JSON, no name).
func readManifest(files map[string][]byte) (version, fatal string) {
	mpath := ""
	for _, m := range manifestPaths {
		if _, ok := files[m]; ok {
			mpath = m
			break
		}
	}
	if mpath == "" {
		return "", "no plugin manifest (looked for " + strings.Join(manifestPaths, ", ") + ")"
	}
	var manifest map[string]any
	if err := json.Unmarshal(files[mpath], &manifest); err != nil {
		return "", mpath + ": invalid JSON: " + err.Error()
	}
	if name, _ := manifest["name"].(string); strings.TrimSpace(name) == "" {
		return "", mpath + ": manifest has no name"
	}
	version, _ = manifest["version"].(string)
	return version, ""
}

// childBuilder turns a plugin's files into its children, one file kind per
// method, the way the agent host discovers them.
type childBuilder struct {
	p    *parsedPlugin
	id   string
	root string // without a trailing slash
}

func (b *childBuilder) add(kind, name, rel string, extra map[string]any) {
	c := map[string]any{"type": kind, "id": b.id + "/" + kind + "/" + name, "uri": b.root + "/" + rel, "name": name}
	for k, v := range extra {
		c[k] = v
	}
	b.p.children = append(b.p.children, c)
}

func (b *childBuilder) problem(rel, why string) { b.p.problems = append(b.p.problems, rel+": "+why) }

// file routes one file by its place in the plugin.
func (b *childBuilder) file(rel string, data []byte) {
	parts := strings.Split(rel, "/")
	switch {
	case len(parts) == 3 && parts[0] == "skills" && parts[2] == "SKILL.md":
		b.markdown(rel, data, b.skill)
	case len(parts) == 2 && parts[0] == "agents" && strings.HasSuffix(rel, ".md"):
		b.markdown(rel, data, b.agent)
	case len(parts) >= 2 && parts[0] == "commands" && strings.HasSuffix(rel, ".md"):
		b.markdown(rel, data, b.command)
	case len(parts) >= 2 && parts[0] == "rules" && (strings.HasSuffix(rel, ".md") || strings.HasSuffix(rel, ".mdc")):
		b.markdown(rel, data, b.rule)
	case rel == "hooks/hooks.json":
		b.hooks(rel, data)
	case rel == ".mcp.json":
		b.mcp(rel, data)
	}
}

// markdown reads a markdown file's frontmatter and hands it to add; a
// frontmatter that does not parse is a problem of the plugin.
func (b *childBuilder) markdown(rel string, data []byte, add func(rel string, parts []string, fm map[string]any)) {
	fm, err := frontmatter(data)
	if err != nil {
		b.problem(rel, err.Error())
		return
	}
	add(rel, strings.Split(rel, "/"), fm)
}

func (b *childBuilder) skill(rel string, parts []string, fm map[string]any) {
	name := str(fm["name"])
	if name == "" {
		name = parts[1]
	}
	b.add("skill", name, rel, pick(fm, "description"))
}

func (b *childBuilder) agent(rel string, parts []string, fm map[string]any) {
	name := str(fm["name"])
	if name == "" {
		name = strings.TrimSuffix(strings.TrimSuffix(parts[1], ".md"), ".agent")
	}
	extra := pick(fm, "description", "model")
	if tools := stringList(fm["tools"]); tools != nil {
		extra["tools"] = tools
	}
	b.add("agent", name, rel, extra)
}

// command: nested commands are namespaced dir:name, as Claude Code does.
func (b *childBuilder) command(rel string, parts []string, fm map[string]any) {
	name := strings.ReplaceAll(strings.TrimSuffix(strings.Join(parts[1:], "/"), ".md"), "/", ":")
	b.add("prompt", name, rel, pick(fm, "description"))
}

func (b *childBuilder) rule(rel string, parts []string, fm map[string]any) {
	name := strings.Join(parts[1:], "/")
	for _, ext := range []string{".instructions.md", ".mdc", ".md"} {
		if strings.HasSuffix(name, ext) {
			name = strings.TrimSuffix(name, ext)
			break
		}
	}
	extra := pick(fm, "description")
	if v, ok := fm["alwaysApply"].(bool); ok {
		extra["alwaysApply"] = v
	}
	globs := stringList(fm["globs"])
	if globs == nil {
		globs = stringList(fm["applyTo"])
	}
	if globs != nil {
		extra["globs"] = globs
	}
	b.add("rule", name, rel, extra)
}

func (b *childBuilder) hooks(rel string, data []byte) {
	events, err := hookEvents(data)
	if err != nil {
		b.problem(rel, err.Error())
		return
	}
	for _, ev := range events {
		b.add("hook", ev, rel, nil)
	}
}

func (b *childBuilder) mcp(rel string, data []byte) {
	servers, err := mcpServers(data)
	if err != nil {
		b.problem(rel, err.Error())
		return
	}
	names := make([]string, 0, len(servers))
	for n := range servers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		b.add("mcpServer", n, rel, map[string]any{"enabled": true, "state": map[string]any{"kind": "starting"}})
		cfg, _ := servers[n].(map[string]any)
		if str(cfg["command"]) == "" && str(cfg["url"]) == "" {
			b.p.mcpErrors[b.id+"/mcpServer/"+n] = "MCP server " + n + " has neither command nor url"
		}
	}
}

// dedupeIDs drops later children whose id repeats (two files naming the
// same skill): ids must be session-unique.
func dedupeIDs(l []map[string]any) []map[string]any {
	seen := map[string]bool{}
	out := l[:0]
	for _, c := range l {
		id := c["id"].(string)
		if seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, c)
	}
	return out
}

func str(v any) string {
	s, _ := v.(string)
	return strings.TrimSpace(s)
}

// pick copies the non-empty string fields named keys.
func pick(fm map[string]any, keys ...string) map[string]any {
	out := map[string]any{}
	for _, k := range keys {
		if s := str(fm[k]); s != "" {
			out[k] = s
		}
	}
	return out
}

// stringList reads a YAML list of strings or a comma-separated string.
func stringList(v any) []any {
	switch x := v.(type) {
	case string:
		var out []any
		for _, s := range strings.Split(x, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		return out
	case []any:
		out := []any{}
		for _, e := range x {
			if s := str(e); s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// frontmatter returns the YAML frontmatter of a markdown file (nil when the
// file has none). An opening "---" without a closing one, or frontmatter
// that is not a YAML mapping, is an error.
func frontmatter(data []byte) (map[string]any, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	lines := strings.Split(string(data), "\n")
	if len(lines) == 0 || strings.TrimRight(lines[0], " \t\r") != "---" {
		return nil, nil
	}
	for i := 1; i < len(lines); i++ {
		if strings.TrimRight(lines[i], " \t\r") == "---" {
			var m map[string]any
			if err := yaml.Unmarshal([]byte(strings.Join(lines[1:i], "\n")), &m); err != nil {
				return nil, fmt.Errorf("invalid frontmatter: %s", firstLine(err.Error()))
			}
			return m, nil
		}
	}
	return nil, fmt.Errorf("frontmatter is not closed")
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// hookEvents lists the events of a hooks.json: the keys of its "hooks"
// object (Claude and Copilot formats both wrap them), sorted.
func hookEvents(data []byte) ([]string, error) {
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("invalid JSON: %s", err)
	}
	if doc == nil {
		return nil, fmt.Errorf("not a JSON object")
	}
	hooks, ok := doc["hooks"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf(`no "hooks" object`)
	}
	out := make([]string, 0, len(hooks))
	for ev := range hooks {
		if strings.TrimSpace(ev) != "" {
			out = append(out, ev)
		}
	}
	sort.Strings(out)
	return out, nil
}

// mcpServers reads a .mcp.json: {"mcpServers": {...}} or a bare map.
func mcpServers(data []byte) (map[string]any, error) {
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("invalid JSON: %s", err)
	}
	if doc == nil {
		return nil, fmt.Errorf("not a JSON object")
	}
	if w, ok := doc["mcpServers"]; ok {
		m, ok := w.(map[string]any)
		if !ok {
			return nil, fmt.Errorf(`"mcpServers" is not an object`)
		}
		return m, nil
	}
	delete(doc, "$schema")
	return doc, nil
}

// cleanRel reports whether a listed entry name is a plain path segment (a
// client must not steer the host out of the tree).
func cleanName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, "/\\\x00") && path.Clean(name) == name
}

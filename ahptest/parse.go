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
	mpath := ""
	for _, m := range manifestPaths {
		if _, ok := files[m]; ok {
			mpath = m
			break
		}
	}
	if mpath == "" {
		p.fatal = "no plugin manifest (looked for " + strings.Join(manifestPaths, ", ") + ")"
		return p
	}
	var manifest map[string]any
	if err := json.Unmarshal(files[mpath], &manifest); err != nil {
		p.fatal = mpath + ": invalid JSON: " + err.Error()
		return p
	}
	if name, _ := manifest["name"].(string); strings.TrimSpace(name) == "" {
		p.fatal = mpath + ": manifest has no name"
		return p
	}
	p.version, _ = manifest["version"].(string)

	uri := func(rel string) string { return strings.TrimSuffix(root, "/") + "/" + rel }
	add := func(kind, name, rel string, extra map[string]any) {
		c := map[string]any{"type": kind, "id": id + "/" + kind + "/" + name, "uri": uri(rel), "name": name}
		for k, v := range extra {
			c[k] = v
		}
		p.children = append(p.children, c)
	}
	problem := func(rel, why string) { p.problems = append(p.problems, rel+": "+why) }

	paths := make([]string, 0, len(files))
	for rel := range files {
		paths = append(paths, rel)
	}
	sort.Strings(paths)
	for _, rel := range paths {
		data := files[rel]
		parts := strings.Split(rel, "/")
		switch {
		case len(parts) == 3 && parts[0] == "skills" && parts[2] == "SKILL.md":
			fm, err := frontmatter(data)
			if err != nil {
				problem(rel, err.Error())
				continue
			}
			name := str(fm["name"])
			if name == "" {
				name = parts[1]
			}
			add("skill", name, rel, pick(fm, "description"))
		case len(parts) == 2 && parts[0] == "agents" && strings.HasSuffix(rel, ".md"):
			fm, err := frontmatter(data)
			if err != nil {
				problem(rel, err.Error())
				continue
			}
			name := str(fm["name"])
			if name == "" {
				name = strings.TrimSuffix(strings.TrimSuffix(parts[1], ".md"), ".agent")
			}
			extra := pick(fm, "description", "model")
			if tools := stringList(fm["tools"]); tools != nil {
				extra["tools"] = tools
			}
			add("agent", name, rel, extra)
		case len(parts) >= 2 && parts[0] == "commands" && strings.HasSuffix(rel, ".md"):
			fm, err := frontmatter(data)
			if err != nil {
				problem(rel, err.Error())
				continue
			}
			// Nested commands are namespaced dir:name, as Claude Code does.
			name := strings.ReplaceAll(strings.TrimSuffix(strings.Join(parts[1:], "/"), ".md"), "/", ":")
			add("prompt", name, rel, pick(fm, "description"))
		case len(parts) >= 2 && parts[0] == "rules" && (strings.HasSuffix(rel, ".md") || strings.HasSuffix(rel, ".mdc")):
			fm, err := frontmatter(data)
			if err != nil {
				problem(rel, err.Error())
				continue
			}
			name := strings.Join(parts[1:], "/")
			for _, ext := range []string{".instructions.md", ".mdc", ".md"} {
				if strings.HasSuffix(name, ext) {
					name = strings.TrimSuffix(name, ext)
					break
				}
			}
			extra := pick(fm, "description")
			if b, ok := fm["alwaysApply"].(bool); ok {
				extra["alwaysApply"] = b
			}
			globs := stringList(fm["globs"])
			if globs == nil {
				globs = stringList(fm["applyTo"])
			}
			if globs != nil {
				extra["globs"] = globs
			}
			add("rule", name, rel, extra)
		case rel == "hooks/hooks.json":
			events, err := hookEvents(data)
			if err != nil {
				problem(rel, err.Error())
				continue
			}
			for _, ev := range events {
				add("hook", ev, rel, nil)
			}
		case rel == ".mcp.json":
			servers, err := mcpServers(data)
			if err != nil {
				problem(rel, err.Error())
				continue
			}
			names := make([]string, 0, len(servers))
			for n := range servers {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				add("mcpServer", n, rel, map[string]any{"enabled": true, "state": map[string]any{"kind": "starting"}})
				cfg, _ := servers[n].(map[string]any)
				if str(cfg["command"]) == "" && str(cfg["url"]) == "" {
					p.mcpErrors[id+"/mcpServer/"+n] = "MCP server " + n + " has neither command nor url"
				}
			}
		}
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

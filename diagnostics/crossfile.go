package diagnostics

import (
	"fmt"

	"github.com/ahpls-dev/ahpls/model"
)

// Rules that compare two JSON files: manifest copies that disagree
// (plugin/copies), one MCP server name in two files of a plugin
// (mcp/duplicate) and a marketplace entry whose version differs from its
// plugin's (market/version). They run only when File.FS can also read
// files; editors then re-check the other file's dependents themselves.

// Another file is read through WorkspaceReader (memory.go), the optional
// extension of WorkspaceFS; without it these rules are skipped.

// crossFileRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var crossFileRules = []*Rule{pluginCopies, mcpDuplicate, marketVersion}

var pluginCopies = &Rule{
	ID:       "plugin/copies",
	Fix:      FixUnsafe,
	FixWhy:   "renames a key",
	Summary:  "Manifest copies in one plugin disagree on the plugin name.",
	Kinds:    "plugin",
	Severity: "V WARN · CL WARN.",
}

var mcpDuplicate = &Rule{
	ID:       "mcp/duplicate",
	Fix:      FixUnsafe,
	FixWhy:   "renames a server",
	Summary:  "One MCP server name in two files that one consumer merges.",
	Kinds:    "mcp",
	Severity: "V SKIP (first wins) · CL LOSE (last wins).",

	NameClash: true,
}

var marketVersion = &Rule{
	ID:       "market/version",
	Fix:      FixUnsafe,
	FixWhy:   "changes the version text",
	Summary:  "A marketplace entry's version differs from its plugin's.",
	Kinds:    "market",
	Severity: "CC WARN (plugin.json wins).",
}

// readJSONFile reads and parses another workspace file; ok is false when
// it cannot be read or is not valid JSON.
func readJSONFile(f File, rel string) (*JSONValue, bool) {
	if f.FS == nil {
		return nil, false
	}
	rd, ok := f.FS.(WorkspaceReader)
	if !ok {
		return nil, false
	}
	b, err := rd.ReadFile(rel)
	if err != nil || len(b) > MaxFileSize {
		return nil, false
	}
	v, _ := parseJSONTree(b)
	return v, v != nil
}

// copies compares this manifest's name with the effective manifest's.
func (m *manifest) copies(doc *JSONValue) {
	if !m.copy {
		return
	}
	name := doc.Get("name")
	if !name.Is(JSONString) {
		return
	}
	for _, loc := range model.ManifestPaths {
		if loc == m.loc {
			return
		}
		rel := jJoin(m.pluginRoot, loc)
		eff, ok := readJSONFile(m.f, rel)
		if !ok {
			continue
		}
		en := eff.Get("name")
		if !en.Is(JSONString) || en.Str == name.Str {
			return
		}
		// VS Code and Copilot CLI warn about the mismatch whichever copy
		// they read, so this bypasses the per-file readers.
		if m.r.verdict(pluginCopies, name.Span, model.V(model.Warn).With(model.Verdicts{model.TargetCopilotCLI: model.Warn}),
			fmt.Sprintf("%%s will warn: this copy's name '%s' differs from '%s' in '%s'.", jClip(name.Str), jClip(en.Str), loc),
			jReplace(fmt.Sprintf("Use '%s'", en.Str), name.Span, jQuote(en.Str))) {
			n := len(m.r.diags) - 1
			m.r.diags[n].Related = append(m.r.diags[n].Related, model.Related{Path: rel, Span: en.Span, Message: "the effective manifest's name"})
		}
		return
	}
}

// mcpSources are the files of one plugin whose servers are merged, in the
// order we assume consumers load them (VS Code: first wins).
var mcpSources = []string{".mcp.json", ".github/mcp.json", "mcp.json"}

// duplicates reports servers of this file that an earlier source of the
// same plugin already defines.
func (w *mcpWalk) duplicates(own *JSONValue) {
	c := w.c
	if c.format == model.FormatNone || own == nil {
		return
	}
	self := c.f.Path
	type source struct {
		rel     string
		servers *JSONValue
	}
	var earlier []source
	// The effective manifest's inline mcpServers come first.
	for _, loc := range model.ManifestPaths {
		rel := jJoin(c.pluginRoot, loc)
		if man, ok := readJSONFile(c.f, rel); ok {
			if s := man.Get("mcpServers"); s.Is(JSONObject) {
				earlier = append(earlier, source{rel, s})
			}
			break
		}
	}
	for _, loc := range mcpSources {
		rel := jJoin(c.pluginRoot, loc)
		if rel == self {
			break
		}
		if v, ok := readJSONFile(c.f, rel); ok {
			earlier = append(earlier, source{rel, mcpServersOf(v)})
		}
	}
	if len(earlier) == 0 || !own.Is(JSONObject) {
		return
	}
	for _, m := range own.Members {
		for _, s := range earlier {
			first := s.servers.Member(m.Key)
			if first == nil {
				continue
			}
			v := model.V(model.Skip).With(model.Verdicts{model.TargetCopilotCLI: model.Lose})
			msg := fmt.Sprintf("%%s will replace server '%s' of '%s' with this one.", jClip(m.Key), s.rel)
			if jHasTarget(c.decidedBy(v), model.TargetVSCode) || jHasTarget(c.decidedBy(v), model.TargetVSCodeAgentHost) {
				msg = fmt.Sprintf("%%s will skip this server: '%s' already defines '%s'.", s.rel, jClip(m.Key))
			}
			if c.report(mcpDuplicate, m.KeySpan, v, msg, model.Fix{Title: "Rename this server", Edits: []model.Edit{{Span: m.KeySpan, NewText: jQuote(m.Key + "-2")}}}) {
				n := len(c.r.diags) - 1
				c.r.diags[n].Related = append(c.r.diags[n].Related, model.Related{Path: s.rel, Span: first.KeySpan, Message: "first definition"})
			}
			break
		}
	}
}

// mcpServersOf returns the object holding an MCP config's servers.
func mcpServersOf(doc *JSONValue) *JSONValue {
	if s := doc.Get("mcpServers"); s != nil {
		return s
	}
	if s := doc.Get("servers"); s != nil {
		return s
	}
	return doc
}

// checkMarketVersion compares an entry's version with its local plugin's.
func checkMarketVersion(c *jsonCheck, e *JSONValue, pluginRel string) {
	ver := e.Get("version")
	if !ver.Is(JSONString) {
		return
	}
	rel := jJoin(pluginRel, ".claude-plugin/plugin.json")
	if pluginRel == "." {
		rel = ".claude-plugin/plugin.json"
	}
	man, ok := readJSONFile(c.f, rel)
	if !ok {
		return
	}
	pv := man.Get("version")
	if !pv.Is(JSONString) || pv.Str == ver.Str {
		return
	}
	if c.report(marketVersion, ver.Span, model.Verdicts{model.TargetClaudeCode: model.Warn},
		fmt.Sprintf("%%s warns and uses version '%s' from the plugin's manifest, not '%s'.", jClip(pv.Str), jClip(ver.Str)),
		jReplace(fmt.Sprintf("Use '%s'", pv.Str), ver.Span, jQuote(pv.Str))) {
		n := len(c.r.diags) - 1
		c.r.diags[n].Related = append(c.r.diags[n].Related, model.Related{Path: rel, Span: pv.Span, Message: "the plugin's version"})
	}
}

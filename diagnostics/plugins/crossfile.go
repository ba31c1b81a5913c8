package plugins

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/shared"

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

// CrossFileRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var CrossFileRules = []*core.Rule{pluginCopies, shared.MCPDuplicate, marketVersion}

var pluginCopies = &core.Rule{
	ID:       "plugin/copies",
	Fix:      core.FixUnsafe,
	FixWhy:   "renames a key",
	Summary:  "Manifest copies in one plugin disagree on the plugin name.",
	Kinds:    "plugin",
	Severity: "V WARN · CL WARN.",
}

var marketVersion = &core.Rule{
	ID:       "market/version",
	Fix:      core.FixUnsafe,
	FixWhy:   "changes the version text",
	Summary:  "A marketplace entry's version differs from its plugin's.",
	Kinds:    "market",
	Severity: "CC WARN (plugin.json wins).",
}

// copies compares this manifest's name with the effective manifest's.
func (m *manifest) copies(doc *core.JSONValue) {
	if !m.copy {
		return
	}
	name := doc.Get("name")
	if !name.Is(core.JSONString) {
		return
	}
	for _, loc := range model.ManifestPaths {
		if loc == m.loc {
			return
		}
		rel := core.JJoin(m.PluginRoot, loc)
		eff, ok := core.ReadJSONFile(m.F, rel)
		if !ok {
			continue
		}
		en := eff.Get("name")
		if !en.Is(core.JSONString) || en.Str == name.Str {
			return
		}
		// VS Code and Copilot CLI warn about the mismatch whichever copy
		// they read, so this bypasses the per-file readers.
		if m.R.Verdict(pluginCopies, name.Span, model.V(model.Warn).With(model.Verdicts{model.TargetCopilotCLI: model.Warn}),
			fmt.Sprintf("%%s will warn: this copy's name '%s' differs from '%s' in '%s'.", core.JClip(name.Str), core.JClip(en.Str), loc),
			core.JReplace(fmt.Sprintf("Use '%s'", en.Str), name.Span, core.JQuote(en.Str))) {
			n := len(m.R.Diags) - 1
			m.R.Diags[n].Related = append(m.R.Diags[n].Related, model.Related{Path: rel, Span: en.Span, Message: "the effective manifest's name"})
		}
		return
	}
}

// checkMarketVersion compares an entry's version with its local plugin's.
func checkMarketVersion(c *core.JSONCheck, e *core.JSONValue, pluginRel string) {
	ver := e.Get("version")
	if !ver.Is(core.JSONString) {
		return
	}
	rel := core.JJoin(pluginRel, ".claude-plugin/plugin.json")
	if pluginRel == "." {
		rel = ".claude-plugin/plugin.json"
	}
	man, ok := core.ReadJSONFile(c.F, rel)
	if !ok {
		return
	}
	pv := man.Get("version")
	if !pv.Is(core.JSONString) || pv.Str == ver.Str {
		return
	}
	if c.Report(marketVersion, ver.Span, model.Verdicts{model.TargetClaudeCode: model.Warn},
		fmt.Sprintf("%%s warns and uses version '%s' from the plugin's manifest, not '%s'.", core.JClip(pv.Str), core.JClip(ver.Str)),
		core.JReplace(fmt.Sprintf("Use '%s'", pv.Str), ver.Span, core.JQuote(pv.Str))) {
		n := len(c.R.Diags) - 1
		c.R.Diags[n].Related = append(c.R.Diags[n].Related, model.Related{Path: rel, Span: pv.Span, Message: "the plugin's version"})
	}
}

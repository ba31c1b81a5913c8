package model

import (
	"encoding/json"
	"path"
	"slices"
	"strings"
)

// Implied targets (issue #25): a file adds a consumer to the configured
// targets only where that consumer's own discovery would load it and
// nothing in the tree says the author targets another consumer. A plugin
// with a root plugin.json is read by VS Code as a Copilot plugin, but when
// a Claude Code marketplace lists it (or a .claude-plugin/ folder sits in
// it) its author ships it to Claude Code, and Copilot CLI's reactions are
// not the author's concern. ImpliedTable is that decision, rendered in
// docs/rules.md and checked row by row in TestImpliedTable.

// ImpliedRule is one row of the implied-target decision table.
type ImpliedRule struct {
	ID     string // short name the tests refer to
	When   string // what in the tree
	Adds   Target // TargetNone-like "" means: adds nothing
	Unless string // what stops it
	Why    string // the consumer's discovery that loads the file
}

// ImpliedTable is the decision table, first match per target: the rows of
// Claude Code and Copilot CLI, then each consumer's own (ConsumerSpec.
// Implied), then the files that imply no one.
var ImpliedTable = slices.Concat(claudeCopilotImplied, consumerImplied(), noneImplied)

func consumerImplied() []ImpliedRule {
	var out []ImpliedRule
	for _, c := range Consumers {
		if p := c.Implied; p != nil {
			out = append(out, ImpliedRule{ID: p.ID, When: p.When, Adds: c.Target, Why: p.Why})
		}
	}
	return out
}

var claudeCopilotImplied = []ImpliedRule{
	{ID: "claude-dir", When: "a `.claude` folder in the path", Adds: TargetClaudeCode,
		Why: "Claude Code loads .claude/{agents,commands,output-styles,rules,skills}/ and .claude/settings*.json of the project"},
	{ID: "claude-md", When: "a `CLAUDE*.md` file", Adds: TargetClaudeCode,
		Why: "Claude Code loads CLAUDE.md and CLAUDE.local.md as memory"},
	{ID: "claude-plugin-dir", When: "a `.claude-plugin` folder in the path (manifest, marketplace)", Adds: TargetClaudeCode,
		Why: "`claude plugin validate` and `/plugin marketplace add` read .claude-plugin/plugin.json and marketplace.json"},
	{ID: "claude-plugin", When: "a file of a plugin with `.claude-plugin/plugin.json`", Adds: TargetClaudeCode,
		Why: "Claude Code loads the plugin's components from its root"},
	{ID: "claude-listed", When: "a file of a plugin that a Claude Code marketplace (`<m>/.claude-plugin/marketplace.json`, m at or above the plugin) lists by a local source, or whose root holds `.claude-plugin/marketplace.json`", Adds: TargetClaudeCode,
		Why: "Claude Code installs plugins from the marketplace; a manifest is optional"},
	{ID: "copilot-plugin-dir", When: "a `.github/plugin` folder in the path", Adds: TargetCopilotCLI,
		Why: "Copilot CLI reads .github/plugin/plugin.json and .github/plugin/marketplace.json"},
	{ID: "copilot-plugin", When: "a file of a plugin whose manifest is a root `plugin.json` (Copilot format)", Adds: TargetCopilotCLI,
		Unless: "rule claude-listed applies: the author targets Claude Code",
		Why:    "Copilot CLI installs a folder with a root plugin.json"},
	{ID: "copilot-hooks", When: "a hooks file in Copilot CLI's format by its structure (`version`, no `{matcher, hooks}` groups, and handlers with `bash`/`powershell` or camelCase events such as `preToolUse`)", Adds: TargetCopilotCLI,
		Why: "Copilot CLI reads .github/hooks/*.json in that format (decided from the content by the hooks rules)"},
}

var noneImplied = []ImpliedRule{
	{ID: "agents-md", When: "`AGENTS.md` alone", Adds: "",
		Why: "Codex, Cursor and others read it, but the file names no one agent: their rules report it at Info unless the agent is configured"},
	{ID: "copilot-setup-steps", When: "`.github/workflows/copilot-setup-steps.yml`", Adds: "",
		Why: "only GitHub's Copilot coding agent reads it, which is no configurable target: its rules report at fixed levels whatever the targets"},
	{ID: "none", When: "anything else (Agent Plugins and OpenPlugin plugins, other paths)", Adds: "",
		Why: "only the configured targets"},
}

// ClaudeListing is an optional extension of Layout: whether the workspace
// says a plugin is shipped to Claude Code (rule claude-listed).
type ClaudeListing interface {
	ClaudeListed(dir string) bool
}

// ClaudeListed is rule claude-listed from files read through read: a
// .claude-plugin/marketplace.json in the plugin root dir, or one at or
// above it that lists dir by a local source (relative to the marketplace
// root, or to its metadata.pluginRoot).
func ClaudeListed(read func(rel string) ([]byte, bool), dir string) bool {
	return ClaudeListedBy(func(m string) (MarketplaceListing, bool) {
		b, ok := read(joinRel(m, ".claude-plugin/marketplace.json"))
		if !ok {
			return nil, false
		}
		return ParseMarketplaceListing(b, m), true
	}, dir)
}

// ClaudeListedBy is ClaudeListed with each folder's marketplace given
// parsed: listing(m) is the marketplace at folder m (ok: there is one).
// A caller asking for many plugin roots parses each marketplace once:
// reading and parsing it per plugin root was quadratic in its entries
// (1,200 entries: 2 s of a check, #42).
func ClaudeListedBy(listing func(m string) (MarketplaceListing, bool), dir string) bool {
	if _, ok := listing(dir); ok {
		return true
	}
	for a := dir; a != ""; {
		if a = path.Dir(a); a == "." {
			a = ""
		}
		if l, ok := listing(a); ok && l[dir] {
			return true
		}
	}
	return false
}

func joinRel(a, b string) string {
	if a == "" {
		return b
	}
	return a + "/" + b
}

// MarketplaceListing is the set of folders a marketplace's plugins' local
// sources resolve to (relative to the workspace folder; "" is its root).
type MarketplaceListing map[string]bool

// ParseMarketplaceListing reads the marketplace text b at root m: the
// folders of MarketplaceEntries. Text that does not parse lists nothing.
func ParseMarketplaceListing(b []byte, m string) MarketplaceListing {
	out := MarketplaceListing{}
	_, entries := MarketplaceEntries(b, m)
	for _, e := range entries {
		out[e.Dir] = true
	}
	return out
}

// ListedPlugin is one plugin a marketplace lists by a local source.
type ListedPlugin struct {
	Name string // the entry's name (what the consumer installs it as)
	Dir  string // the folder its source resolves to, relative to the workspace folder
}

// MarketplaceEntries reads the marketplace text b whose root is m: its
// name and the plugins it lists by a local source (relative to m, or to
// its metadata.pluginRoot; both are tried, as consumers differ). Remote
// sources (github, url, npm) are no folder of the workspace and are left
// out; unreadable text yields nothing.
func MarketplaceEntries(b []byte, m string) (name string, out []ListedPlugin) {
	var mk struct {
		Name     string `json:"name"`
		Metadata struct {
			PluginRoot string `json:"pluginRoot"`
		} `json:"metadata"`
		Plugins []struct {
			Name   string          `json:"name"`
			Source json.RawMessage `json:"source"`
		} `json:"plugins"`
	}
	if json.Unmarshal(b, &mk) != nil {
		return "", nil
	}
	for _, p := range mk.Plugins {
		var src string
		if json.Unmarshal(p.Source, &src) != nil || src == "" {
			continue
		}
		first := len(out) // the entry's folders start here: at most two, kept once each
		for _, base := range []string{m, path.Join(m, mk.Metadata.PluginRoot)} {
			got := path.Clean(path.Join(base, src))
			if got == "." {
				got = ""
			}
			if got == ".." || strings.HasPrefix(got, "../") || (len(out) > first && out[first].Dir == got) {
				continue
			}
			out = append(out, ListedPlugin{Name: p.Name, Dir: got})
		}
	}
	return mk.Name, out
}

// EffectiveTargetsIn is EffectiveTargets with the decision table's plugin
// rows answered by layout (nil: from the path alone).
func EffectiveTargetsIn(configured []Target, implied bool, rel string, layout Layout) []Target {
	format, root := FormatNone, ""
	if layout != nil {
		format, root = PluginOf(rel, layout)
	}
	out := EffectiveTargets(configured, implied, rel, FormatNone)
	if !implied || format == FormatNone {
		return out
	}
	add := func(t Target) {
		for _, x := range out {
			if x == t {
				return
			}
		}
		out = append(out, t)
	}
	cl, _ := layout.(ClaudeListing)
	listed := cl != nil && cl.ClaudeListed(root)
	switch {
	case format == FormatClaude || listed:
		add(TargetClaudeCode)
	case format == FormatCopilot:
		add(TargetCopilotCLI)
	}
	return out
}

// hasSeg reports a folder segment s in rel (not its base name).
func hasSeg(rel, s string) bool {
	return strings.HasPrefix(rel, s+"/") || strings.Contains(rel, "/"+s+"/")
}

// CodexMarketplaceEntries reads a marketplace as Codex does (rel ends in
// one of CodexMarketplacePaths): its name and the plugins it lists by a
// local source, a "./" path (a string, or {"source": "local", "path": …})
// relative to the folder holding .agents/ or .claude-plugin/ (openai/codex core-plugins
// marketplace.rs resolve_local_plugin_source_path). Other sources and
// unreadable text yield nothing.
func CodexMarketplaceEntries(b []byte, rel string) (name string, out []ListedPlugin) {
	var mk struct {
		Name    string `json:"name"`
		Plugins []struct {
			Name   string          `json:"name"`
			Source json.RawMessage `json:"source"`
		} `json:"plugins"`
	}
	if json.Unmarshal(b, &mk) != nil {
		return "", nil
	}
	m := rel
	for _, suffix := range CodexMarketplacePaths {
		if cut, ok := strings.CutSuffix(rel, suffix); ok {
			m = strings.TrimSuffix(cut, "/")
			break
		}
	}
	for _, p := range mk.Plugins {
		var src string
		if json.Unmarshal(p.Source, &src) != nil {
			var obj struct {
				Source string `json:"source"`
				Path   string `json:"path"`
			}
			if json.Unmarshal(p.Source, &obj) != nil || obj.Source != "local" {
				continue
			}
			src = obj.Path
		}
		rest, ok := strings.CutPrefix(src, "./")
		if src == "." || src == "./" {
			rest, ok = ".", true // the marketplace root (openai/codex#28771)
		}
		if !ok || rest == "" || slices.Contains(strings.Split(rest, "/"), "..") {
			continue // Codex skips the entry
		}
		got := path.Clean(path.Join(m, rest))
		if got == ".." || strings.HasPrefix(got, "../") {
			continue
		}
		if got == "." {
			got = "" // the workspace folder
		}
		out = append(out, ListedPlugin{Name: p.Name, Dir: got})
	}
	return mk.Name, out
}

package model

import (
	"encoding/json"
	"path"
	"strings"
)

// The layout model (issue #13): which folders are plugin and marketplace
// roots, from the consumers' own discovery rules, as pure functions of a
// workspace-relative path and the files that exist. `ahpls check`, the
// server and the virtual-plugin publisher all ask these functions, so a
// file is read as the same thing everywhere and whatever folder is the
// workspace.
//
// Sources:
//   - VS Code, src/vs/platform/agentPlugins/common/pluginParsers.ts:
//     detectPluginFormat tries an Agent Plugins root plugin.json, then
//     <root>/.plugin/plugin.json (OpenPlugin), then a `.claude` path segment
//     or <root>/.claude-plugin/plugin.json (Claude), else Copilot
//     (<root>/plugin.json); every component path is joined to the plugin
//     root (resolveComponentDirs).
//   - Claude Code 2.1.332, `claude plugin validate DIR`: "Expected
//     .claude-plugin/marketplace.json or .claude-plugin/plugin.json" — a
//     plugin or marketplace root is any folder holding one of those.
//   - Copilot CLI reads .github/plugin/plugin.json and the marketplace
//     locations of MarketplacePaths at a repository's root.
//
// Other products' folders (.codex-plugin/, .cursor-plugin/, .kimi-plugin/,
// …) hold manifests of the same file name that VS Code, Claude Code and
// Copilot do not read: a dot-folder is never a plugin root for them. Codex's
// and Cursor's manifests are kinds of their own (KindCodexPlugin,
// KindCursorPlugin, KindCursorMarket), judged for that consumer only.

// ManifestRoot reports whether rel (slash-separated, relative to the
// workspace folder) is a plugin manifest that some target reads, and if so
// the plugin root and which of ManifestPaths it is. A manifest path may
// match several locations (…/.github/plugin/plugin.json also ends in
// plugin.json); the longest location wins, which is the one that makes its
// folder a plugin root.
func ManifestRoot(rel string) (root, loc string, ok bool) {
	rel = strings.TrimPrefix(path.Clean("/"+rel), "/")
	for _, m := range ManifestPaths {
		var r string
		switch {
		case rel == m:
			r = ""
		case strings.HasSuffix(rel, "/"+m):
			r = strings.TrimSuffix(rel, "/"+m)
		default:
			continue
		}
		if len(m) > len(loc) && PluginRootDir(r) {
			root, loc, ok = r, m, true
		}
	}
	return root, loc, ok
}

// PluginRootDir reports whether a folder may be a plugin root at all: not a
// dot-folder (another product's manifest folder, or a tool's state), not a
// manifest folder's dotless twin, not inside .git or node_modules.
func PluginRootDir(dir string) bool {
	if dir == "" {
		return true
	}
	segs := strings.Split(dir, "/")
	for _, s := range segs {
		if SkipDir(s) {
			return false
		}
	}
	last := segs[len(segs)-1]
	return !strings.HasPrefix(last, ".") && !manifestFolderTwin(last)
}

// manifestFolderTwin reports a folder named like a product's manifest
// folder without its dot (claude-plugin/, codex-plugin/): a copy or test
// fixture of a manifest, not a plugin root. Claude Code's validator reads
// a manifest only from .claude-plugin/, and no consumer installs a folder
// named after a manifest folder.
func manifestFolderTwin(name string) bool {
	switch name {
	case "claude-plugin", "codex-plugin", "cursor-plugin", "kimi-plugin", "gemini-plugin":
		return true
	}
	return false
}

// MarketplaceRoot reports whether rel is a marketplace file a target reads
// and the folder its local sources are relative to. Claude Code adds a
// marketplace from any folder holding .claude-plugin/marketplace.json, so
// that location counts at any depth; Copilot CLI's other locations count at
// the workspace root.
func MarketplaceRoot(rel string) (root string, ok bool) {
	rel = strings.TrimPrefix(path.Clean("/"+rel), "/")
	for _, m := range MarketplacePaths {
		if rel == m {
			return "", true
		}
	}
	const cc = "/.claude-plugin/marketplace.json"
	if strings.HasSuffix(rel, cc) {
		r := strings.TrimSuffix(rel, cc)
		if PluginRootDir(r) {
			return r, true
		}
	}
	return "", false
}

// ClaudeMarketplace reports the Claude Code marketplace location.
func ClaudeMarketplace(rel string) bool {
	return rel == ".claude-plugin/marketplace.json" || strings.HasSuffix(rel, "/.claude-plugin/marketplace.json")
}

// DetectPluginFormat reports the format of the plugin rooted at dir (a
// slash-separated path relative to the workspace folder, "" for the folder
// itself), reading manifests through read, in VS Code's first-match order
// (detectPluginFormat in pluginParsers.ts), or FormatNone when dir holds no
// manifest a target reads.
func DetectPluginFormat(read func(rel string) ([]byte, bool), dir string) PluginFormat {
	if !PluginRootDir(dir) {
		return FormatNone
	}
	join := func(p string) string {
		if dir == "" {
			return p
		}
		return dir + "/" + p
	}
	if b, ok := read(join("plugin.json")); ok && IsAPManifest(b) {
		return FormatAP
	}
	found := false
	for _, m := range ManifestPaths {
		if _, ok := read(join(m)); ok {
			found = true
			break
		}
	}
	if !found {
		return FormatNone
	}
	if _, ok := read(join(".plugin/plugin.json")); ok {
		return FormatOpenPlugin
	}
	if _, ok := read(join(".claude-plugin/plugin.json")); ok {
		return FormatClaude
	}
	for _, s := range strings.Split(dir, "/") {
		if s == ".claude" {
			return FormatClaude
		}
	}
	return FormatCopilot
}

// IsAPManifest reports a root plugin.json that declares the Agent Plugins
// schema (VS Code's readAgentPluginManifest).
func IsAPManifest(b []byte) bool {
	var m struct {
		Schema string `json:"$schema"`
	}
	return json.Unmarshal(b, &m) == nil && strings.HasPrefix(m.Schema, "https://agent-plugins.org/schemas/") && strings.HasSuffix(m.Schema, "/plugin.schema.json")
}

// PluginOf reports the nearest plugin root at or above the folder of rel and
// its format, asking layout; FormatNone when rel is in no plugin. Without a
// layout it reads the path's shape (a .claude-plugin or .plugin segment).
func PluginOf(rel string, layout Layout) (PluginFormat, string) {
	if layout != nil {
		dir := path.Dir(rel)
		for {
			if dir == "." || dir == "/" {
				dir = ""
			}
			if pf := layout.PluginRoot(dir); pf != FormatNone {
				return pf, dir
			}
			if dir == "" {
				return FormatNone, ""
			}
			dir = path.Dir(dir)
		}
	}
	segs := strings.Split(rel, "/")
	for i, s := range segs[:len(segs)-1] {
		if s == ".claude-plugin" {
			return FormatClaude, strings.Join(segs[:i], "/")
		}
		if s == ".plugin" {
			return FormatOpenPlugin, strings.Join(segs[:i], "/")
		}
	}
	return FormatNone, ""
}

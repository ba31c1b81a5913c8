package plugins

// Codex marketplaces (issue #38): <M>/.agents/plugins/marketplace.json.
// Evidence: openai/codex, codex-rs/core-plugins/src/marketplace.rs (same
// behaviour at 0324d09f and 0e543a2c): load_raw_marketplace_manifest reads
// the file with serde_json into RawMarketplaceManifest (`name` string and
// `plugins` array required; `interface.displayName`; per plugin `name`
// string and `source` required, `policy` with the enums `installation` and
// `authentication`, `category` string); any parse or type error is
// InvalidMarketplaceFile and list_marketplaces_with_home logs "skipping
// marketplace that failed to load". An entry whose source is unsupported
// (an object whose `source` is not local, url or git-subdir, or lacks a
// required field) or fails to resolve (a local path without `./`, empty,
// or leaving the marketplace root) is skipped with a warning, as is one
// whose plugin id is invalid (PluginId::new, also refusing the marketplace
// name). Local paths are relative to <M>, the folder holding .agents/.
// Installing (core-plugins/src/store.rs @03d21135 PluginStore::install)
// needs the source folder, a manifest (.codex-plugin/plugin.json, else
// .claude-plugin/plugin.json: codex-rs/utils/plugins plugin_namespace.rs
// @10596f25 DISCOVERABLE_PLUGIN_MANIFEST_PATHS) that parses, and the
// manifest's name (the folder's name when blank) equal to the entry's.
// Where <M> has no .agents/plugins/marketplace.json, Codex reads Claude
// Code's <M>/.claude-plugin/marketplace.json the same way (@0e543a2c
// MARKETPLACE_MANIFEST_RELATIVE_PATHS, the first that exists): the same
// rules run there with Codex's verdicts (cxFallback), without fixes, which
// would change what Claude Code reads too.

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"

	"fmt"
	"path"
	"strings"

	"github.com/ahpls-dev/ahpls/model"
)

// CodexMarketRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var CodexMarketRules = []*core.Rule{cxmarketJSON, cxmarketRequired, cxmarketName, cxmarketEntryName, CxmarketSource, cxmarketPlugin}

const (
	cxMarketSrc = "openai/codex@0324d09f codex-rs/core-plugins/src/marketplace.rs"
	cxStoreSrc  = "openai/codex@03d21135 codex-rs/core-plugins/src/store.rs"
)

var cxmarketJSON = &core.Rule{
	ID:        "cxmarket/json",
	Summary:   ".agents/plugins/marketplace.json is not strict JSON (a syntax error, a comment or a trailing comma); Codex skips the marketplace.",
	Kinds:     "cxmarket, market (where Codex falls back to it)",
	Severity:  "CX REJ (Error).",
	WholeFile: true,
	Evidence: []core.Evidence{
		{Consumer: "CX", Reaction: "REJ", Source: cxMarketSrc + " load_raw_marketplace_manifest: serde_json::from_str fails, InvalidMarketplaceFile; list_marketplaces_with_home: \"skipping marketplace that failed to load\""},
	},
}

var cxmarketRequired = &core.Rule{
	ID:        "cxmarket/required",
	Summary:   "A field Codex deserializes is missing or has the wrong type: `name` (string) and `plugins` (array), each entry's `name` (string) and `source`, `policy.installation`/`policy.authentication` (one of their values), `category`, `interface.displayName` (strings); Codex then skips the whole marketplace.",
	Kinds:     "cxmarket, market (where Codex falls back to it)",
	Severity:  "CX REJ (Error).",
	WholeFile: true,
	Evidence: []core.Evidence{
		{Consumer: "CX", Reaction: "REJ", Source: cxMarketSrc + " RawMarketplaceManifest {name: String, plugins: Vec<RawMarketplaceManifestPlugin>}, RawMarketplaceManifestPlugin {name: String, source, policy, category: Option<String>}, MarketplacePluginInstallPolicy NOT_AVAILABLE|AVAILABLE|INSTALLED_BY_DEFAULT, MarketplacePluginAuthPolicy ON_INSTALL|ON_USE: a serde error fails the file (InvalidMarketplaceFile, \"skipping marketplace that failed to load\")"},
	},
}

var cxmarketName = &core.Rule{
	ID:       "cxmarket/name",
	Summary:  "The marketplace `name` is not a plugin-id segment (ASCII letters, digits, `_`, `-`, not empty): Codex skips every plugin entry, so the marketplace offers nothing.",
	Kinds:    "cxmarket, market (where Codex falls back to it)",
	Severity: "CX SKIP (Error).",
	Evidence: []core.Evidence{
		{Consumer: "CX", Reaction: "SKIP", Source: cxMarketSrc + " resolve_marketplace_plugin_entry: PluginId::new(name, marketplace_name) fails (validate_plugin_segment \"invalid marketplace name: only ASCII letters, digits, `_`, and `-` are allowed\", openai/codex@03d21135 store_tests.rs), load_marketplace: \"skipping invalid marketplace plugin\" for every entry"},
	},
}

var cxmarketEntryName = &core.Rule{
	ID:       "cxmarket/entry-name",
	Summary:  "A plugin entry's `name` is not a plugin-id segment (ASCII letters, digits, `_`, `-`; empty, spaces, `/` or `@` refused): Codex skips that entry.",
	Kinds:    "cxmarket, market (where Codex falls back to it)",
	Severity: "CX DROP (Warning).",
	Evidence: []core.Evidence{
		{Consumer: "CX", Reaction: "DROP", Source: cxMarketSrc + " resolve_marketplace_plugin_entry: PluginId::new fails with InvalidPlugin; load_marketplace: \"skipping invalid marketplace plugin\" (that entry only)"},
	},
}

var CxmarketSource = &core.Rule{
	ID:       "cxmarket/source",
	Fix:      core.FixSafe,
	FixWhy:   "prepends './' to the same path below the marketplace root",
	Summary:  "A plugin `source` Codex cannot resolve: a local path that does not start with `./` (`.` and `./` alone, the marketplace root, are read since Codex 0.142.0) or leaves the marketplace root, or an object whose `source` is not `local`, `url` or `git-subdir` (Claude Code's `github` and `npm` included) or lacks its `path`/`url`: Codex skips that entry.",
	Kinds:    "cxmarket, market (where Codex falls back to it)",
	Severity: "CX DROP (Warning).",
	Evidence: []core.Evidence{
		{Consumer: "CX", Reaction: "DROP", Source: cxMarketSrc + " resolve_supported_plugin_source: \"skipping marketplace plugin with unsupported source\" (RawMarketplaceManifestPluginSource::Unsupported) and \"skipping marketplace plugin that failed to resolve\" (resolve_local_plugin_source_path: \"local plugin source path must start with `./`\", \"must stay within the marketplace root\")"},
		{Consumer: "CX", Reaction: "ok", Source: "openai/codex PR #28771 (merged 2026-06-17, in Codex 0.142.0 and later): a local `source.path` of \".\" or \"./\" resolves to the marketplace root (before it, \"must not be empty\"); \"\" and traversal stay refused"},
	},
}

var cxmarketPlugin = &core.Rule{
	ID:       "cxmarket/plugin",
	Summary:  "A local entry Codex lists but cannot install: its folder does not exist, holds no `.codex-plugin/plugin.json` (or `.claude-plugin/plugin.json`), or the manifest's `name` differs from the entry's.",
	Kinds:    "cxmarket, market (where Codex falls back to it)",
	Severity: "CX DROP (Warning): the marketplace loads, installing that entry fails.",
	Evidence: []core.Evidence{
		{Consumer: "CX", Reaction: "DROP", Source: cxStoreSrc + " PluginStore::install_with_version: \"plugin source path is not a directory\", \"missing or invalid plugin.json\", \"plugin.json name `{}` does not match marketplace plugin name `{}`\"; openai/codex@10596f25 codex-rs/utils/plugins/src/plugin_namespace.rs find_plugin_manifest_path: .codex-plugin/plugin.json, then .claude-plugin/plugin.json"},
	},
}

// cxPolicyValues are the values of the policy enums (serde renames).
var cxPolicyValues = map[string][]string{
	"installation":   {"NOT_AVAILABLE", "AVAILABLE", "INSTALLED_BY_DEFAULT"},
	"authentication": {"ON_INSTALL", "ON_USE"},
}

// cxMarketRoot is the folder local sources are relative to: the one
// holding .agents/ (or .claude-plugin/, where Codex falls back to it).
func cxMarketRoot(rel string) string {
	for _, suffix := range model.CodexMarketplacePaths {
		if cut, ok := strings.CutSuffix(rel, suffix); ok {
			return strings.TrimSuffix(cut, "/")
		}
	}
	return path.Dir(rel)
}

// cxFallback reports a Claude Code marketplace that Codex reads because
// its folder has no .agents/plugins/marketplace.json (only where the
// disk can say so).
func cxFallback(f core.File) bool {
	cut, ok := strings.CutSuffix(f.Path, model.CodexMarketplacePaths[1])
	if !ok || f.FS == nil || cut != "" && !strings.HasSuffix(cut, "/") {
		return false
	}
	_, err := f.FS.Stat(cut + model.CodexMarketplacePath)
	return err != nil
}

func CheckCodexMarketplace(f core.File, r *core.Reporter) { checkCodexMarketplaceFile(f, r, true) }

// checkCodexMarketplaceFile checks a marketplace as Codex reads it;
// withFixes is false for Claude Code's marketplace (cxFallback).
func checkCodexMarketplaceFile(f core.File, r *core.Reporter, withFixes bool) {
	root := core.StrictJSON(f, r, cxmarketJSON, model.TargetCodex, "this marketplace")
	if root == nil {
		return
	}
	rej := model.Verdicts{model.TargetCodex: model.Reject}
	first := model.Span{Start: 0, End: core.FirstLineEnd(f.Text)}
	if !root.Is(core.JSONObject) {
		r.Verdict(cxmarketRequired, root.Span, rej, fmt.Sprintf("%%s skips this marketplace: it is %s, not an object.", root.Kind))
		return
	}
	if cxRequiredShape(r, root, first) {
		return // serde fails the file: nothing else is read
	}
	name := root.Get("name")
	if !cxSegment(name.Str, false) {
		r.Verdict(cxmarketName, name.Span, model.Verdicts{model.TargetCodex: model.Skip},
			fmt.Sprintf("%%s skips every plugin of this marketplace: its name %s may use only ASCII letters, digits, `_` and `-`.", core.ClipQuote(name.Str)))
	}
	mroot := cxMarketRoot(f.Path)
	for _, e := range root.Get("plugins").Items {
		checkCodexMarketEntry(f, r, e, mroot, withFixes)
	}
}

// cxRequiredShape reports the first type error serde meets (it stops
// there) and whether there was one.
func cxRequiredShape(r *core.Reporter, root *core.JSONValue, first model.Span) bool {
	rej := model.Verdicts{model.TargetCodex: model.Reject}
	bad := func(span model.Span, msg string) bool {
		r.Verdict(cxmarketRequired, span, rej, "%s skips this marketplace: "+msg+".")
		return true
	}
	str := func(v *core.JSONValue) bool { return v.Is(core.JSONString) }
	optStr := func(v *core.JSONValue) bool { return v == nil || v.Is(core.JSONString) || v.Is(core.JSONNull) }
	switch m := root.Member("name"); {
	case m == nil:
		return bad(first, "it has no `name`")
	case !str(m.Value):
		return bad(m.Value.Span, fmt.Sprintf("`name` is %s, not a string", m.Value.Kind))
	}
	if it := root.Get("interface"); it != nil && !it.Is(core.JSONNull) {
		if !it.Is(core.JSONObject) {
			return bad(it.Span, fmt.Sprintf("`interface` is %s, not an object", it.Kind))
		}
		if d := it.Get("displayName"); !optStr(d) {
			return bad(d.Span, fmt.Sprintf("`interface.displayName` is %s, not a string", d.Kind))
		}
	}
	switch m := root.Member("plugins"); {
	case m == nil:
		return bad(first, "it has no `plugins`")
	case !m.Value.Is(core.JSONArray):
		return bad(m.Value.Span, fmt.Sprintf("`plugins` is %s, not an array", m.Value.Kind))
	}
	for _, e := range root.Get("plugins").Items {
		if !e.Is(core.JSONObject) {
			return bad(e.Span, fmt.Sprintf("a plugin entry is %s, not an object", e.Kind))
		}
		open := core.OpenBrace(e)
		switch m := e.Member("name"); {
		case m == nil:
			return bad(open, "a plugin entry has no `name`")
		case !str(m.Value):
			return bad(m.Value.Span, fmt.Sprintf("an entry's `name` is %s, not a string", m.Value.Kind))
		}
		if e.Member("source") == nil {
			return bad(open, fmt.Sprintf("entry %s has no `source`", core.ClipQuote(e.Get("name").Str)))
		}
		if c := e.Get("category"); !optStr(c) {
			return bad(c.Span, fmt.Sprintf("an entry's `category` is %s, not a string", c.Kind))
		}
		p := e.Get("policy")
		if p == nil {
			continue
		}
		if !p.Is(core.JSONObject) {
			return bad(p.Span, fmt.Sprintf("an entry's `policy` is %s, not an object", p.Kind))
		}
		for _, key := range []string{"installation", "authentication"} {
			v := p.Get(key)
			if v == nil {
				continue
			}
			if !v.Is(core.JSONString) || !core.JHas(cxPolicyValues[key], v.Str) {
				return bad(v.Span, fmt.Sprintf("`policy.%s` must be one of %s", key, strings.Join(cxPolicyValues[key], ", ")))
			}
		}
		if pr := p.Get("products"); pr != nil && !pr.Is(core.JSONNull) && !pr.Is(core.JSONArray) {
			return bad(pr.Span, fmt.Sprintf("`policy.products` is %s, not an array", pr.Kind))
		}
	}
	return false
}

// cxSegment is openai/codex's validate_plugin_segment: not empty, ASCII
// letters, digits, `_` and `-`; a plugin name (dots true) may also hold
// dots between non-empty parts in later Codex versions, so a dot alone is
// not reported there, but a leading, trailing or doubled one is.
func cxSegment(s string, dots bool) bool {
	if s == "" {
		return false
	}
	if dots && (strings.HasPrefix(s, ".") || strings.HasSuffix(s, ".") || strings.Contains(s, "..")) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_':
		case c == '.' && dots:
		default:
			return false
		}
	}
	return true
}

func checkCodexMarketEntry(f core.File, r *core.Reporter, e *core.JSONValue, mroot string, withFixes bool) {
	drop := model.Verdicts{model.TargetCodex: model.Drop}
	name := e.Get("name")
	if !cxSegment(name.Str, true) {
		r.Verdict(cxmarketEntryName, name.Span, drop,
			fmt.Sprintf("%%s skips this entry: plugin name %s may use only ASCII letters, digits, `.`, `_` and `-`.", core.ClipQuote(name.Str)))
		return
	}
	src := e.Get("source")
	local, ok := "", false
	switch {
	case src.Is(core.JSONString):
		local, ok = src.Str, true
	case src.Is(core.JSONObject):
		kind := src.Get("source")
		if !kind.Is(core.JSONString) {
			r.Verdict(CxmarketSource, src.Span, drop, "%s skips this entry: a source object needs \"source\": \"local\", \"url\" or \"git-subdir\".")
			return
		}
		need := map[string][]string{"local": {"path"}, "url": {"url"}, "git-subdir": {"url", "path"}}[kind.Str]
		if need == nil {
			r.Verdict(CxmarketSource, kind.Span, drop,
				fmt.Sprintf("%%s skips this entry: it reads only \"local\", \"url\" and \"git-subdir\" sources, not %s.", core.ClipQuote(kind.Str)))
			return
		}
		for _, k := range need {
			if v := src.Get(k); !v.Is(core.JSONString) {
				r.Verdict(CxmarketSource, src.Span, drop, fmt.Sprintf("%%s skips this entry: a %s source needs a `%s` string.", kind.Str, k))
				return
			}
		}
		for _, k := range []string{"path", "ref", "sha"} {
			if v := src.Get(k); v != nil && !v.Is(core.JSONString) && !v.Is(core.JSONNull) {
				r.Verdict(CxmarketSource, v.Span, drop, fmt.Sprintf("%%s skips this entry: the source's `%s` must be a string.", k))
				return
			}
		}
		if kind.Str != "local" {
			if strings.TrimSpace(src.Get("url").Str) == "" {
				r.Verdict(CxmarketSource, src.Get("url").Span, drop, "%s skips this entry: the source's `url` is empty.")
			}
			return
		}
		src, local, ok = src.Get("path"), src.Get("path").Str, true
	default:
		r.Verdict(CxmarketSource, src.Span, drop, fmt.Sprintf("%%s skips this entry: `source` is %s, not a path or a source object.", src.Kind))
		return
	}
	if !ok {
		return
	}
	if local == "./" || local == "." {
		// The marketplace root itself: Codex resolves both to the root since
		// openai/codex PR #28771 (merged 2026-06-17, Codex 0.142.0); only the
		// folder's manifest is left to check.
		cxCheckPluginFolder(f, r, src, path.Join(mroot, "."), local, name.Str)
		return
	}
	rest, prefixed := strings.CutPrefix(local, "./")
	why := ""
	var fixes []model.Fix
	switch {
	case !prefixed:
		why = "a local path must start with `./`"
		if p := strings.TrimLeft(local, "/"); withFixes && local != "" && p == local && !strings.HasPrefix(local, "../") && local != ".." && local != "." && !strings.Contains(local, "\\") {
			fixes = append(fixes, core.JReplace("Prefix with './'", src.Span, core.JQuote("./"+local)))
		}
	case !cxNormalPath(rest):
		why = "a local path must stay within the marketplace root"
	}
	if why != "" {
		r.Verdict(CxmarketSource, src.Span, drop, fmt.Sprintf("%%s skips this entry: %s (%s).", why, core.ClipQuote(local)), fixes...)
		return
	}
	cxCheckPluginFolder(f, r, src, path.Join(mroot, rest), local, name.Str)
}

// cxNormalPath reports a relative path whose every part is a plain name
// (Rust's Component::Normal: no `..`, no root, no leading `.`).
func cxNormalPath(p string) bool {
	if strings.HasPrefix(p, "/") || strings.Contains(p, "\\") {
		return false
	}
	for i, s := range strings.Split(p, "/") {
		if s == ".." || s == "." && i == 0 {
			return false
		}
	}
	return true
}

// cxCheckPluginFolder is what installing the entry needs of its folder.
func cxCheckPluginFolder(f core.File, r *core.Reporter, src *core.JSONValue, dir, local, entry string) {
	if f.FS == nil {
		return
	}
	drop := model.Verdicts{model.TargetCodex: model.Drop}
	if dir == "." {
		dir = "" // the workspace folder: there, whatever Stat says of ""
	}
	if info, err := f.FS.Stat(dir); dir != "" && (err != nil || !info.IsDir()) {
		r.Verdict(cxmarketPlugin, src.Span, drop, fmt.Sprintf("%%s cannot install this plugin: folder %s does not exist.", core.ClipQuote(local)))
		return
	}
	manifest := ""
	for _, m := range []string{".codex-plugin/plugin.json", ".claude-plugin/plugin.json"} {
		if info, err := f.FS.Stat(path.Join(dir, m)); err == nil && !info.IsDir() {
			manifest = path.Join(dir, m)
			break
		}
	}
	if manifest == "" {
		r.Verdict(cxmarketPlugin, src.Span, drop,
			fmt.Sprintf("%%s cannot install this plugin: %s has no .codex-plugin/plugin.json.", core.ClipQuote(local)))
		return
	}
	doc, ok := core.ReadJSONFile(f, manifest)
	if !ok {
		return // the manifest's own rules report it
	}
	n := doc.Get("name")
	if n != nil && !n.Is(core.JSONString) {
		return
	}
	got := ""
	if n != nil {
		got = n.Str
	}
	if strings.TrimSpace(got) == "" {
		got = path.Base(dir)
	}
	if got != entry {
		r.Verdict(cxmarketPlugin, src.Span, drop,
			fmt.Sprintf("%%s cannot install this plugin: its %s names it %s, not %s.", strings.TrimPrefix(manifest, dir+"/"), core.ClipQuote(got), core.ClipQuote(entry)))
	}
}

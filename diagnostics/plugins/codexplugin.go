package plugins

// Codex plugin manifests (issue #38): <P>/.codex-plugin/plugin.json.
// Evidence: openai/codex at commit 01b4840b (newer than the 19b965ad first
// cited, where `skills` was one path string),
// codex-rs/core-plugins/src/manifest.rs load_plugin_manifest: serde_json
// into RawPluginManifest (`name` a string; `version`, `description`, `apps`
// optional strings; `keywords` a list of strings; `interface` an object of
// optional strings and the lists `capabilities`, `screenshots`); any parse
// or type error logs "failed to parse plugin manifest" and the plugin has no
// manifest. `skills` (a path or a list of paths), `mcpServers` (a path or
// an object) and `hooks` are read leniently: another shape is ignored with
// "ignoring {field}: expected …". resolve_manifest_path ignores a path that
// does not start with "./", is "./" alone, or holds "..". An empty name
// falls back to the folder name.

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"

	"fmt"
	"strings"

	"github.com/ahpls-dev/ahpls/model"
)

// CodexPluginRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var CodexPluginRules = []*core.Rule{cxpluginJSON, cxpluginFieldType, cxpluginPath, cxpluginName}

const cxManifest = "openai/codex@01b4840b codex-rs/core-plugins/src/manifest.rs"

var cxpluginJSON = &core.Rule{
	ID:       "cxplugin/json",
	Summary:  ".codex-plugin/plugin.json is not strict JSON (a syntax error, a comment or a trailing comma); Codex reads no manifest.",
	Kinds:    "cxplugin",
	Severity: "CX REJ (Error).",
	Evidence: []core.Evidence{
		{Consumer: "CX", Reaction: "REJ", Source: cxManifest + " load_plugin_manifest: serde_json::from_str fails, \"failed to parse plugin manifest\", None"},
	},
}

var cxpluginFieldType = &core.Rule{
	ID:       "cxplugin/field-type",
	Summary:  "A field Codex reads has the wrong type. `name`, `version`, `description`, `apps` and the strings of `interface` must be strings, `keywords`, `interface.capabilities` and `interface.screenshots` lists of strings: Codex then reads no manifest at all. `skills` must be a path or a list of paths, `mcpServers` a path or an object, `hooks` a path, an object or a list of them: another shape is ignored.",
	Kinds:    "cxplugin",
	Severity: "strict fields: CX REJ (Error); `skills`, `mcpServers`, `hooks`: CX LOSE (Warning).",
	Evidence: []core.Evidence{
		{Consumer: "CX", Reaction: "REJ", Source: cxManifest + " RawPluginManifest: `name: String`, `version`/`description`/`apps: Option<String>`, `keywords: Vec<String>`, RawPluginManifestInterface; a type mismatch fails serde_json::from_str and the manifest is dropped (\"failed to parse plugin manifest\")"},
		{Consumer: "CX", Reaction: "LOSE", Source: cxManifest + " RawPluginManifestPaths/McpServers/Hooks::Invalid: \"ignoring skills: expected a string or string array\", \"ignoring mcpServers: expected a string or object\", \"ignoring hooks: expected a string, string array, object, or object array\" (at 19b965ad a list-valued `skills` still dropped the manifest)"},
	},
}

var cxpluginPath = &core.Rule{
	ID:       "cxplugin/path",
	Summary:  "A component path (`skills`, `mcpServers`, `apps`, `hooks`, each path of a list) that does not start with `./`, is `./` alone or holds `..`: Codex ignores it.",
	Kinds:    "cxplugin",
	Severity: "CX LOSE (Warning).",
	Evidence: []core.Evidence{
		{Consumer: "CX", Reaction: "LOSE", Source: cxManifest + " resolve_manifest_path: \"ignoring {field}: path must start with `./` relative to plugin root\", \"path must not contain '..'\""},
	},
}

var cxpluginName = &core.Rule{
	ID:       "cxplugin/name",
	Summary:  "`name` is missing or blank: Codex names the plugin after its folder.",
	Kinds:    "cxplugin",
	Severity: "CX ok, renamed (Info).",
	Evidence: []core.Evidence{
		{Consumer: "CX", Reaction: "ok", Source: cxManifest + " load_plugin_manifest: `plugin_root.file_name()` when `raw_name.trim().is_empty()`"},
	},
}

func CheckCodexPlugin(f core.File, r *core.Reporter) {
	root := core.StrictJSON(f, r, cxpluginJSON, model.TargetCodex, "this plugin's manifest")
	if root == nil {
		return
	}
	if !root.Is(core.JSONObject) {
		r.Verdict(cxpluginFieldType, root.Span, model.Verdicts{model.TargetCodex: model.Reject},
			"%s reads no manifest: .codex-plugin/plugin.json must be an object.")
		return
	}
	if cxStrictTypes(r, root) {
		return // one type error drops the whole manifest
	}
	cxLenientTypes(r, root)
	if n := root.Get("name"); n == nil || strings.TrimSpace(n.Str) == "" {
		span := model.Span{Start: 0, End: core.FirstLineEnd(f.Text)}
		if n != nil {
			span = n.Span
		}
		r.Verdict(cxpluginName, span, model.Verdicts{model.TargetCodex: model.Spec},
			"Codex names this plugin after its folder: `name` is missing or blank.")
	}
	for _, key := range []string{"skills", "mcpServers", "apps", "hooks"} {
		vals := []*core.JSONValue{root.Get(key)}
		if vals[0].Is(core.JSONArray) && key != "mcpServers" && key != "apps" {
			vals = vals[0].Items
		}
		for _, v := range vals {
			cxPath(r, key, v)
		}
	}
}

// cxPath reports a component path resolve_manifest_path ignores.
func cxPath(r *core.Reporter, key string, v *core.JSONValue) {
	if !v.Is(core.JSONString) || v.Str == "" {
		return
	}
	rest, ok := strings.CutPrefix(v.Str, "./")
	why := ""
	switch {
	case !ok:
		why = "it must start with `./`"
	case rest == "" || rest == ".":
		why = "it must name a folder or file below the plugin root, not `./`"
	case rest == ".." || strings.HasPrefix(rest, "../") || strings.Contains(rest, "/../") || strings.HasSuffix(rest, "/.."):
		why = "it must not hold `..`"
	}
	if why != "" {
		r.Verdict(cxpluginPath, v.Span, model.Verdicts{model.TargetCodex: model.Lose},
			fmt.Sprintf("%%s ignores `%s` %s: %s.", key, core.ClipQuote(v.Str), why))
	}
}

// cxStrictTypes reports the first field whose type fails Codex's serde
// (the whole manifest is dropped) and whether there was one.
func cxStrictTypes(r *core.Reporter, root *core.JSONValue) bool {
	rej := model.Verdicts{model.TargetCodex: model.Reject}
	bad := func(v *core.JSONValue, field, want string) bool {
		r.Verdict(cxpluginFieldType, v.Span, rej,
			fmt.Sprintf("%%s reads no manifest for this plugin: `%s` must be %s, not %s.", field, want, v.Kind))
		return true
	}
	if n := root.Get("name"); n != nil && !n.Is(core.JSONString) {
		return bad(n, "name", "a string")
	}
	for _, key := range []string{"version", "description", "apps"} {
		if v := root.Get(key); v != nil && !v.Is(core.JSONString) && !v.Is(core.JSONNull) {
			return bad(v, key, "a string")
		}
	}
	if v := root.Get("keywords"); v != nil && !core.JStringList(v) {
		return bad(v, "keywords", "a list of strings")
	}
	it := root.Get("interface")
	if it == nil || it.Is(core.JSONNull) {
		return false
	}
	if !it.Is(core.JSONObject) {
		return bad(it, "interface", "an object")
	}
	for _, key := range []string{"displayName", "shortDescription", "longDescription", "developerName", "category",
		"websiteUrl", "websiteURL", "privacyPolicyUrl", "privacyPolicyURL", "termsOfServiceUrl", "termsOfServiceURL",
		"brandColor", "composerIcon", "logo", "logoDark"} {
		if v := it.Get(key); v != nil && !v.Is(core.JSONString) && !v.Is(core.JSONNull) {
			return bad(v, "interface."+key, "a string")
		}
	}
	for _, key := range []string{"capabilities", "screenshots"} {
		if v := it.Get(key); v != nil && !core.JStringList(v) {
			return bad(v, "interface."+key, "a list of strings")
		}
	}
	return false
}

// cxLenientTypes reports the component fields Codex ignores for their
// shape (the manifest loads without them).
func cxLenientTypes(r *core.Reporter, root *core.JSONValue) {
	lose := model.Verdicts{model.TargetCodex: model.Lose}
	allStrings := func(v *core.JSONValue) bool {
		for _, it := range v.Items {
			if !it.Is(core.JSONString) {
				return false
			}
		}
		return true
	}
	allObjects := func(v *core.JSONValue) bool {
		for _, it := range v.Items {
			if !it.Is(core.JSONObject) {
				return false
			}
		}
		return true
	}
	for _, key := range []string{"skills", "mcpServers", "hooks"} {
		v := root.Get(key)
		if v == nil || v.Is(core.JSONNull) || v.Is(core.JSONString) {
			continue
		}
		ok, want := false, ""
		switch key {
		case "skills":
			ok, want = v.Is(core.JSONArray) && allStrings(v), "a path or a list of paths"
		case "mcpServers":
			ok, want = v.Is(core.JSONObject), "a path or an object of servers"
		case "hooks":
			ok, want = v.Is(core.JSONObject) || v.Is(core.JSONArray) && (allStrings(v) || allObjects(v)), "a path, a hooks object or a list of either"
		}
		if !ok {
			r.Verdict(cxpluginFieldType, v.Span, lose,
				fmt.Sprintf("%%s ignores `%s`: it must be %s, not %s.", key, want, v.Kind))
		}
	}
}

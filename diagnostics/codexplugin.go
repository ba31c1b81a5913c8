package diagnostics

// Codex plugin manifests (issue #38): <P>/.codex-plugin/plugin.json.
// Evidence: openai/codex at commit 19b965ad,
// codex-rs/core-plugins/src/manifest.rs load_plugin_manifest: serde_json
// into RawPluginManifest (name, version and description strings; skills,
// mcpServers and apps each ONE path string); any parse or type error logs
// "failed to parse plugin manifest" and the plugin has no manifest.
// resolve_manifest_path ignores a path that does not start with "./", is
// "./" alone, or holds "..". An empty name falls back to the folder name.

import (
	"fmt"
	"strings"

	"github.com/ahpls-dev/ahpls/model"
)

// codexPluginRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var codexPluginRules = []*Rule{cxpluginJSON, cxpluginFieldType, cxpluginPath, cxpluginName}

const cxManifest = "openai/codex@19b965ad codex-rs/core-plugins/src/manifest.rs"

var cxpluginJSON = &Rule{
	ID:       "cxplugin/json",
	Summary:  ".codex-plugin/plugin.json is not strict JSON (a syntax error, a comment or a trailing comma); Codex reads no manifest.",
	Kinds:    "cxplugin",
	Severity: "CX REJ (Error).",
	Evidence: []Evidence{
		{"CX", "REJ", cxManifest + " load_plugin_manifest: serde_json::from_str fails, \"failed to parse plugin manifest\", None"},
	},
}

var cxpluginFieldType = &Rule{
	ID:       "cxplugin/field-type",
	Summary:  "A field Codex reads has the wrong type: `name`, `version`, `description` must be strings and `skills`, `mcpServers`, `apps` one path string (a list, as Claude Code takes, fails); Codex then reads no manifest at all.",
	Kinds:    "cxplugin",
	Severity: "CX REJ (Error).",
	Evidence: []Evidence{
		{"CX", "REJ", cxManifest + " RawPluginManifest: `skills: Option<String>`, `mcp_servers: Option<String>`, `apps: Option<String>`; a type mismatch fails serde_json::from_str and the manifest is dropped"},
	},
}

var cxpluginPath = &Rule{
	ID:       "cxplugin/path",
	Summary:  "A component path (`skills`, `mcpServers`, `apps`) that does not start with `./`, is `./` alone or holds `..`: Codex ignores it.",
	Kinds:    "cxplugin",
	Severity: "CX LOSE (Warning).",
	Evidence: []Evidence{
		{"CX", "LOSE", cxManifest + " resolve_manifest_path: \"ignoring {field}: path must start with `./` relative to plugin root\", \"path must not contain '..'\""},
	},
}

var cxpluginName = &Rule{
	ID:       "cxplugin/name",
	Summary:  "`name` is missing or blank: Codex names the plugin after its folder.",
	Kinds:    "cxplugin",
	Severity: "CX ok, renamed (Info).",
	Evidence: []Evidence{
		{"CX", "ok", cxManifest + " load_plugin_manifest: `plugin_root.file_name()` when `raw_name.trim().is_empty()`"},
	},
}

func checkCodexPlugin(f File, r *reporter) {
	root := strictJSON(f, r, cxpluginJSON, model.TargetCodex, "this plugin's manifest")
	if root == nil {
		return
	}
	if !root.Is(JSONObject) {
		r.verdict(cxpluginFieldType, root.Span, model.Verdicts{model.TargetCodex: model.Reject},
			"%s reads no manifest: .codex-plugin/plugin.json must be an object.")
		return
	}
	for _, key := range []string{"name", "version", "description", "skills", "mcpServers", "apps"} {
		m := root.Member(key)
		if m == nil || m.Value.Is(JSONString) || m.Value.Is(JSONNull) {
			continue
		}
		hint := ""
		if m.Value.Is(JSONArray) && key != "name" && key != "version" && key != "description" {
			hint = " (Codex takes one path; Claude Code's list form is not read)"
		}
		r.verdict(cxpluginFieldType, m.Value.Span, model.Verdicts{model.TargetCodex: model.Reject},
			fmt.Sprintf("%%s reads no manifest for this plugin: `%s` must be a string, not %s%s.", key, m.Value.Kind, hint))
		return // one type error drops the whole manifest
	}
	if n := root.Get("name"); n == nil || strings.TrimSpace(n.Str) == "" {
		span := model.Span{Start: 0, End: firstLineEnd(f.Text)}
		if n != nil {
			span = n.Span
		}
		r.verdict(cxpluginName, span, model.Verdicts{model.TargetCodex: model.Spec},
			"Codex names this plugin after its folder: `name` is missing or blank.")
	}
	for _, key := range []string{"skills", "mcpServers", "apps"} {
		v := root.Get(key)
		if !v.Is(JSONString) || v.Str == "" {
			continue
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
			r.verdict(cxpluginPath, v.Span, model.Verdicts{model.TargetCodex: model.Lose},
				fmt.Sprintf("%%s ignores `%s` %s: %s.", key, clipQuote(v.Str), why))
		}
	}
}

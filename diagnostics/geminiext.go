package diagnostics

// Gemini CLI extension manifests (issue #38): gemini-extension.json at an
// extension's root. Evidence: google-gemini/gemini-cli at commit 5411f113,
// packages/cli/src/config/extension-manager.ts loadExtensionConfig (JSON.parse,
// then "missing name/version", then validateName) and
// packages/cli/src/commands/extensions/validate.ts (`gemini extensions
// validate`: the context files must exist; a version that is not semver is
// a warning). `gemini extensions validate` 0.61.0 (npm @google/gemini-cli)
// runs in scripts/agree as the judge.

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/ahpls-dev/ahpls/model"
)

// geminiExtRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var geminiExtRules = []*Rule{gextJSON, gextRequired, gextName, gextVersion, gextContextFile, gextFieldType}

const (
	gcManager  = "google-gemini/gemini-cli@5411f113 packages/cli/src/config/extension-manager.ts loadExtensionConfig"
	gcValidate = "google-gemini/gemini-cli@5411f113 packages/cli/src/commands/extensions/validate.ts"
)

var gextJSON = &Rule{
	ID:       "gext/json",
	Summary:  "gemini-extension.json is not strict JSON (a syntax error, a comment or a trailing comma); Gemini CLI does not load the extension.",
	Kinds:    "gext",
	Severity: "GC REJ (Error).",
	Evidence: []Evidence{
		{"GC", "REJ", gcManager + ": `JSON.parse(configContent)` throws, \"Failed to load extension config\"; `gemini extensions validate` 0.61.0 exits 1"},
	},
}

var gextRequired = &Rule{
	ID:       "gext/required",
	Summary:  "`name` or `version` is missing or empty; Gemini CLI does not load the extension.",
	Kinds:    "gext",
	Severity: "GC REJ (Error).",
	Evidence: []Evidence{
		{"GC", "REJ", gcManager + ": `if (!rawConfig.name || !rawConfig.version)` throws \"Invalid configuration … missing\""},
	},
}

var gextName = &Rule{
	ID:       "gext/name",
	Summary:  "`name` holds a character other than letters, digits and dashes; Gemini CLI does not load the extension.",
	Kinds:    "gext",
	Severity: "GC REJ (Error).",
	Evidence: []Evidence{
		{"GC", "REJ", gcManager + ": validateName `/^[a-zA-Z0-9-]+$/`, \"Invalid extension name\"; `gemini extensions validate` 0.61.0 exits 1 on \"bad ext\""},
	},
}

var gextVersion = &Rule{
	ID:       "gext/version",
	Summary:  "`version` is not semver; `gemini extensions validate` warns.",
	Kinds:    "gext",
	Severity: "GC WARN (Warning).",
	Evidence: []Evidence{
		{"GC", "WARN", gcValidate + ": `if (!semver.valid(extensionConfig.version))` \"does not appear to be standard semver\""},
	},
}

var gextContextFile = &Rule{
	ID:       "gext/context-file",
	Summary:  "A `contextFileName` names a file the extension does not have; Gemini CLI loads no context from it.",
	Kinds:    "gext",
	Severity: "GC LOSE (Warning); `gemini extensions validate` fails on it.",
	Evidence: []Evidence{
		{"GC", "LOSE", gcValidate + ": \"The following context files referenced in gemini-extension.json are missing\" (validation fails); the extension itself still loads"},
	},
}

var gextFieldType = &Rule{
	ID:       "gext/field-type",
	Summary:  "A field of gemini-extension.json has the wrong type (`name`/`version` not strings, `mcpServers` not an object, `contextFileName` not a string or list, `excludeTools` not a list).",
	Kinds:    "gext",
	Severity: "GC ? (Info): the loader casts the parsed JSON without checking it; what follows depends on the field.",
	Evidence: []Evidence{
		{"GC", "?", "google-gemini/gemini-cli@5411f113 packages/cli/src/config/extension.ts ExtensionConfig (the declared types), cast unchecked in " + gcManager},
	},
}

var geminiExtName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9-]+$`) })

// strictJSON parses a file that a strict JSON reader (JSON.parse,
// serde_json) loads, reporting rule at the first syntax error, comment or
// trailing comma; nil when the file does not load.
func strictJSON(f File, r *reporter, rule *Rule, t model.Target, what string) *JSONValue {
	v, findings := parseJSONTree(f.Text)
	for _, fd := range findings {
		if fd.rule == jsonDuplicateKey {
			continue
		}
		msg := fd.message
		if fd.rule == jsonJsonc {
			msg = "a comment or trailing comma, which strict JSON does not allow"
		}
		r.verdict(rule, fd.span, model.Verdicts{t: model.Reject}, fmt.Sprintf("%%s does not load %s: %s.", what, msg))
		return nil
	}
	return v
}

func checkGeminiExtension(f File, r *reporter) {
	root := strictJSON(f, r, gextJSON, model.TargetGeminiCLI, "this extension")
	if root == nil {
		return
	}
	first := model.Span{Start: 0, End: firstLineEnd(f.Text)}
	if !root.Is(JSONObject) {
		r.verdict(gextRequired, root.Span, model.Verdicts{model.TargetGeminiCLI: model.Reject},
			"%s does not load this extension: gemini-extension.json must be an object with `name` and `version`.")
		return
	}
	str := func(key string) (string, *JSONMember, bool) {
		m := root.Member(key)
		if m == nil {
			return "", nil, true
		}
		if !m.Value.Is(JSONString) {
			// JSON.parse keeps any truthy value; validateName then runs a
			// regexp on it (a number is coerced to its digits).
			r.verdict(gextFieldType, m.Value.Span, model.Verdicts{model.TargetGeminiCLI: model.Unknown},
				fmt.Sprintf("`%s` should be a string, not %s.", key, m.Value.Kind))
			return "", m, false
		}
		return m.Value.Str, m, true
	}
	name, nm, nameStr := str("name")
	version, vm, versionStr := str("version")
	switch {
	case nm == nil || (nameStr && name == ""):
		span := first
		if nm != nil {
			span = nm.Value.Span
		}
		r.verdict(gextRequired, span, model.Verdicts{model.TargetGeminiCLI: model.Reject}, "%s does not load this extension: it has no `name`.")
	case nameStr && !geminiExtName().MatchString(name):
		r.verdict(gextName, nm.Value.Span, model.Verdicts{model.TargetGeminiCLI: model.Reject},
			"%s does not load this extension: its name may hold only letters, digits and dashes ("+clipQuote(name)+").")
	}
	switch {
	case vm == nil || (versionStr && version == ""):
		span := first
		if vm != nil {
			span = vm.Value.Span
		}
		r.verdict(gextRequired, span, model.Verdicts{model.TargetGeminiCLI: model.Reject}, "%s does not load this extension: it has no `version`.")
	case versionStr && !semverRe().MatchString(strings.TrimPrefix(strings.TrimSpace(version), "v")):
		r.verdict(gextVersion, vm.Value.Span, model.Verdicts{model.TargetGeminiCLI: model.Warn},
			"`gemini extensions validate` warns: version "+clipQuote(version)+" is not semver (e.g. 1.0.0).")
	}
	if m := root.Member("mcpServers"); m != nil && !m.Value.Is(JSONObject) {
		r.verdict(gextFieldType, m.Value.Span, model.Verdicts{model.TargetGeminiCLI: model.Unknown},
			"`mcpServers` should be an object of servers by name.")
	}
	if m := root.Member("excludeTools"); m != nil && !m.Value.Is(JSONArray) {
		r.verdict(gextFieldType, m.Value.Span, model.Verdicts{model.TargetGeminiCLI: model.Unknown},
			"`excludeTools` should be a list of tool names.")
	}
	if m := root.Member("contextFileName"); m != nil {
		var names []*JSONValue
		switch {
		case m.Value.Is(JSONString):
			names = []*JSONValue{m.Value}
		case m.Value.Is(JSONArray):
			names = m.Value.Items
		default:
			r.verdict(gextFieldType, m.Value.Span, model.Verdicts{model.TargetGeminiCLI: model.Unknown},
				"`contextFileName` should be a file name or a list of them.")
		}
		if f.FS != nil {
			dir := path.Dir(f.Path)
			for _, n := range names {
				if !n.Is(JSONString) || n.Str == "" || path.IsAbs(n.Str) {
					continue
				}
				rel := path.Clean(path.Join(dir, n.Str))
				if _, err := f.FS.Stat(rel); err != nil {
					r.verdict(gextContextFile, n.Span, model.Verdicts{model.TargetGeminiCLI: model.Lose},
						"%s loads no context from "+clipQuote(n.Str)+": the extension has no such file (`gemini extensions validate` fails on it).")
				}
			}
		}
	}
}

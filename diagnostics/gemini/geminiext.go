package gemini

// Gemini CLI extension manifests (issue #38): gemini-extension.json at an
// extension's root. Evidence: google-gemini/gemini-cli at commit 5411f113,
// packages/cli/src/config/extension-manager.ts loadExtensionConfig (JSON.parse,
// then "missing name/version", then validateName) and
// packages/cli/src/commands/extensions/validate.ts (`gemini extensions
// validate`: the context files must exist; a version that is not semver is
// a warning). `gemini extensions validate` 0.61.0 (npm @google/gemini-cli)
// runs in scripts/agree as the judge.

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"

	"fmt"
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/ahpls-dev/ahpls/model"
)

// GeminiExtRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var GeminiExtRules = []*core.Rule{gextJSON, gextRequired, gextName, gextVersion, gextContextFile, gextFieldType}

const (
	gcManager  = "google-gemini/gemini-cli@5411f113 packages/cli/src/config/extension-manager.ts loadExtensionConfig"
	gcValidate = "google-gemini/gemini-cli@5411f113 packages/cli/src/commands/extensions/validate.ts"
)

var gextJSON = &core.Rule{
	ID:       "gext/json",
	Summary:  "gemini-extension.json is not strict JSON (a syntax error, a comment or a trailing comma); Gemini CLI does not load the extension.",
	Kinds:    "gext",
	Severity: "GC REJ (Error).",
	Evidence: []core.Evidence{
		{Consumer: "GC", Reaction: "REJ", Source: gcManager + ": `JSON.parse(configContent)` throws, \"Failed to load extension config\"; `gemini extensions validate` 0.61.0 exits 1"},
	},
}

var gextRequired = &core.Rule{
	ID:       "gext/required",
	Summary:  "`name` or `version` is missing or empty; Gemini CLI does not load the extension.",
	Kinds:    "gext",
	Severity: "GC REJ (Error).",
	Evidence: []core.Evidence{
		{Consumer: "GC", Reaction: "REJ", Source: gcManager + ": `if (!rawConfig.name || !rawConfig.version)` throws \"Invalid configuration … missing\""},
	},
}

var gextName = &core.Rule{
	ID:       "gext/name",
	Summary:  "`name` holds a character other than letters, digits and dashes; Gemini CLI does not load the extension.",
	Kinds:    "gext",
	Severity: "GC REJ (Error).",
	Evidence: []core.Evidence{
		{Consumer: "GC", Reaction: "REJ", Source: gcManager + ": validateName `/^[a-zA-Z0-9-]+$/`, \"Invalid extension name\"; `gemini extensions validate` 0.61.0 exits 1 on \"bad ext\""},
	},
}

var gextVersion = &core.Rule{
	ID:       "gext/version",
	Summary:  "`version` is not semver; `gemini extensions validate` warns.",
	Kinds:    "gext",
	Severity: "GC WARN (Warning).",
	Evidence: []core.Evidence{
		{Consumer: "GC", Reaction: "WARN", Source: gcValidate + ": `if (!semver.valid(extensionConfig.version))` \"does not appear to be standard semver\""},
	},
}

var gextContextFile = &core.Rule{
	ID:       "gext/context-file",
	Summary:  "A `contextFileName` names a file the extension does not have; Gemini CLI loads no context from it.",
	Kinds:    "gext",
	Severity: "GC LOSE (Warning); `gemini extensions validate` fails on it.",
	Evidence: []core.Evidence{
		{Consumer: "GC", Reaction: "LOSE", Source: gcValidate + ": \"The following context files referenced in gemini-extension.json are missing\" (validation fails); the extension itself still loads"},
	},
}

var gextFieldType = &core.Rule{
	ID:       "gext/field-type",
	Summary:  "A field of gemini-extension.json has the wrong type (`name`/`version` not strings, `mcpServers` not an object, `contextFileName` not a string or list, `excludeTools` not a list).",
	Kinds:    "gext",
	Severity: "GC ? (Info): the loader casts the parsed JSON without checking it; what follows depends on the field.",
	Evidence: []core.Evidence{
		{Consumer: "GC", Reaction: "?", Source: "google-gemini/gemini-cli@5411f113 packages/cli/src/config/extension.ts ExtensionConfig (the declared types), cast unchecked in " + gcManager},
	},
}

var geminiExtName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9-]+$`) })

func CheckGeminiExtension(f core.File, r *core.Reporter) {
	root := core.StrictJSON(f, r, gextJSON, model.TargetGeminiCLI, "this extension")
	if root == nil {
		return
	}
	first := model.Span{Start: 0, End: core.FirstLineEnd(f.Text)}
	if !root.Is(core.JSONObject) {
		r.Verdict(gextRequired, root.Span, model.Verdicts{model.TargetGeminiCLI: model.Reject},
			"%s does not load this extension: gemini-extension.json must be an object with `name` and `version`.")
		return
	}
	str := func(key string) (string, *core.JSONMember, bool) {
		m := root.Member(key)
		if m == nil {
			return "", nil, true
		}
		if !m.Value.Is(core.JSONString) {
			// JSON.parse keeps any truthy value; validateName then runs a
			// regexp on it (a number is coerced to its digits).
			r.Verdict(gextFieldType, m.Value.Span, model.Verdicts{model.TargetGeminiCLI: model.Unknown},
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
		r.Verdict(gextRequired, span, model.Verdicts{model.TargetGeminiCLI: model.Reject}, "%s does not load this extension: it has no `name`.")
	case nameStr && !geminiExtName().MatchString(name):
		r.Verdict(gextName, nm.Value.Span, model.Verdicts{model.TargetGeminiCLI: model.Reject},
			"%s does not load this extension: its name may hold only letters, digits and dashes ("+core.ClipQuote(name)+").")
	}
	switch {
	case vm == nil || (versionStr && version == ""):
		span := first
		if vm != nil {
			span = vm.Value.Span
		}
		r.Verdict(gextRequired, span, model.Verdicts{model.TargetGeminiCLI: model.Reject}, "%s does not load this extension: it has no `version`.")
	case versionStr && !core.SemverRe().MatchString(strings.TrimPrefix(strings.TrimSpace(version), "v")):
		r.Verdict(gextVersion, vm.Value.Span, model.Verdicts{model.TargetGeminiCLI: model.Warn},
			"`gemini extensions validate` warns: version "+core.ClipQuote(version)+" is not semver (e.g. 1.0.0).")
	}
	if m := root.Member("mcpServers"); m != nil && !m.Value.Is(core.JSONObject) {
		r.Verdict(gextFieldType, m.Value.Span, model.Verdicts{model.TargetGeminiCLI: model.Unknown},
			"`mcpServers` should be an object of servers by name.")
	}
	if m := root.Member("excludeTools"); m != nil && !m.Value.Is(core.JSONArray) {
		r.Verdict(gextFieldType, m.Value.Span, model.Verdicts{model.TargetGeminiCLI: model.Unknown},
			"`excludeTools` should be a list of tool names.")
	}
	if m := root.Member("contextFileName"); m != nil {
		var names []*core.JSONValue
		switch {
		case m.Value.Is(core.JSONString):
			names = []*core.JSONValue{m.Value}
		case m.Value.Is(core.JSONArray):
			names = m.Value.Items
		default:
			r.Verdict(gextFieldType, m.Value.Span, model.Verdicts{model.TargetGeminiCLI: model.Unknown},
				"`contextFileName` should be a file name or a list of them.")
		}
		if f.FS != nil {
			dir := path.Dir(f.Path)
			for _, n := range names {
				if !n.Is(core.JSONString) || n.Str == "" || path.IsAbs(n.Str) {
					continue
				}
				rel := path.Clean(path.Join(dir, n.Str))
				if _, err := f.FS.Stat(rel); err != nil {
					r.Verdict(gextContextFile, n.Span, model.Verdicts{model.TargetGeminiCLI: model.Lose},
						"%s loads no context from "+core.ClipQuote(n.Str)+": the extension has no such file (`gemini extensions validate` fails on it).")
				}
			}
		}
	}
}

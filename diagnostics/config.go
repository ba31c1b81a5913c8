package diagnostics

// The workspace config, .ahpls/config.json (ahpls' own file, read by
// package settings: exclude globs, gitignore, rule overrides). settings
// ignores the whole file when its shape, a glob or a level is wrong, so
// each such mistake is an Error here, at its place, with the same words. A
// rule id that names no current rule only loses its own key (unknown,
// removed) or is redirected (renamed, lifecycle.go): a finding on the key,
// and the rest of the file applies. Completion and hover come
// from its key catalogue (jsonfields.go) and the rule table.

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"

	"fmt"
	"strings"

	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/wsfs"
)

// configRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var configRules = []*core.Rule{configInvalid, configUnknownKey, configUnknownRule, configRuleRenamed, configRuleRemoved}

var configInvalid = &core.Rule{
	ID:       "config/invalid",
	Summary:  "`.ahpls/config.json` is not what ahpls reads (strict JSON; `exclude` a list of globs, `gitignore` a boolean, `overrides` a list of {files, rules} with levels), so ahpls ignores the whole file.",
	Kinds:    "config",
	Severity: "Error [I]; the editor and `ahpls check` go on without the file.",
}

var configUnknownKey = &core.Rule{
	ID:       "config/unknown-key",
	Summary:  "A key `.ahpls/config.json` does not define; ahpls ignores it (a newer ahpls may read it).",
	Kinds:    "config",
	Severity: "Warning [I]; the key has no effect.",
}

var configUnknownRule = &core.Rule{
	ID:       "config/unknown-rule",
	Summary:  "An override names a rule id ahpls does not have; ahpls ignores that key and applies the rest of the file.",
	Kinds:    "config",
	Severity: "Warning [I]; the key has no effect.",
}

var configRuleRenamed = &core.Rule{
	ID:       "config/rule-renamed",
	Summary:  "An override names a rule by an id it had before a rename; ahpls applies the level to the rule's id now.",
	Kinds:    "config",
	Severity: "Hint [I]; the override still applies.",
}

var configRuleRemoved = &core.Rule{
	ID:       "config/rule-removed",
	Summary:  "An override names a rule ahpls no longer has; the key has no effect.",
	Kinds:    "config",
	Severity: "Hint [I]; the rest of the file applies.",
}

// configLevels are the levels an override may set.
var configLevels = []string{"off", "error", "warning", "info", "hint"}

func checkAhplsConfig(f core.File, r *core.Reporter) {
	bad := func(span model.Span, msg string) {
		r.Add(model.Diagnostic{Rule: configInvalid.ID, Severity: model.SeverityError, Span: span,
			Message: "ahpls ignores this config file: " + msg})
	}
	doc, fs := core.ParseJSONTree(f.Text)
	for _, jf := range fs {
		switch jf.Rule {
		case core.JSONJsonc:
			bad(jf.Span, "it must be strict JSON (no comments or trailing commas).")
		case core.JSONDuplicateKey:
			bad(jf.Span, fmt.Sprintf("key '%s' appears twice.", jf.Key))
		default:
			bad(jf.Span, jf.Message+".")
		}
	}
	if doc == nil {
		return
	}
	if !doc.Is(core.JSONObject) {
		bad(doc.Span, fmt.Sprintf("its top level is %s, not an object.", doc.Kind))
		return
	}
	globs := func(v *core.JSONValue, what string) {
		if !v.Is(core.JSONArray) {
			bad(v.Span, fmt.Sprintf("'%s' must be a list of globs, not %s.", what, v.Kind))
			return
		}
		for _, it := range v.Items {
			if !it.Is(core.JSONString) {
				bad(it.Span, fmt.Sprintf("'%s' lists %s, not a glob string.", what, it.Kind))
				continue
			}
			if _, err := wsfs.NewMatcher([]string{it.Str}); err != nil {
				bad(it.Span, err.Error()+".")
			}
		}
	}
	for _, m := range doc.Members {
		switch m.Key {
		case "exclude":
			globs(m.Value, "exclude")
		case "gitignore":
			if !m.Value.Is(core.JSONBool) && !m.Value.Is(core.JSONNull) {
				bad(m.Value.Span, fmt.Sprintf("'gitignore' must be true or false, not %s.", m.Value.Kind))
			}
		case "overrides":
			checkConfigOverrides(m.Value, bad, globs, r)
		default:
			r.Add(model.Diagnostic{Rule: configUnknownKey.ID, Severity: model.SeverityWarning, Span: m.KeySpan,
				Message: fmt.Sprintf("ahpls does not read '%s' in this file; it reads exclude, gitignore and overrides.", core.JClip(m.Key))})
		}
	}
}

func checkConfigOverrides(v *core.JSONValue, bad func(model.Span, string), globs func(*core.JSONValue, string), r *core.Reporter) {
	if !v.Is(core.JSONArray) {
		bad(v.Span, fmt.Sprintf("'overrides' must be a list of {\"files\": […], \"rules\": {…}} objects, not %s.", v.Kind))
		return
	}
	for i, it := range v.Items {
		if !it.Is(core.JSONObject) {
			bad(it.Span, fmt.Sprintf("overrides[%d] must be an object with \"files\" and \"rules\", not %s.", i, it.Kind))
			continue
		}
		if it.Member("files") == nil {
			bad(it.Span, fmt.Sprintf("overrides[%d] has no \"files\": say which files it covers.", i))
		}
		for _, m := range it.Members {
			switch m.Key {
			case "files":
				globs(m.Value, "files")
				if m.Value.Is(core.JSONArray) && len(m.Value.Items) == 0 {
					bad(m.Value.Span, fmt.Sprintf("overrides[%d]: \"files\" lists no glob.", i))
				}
			case "rules":
				if !m.Value.Is(core.JSONObject) {
					bad(m.Value.Span, fmt.Sprintf("'rules' must map rule ids to levels, not %s.", m.Value.Kind))
					continue
				}
				for _, rm := range m.Value.Members {
					reportRuleID(r, rm.Key, rm.KeySpan)
					if !rm.Value.Is(core.JSONString) || !core.Contains(configLevels, strings.ToLower(rm.Value.Str)) {
						bad(rm.Value.Span, fmt.Sprintf("the level of '%s' must be one of %s.", core.JClip(rm.Key), strings.Join(configLevels, ", ")))
					}
				}
			default:
				r.Add(model.Diagnostic{Rule: configUnknownKey.ID, Severity: model.SeverityWarning, Span: m.KeySpan,
					Message: fmt.Sprintf("ahpls does not read '%s' in an override; it reads files and rules.", core.JClip(m.Key))})
			}
		}
	}
}

// reportRuleID reports an override's rule id that is not a current rule's:
// settings skips it (unknown, removed) or redirects it (renamed), and the
// rest of the file applies.
func reportRuleID(r *core.Reporter, id string, span model.Span) {
	to, st := ResolveRule(id)
	switch st {
	case RuleUnknown:
		r.Add(model.Diagnostic{Rule: configUnknownRule.ID, Severity: model.SeverityWarning, Span: span,
			Message: fmt.Sprintf("'%s' is not an ahpls rule id (`ahpls rules` lists them); ahpls ignores this key and applies the rest of the file.", core.JClip(id))})
	case RuleRenamed:
		r.Add(model.Diagnostic{Rule: configRuleRenamed.ID, Severity: model.SeverityHint, Span: span,
			Message: fmt.Sprintf("'%s' is now '%s'; ahpls applies this level to '%s'. Rename the key.", core.JClip(id), to, to)})
	case RuleRemoved:
		r.Add(model.Diagnostic{Rule: configRuleRemoved.ID, Severity: model.SeverityHint, Span: span, Tags: []model.Tag{model.TagUnnecessary},
			Message: fmt.Sprintf("'%s' is no longer an ahpls rule (%s); this key has no effect.", core.JClip(id), RemovedWhy(id))})
	}
}

// ConfigRuleDoc is the hover text of a rule id in .ahpls/config.json's
// overrides: the rule's summary and its default severity line.
func ConfigRuleDoc(id string) (string, bool) {
	r, ok := LookupRule(id)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("**%s**\n\n%s\n\nSeverity: %s\n\nFix: %s\n\n%s", r.ID, r.Summary, r.Severity, r.Fix, model.RuleHref(r.ID)), true
}

package plugins

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/shared"

	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/ahpls-dev/ahpls/model"
)

// Settings files (customization-formats.md §2.1, §5.6): only three keys are
// ours — `hooks` (walked like a hooks file that Claude Code reads, so flat
// handlers are errors there), `extraKnownMarketplaces` and `enabledPlugins`.
// Every other setting belongs to its tool and is left alone.

// SettingsRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var SettingsRules = []*core.Rule{settingsRecommendations}

var settingsRecommendations = &core.Rule{
	ID:       "settings/recommendations",
	Fix:      core.FixUnsafe,
	FixWhy:   "changes a value's type",
	Summary:  "A marketplace recommendation or plugin enablement VS Code cannot read.",
	Kinds:    "settings",
	Severity: "V LOSE.",
}

var enabledPluginRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[^@\s]+@[^@\s]+$`) })

func CheckSettings(f core.File, r *core.Reporter) {
	readers := core.JVCC
	if !strings.HasPrefix(f.Path, ".claude/") {
		readers = core.JVCL
	}
	c := core.NewJSONCheck(f, r, "settings file", readers)
	doc := c.Parse()
	if doc == nil || !doc.Is(core.JSONObject) {
		return
	}
	if hm := doc.Member("hooks"); hm != nil {
		if !hm.Value.Is(core.JSONObject) {
			c.Report(shared.HooksShape, hm.Value.Span, c.All(model.Reject), fmt.Sprintf("%%s cannot load these hooks: 'hooks' is %s, not an object of events.", hm.Value.Kind))
		} else {
			w := &shared.HooksWalk{C: c, ScriptRel: true}
			w.Events(hm.Value, false)
		}
	}
	shared.SettingsSecurity(c, doc)
	lose := model.V(model.Lose)
	if m := doc.Member("extraKnownMarketplaces"); m != nil {
		if !m.Value.Is(core.JSONObject) {
			c.Report(settingsRecommendations, m.Value.Span, lose, fmt.Sprintf("%%s will not recommend these marketplaces: 'extraKnownMarketplaces' is %s, not an object.", m.Value.Kind))
		} else {
			for _, e := range m.Value.Members {
				src := e.Value.Get("source")
				if msg := settingsSource(src); msg != "" {
					span := e.Value.Span
					if src != nil {
						span = src.Span
					}
					c.Report(settingsRecommendations, span, lose, fmt.Sprintf("%%s will not recommend marketplace '%s': %s.", core.JClip(e.Key), msg))
				}
			}
		}
	}
	if m := doc.Member("enabledPlugins"); m != nil {
		if !m.Value.Is(core.JSONObject) {
			c.Report(settingsRecommendations, m.Value.Span, lose, fmt.Sprintf("%%s will not enable these plugins: 'enabledPlugins' is %s, not an object.", m.Value.Kind))
			return
		}
		for _, e := range m.Value.Members {
			if !enabledPluginRe().MatchString(e.Key) {
				c.Report(settingsRecommendations, e.KeySpan, lose, fmt.Sprintf("%%s will not enable '%s': keys are 'plugin@marketplace'.", core.JClip(e.Key)))
				continue
			}
			if !e.Value.Is(core.JSONBool) {
				var fixes []model.Fix
				if e.Value.Is(core.JSONString) && (e.Value.Str == "true" || e.Value.Str == "false") {
					fixes = append(fixes, core.JReplace("Use "+e.Value.Str, e.Value.Span, e.Value.Str))
				}
				c.Report(settingsRecommendations, e.Value.Span, lose, fmt.Sprintf("%%s will not enable '%s': the value must be true or false.", core.JClip(e.Key)), fixes...)
			}
		}
	}
}

// settingsSource explains why a recommendation's `source` is unusable, or
// returns "".
func settingsSource(src *core.JSONValue) string {
	if src == nil {
		return "it has no 'source' object"
	}
	if !src.Is(core.JSONObject) {
		return fmt.Sprintf("'source' is %s, not a source object", src.Kind)
	}
	kind := src.Get("source")
	if !kind.Is(core.JSONString) {
		return "its source object needs \"source\": \"github\" (or another kind)"
	}
	need, ok := sourceKinds[kind.Str]
	if !ok {
		return fmt.Sprintf("source kind '%s' is not one of %s", core.JClip(kind.Str), core.JListOr(SourceKindNames))
	}
	for _, k := range need {
		if !src.Get(k).Is(core.JSONString) {
			return fmt.Sprintf("a '%s' source needs a '%s' string", kind.Str, k)
		}
	}
	return ""
}

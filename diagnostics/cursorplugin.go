package diagnostics

// Cursor plugins (issue #38): <P>/.cursor-plugin/plugin.json and
// <M>/.cursor-plugin/marketplace.json. Cursor is closed source; what it
// does with a mistake is not documented, so every finding here is Info
// (CU ?). What the files should hold is what Cursor's own marketplace
// validator checks, cursor/plugins@195d9359 scripts/validate-plugins.mjs
// over schemas/plugin.schema.json and schemas/marketplace.schema.json:
// `name` required, lowercase kebab-case with dots; no keys the schemas do
// not define; component fields a path or a list of paths; each marketplace
// entry a `name` and a string `source` folder holding
// .cursor-plugin/plugin.json with the same name. scripts/agree runs that
// validator beside ahpls (cursor-validate.sh).

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/ahpls-dev/ahpls/model"
)

// cursorPluginRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var cursorPluginRules = []*Rule{cupluginJSON, cupluginSchema}

// cursorMarketRules are the marketplace's rules.
var cursorMarketRules = []*Rule{cumarketJSON, cumarketSchema, cumarketSource}

const (
	cuPluginSchema = "cursor/plugins@195d9359 schemas/plugin.schema.json"
	cuMarketSchema = "cursor/plugins@195d9359 schemas/marketplace.schema.json"
	cuValidator    = "cursor/plugins@195d9359 scripts/validate-plugins.mjs"
)

var cupluginJSON = &Rule{
	ID:       "cuplugin/json",
	Summary:  ".cursor-plugin/plugin.json is not strict JSON; what Cursor then does is not documented.",
	Kinds:    "cuplugin",
	Severity: "CU ? (Info): Cursor is closed source and documents no reaction.",
}

var cupluginSchema = &Rule{
	ID:       "cuplugin/schema",
	Summary:  "The manifest does not match Cursor's published plugin schema: `name` missing or not lowercase kebab-case, a field of the wrong type, or a key the schema does not define.",
	Kinds:    "cuplugin",
	Severity: "CU ? (Info): the schema says what is valid, not what Cursor does with the rest.",
	Evidence: []Evidence{
		{"CU", "?", cuPluginSchema + ": required [name], name pattern ^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$, additionalProperties false"},
	},
}

var cumarketJSON = &Rule{
	ID:       "cumarket/json",
	Summary:  ".cursor-plugin/marketplace.json is not strict JSON; what Cursor then does is not documented.",
	Kinds:    "cumarket",
	Severity: "CU ? (Info): Cursor is closed source and documents no reaction.",
}

var cumarketSchema = &Rule{
	ID:       "cumarket/schema",
	Summary:  "The marketplace does not match Cursor's published marketplace schema: `name` or `plugins` missing, an entry without `name` or `source`, an entry name not lowercase kebab-case, a field of the wrong type, or a key the schema does not define.",
	Kinds:    "cumarket",
	Severity: "CU ? (Info).",
	Evidence: []Evidence{
		{"CU", "?", cuMarketSchema + ": required [name, plugins], additionalProperties false; pluginEntry required [name, source], source a string, name pattern ^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$, additionalProperties false"},
	},
}

var cumarketSource = &Rule{
	ID:       "cumarket/source",
	Summary:  "A local `source` whose folder does not exist, holds no .cursor-plugin/plugin.json, or holds a manifest that names another plugin.",
	Kinds:    "cumarket",
	Severity: "CU ? (Info): Cursor's marketplace validator refuses it; what the Cursor client does is not documented.",
	Evidence: []Evidence{
		{"CU", "?", cuValidator + ": resolve(root, entry.source) must exist and hold .cursor-plugin/plugin.json, whose name must equal the entry's name"},
	},
}

var cuNameRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$`) })

// cuPluginKeys are the keys of the plugin schema, with their shape:
// "s" string, "S" list of strings, "sS" either, "o" object, "so" string or
// object, "m" an MCP config (string, object or a list of either).
var cuPluginKeys = map[string]string{
	"name": "s", "displayName": "s", "description": "s", "version": "s", "author": "o", "publisher": "s",
	"homepage": "s", "repository": "s", "license": "s", "logo": "s", "keywords": "S", "category": "s", "tags": "S",
	"commands": "sS", "agents": "sS", "skills": "sS", "rules": "sS", "hooks": "so", "variables": "o", "mcpServers": "m",
	// in the schema at cursor/plugins main after 100d651c
	"minClientVersions": "o",
}

func cuShapeOK(v *JSONValue, shape string) bool {
	strs := func() bool { return jStringList(v) }
	switch shape {
	case "s":
		return v.Is(JSONString)
	case "S":
		return strs()
	case "sS":
		return v.Is(JSONString) || strs()
	case "o":
		return v.Is(JSONObject)
	case "so":
		return v.Is(JSONString) || v.Is(JSONObject)
	case "m":
		if v.Is(JSONArray) {
			for _, it := range v.Items {
				if !it.Is(JSONString) && !it.Is(JSONObject) {
					return false
				}
			}
			return true
		}
		return v.Is(JSONString) || v.Is(JSONObject)
	}
	return true
}

var cuShapeWords = map[string]string{"s": "a string", "S": "a list of strings", "sS": "a path or a list of paths",
	"o": "an object", "so": "a path or an object", "m": "a path, an object or a list of either"}

// cuJSON parses a Cursor file; a syntax error is Info (no documented reaction).
func cuJSON(f File, r *reporter, rule *Rule, what string) *JSONValue {
	v, findings := parseJSONTree(f.Text)
	for _, fd := range findings {
		if fd.rule == jsonDuplicateKey {
			continue
		}
		msg := fd.message
		if fd.rule == jsonJsonc {
			msg = "a comment or trailing comma, which strict JSON does not allow"
		}
		r.verdict(rule, fd.span, model.Verdicts{model.TargetCursor: model.Unknown},
			fmt.Sprintf("%%s may not read %s: %s.", what, msg))
		return nil
	}
	return v
}

func cuName(r *reporter, rule *Rule, v *JSONValue, what string) {
	if v.Is(JSONString) && !cuNameRe().MatchString(v.Str) {
		r.verdict(rule, v.Span, model.Verdicts{model.TargetCursor: model.Unknown},
			fmt.Sprintf("Cursor's schema wants %s name in lowercase kebab-case (a–z, 0–9, `-`, `.`), not %s.", what, clipQuote(v.Str)))
	}
}

func checkCursorPlugin(f File, r *reporter) {
	root := cuJSON(f, r, cupluginJSON, "this plugin's manifest")
	if root == nil {
		return
	}
	unk := model.Verdicts{model.TargetCursor: model.Unknown}
	if !root.Is(JSONObject) {
		r.verdict(cupluginSchema, root.Span, unk, fmt.Sprintf("Cursor's schema wants .cursor-plugin/plugin.json to be an object, not %s.", root.Kind))
		return
	}
	if root.Member("name") == nil {
		r.verdict(cupluginSchema, model.Span{Start: 0, End: firstLineEnd(f.Text)}, unk, "Cursor's schema requires a `name`.")
	}
	for _, m := range root.Members {
		shape, ok := cuPluginKeys[m.Key]
		switch {
		case !ok:
			// "$schema" too: the validator's schema has no exception for it.
			r.verdict(cupluginSchema, m.KeySpan, unk, fmt.Sprintf("Cursor's plugin schema defines no `%s`.", jClip(m.Key)))
		case !cuShapeOK(m.Value, shape):
			r.verdict(cupluginSchema, m.Value.Span, unk, fmt.Sprintf("Cursor's schema wants `%s` to be %s, not %s.", m.Key, cuShapeWords[shape], m.Value.Kind))
		}
	}
	cuName(r, cupluginSchema, root.Get("name"), "a plugin")
	cuPerson(r, cupluginSchema, root.Get("author"), "author")
}

// cuPerson checks an author or owner object: the schemas want `name` and
// allow only `name` and `email`.
func cuPerson(r *reporter, rule *Rule, v *JSONValue, key string) {
	if !v.Is(JSONObject) {
		return
	}
	unk := model.Verdicts{model.TargetCursor: model.Unknown}
	if n := v.Get("name"); !n.Is(JSONString) || n.Str == "" {
		r.verdict(rule, openBrace(v), unk, fmt.Sprintf("Cursor's schema requires `%s.name`, a non-empty string.", key))
	}
	for _, m := range v.Members {
		if m.Key != "name" && m.Key != "email" {
			r.verdict(rule, m.KeySpan, unk, fmt.Sprintf("Cursor's schema allows only `name` and `email` in `%s`, not `%s`.", key, jClip(m.Key)))
		}
	}
}

func checkCursorMarketplace(f File, r *reporter) {
	root := cuJSON(f, r, cumarketJSON, "this marketplace")
	if root == nil {
		return
	}
	unk := model.Verdicts{model.TargetCursor: model.Unknown}
	first := model.Span{Start: 0, End: firstLineEnd(f.Text)}
	if !root.Is(JSONObject) {
		r.verdict(cumarketSchema, root.Span, unk, fmt.Sprintf("Cursor's schema wants .cursor-plugin/marketplace.json to be an object, not %s.", root.Kind))
		return
	}
	for _, key := range []string{"name", "plugins"} {
		if root.Member(key) == nil {
			r.verdict(cumarketSchema, first, unk, fmt.Sprintf("Cursor's marketplace schema requires `%s`.", key))
		}
	}
	cuUnknownKeys(r, cumarketSchema, root, cuMarketKeys, "marketplace")
	if o := root.Get("owner"); o != nil && !o.Is(JSONObject) {
		r.verdict(cumarketSchema, o.Span, unk, fmt.Sprintf("Cursor's schema wants `owner` to be an object, not %s.", o.Kind))
	}
	cuPerson(r, cumarketSchema, root.Get("owner"), "owner")
	if n := root.Get("name"); n != nil && !n.Is(JSONString) {
		r.verdict(cumarketSchema, n.Span, unk, fmt.Sprintf("Cursor's schema wants `name` to be a string, not %s.", n.Kind))
	}
	plugins := root.Get("plugins")
	if plugins == nil {
		return
	}
	if !plugins.Is(JSONArray) {
		r.verdict(cumarketSchema, plugins.Span, unk, fmt.Sprintf("Cursor's schema wants `plugins` to be an array, not %s.", plugins.Kind))
		return
	}
	mroot := strings.TrimSuffix(strings.TrimSuffix(f.Path, ".cursor-plugin/marketplace.json"), "/")
	for _, e := range plugins.Items {
		if !e.Is(JSONObject) {
			r.verdict(cumarketSchema, e.Span, unk, fmt.Sprintf("Cursor's schema wants each plugin entry to be an object, not %s.", e.Kind))
			continue
		}
		for _, key := range []string{"name", "source"} {
			if e.Member(key) == nil {
				r.verdict(cumarketSchema, openBrace(e), unk, fmt.Sprintf("Cursor's schema requires a plugin entry's `%s`.", key))
			}
		}
		cuUnknownKeys(r, cumarketSchema, e, cuEntryKeys, "plugin entry")
		cuName(r, cumarketSchema, e.Get("name"), "a plugin entry's")
		if src := e.Get("source"); src != nil && !src.Is(JSONString) {
			r.verdict(cumarketSchema, src.Span, unk, fmt.Sprintf("Cursor's schema wants `source` to be a string, not %s.", src.Kind))
			continue
		}
		cuMarketSource(f, r, e, mroot)
	}
}

// cuMarketKeys and cuEntryKeys are the keys the marketplace schema
// defines at the top and in an entry (both additionalProperties false).
var (
	cuMarketKeys = []string{"name", "owner", "metadata", "plugins"}
	cuEntryKeys  = []string{"name", "source", "description", "minClientVersions"}
)

func cuUnknownKeys(r *reporter, rule *Rule, obj *JSONValue, keys []string, what string) {
	for _, m := range obj.Members {
		if !slices.Contains(keys, m.Key) {
			r.verdict(rule, m.KeySpan, model.Verdicts{model.TargetCursor: model.Unknown},
				fmt.Sprintf("Cursor's %s schema defines no `%s`.", what, jClip(m.Key)))
		}
	}
}

// cuMarketSource follows a local source as Cursor's validator does:
// the folder must exist, hold .cursor-plugin/plugin.json, and that
// manifest's name must be the entry's.
func cuMarketSource(f File, r *reporter, entry *JSONValue, mroot string) {
	src := entry.Get("source")
	if f.FS == nil || !src.Is(JSONString) {
		return
	}
	p := src.Str
	if p == "" || strings.Contains(p, "://") || strings.Contains(p, "${") || strings.HasPrefix(p, "/") || strings.HasPrefix(p, "\\") || strings.HasPrefix(p, "~") {
		return
	}
	rel := path.Join(mroot, p)
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return
	}
	unk := model.Verdicts{model.TargetCursor: model.Unknown}
	if rel == "." {
		rel = "" // the workspace folder: there, whatever Stat says of ""
	}
	if info, err := f.FS.Stat(rel); rel != "" && (err != nil || !info.IsDir()) {
		r.verdict(cumarketSource, src.Span, unk, fmt.Sprintf("Cursor may not install this plugin: folder %s does not exist.", clipQuote(p)))
		return
	}
	manifest := path.Join(rel, ".cursor-plugin/plugin.json")
	if info, err := f.FS.Stat(manifest); err != nil || !info.Mode().IsRegular() {
		r.verdict(cumarketSource, src.Span, unk, fmt.Sprintf("Cursor may not install this plugin: %s holds no .cursor-plugin/plugin.json.", clipQuote(p)))
		return
	}
	// The name comparison needs the manifest's text (readJSONFile: only
	// where File.FS can also read files).
	mv, _ := readJSONFile(f, manifest)
	name, entryName := mv.Get("name"), entry.Get("name")
	if name.Is(JSONString) && entryName.Is(JSONString) && name.Str != entryName.Str {
		r.verdict(cumarketSource, entryName.Span, unk, fmt.Sprintf("Cursor's validator wants this entry's name to be the plugin's: its manifest names it %s.", clipQuote(name.Str)))
	}
}

package cursor

// Cursor plugins (issue #38): <P>/.cursor-plugin/plugin.json and
// <M>/.cursor-plugin/marketplace.json. Cursor is closed source; what it
// does with a mistake is not documented, so every finding here is Info
// (CU ?). What the files should hold is what Cursor's own marketplace
// validator checks, cursor/plugins@195d9359 scripts/validate-plugins.mjs
// over schemas/plugin.schema.json and schemas/marketplace.schema.json:
// `name` required, lowercase kebab-case with dots; no keys the schemas do
// not define; component fields a path or a list of paths; each marketplace
// entry a `name` and a string `source` folder holding
// .cursor-plugin/plugin.json with the same name; the formats the validator
// adds with ajv-formats (uri, email), minClientVersions as strict semver and
// `variables` as a JSON Schema of an object. scripts/agree runs that
// validator beside ahpls (cursor-validate.sh).

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"

	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/ahpls-dev/ahpls/model"
)

// CursorPluginRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var CursorPluginRules = []*core.Rule{cupluginJSON, cupluginSchema}

// CursorMarketRules are the marketplace's rules.
var CursorMarketRules = []*core.Rule{cumarketJSON, cumarketSchema, cumarketSource}

const (
	cuPluginSchema = "cursor/plugins@195d9359 schemas/plugin.schema.json"
	cuMarketSchema = "cursor/plugins@195d9359 schemas/marketplace.schema.json"
	cuValidator    = "cursor/plugins@195d9359 scripts/validate-plugins.mjs"
)

var cupluginJSON = &core.Rule{
	ID:       "cuplugin/json",
	Summary:  ".cursor-plugin/plugin.json is not strict JSON; what Cursor then does is not documented.",
	Kinds:    "cuplugin",
	Severity: "CU ? (Info): Cursor is closed source and documents no reaction.",
}

var cupluginSchema = &core.Rule{
	ID:       "cuplugin/schema",
	Summary:  "The manifest does not match Cursor's published plugin schema: `name` missing or not lowercase kebab-case, a field of the wrong type, a key the schema does not define, `homepage`/`repository` not a URI, `author.email` not an email address, an empty `publisher`, a `minClientVersions` value that is not a strict semantic version, or `variables` that is not a JSON Schema of an object (`type` \"object\").",
	Kinds:    "cuplugin",
	Severity: "CU ? (Info): the schema says what is valid, not what Cursor does with the rest.",
	Evidence: []core.Evidence{
		{Consumer: "CU", Reaction: "?", Source: cuPluginSchema + ": required [name], name pattern ^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$, additionalProperties false; homepage, repository format uri; author.email format email (ajv-formats, full mode, as the validator adds them); publisher minLength 1; minClientVersions minProperties 1, values $defs/semver; variables required [type], type const \"object\", required uniqueItems"},
	},
}

var cumarketJSON = &core.Rule{
	ID:       "cumarket/json",
	Summary:  ".cursor-plugin/marketplace.json is not strict JSON; what Cursor then does is not documented.",
	Kinds:    "cumarket",
	Severity: "CU ? (Info): Cursor is closed source and documents no reaction.",
}

var cumarketSchema = &core.Rule{
	ID:       "cumarket/schema",
	Summary:  "The marketplace does not match Cursor's published marketplace schema: `name` or `plugins` missing, an entry without `name` or `source`, an entry name not lowercase kebab-case, a field of the wrong type, a key the schema does not define, an empty `name` or `source`, `owner.email` not an email address, or an entry's `minClientVersions` value that is not a strict semantic version.",
	Kinds:    "cumarket",
	Severity: "CU ? (Info).",
	Evidence: []core.Evidence{
		{Consumer: "CU", Reaction: "?", Source: cuMarketSchema + ": required [name, plugins], additionalProperties false; name minLength 1; owner.email format email; pluginEntry required [name, source], source a non-empty string, name pattern ^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$, minClientVersions minProperties 1 with $defs/semver values, additionalProperties false"},
	},
}

var cumarketSource = &core.Rule{
	ID:       "cumarket/source",
	Summary:  "A local `source` whose folder does not exist, holds no .cursor-plugin/plugin.json, or holds a manifest that names another plugin. A remote `source` (a URL, which the marketplace schema allows) is not reported, though Cursor's validator, written for its own repository of local folders, refuses it too.",
	Kinds:    "cumarket",
	Severity: "CU ? (Info): Cursor's marketplace validator refuses it; what the Cursor client does is not documented.",
	Evidence: []core.Evidence{
		{Consumer: "CU", Reaction: "?", Source: cuValidator + ": resolve(root, entry.source) must exist and hold .cursor-plugin/plugin.json, whose name must equal the entry's name"},
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
	// in the schema at cursor/plugins main after 100d651c; its shape is
	// cuMinClient's to check
	"minClientVersions": "any",
}

func cuShapeOK(v *core.JSONValue, shape string) bool {
	strs := func() bool { return core.JStringList(v) }
	switch shape {
	case "s":
		return v.Is(core.JSONString)
	case "S":
		return strs()
	case "sS":
		return v.Is(core.JSONString) || strs()
	case "o":
		return v.Is(core.JSONObject)
	case "so":
		return v.Is(core.JSONString) || v.Is(core.JSONObject)
	case "m":
		if v.Is(core.JSONArray) {
			for _, it := range v.Items {
				if !it.Is(core.JSONString) && !it.Is(core.JSONObject) {
					return false
				}
			}
			return true
		}
		return v.Is(core.JSONString) || v.Is(core.JSONObject)
	}
	return true
}

var cuShapeWords = map[string]string{"s": "a string", "S": "a list of strings", "sS": "a path or a list of paths",
	"o": "an object", "so": "a path or an object", "m": "a path, an object or a list of either"}

// cuJSON parses a Cursor file; a syntax error is Info (no documented reaction).
func cuJSON(f core.File, r *core.Reporter, rule *core.Rule, what string) *core.JSONValue {
	v, findings := core.ParseJSONTree(f.Text)
	for _, fd := range findings {
		if fd.Rule == core.JSONDuplicateKey {
			continue
		}
		msg := fd.Message
		if fd.Rule == core.JSONJsonc {
			msg = "a comment or trailing comma, which strict JSON does not allow"
		}
		r.Verdict(rule, fd.Span, model.Verdicts{model.TargetCursor: model.Unknown},
			fmt.Sprintf("%%s may not read %s: %s.", what, msg))
		return nil
	}
	return v
}

func cuName(r *core.Reporter, rule *core.Rule, v *core.JSONValue, what string) {
	if v.Is(core.JSONString) && !cuNameRe().MatchString(v.Str) {
		r.Verdict(rule, v.Span, model.Verdicts{model.TargetCursor: model.Unknown},
			fmt.Sprintf("Cursor's schema wants %s name in lowercase kebab-case (a–z, 0–9, `-`, `.`), not %s.", what, core.ClipQuote(v.Str)))
	}
}

func CheckCursorPlugin(f core.File, r *core.Reporter) {
	root := cuJSON(f, r, cupluginJSON, "this plugin's manifest")
	if root == nil {
		return
	}
	unk := model.Verdicts{model.TargetCursor: model.Unknown}
	if !root.Is(core.JSONObject) {
		r.Verdict(cupluginSchema, root.Span, unk, fmt.Sprintf("Cursor's schema wants .cursor-plugin/plugin.json to be an object, not %s.", root.Kind))
		return
	}
	if root.Member("name") == nil {
		r.Verdict(cupluginSchema, model.Span{Start: 0, End: core.FirstLineEnd(f.Text)}, unk, "Cursor's schema requires a `name`.")
	}
	for _, m := range root.Members {
		shape, ok := cuPluginKeys[m.Key]
		switch {
		case !ok:
			// "$schema" too: the validator's schema has no exception for it.
			r.Verdict(cupluginSchema, m.KeySpan, unk, fmt.Sprintf("Cursor's plugin schema defines no `%s`.", core.JClip(m.Key)))
		case !cuShapeOK(m.Value, shape):
			r.Verdict(cupluginSchema, m.Value.Span, unk, fmt.Sprintf("Cursor's schema wants `%s` to be %s, not %s.", m.Key, cuShapeWords[shape], m.Value.Kind))
		}
	}
	cuName(r, cupluginSchema, root.Get("name"), "a plugin")
	cuPerson(r, cupluginSchema, root.Get("author"), "author")
	cuNonEmpty(r, cupluginSchema, root.Get("publisher"), "publisher")
	for _, key := range []string{"homepage", "repository"} {
		if v := root.Get(key); v.Is(core.JSONString) && !CuURI(v.Str) {
			r.Verdict(cupluginSchema, v.Span, unk, fmt.Sprintf("Cursor's schema wants `%s` to be a URI with a scheme (format uri), not %s.", key, core.ClipQuote(v.Str)))
		}
	}
	cuMinClient(r, cupluginSchema, root.Get("minClientVersions"))
	cuVariables(r, root.Get("variables"))
}

// cuNonEmpty reports an empty string where the schemas say minLength 1.
func cuNonEmpty(r *core.Reporter, rule *core.Rule, v *core.JSONValue, key string) {
	if v.Is(core.JSONString) && v.Str == "" {
		r.Verdict(rule, v.Span, model.Verdicts{model.TargetCursor: model.Unknown}, fmt.Sprintf("Cursor's schema wants `%s` to be a non-empty string.", key))
	}
}

// CuSemverRe is the schemas' $defs/semver pattern: X.Y.Z without leading
// zeros, an optional prerelease, no build metadata.
var CuSemverRe = sync.OnceValue(func() *regexp.Regexp {
	id := `(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)`
	return regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-` + id + `(?:\.` + id + `)*)?$`)
})

// cuMinClient checks minClientVersions as both schemas define it: an
// object with at least one member, each a strict semantic version.
func cuMinClient(r *core.Reporter, rule *core.Rule, v *core.JSONValue) {
	if v == nil {
		return
	}
	unk := model.Verdicts{model.TargetCursor: model.Unknown}
	if !v.Is(core.JSONObject) {
		r.Verdict(rule, v.Span, unk, fmt.Sprintf("Cursor's schema wants `minClientVersions` to be an object, not %s.", v.Kind))
		return
	}
	if len(v.Members) == 0 {
		r.Verdict(rule, v.Span, unk, "Cursor's schema wants `minClientVersions` to name at least one client.")
	}
	for _, m := range v.Members {
		if !m.Value.Is(core.JSONString) || !CuSemverRe().MatchString(m.Value.Str) {
			got := string(m.Value.Kind)
			if m.Value.Is(core.JSONString) {
				got = core.ClipQuote(m.Value.Str)
			}
			r.Verdict(rule, m.Value.Span, unk, fmt.Sprintf("Cursor's schema wants the minimum `%s` version to be a strict semantic version X.Y.Z (an optional -prerelease), not %s.", core.JClip(m.Key), got))
		}
	}
}

// cuVariables checks `variables` as the plugin schema defines it: a JSON
// Schema object whose `type` is "object", `properties` an object and
// `required` a list of distinct strings.
func cuVariables(r *core.Reporter, v *core.JSONValue) {
	if !v.Is(core.JSONObject) {
		return
	}
	unk := model.Verdicts{model.TargetCursor: model.Unknown}
	t := v.Get("type")
	switch {
	case t == nil:
		r.Verdict(cupluginSchema, core.OpenBrace(v), unk, "Cursor's schema requires `variables.type`, which must be \"object\": `variables` is a JSON Schema of an object.")
	case !t.Is(core.JSONString) || t.Str != "object":
		r.Verdict(cupluginSchema, t.Span, unk, "Cursor's schema wants `variables.type` to be \"object\".")
	}
	if p := v.Get("properties"); p != nil && !p.Is(core.JSONObject) {
		r.Verdict(cupluginSchema, p.Span, unk, fmt.Sprintf("Cursor's schema wants `variables.properties` to be an object, not %s.", p.Kind))
	}
	req := v.Get("required")
	if req == nil {
		return
	}
	if !core.JStringList(req) {
		r.Verdict(cupluginSchema, req.Span, unk, "Cursor's schema wants `variables.required` to be a list of strings.")
		return
	}
	seen := map[string]bool{}
	for _, it := range req.Items {
		if seen[it.Str] {
			r.Verdict(cupluginSchema, it.Span, unk, fmt.Sprintf("Cursor's schema wants the names in `variables.required` to be distinct: %s is there twice.", core.ClipQuote(it.Str)))
		}
		seen[it.Str] = true
	}
}

// CuURI approximates ajv-formats' full "uri" format (RFC 3986): a scheme,
// then only characters a URI may hold, % escapes with two hex digits, and
// at most one #.
func CuURI(s string) bool {
	colon := strings.IndexByte(s, ':')
	if colon < 1 || !isASCIILetter(s[0]) {
		return false
	}
	for i := 1; i < colon; i++ {
		c := s[i]
		if !isASCIILetter(c) && !isASCIIDigit(c) && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	rest := s[colon+1:]
	if strings.Count(rest, "#") > 1 {
		return false
	}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		switch {
		case isASCIILetter(c) || isASCIIDigit(c) || strings.IndexByte("-._~!$&'()*+,;=:@/?#[]", c) >= 0:
		case c == '%' && i+2 < len(rest) && isHex(rest[i+1]) && isHex(rest[i+2]):
			i += 2
		default:
			return false
		}
	}
	return true
}

// CuEmail is ajv-formats' full "email" format in words: dot-separated atoms
// of letters, digits and !#$%&'*+/=?^_`{|}~- before the @, and after it at
// least two dot-separated labels of letters, digits and inner hyphens.
func CuEmail(s string) bool {
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return false
	}
	for _, atom := range strings.Split(s[:at], ".") {
		if atom == "" {
			return false
		}
		for i := 0; i < len(atom); i++ {
			c := atom[i]
			if !isASCIILetter(c) && !isASCIIDigit(c) && strings.IndexByte("!#$%&'*+/=?^_`{|}~-", c) < 0 {
				return false
			}
		}
	}
	labels := strings.Split(s[at+1:], ".")
	if len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if l == "" || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for i := 0; i < len(l); i++ {
			if c := l[i]; !isASCIILetter(c) && !isASCIIDigit(c) && c != '-' {
				return false
			}
		}
	}
	return true
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isASCIIDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isHex(c byte) bool         { return isASCIIDigit(c) || c|0x20 >= 'a' && c|0x20 <= 'f' }

// cuPerson checks an author or owner object: the schemas want `name` and
// allow only `name` and `email`.
func cuPerson(r *core.Reporter, rule *core.Rule, v *core.JSONValue, key string) {
	if !v.Is(core.JSONObject) {
		return
	}
	unk := model.Verdicts{model.TargetCursor: model.Unknown}
	if n := v.Get("name"); !n.Is(core.JSONString) || n.Str == "" {
		r.Verdict(rule, core.OpenBrace(v), unk, fmt.Sprintf("Cursor's schema requires `%s.name`, a non-empty string.", key))
	}
	for _, m := range v.Members {
		if m.Key != "name" && m.Key != "email" {
			r.Verdict(rule, m.KeySpan, unk, fmt.Sprintf("Cursor's schema allows only `name` and `email` in `%s`, not `%s`.", key, core.JClip(m.Key)))
		}
	}
	switch e := v.Get("email"); {
	case e == nil:
	case !e.Is(core.JSONString):
		r.Verdict(rule, e.Span, unk, fmt.Sprintf("Cursor's schema wants `%s.email` to be a string, not %s.", key, e.Kind))
	case !CuEmail(e.Str):
		r.Verdict(rule, e.Span, unk, fmt.Sprintf("Cursor's schema wants `%s.email` to be an email address (format email), not %s.", key, core.ClipQuote(e.Str)))
	}
}

func CheckCursorMarketplace(f core.File, r *core.Reporter) {
	root := cuJSON(f, r, cumarketJSON, "this marketplace")
	if root == nil {
		return
	}
	unk := model.Verdicts{model.TargetCursor: model.Unknown}
	first := model.Span{Start: 0, End: core.FirstLineEnd(f.Text)}
	if !root.Is(core.JSONObject) {
		r.Verdict(cumarketSchema, root.Span, unk, fmt.Sprintf("Cursor's schema wants .cursor-plugin/marketplace.json to be an object, not %s.", root.Kind))
		return
	}
	for _, key := range []string{"name", "plugins"} {
		if root.Member(key) == nil {
			r.Verdict(cumarketSchema, first, unk, fmt.Sprintf("Cursor's marketplace schema requires `%s`.", key))
		}
	}
	cuUnknownKeys(r, cumarketSchema, root, cuMarketKeys, "marketplace")
	if o := root.Get("owner"); o != nil && !o.Is(core.JSONObject) {
		r.Verdict(cumarketSchema, o.Span, unk, fmt.Sprintf("Cursor's schema wants `owner` to be an object, not %s.", o.Kind))
	}
	cuPerson(r, cumarketSchema, root.Get("owner"), "owner")
	if n := root.Get("name"); n != nil && !n.Is(core.JSONString) {
		r.Verdict(cumarketSchema, n.Span, unk, fmt.Sprintf("Cursor's schema wants `name` to be a string, not %s.", n.Kind))
	}
	cuNonEmpty(r, cumarketSchema, root.Get("name"), "name")
	if md := root.Get("metadata"); md != nil {
		if !md.Is(core.JSONObject) {
			r.Verdict(cumarketSchema, md.Span, unk, fmt.Sprintf("Cursor's schema wants `metadata` to be an object, not %s.", md.Kind))
		} else if d := md.Get("description"); d != nil && !d.Is(core.JSONString) {
			r.Verdict(cumarketSchema, d.Span, unk, fmt.Sprintf("Cursor's schema wants `metadata.description` to be a string, not %s.", d.Kind))
		}
	}
	plugins := root.Get("plugins")
	if plugins == nil {
		return
	}
	if !plugins.Is(core.JSONArray) {
		r.Verdict(cumarketSchema, plugins.Span, unk, fmt.Sprintf("Cursor's schema wants `plugins` to be an array, not %s.", plugins.Kind))
		return
	}
	mroot := strings.TrimSuffix(strings.TrimSuffix(f.Path, ".cursor-plugin/marketplace.json"), "/")
	for _, e := range plugins.Items {
		if !e.Is(core.JSONObject) {
			r.Verdict(cumarketSchema, e.Span, unk, fmt.Sprintf("Cursor's schema wants each plugin entry to be an object, not %s.", e.Kind))
			continue
		}
		for _, key := range []string{"name", "source"} {
			if e.Member(key) == nil {
				r.Verdict(cumarketSchema, core.OpenBrace(e), unk, fmt.Sprintf("Cursor's schema requires a plugin entry's `%s`.", key))
			}
		}
		cuUnknownKeys(r, cumarketSchema, e, cuEntryKeys, "plugin entry")
		for _, key := range []string{"name", "description"} {
			if v := e.Get(key); v != nil && !v.Is(core.JSONString) {
				r.Verdict(cumarketSchema, v.Span, unk, fmt.Sprintf("Cursor's schema wants a plugin entry's `%s` to be a string, not %s.", key, v.Kind))
			}
		}
		cuName(r, cumarketSchema, e.Get("name"), "a plugin entry's")
		cuMinClient(r, cumarketSchema, e.Get("minClientVersions"))
		if src := e.Get("source"); src != nil && !src.Is(core.JSONString) {
			r.Verdict(cumarketSchema, src.Span, unk, fmt.Sprintf("Cursor's schema wants `source` to be a string, not %s.", src.Kind))
			continue
		}
		cuNonEmpty(r, cumarketSchema, e.Get("source"), "source")
		cuMarketSource(f, r, e, mroot)
	}
}

// cuMarketKeys and cuEntryKeys are the keys the marketplace schema
// defines at the top and in an entry (both additionalProperties false).
var (
	cuMarketKeys = []string{"name", "owner", "metadata", "plugins"}
	cuEntryKeys  = []string{"name", "source", "description", "minClientVersions"}
)

func cuUnknownKeys(r *core.Reporter, rule *core.Rule, obj *core.JSONValue, keys []string, what string) {
	for _, m := range obj.Members {
		if !slices.Contains(keys, m.Key) {
			r.Verdict(rule, m.KeySpan, model.Verdicts{model.TargetCursor: model.Unknown},
				fmt.Sprintf("Cursor's %s schema defines no `%s`.", what, core.JClip(m.Key)))
		}
	}
}

// cuMarketSource follows a local source as Cursor's validator does:
// the folder must exist, hold .cursor-plugin/plugin.json, and that
// manifest's name must be the entry's.
func cuMarketSource(f core.File, r *core.Reporter, entry *core.JSONValue, mroot string) {
	src := entry.Get("source")
	if f.FS == nil || !src.Is(core.JSONString) {
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
		r.Verdict(cumarketSource, src.Span, unk, fmt.Sprintf("Cursor may not install this plugin: folder %s does not exist.", core.ClipQuote(p)))
		return
	}
	manifest := path.Join(rel, ".cursor-plugin/plugin.json")
	if info, err := f.FS.Stat(manifest); err != nil || !info.Mode().IsRegular() {
		r.Verdict(cumarketSource, src.Span, unk, fmt.Sprintf("Cursor may not install this plugin: %s holds no .cursor-plugin/plugin.json.", core.ClipQuote(p)))
		return
	}
	// The name comparison needs the manifest's text (readJSONFile: only
	// where File.FS can also read files).
	mv, _ := core.ReadJSONFile(f, manifest)
	name, entryName := mv.Get("name"), entry.Get("name")
	if name.Is(core.JSONString) && entryName.Is(core.JSONString) && name.Str != entryName.Str {
		r.Verdict(cumarketSource, entryName.Span, unk, fmt.Sprintf("Cursor's validator wants this entry's name to be the plugin's: its manifest names it %s.", core.ClipQuote(name.Str)))
	}
}

package diagnostics

import (
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ahpls-dev/ahpls/model"
)

// Plugin manifests (customization-formats.md §5.6): four locations, four
// formats. The format that matters for a manifest's own rules is the one its
// location implies (Claude Code reads only .claude-plugin/plugin.json, VS
// Code the first manifest present), so a copy is judged by who reads it.

// pluginRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var pluginRules = []*Rule{
	pluginNameMissing, pluginNameFormat, pluginNameLength, pluginNameReserved,
	pluginManifestLocation, pluginFieldType, pluginVersionMissing, pluginUnknownKey,
	pluginMisplacedKey, pluginPathPrefix, pluginPathEscape, pluginPathMissing, pluginPathKind,
	pluginInDotdir, pluginApSchema, pluginVersionSemver,
}

var pluginNameMissing = &Rule{
	ID:       "plugin/name-missing",
	Fix:      FixUnsafe,
	FixWhy:   "writes a guessed name",
	Summary:  "The manifest has no `name`; Claude Code and Copilot CLI reject the plugin.",
	Kinds:    "plugin",
	Severity: "CC REJ · CL REJ · V ? (folder name).",
	Evidence: []Evidence{
		{Consumer: "CC", Reaction: "REJ", Source: "Claude Code 2.1.332 `claude plugin validate`: \"name: Invalid input: expected string, received undefined\""},
		{Consumer: "V", Reaction: "?", Source: "src/vs/platform/agentPlugins/common/pluginParsers.ts readPluginManifest (the name falls back to the folder)"},
	},
}

var pluginNameFormat = &Rule{
	ID:       "plugin/name-format",
	Fix:      FixUnsafe,
	FixWhy:   "renames the plugin",
	Summary:  "The plugin name is not kebab-case.",
	Kinds:    "plugin",
	Severity: "V ? (no refusal in its source) · CC: space REJ, other WARN · CL REJ? · AP also allows `.`.",
	Evidence: []Evidence{
		{Consumer: "CC", Reaction: "space REJ", Source: "Claude Code 2.1.332 `claude plugin validate`: \"Plugin name cannot contain spaces\""},
		{Consumer: "CC", Reaction: "WARN", Source: "Claude Code 2.1.332 `claude plugin validate`: \"Plugin name \"_plugin-example\" is not kebab-case. Claude Code cannot install it from a marketplace that lists it under this name, and the Claude.ai marketplace sync requires kebab-case\" (warning, success true)"},
	},
}

var pluginNameLength = &Rule{
	ID:       "plugin/name-length",
	Summary:  "The plugin name is longer than 64 characters.",
	Kinds:    "plugin",
	Severity: "CL REJ? · AP REJ.",
}

var pluginNameReserved = &Rule{
	ID:       "plugin/name-reserved",
	Summary:  "The plugin name is reserved for Anthropic's plugins.",
	Kinds:    "plugin",
	Severity: "CC REJ (third parties); silent under an allow-listed Anthropic marketplace.",
	Evidence: []Evidence{
		{Consumer: "CC", Reaction: "REJ", Source: "Claude Code 2.1.332 `claude plugin validate`: \"Plugin name \"claude-foo\" is reserved … If this is one of Anthropic's own plugins, validate the marketplace that lists it.\""},
		{Consumer: "CC", Reaction: "ok", Source: "Claude Code 2.1.332 `claude plugin validate` on a marketplace named claude-plugins-official that lists claude-foo: no error"},
	},
}

var pluginManifestLocation = &Rule{
	ID:       "plugin/manifest-location",
	Summary:  "The only manifest is .github/plugin/plugin.json, which VS Code's code does not read.",
	Kinds:    "plugin",
	Severity: "V ? (documented, not in the code).",
}

var pluginFieldType = &Rule{
	ID:       "plugin/field-type",
	Fix:      FixSafe,
	FixWhy:   "writes the same value in the shape the manifest wants (a list, {\"name\": \u2026})",
	Summary:  "`author`, `keywords`, `homepage`, `dependencies`, `lspServers`, `userConfig`, `channels`, `metadata` or `experimental` has the wrong type or shape.",
	Kinds:    "plugin",
	Severity: "`author` (or its `name`), `keywords`, `homepage`, `version`, `license`, `repository`, `description`, `dependencies` (not a list), `lspServers` entries without `extensionToLanguage`, `userConfig` entries without `title`/`description`, `channels` not a list of {server}: CC REJ; `metadata`, `experimental`: CC WARN.",
	Evidence: []Evidence{
		{Consumer: "CC", Reaction: "REJ", Source: "Claude Code 2.1.332 `claude plugin validate`: \"version: Invalid input: expected string, received number\", \"author: Invalid input: expected object, received string\", \"keywords: Invalid input: expected array, received string\", \"homepage: Invalid URL\", \"dependencies: Invalid input: expected array, received object\""},
		{Consumer: "CC", Reaction: "WARN", Source: "Claude Code 2.1.332 `claude plugin validate`: \"'metadata' must be a free-form object; got string. It will be ignored at load time.\""},
		{Consumer: "CC", Reaction: "REJ (shapes)", Source: "Claude Code 2.1.332 `claude plugin validate` (success false): {\"author\": {\"email\": …}} \"Invalid input: expected string, received undefined\"; lspServers {\"go\": {\"command\": \"gopls\"}} \"lspServers: Invalid input\" (passes with extensionToLanguage); userConfig {\"k\": {\"type\": \"string\"}} \"userConfig.k.title: Invalid input: expected string, received undefined\" (and .description); userConfig {\"k\": \"x\"} \"expected object, received string\"; channels \"x\" \"expected array, received string\"; channels [{}] \"channels.0.server: Invalid input: expected string, received undefined\""},
	},
}

var pluginVersionSemver = &Rule{
	ID:       "plugin/version-semver",
	Summary:  "`version` is not a semantic version (`1.2.3`).",
	Kinds:    "plugin",
	Severity: "CC SHOULD (its validator accepts any string and advises semver): Hint.",
	Evidence: []Evidence{
		{Consumer: "CC", Reaction: "ok", Source: "Claude Code 2.1.332 `claude plugin validate` passes \"1.0\", \"v1.2.3\" and \"latest\"; without a version it advises \"Consider adding a version following semver (e.g., \"1.0.0\")\""},
	},
}

var semverRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$`)
})
var pluginVersionMissing = &Rule{
	ID:       "plugin/version-missing",
	Summary:  "The manifest has no `version`, which Claude's validator warns about and VS Code uses for updates.",
	Kinds:    "plugin",
	Severity: "Info [I]: Claude's validator warns; VS Code keys updates on `version`.",
}

var pluginUnknownKey = &Rule{
	ID:       "plugin/unknown-key",
	Fix:      FixUnsafe,
	FixWhy:   "guesses the key a typo meant",
	Summary:  "An unknown top-level manifest key.",
	Kinds:    "plugin",
	Severity: "CC IGN (warns) · AP IGN; a near miss (`agnets`): LOSE.",
	Evidence: []Evidence{
		{Consumer: "CC", Reaction: "IGN (warns)", Source: "Claude Code 2.1.332 `claude plugin validate`: \"Unknown field 'foo'. Claude Code ignores it at load time.\""},
		{Consumer: "CC", Reaction: "LOSE (near miss)", Source: "Claude Code 2.1.332 `claude plugin validate`: \"Unknown field 'agnets' — did you mean 'agents'? … this field has no effect.\""},
	},
}

var pluginMisplacedKey = &Rule{
	ID:       "plugin/misplaced-key",
	Summary:  "A marketplace or experimental key at the top of a Claude manifest.",
	Kinds:    "plugin",
	Severity: "marketplace keys: CC IGN; `themes`/`monitors` at the top: CC WARN.",
	Evidence: []Evidence{
		{Consumer: "CC", Reaction: "IGN", Source: "Claude Code 2.1.332 `claude plugin validate`: \"Field 'category' belongs in the marketplace entry … Claude Code ignores it at load time.\""},
		{Consumer: "CC", Reaction: "WARN", Source: "Claude Code 2.1.332 `claude plugin validate`: \"'themes' is an experimental component; declare it under 'experimental.themes'\""},
	},
}

var pluginPathPrefix = &Rule{
	ID:       "plugin/path-prefix",
	Fix:      FixSafe,
	FixWhy:   "prepends './' to the same path below the plugin root",
	Summary:  "A Claude component path that does not start with `./`.",
	Kinds:    "plugin",
	Severity: "CC REJ · Copilot format ok.",
	Evidence: []Evidence{
		{Consumer: "CC", Reaction: "REJ", Source: "Claude Code 2.1.332 `claude plugin validate`: \"skills: Invalid string: must start with \"./\"\""},
	},
}

var pluginPathEscape = &Rule{
	ID:       "plugin/path-escape",
	Summary:  "A component path that is absolute or leaves the plugin.",
	Kinds:    "plugin",
	Severity: "CC REJ · V SKIP (dropped) · AP REJ.",
	Evidence: []Evidence{
		{Consumer: "CC", Reaction: "REJ", Source: "Claude Code 2.1.332 `claude plugin validate`: \"skills[0]: Path contains \"..\" which could be a path traversal attempt\""},
		{Consumer: "V", Reaction: "SKIP", Source: "src/vs/platform/agentPlugins/common/pluginParsers.ts resolveComponentDirs (\"Paths that resolve outside the boundary are silently ignored\")"},
	},
}

var pluginPathMissing = &Rule{
	ID:       "plugin/path-missing",
	Fix:      FixUnsafe,
	FixWhy:   "points the entry at the sibling folder whose SKILL.md has the missing folder's name, or removes the entry",
	Summary:  "A component path that does not exist.",
	Kinds:    "plugin",
	Severity: "CC REJ · V LOSE (the folder is scanned and yields nothing).",
	Evidence: []Evidence{
		{Consumer: "CC", Reaction: "REJ", Source: "Claude Code 2.1.332 `claude plugin validate`: \"commands: Path not found: ./nope. The runtime loader will report this as a load failure.\""},
		{Consumer: "V", Reaction: "LOSE", Source: "src/vs/platform/agentPlugins/common/pluginParsers.ts resolveComponentDirs joins the path to the plugin root and the scan finds nothing"},
	},
}

var pluginPathKind = &Rule{
	ID:       "plugin/path-kind",
	Summary:  "A component path of the wrong kind (file vs folder, extension).",
	Kinds:    "plugin",
	Severity: "CC REJ (agents entries must end in `.md`, even a folder; hooks/mcpServers must name `.json`).",
	Evidence: []Evidence{
		{Consumer: "CC", Reaction: "REJ", Source: "Claude Code 2.1.332 `claude plugin validate`: \"agents.0: Invalid string: must end with \".md\"\", \"hooks: Invalid string: must end with \".json\"\""},
		{Consumer: "V", Reaction: "ok", Source: "src/vs/platform/agentPlugins/common/pluginParsers.ts resolveComponentDirs scans an agents folder"},
	},
}

var pluginInDotdir = &Rule{
	ID:       "plugin/in-dotdir",
	Summary:  "Component folders inside .claude-plugin/, where Claude Code does not look.",
	Kinds:    "plugin",
	Severity: "CC LOSE (the folders are not scanned; the plugin loads).",
	Evidence: []Evidence{
		{Consumer: "CC", Reaction: "LOSE", Source: "Claude Code 2.1.332 `claude plugin validate` passes a plugin with .claude-plugin/skills/ and lists none of its skills"},
	},
}

var pluginApSchema = &Rule{
	ID:       "plugin/ap-schema",
	Fix:      FixUnsafe,
	FixWhy:   "changes the manifest's schema",
	Summary:  "An agent-plugins.org `$schema` other than the 1.0.0 plugin schema.",
	Kinds:    "plugin",
	Severity: "AP fatal · V ?.",
}

const apSchemaURL = "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json"

var (
	componentKeys = []string{"commands", "agents", "skills", "hooks", "mcpServers", "outputStyles", "lspServers"}
	// manifestKeys is every top-level key some plugin format defines.
	manifestKeys = []string{"$schema", "name", "displayName", "version", "description", "author", "homepage", "repository", "license", "keywords",
		"commands", "agents", "skills", "hooks", "mcpServers", "outputStyles", "lspServers", "userConfig", "channels", "metadata", "experimental", "dependencies",
		"category", "tags", "strict", "themes", "monitors"}
	// apKeys is our reading of the closed AP 1.0 schema (extensions carries
	// client-specific data).
	apKeys                 = []string{"$schema", "name", "version", "description", "author", "homepage", "repository", "license", "keywords", "extensions"}
	apNameRe               = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]+([.-][a-z0-9]+)*$`) })
	pluginReservedPrefixes = []string{"claude-", "anthropic-", "anthropics-", "cc-plugin-"}
	pluginReservedNames    = []string{"claude", "anthropic", "anthropics", "claude-code", "claude-mods"}
)

// manifest is the state of one manifest check.
type manifest struct {
	*jsonCheck
	loc  string // which of model.ManifestPaths
	ap   bool
	copy bool // an earlier manifest location exists: VS Code reads that one
}

func manifestLocation(rel string) (loc, root string) {
	if root, loc, ok := model.ManifestRoot(rel); ok {
		return loc, root
	}
	return "plugin.json", path.Dir(rel)
}

func checkPluginManifest(f File, r *reporter) {
	loc, root := manifestLocation(f.Path)
	m := &manifest{loc: loc}
	format := model.FormatCopilot
	switch loc {
	case ".plugin/plugin.json":
		format = model.FormatOpenPlugin
	case ".claude-plugin/plugin.json":
		format = model.FormatClaude
	default:
		for _, s := range strings.Split(root, "/") {
			if s == ".claude" {
				format = model.FormatClaude
			}
		}
	}
	if f.FS != nil {
		for _, other := range model.ManifestPaths {
			if other == loc {
				break
			}
			if _, err := f.FS.Stat(jJoin(root, other)); err == nil {
				m.copy = true
			}
		}
	}
	m.jsonCheck = newJSONCheck(f, r, "plugin", manifestReaders(format, m.copy))
	doc := m.parse()
	if doc == nil {
		return
	}
	if loc == "plugin.json" && doc.Is(JSONObject) {
		if s := doc.Get("$schema"); s.Is(JSONString) && strings.HasPrefix(s.Str, "https://agent-plugins.org/schemas/") && strings.HasSuffix(s.Str, "/plugin.schema.json") {
			format, m.ap = model.FormatAP, true
			m.readers = newJSONCheck(f, r, "", manifestReaders(format, m.copy)).readers
		}
	}
	m.format, m.pluginRoot = format, root
	if !doc.Is(JSONObject) {
		m.report(pluginNameMissing, doc.Span, m.all(model.Reject), fmt.Sprintf("%%s cannot load this plugin: the manifest is %s, not an object.", doc.Kind))
		return
	}
	m.name(doc)
	m.copies(doc)
	m.location(doc)
	m.fieldTypes(doc)
	if doc.Member("version") == nil && !m.copy {
		m.fixed(pluginVersionMissing, openBrace(doc), model.SeverityInfo,
			"Updates cannot be detected without a 'version': VS Code keys updates on it and Claude Code's validator warns.")
	}
	m.keys(doc)
	m.paths(doc)
	m.dotdirs(doc)
	m.schema(doc)
	if sv := doc.Get("mcpServers"); sv.Is(JSONObject) {
		newMCPWalk(m.jsonCheck, format).servers(sv)
	}
	if hv := doc.Get("hooks"); hv.Is(JSONObject) {
		// Inline hooks: the hooks.json shape, with or without its wrapper.
		w := &hooksWalk{c: m.jsonCheck, ccExpands: format == model.FormatClaude}
		if format == model.FormatCopilot || format == model.FormatOpenPlugin {
			w.tokenFix = pluginRootToken
		}
		if inner := hv.Get("hooks"); inner.Is(JSONObject) {
			w.events(inner, false)
		} else {
			w.events(hv, true)
		}
	}
}

// manifestReaders is who reads a manifest of this format at this location:
// a copy (an earlier location exists) is read only by its own family.
func manifestReaders(format model.PluginFormat, isCopy bool) []model.Target {
	switch {
	case format == model.FormatCopilot && isCopy:
		return []model.Target{model.TargetCopilotCLI}
	case format == model.FormatClaude && isCopy:
		return []model.Target{model.TargetClaudeCode}
	}
	return jReadersFor(format)
}

func openBrace(obj *JSONValue) model.Span {
	return model.Span{Start: obj.Span.Start, End: obj.Span.Start + 1}
}

// apOr turns verdicts for an Agent Plugins manifest into what they mean
// there: AP hosts are no target, so an AP-only rejection counts as Spec for
// the VS Code targets and everything else is dropped.
func (m *manifest) apOr(apReject bool, v model.Verdicts) model.Verdicts {
	if !m.ap {
		return v
	}
	if apReject {
		return model.V(model.Spec)
	}
	return model.Verdicts{}
}

// severityOf is what v would decide for this file, to pick a verb.
func (m *manifest) severityOf(v model.Verdicts) model.Severity {
	fv := model.Verdicts{}
	for t, x := range v {
		if m.reads(t) {
			fv[t] = x
		}
	}
	sev, _, _ := fv.Decide(m.r.effective)
	return sev
}

func (m *manifest) name(doc *JSONValue) {
	nm := doc.Member("name")
	folder := jKebab(path.Base(m.pluginRoot))
	if m.pluginRoot == "" {
		folder = ""
	}
	if nm == nil {
		var fixes []model.Fix
		if folder != "" {
			fixes = append(fixes, model.Fix{Title: fmt.Sprintf("Add \"name\": %q", folder), Preferred: true, Edits: []model.Edit{jInsertMember(doc, `"name": `+jQuote(folder))}})
		}
		m.report(pluginNameMissing, openBrace(doc), m.apOr(true, model.V(model.Unknown).With(model.Verdicts{model.TargetClaudeCode: model.Reject, model.TargetCopilotCLI: model.Reject})),
			"%s cannot load this plugin: the manifest has no 'name'.", fixes...)
		return
	}
	v := nm.Value
	if !v.Is(JSONString) {
		m.report(pluginNameFormat, v.Span, m.apOr(true, model.V(model.Skip).With(model.Verdicts{model.TargetClaudeCode: model.Reject, model.TargetCopilotCLI: model.Reject.Unverified()})),
			fmt.Sprintf("%%s will not load this plugin: 'name' is %s, not a string.", v.Kind))
		return
	}
	name := v.Str
	ok := jKebabRe().MatchString(name)
	if m.ap {
		ok = apNameRe().MatchString(name)
	}
	if !ok {
		cc := model.Warn
		if strings.ContainsAny(name, " \t") {
			cc = model.Reject
		}
		// No VS Code source refuses a non-kebab plugin name (readPluginManifest
		// takes it as written): unknown there, not a refusal.
		verd := m.apOr(true, model.V(model.Unknown).With(model.Verdicts{model.TargetClaudeCode: cc, model.TargetCopilotCLI: model.Reject.Unverified()}))
		var fixes []model.Fix
		if short, cut := jDropPrefix(name); cut && jKebabRe().MatchString(jKebab(short)) {
			fixes = append(fixes, jReplace(fmt.Sprintf("Drop the prefix: '%s'", jKebab(short)), v.Span, jQuote(jKebab(short))))
		}
		if k := jKebab(name); k != "" && k != name {
			fixes = append(fixes, jReplace(fmt.Sprintf("Use kebab-case: '%s'", k), v.Span, jQuote(k)))
		}
		if len(fixes) > 0 {
			fixes[0].Preferred = true
			for i := 1; i < len(fixes); i++ {
				fixes[i].Preferred = false
			}
		}
		verb := "will not load this plugin"
		if m.severityOf(verd) != model.SeverityError {
			verb = "may reject or warn about this plugin"
		}
		m.report(pluginNameFormat, badNameSpan(m.text, v, m.ap), verd,
			fmt.Sprintf("%%s %s: name '%s' may use only a–z, 0–9 and single '-'.", verb, jClip(name)), fixes...)
	}
	if n := utf8.RuneCountInString(name); n > 64 {
		cut := len(string([]rune(name)[:64]))
		m.report(pluginNameLength, v.StrSpan(m.text, cut, len(name)), m.apOr(true, model.Verdicts{model.TargetCopilotCLI: model.Reject.Unverified()}),
			fmt.Sprintf("%%s may reject this plugin: its name has %d characters, more than 64.", n))
	}
	if reservedPluginName(name) && !m.inOfficialMarketplace() {
		m.report(pluginNameReserved, v.Span, m.apOr(false, model.Verdicts{model.TargetClaudeCode: model.Reject}),
			fmt.Sprintf("%%s will reject this plugin: the name '%s' is reserved for Anthropic's own plugins.", jClip(name)))
	}
}

// officialMarketplaces are the marketplace names under which Claude Code
// accepts Anthropic's reserved plugin names (Claude Code 2.1.332: a plugin
// named "claude-foo" fails `claude plugin validate` alone — "If this is one
// of Anthropic's own plugins, validate the marketplace that lists it" — and
// passes when listed by a marketplace named claude-plugins-official).
var officialMarketplaces = []string{"claude-code-marketplace", "claude-code-plugins", "claude-plugins-official", "anthropic-marketplace",
	"anthropic-plugins", "agent-skills", "anthropic-agent-skills", "life-sciences", "knowledge-work-plugins", "claude-for-legal",
	"claude-for-financial-services", "financial-services-plugins", "first-party-plugins", "claude-tag-plugins"}

// inOfficialMarketplace reports a plugin inside the folder of a marketplace
// that carries one of Anthropic's allow-listed names.
func (m *manifest) inOfficialMarketplace() bool {
	if m.f.FS == nil {
		return false
	}
	dir := m.pluginRoot
	for {
		if doc, ok := readJSONFile(m.f, jJoin(dir, ".claude-plugin/marketplace.json")); ok {
			if n := doc.Get("name"); n.Is(JSONString) && jHas(officialMarketplaces, strings.ToLower(n.Str)) {
				return true
			}
		}
		if dir == "" {
			return false
		}
		dir = path.Dir(dir)
		if dir == "." {
			dir = ""
		}
	}
}

func reservedPluginName(name string) bool {
	n := strings.ToLower(name)
	if jHas(pluginReservedNames, n) {
		return true
	}
	for _, p := range pluginReservedPrefixes {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	return strings.Contains(n, "official") && (strings.Contains(n, "claude") || strings.Contains(n, "anthropic"))
}

func (m *manifest) location(doc *JSONValue) {
	if m.loc != ".github/plugin/plugin.json" || m.f.FS == nil || m.copy {
		return
	}
	if _, err := m.f.FS.Stat(jJoin(m.pluginRoot, ".claude-plugin/plugin.json")); err == nil {
		return
	}
	m.report(pluginManifestLocation, openBrace(doc), model.V(model.Unknown),
		"%s may not find this manifest: VS Code's docs list this location but its code does not read it.")
}

func (m *manifest) fieldTypes(doc *JSONValue) {
	cc := func(x model.Reaction) model.Verdicts { return m.apOr(false, model.Verdicts{model.TargetClaudeCode: x}) }
	for _, f := range doc.Members {
		v := f.Value
		switch f.Key {
		case "author":
			if !v.Is(JSONObject) {
				var fixes []model.Fix
				if v.Is(JSONString) {
					fixes = append(fixes, jReplace("Use {\"name\": …}", v.Span, `{"name": `+jQuote(v.Str)+`}`))
				}
				m.report(pluginFieldType, v.Span, cc(model.Reject), "%s will not load this plugin: 'author' must be an object such as {\"name\": \"…\"}.", fixes...)
			} else if !v.Get("name").Is(JSONString) {
				m.report(pluginFieldType, v.Span, cc(model.Reject), "%s will not load this plugin: 'author' needs a 'name' string.")
			}
		case "keywords":
			if !jStringList(v) {
				var fixes []model.Fix
				if v.Is(JSONString) {
					fixes = append(fixes, jReplace("Use a list", v.Span, "["+jQuote(v.Str)+"]"))
				}
				m.report(pluginFieldType, v.Span, cc(model.Reject), "%s will not load this plugin: 'keywords' must be a list of strings.", fixes...)
			}
		case "homepage":
			u, err := url.Parse(v.Str)
			if !v.Is(JSONString) || err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
				m.report(pluginFieldType, v.Span, cc(model.Reject), "%s will not load this plugin: 'homepage' must be an http(s) URL.")
			}
		case "lspServers":
			for _, e := range v.membersOf() {
				switch {
				case !e.Value.Is(JSONObject):
					m.report(pluginFieldType, e.Value.Span, cc(model.Reject), fmt.Sprintf("%%s will not load this plugin: language server '%s' must be an object.", jClip(e.Key)))
				case !e.Value.Get("extensionToLanguage").Is(JSONObject):
					m.report(pluginFieldType, e.KeySpan, cc(model.Reject), fmt.Sprintf("%%s will not load this plugin: language server '%s' needs an 'extensionToLanguage' object.", jClip(e.Key)))
				}
			}
		case "userConfig":
			for _, e := range v.membersOf() {
				if !e.Value.Is(JSONObject) {
					m.report(pluginFieldType, e.Value.Span, cc(model.Reject), fmt.Sprintf("%%s will not load this plugin: user option '%s' must be an object.", jClip(e.Key)))
					continue
				}
				for _, k := range []string{"title", "description"} {
					if !e.Value.Get(k).Is(JSONString) {
						m.report(pluginFieldType, e.KeySpan, cc(model.Reject), fmt.Sprintf("%%s will not load this plugin: user option '%s' needs a '%s' string.", jClip(e.Key), k))
					}
				}
			}
		case "channels":
			if !v.Is(JSONArray) {
				m.report(pluginFieldType, v.Span, cc(model.Reject), fmt.Sprintf("%%s will not load this plugin: 'channels' must be a list, not %s.", v.Kind))
				continue
			}
			for _, it := range v.Items {
				if !it.Get("server").Is(JSONString) {
					m.report(pluginFieldType, it.Span, cc(model.Reject), "%s will not load this plugin: each channel needs a 'server' string.")
				}
			}
		case "version", "license", "repository", "description":
			if f.Key == "version" && v.Is(JSONString) && !semverRe().MatchString(v.Str) && !strings.Contains(v.Str, "${") {
				m.report(pluginVersionSemver, v.Span, model.Verdicts{model.TargetClaudeCode: model.Should},
					fmt.Sprintf("%%s advises a semantic version such as '1.0.0', not '%s'.", jClip(v.Str)))
			}
			if !v.Is(JSONString) {
				// Claude's manifest schema: "version: Invalid input:
				// expected string, received number".
				m.report(pluginFieldType, v.Span, cc(model.Reject), fmt.Sprintf("%%s will not load this plugin: '%s' must be a string, not %s.", f.Key, v.Kind))
			}
		case "dependencies":
			// A list of plugins; an npm-style {"name": "version"} map is
			// refused (#25 repro 7).
			if !v.Is(JSONArray) {
				m.report(pluginFieldType, v.Span, cc(model.Reject), fmt.Sprintf("%%s will not load this plugin: 'dependencies' must be a list of plugins, not %s.", v.Kind))
			}
		case "metadata", "experimental":
			if !v.Is(JSONObject) {
				m.report(pluginFieldType, v.Span, cc(model.Warn), fmt.Sprintf("%%s warns about this plugin: '%s' must be an object.", f.Key))
			}
		}
	}
}

func (m *manifest) keys(doc *JSONValue) {
	for _, f := range doc.Members {
		if m.ap {
			if !jHas(apKeys, f.Key) {
				m.report(pluginUnknownKey, f.KeySpan, model.V(model.Spec),
					fmt.Sprintf("The Agent Plugins schema is closed and does not allow '%s'; VS Code ignores it.", jClip(f.Key)))
			}
			continue
		}
		if m.format == model.FormatClaude {
			switch f.Key {
			case "category", "tags":
				m.report(pluginMisplacedKey, f.KeySpan, model.Verdicts{model.TargetClaudeCode: model.Ignore},
					fmt.Sprintf("%%s will ignore '%s' here (and warn): it belongs in the marketplace entry.", f.Key))
				continue
			case "themes", "monitors":
				m.report(pluginMisplacedKey, f.KeySpan, model.Verdicts{model.TargetClaudeCode: model.Warn},
					fmt.Sprintf("%%s warns about '%s' at the top level: it belongs under 'experimental'.", f.Key))
				continue
			}
		}
		if jHas(manifestKeys, f.Key) {
			continue
		}
		if best, ok := jClosest(f.Key, componentKeys, 2); ok {
			m.report(pluginUnknownKey, f.KeySpan, m.all(model.Lose),
				fmt.Sprintf("%%s will ignore '%s', so its components are not loaded (did you mean '%s'?).", jClip(f.Key), best),
				renameKeyFix(f, best))
			continue
		}
		m.report(pluginUnknownKey, f.KeySpan, model.Verdicts{model.TargetClaudeCode: model.Ignore},
			fmt.Sprintf("%%s will ignore the unknown manifest key '%s' (and warn).", jClip(f.Key)))
	}
}

// paths checks the component paths of the manifest.
func (m *manifest) paths(doc *JSONValue) {
	for _, f := range doc.Members {
		if !jHas(componentKeys, f.Key) {
			continue
		}
		switch {
		case f.Value.Is(JSONString):
			m.path(f.Key, f.Value, nil, f)
		case f.Value.Is(JSONArray):
			for _, it := range f.Value.Items {
				if it.Is(JSONString) {
					m.path(f.Key, it, f.Value, f)
				}
			}
		}
	}
}

// list is the array holding v (nil: v is member's whole value).
func (m *manifest) path(key string, v *JSONValue, list *JSONValue, member *JSONMember) {
	p := v.Str
	if sps := tokenSpans(m.text, v, claudeRootToken); len(sps) > 0 {
		for _, sp := range sps {
			m.report(tokenPluginRoot, sp, m.all(model.Lose), "%s will not expand '${CLAUDE_PLUGIN_ROOT}' in manifest paths: use a path starting './'.")
		}
		return
	}
	clean := path.Clean(strings.ReplaceAll(p, "\\", "/"))
	// A leading backslash is a root as much as a slash (`\..` cleans to
	// `/..`): prefixing './' would turn it into a path that leaves.
	if strings.HasPrefix(p, "/") || strings.HasPrefix(clean, "/") || strings.HasPrefix(p, "~") || len(p) > 1 && p[1] == ':' || clean == ".." || strings.HasPrefix(clean, "../") {
		m.report(pluginPathEscape, v.Span, m.apOr(true, model.V(model.Skip).With(model.Verdicts{model.TargetClaudeCode: model.Reject})),
			fmt.Sprintf("%%s will not load '%s': component paths must stay inside the plugin folder.", jClip(p)))
		return
	}
	if m.format == model.FormatClaude && !strings.HasPrefix(p, "./") && !(key == "skills" && p == ".") {
		m.report(pluginPathPrefix, v.Span, model.Verdicts{model.TargetClaudeCode: model.Reject},
			fmt.Sprintf("%%s will not load this plugin: component path '%s' must start with './'.", jClip(p)),
			jReplace("Prefix with './'", v.Span, jQuote("./"+strings.TrimPrefix(p, "/"))))
	}
	if m.format == model.FormatClaude && key == "agents" && strings.ToLower(path.Ext(clean)) != ".md" {
		// Claude's manifest schema: `agents.0: Invalid string: must end
		// with ".md"` — a folder is refused, unlike VS Code's
		// resolveComponentDirs, which scans one.
		m.report(pluginPathKind, v.Span, model.Verdicts{model.TargetClaudeCode: model.Reject},
			fmt.Sprintf("%%s will not load this plugin: agent path '%s' must name a '.md' file (Claude's manifest schema takes no folders here).", jClip(p)))
		return
	}
	if m.f.FS == nil || m.ap || strings.ContainsAny(p, "*?[{$") {
		return
	}
	rel := jJoin(m.pluginRoot, clean)
	if clean == "." {
		rel = m.pluginRoot
		if rel == "" {
			rel = "."
		}
	}
	info, err := m.f.FS.Stat(rel)
	if err != nil {
		// VS Code scans a missing folder and finds nothing (resolveComponentDirs);
		// Claude Code 2.1.332: "Path not found: ./nope. The runtime loader will
		// report this as a load failure."
		m.report(pluginPathMissing, v.Span, model.V(model.Lose).With(model.Verdicts{model.TargetClaudeCode: model.Reject}),
			fmt.Sprintf("%%s will not load this plugin's %s: '%s' does not exist.", key, jClip(p)),
			missingPathFixes(m.f, m.text, key, v, rel, list, member)...)
		return
	}
	ext := strings.ToLower(path.Ext(clean))
	var problem string
	var fixes []model.Fix
	switch key {
	case "skills":
		if !info.IsDir() {
			problem = "'skills' entries must be folders"
		}
	case "agents":
		if !info.IsDir() && ext != ".md" {
			problem = "agent files must end in '.md'"
			fixes = append(fixes, jReplace("Append '.md'", v.Span, jQuote(p+".md")))
		}
	case "hooks", "mcpServers":
		if info.IsDir() || ext != ".json" {
			problem = fmt.Sprintf("a '%s' path must name a .json file", key)
		}
	}
	if problem != "" {
		m.report(pluginPathKind, v.Span, model.Verdicts{model.TargetClaudeCode: model.Reject},
			fmt.Sprintf("%%s will not load this plugin: '%s' is the wrong kind of path (%s).", jClip(p), problem), fixes...)
	}
}

func (m *manifest) dotdirs(doc *JSONValue) {
	if m.loc != ".claude-plugin/plugin.json" || m.f.FS == nil {
		return
	}
	for _, d := range []string{"skills", "agents", "commands", "hooks"} {
		rel := jJoin(m.pluginRoot, ".claude-plugin/"+d)
		if info, err := m.f.FS.Stat(rel); err == nil && info.IsDir() {
			m.report(pluginInDotdir, jFirstLine(m.text), model.Verdicts{model.TargetClaudeCode: model.Lose},
				fmt.Sprintf("%%s will not load '.claude-plugin/%s/': component folders belong at the plugin root.", d))
		}
	}
}

func (m *manifest) schema(doc *JSONValue) {
	s := doc.Get("$schema")
	if !s.Is(JSONString) || s.Str == apSchemaURL {
		return
	}
	u, err := url.Parse(s.Str)
	if err != nil || !strings.EqualFold(u.Host, "agent-plugins.org") {
		return
	}
	m.report(pluginApSchema, s.Span, model.V(model.Unknown),
		"%s may not load this plugin: Agent Plugins hosts accept only the 1.0.0 plugin schema URL.",
		jReplace("Use the 1.0.0 plugin schema", s.Span, jQuote(apSchemaURL)))
}

package plugins

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/shared"

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

// PluginRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var PluginRules = []*core.Rule{
	pluginNameMissing, pluginNameFormat, pluginNameLength, pluginNameReserved,
	pluginManifestLocation, pluginFieldType, pluginVersionMissing, pluginUnknownKey,
	pluginMisplacedKey, pluginPathPrefix, pluginPathEscape, pluginPathMissing, pluginPathKind,
	pluginInDotdir, pluginApSchema, pluginVersionSemver,
}

var pluginNameMissing = &core.Rule{
	ID:       "plugin/name-missing",
	Fix:      core.FixUnsafe,
	FixWhy:   "writes a guessed name",
	Summary:  "The manifest has no `name`; Claude Code and Copilot CLI reject the plugin.",
	Kinds:    "plugin",
	Severity: "CC REJ · CL REJ · V ? (folder name).",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "REJ", Source: "Claude Code 2.1.332 `claude plugin validate`: \"name: Invalid input: expected string, received undefined\""},
		{Consumer: "V", Reaction: "?", Source: "src/vs/platform/agentPlugins/common/pluginParsers.ts readPluginManifest (the name falls back to the folder)"},
	},
}

var pluginNameFormat = &core.Rule{
	ID:       "plugin/name-format",
	Fix:      core.FixUnsafe,
	FixWhy:   "renames the plugin",
	Summary:  "The plugin name is not kebab-case.",
	Kinds:    "plugin",
	Severity: "V ? (no refusal in its source) · CC: space REJ, other WARN · CL REJ? · AP also allows `.`.",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "space REJ", Source: "Claude Code 2.1.332 `claude plugin validate`: \"Plugin name cannot contain spaces\""},
		{Consumer: "CC", Reaction: "WARN", Source: "Claude Code 2.1.332 `claude plugin validate`: \"Plugin name \"_plugin-example\" is not kebab-case. Claude Code cannot install it from a marketplace that lists it under this name, and the Claude.ai marketplace sync requires kebab-case\" (warning, success true)"},
	},
}

var pluginNameLength = &core.Rule{
	ID:       "plugin/name-length",
	Summary:  "The plugin name is longer than 64 characters.",
	Kinds:    "plugin",
	Severity: "CL REJ? · AP REJ.",
}

var pluginNameReserved = &core.Rule{
	ID:       "plugin/name-reserved",
	Summary:  "The plugin name is reserved for Anthropic's plugins.",
	Kinds:    "plugin",
	Severity: "CC REJ (third parties); silent under an allow-listed Anthropic marketplace.",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "REJ", Source: "Claude Code 2.1.332 `claude plugin validate`: \"Plugin name \"claude-foo\" is reserved … If this is one of Anthropic's own plugins, validate the marketplace that lists it.\""},
		{Consumer: "CC", Reaction: "ok", Source: "Claude Code 2.1.332 `claude plugin validate` on a marketplace named claude-plugins-official that lists claude-foo: no error"},
	},
}

var pluginManifestLocation = &core.Rule{
	ID:       "plugin/manifest-location",
	Summary:  "The only manifest is .github/plugin/plugin.json, which VS Code's code does not read.",
	Kinds:    "plugin",
	Severity: "V ? (documented, not in the code).",
}

var pluginFieldType = &core.Rule{
	ID:       "plugin/field-type",
	Fix:      core.FixSafe,
	FixWhy:   "writes the same value in the shape the manifest wants (a list, {\"name\": \u2026})",
	Summary:  "`author`, `keywords`, `homepage`, `dependencies`, `lspServers`, `userConfig`, `channels`, `metadata` or `experimental` has the wrong type or shape.",
	Kinds:    "plugin",
	Severity: "`author` (or its `name`), `keywords`, `homepage`, `version`, `license`, `repository`, `description`, `dependencies` (not a list), `lspServers` entries without `extensionToLanguage`, `userConfig` entries without `title`/`description`, `channels` not a list of {server}: CC REJ; `metadata`, `experimental`: CC WARN.",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "REJ", Source: "Claude Code 2.1.332 `claude plugin validate`: \"version: Invalid input: expected string, received number\", \"author: Invalid input: expected object, received string\", \"keywords: Invalid input: expected array, received string\", \"homepage: Invalid URL\", \"dependencies: Invalid input: expected array, received object\""},
		{Consumer: "CC", Reaction: "WARN", Source: "Claude Code 2.1.332 `claude plugin validate`: \"'metadata' must be a free-form object; got string. It will be ignored at load time.\""},
		{Consumer: "CC", Reaction: "REJ (shapes)", Source: "Claude Code 2.1.332 `claude plugin validate` (success false): {\"author\": {\"email\": …}} \"Invalid input: expected string, received undefined\"; lspServers {\"go\": {\"command\": \"gopls\"}} \"lspServers: Invalid input\" (passes with extensionToLanguage); userConfig {\"k\": {\"type\": \"string\"}} \"userConfig.k.title: Invalid input: expected string, received undefined\" (and .description); userConfig {\"k\": \"x\"} \"expected object, received string\"; channels \"x\" \"expected array, received string\"; channels [{}] \"channels.0.server: Invalid input: expected string, received undefined\""},
	},
}

var pluginVersionSemver = &core.Rule{
	ID:       "plugin/version-semver",
	Summary:  "`version` is not a semantic version (`1.2.3`).",
	Kinds:    "plugin",
	Severity: "CC SHOULD (its validator accepts any string and advises semver): Hint.",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "ok", Source: "Claude Code 2.1.332 `claude plugin validate` passes \"1.0\", \"v1.2.3\" and \"latest\"; without a version it advises \"Consider adding a version following semver (e.g., \"1.0.0\")\""},
	},
}

var pluginVersionMissing = &core.Rule{
	ID:       "plugin/version-missing",
	Summary:  "The manifest has no `version`, which Claude's validator warns about and VS Code uses for updates.",
	Kinds:    "plugin",
	Severity: "Info [I]: Claude's validator warns; VS Code keys updates on `version`.",
}

var pluginUnknownKey = &core.Rule{
	ID:       "plugin/unknown-key",
	Fix:      core.FixUnsafe,
	FixWhy:   "guesses the key a typo meant",
	Summary:  "An unknown top-level manifest key.",
	Kinds:    "plugin",
	Severity: "CC IGN (warns) · AP IGN; a near miss (`agnets`): LOSE.",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "IGN (warns)", Source: "Claude Code 2.1.332 `claude plugin validate`: \"Unknown field 'foo'. Claude Code ignores it at load time.\""},
		{Consumer: "CC", Reaction: "LOSE (near miss)", Source: "Claude Code 2.1.332 `claude plugin validate`: \"Unknown field 'agnets' — did you mean 'agents'? … this field has no effect.\""},
	},
}

var pluginMisplacedKey = &core.Rule{
	ID:       "plugin/misplaced-key",
	Summary:  "A marketplace or experimental key at the top of a Claude manifest.",
	Kinds:    "plugin",
	Severity: "marketplace keys: CC IGN; `themes`/`monitors` at the top: CC WARN.",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "IGN", Source: "Claude Code 2.1.332 `claude plugin validate`: \"Field 'category' belongs in the marketplace entry … Claude Code ignores it at load time.\""},
		{Consumer: "CC", Reaction: "WARN", Source: "Claude Code 2.1.332 `claude plugin validate`: \"'themes' is an experimental component; declare it under 'experimental.themes'\""},
	},
}

var pluginPathPrefix = &core.Rule{
	ID:       "plugin/path-prefix",
	Fix:      core.FixSafe,
	FixWhy:   "prepends './' to the same path below the plugin root",
	Summary:  "A Claude component path that does not start with `./`.",
	Kinds:    "plugin",
	Severity: "CC REJ · Copilot format ok.",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "REJ", Source: "Claude Code 2.1.332 `claude plugin validate`: \"skills: Invalid string: must start with \"./\"\""},
	},
}

var pluginPathEscape = &core.Rule{
	ID:       "plugin/path-escape",
	Summary:  "A component path that is absolute or leaves the plugin.",
	Kinds:    "plugin",
	Severity: "CC REJ · V SKIP (dropped) · AP REJ.",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "REJ", Source: "Claude Code 2.1.332 `claude plugin validate`: \"skills[0]: Path contains \"..\" which could be a path traversal attempt\""},
		{Consumer: "V", Reaction: "SKIP", Source: "src/vs/platform/agentPlugins/common/pluginParsers.ts resolveComponentDirs (\"Paths that resolve outside the boundary are silently ignored\")"},
	},
}

var pluginPathMissing = &core.Rule{
	ID:       "plugin/path-missing",
	Fix:      core.FixUnsafe,
	FixWhy:   "points the entry at the sibling folder whose SKILL.md has the missing folder's name, or removes the entry",
	Summary:  "A component path that does not exist.",
	Kinds:    "plugin",
	Severity: "CC REJ · V LOSE (the folder is scanned and yields nothing).",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "REJ", Source: "Claude Code 2.1.332 `claude plugin validate`: \"commands: Path not found: ./nope. The runtime loader will report this as a load failure.\""},
		{Consumer: "V", Reaction: "LOSE", Source: "src/vs/platform/agentPlugins/common/pluginParsers.ts resolveComponentDirs joins the path to the plugin root and the scan finds nothing"},
	},
}

var pluginPathKind = &core.Rule{
	ID:       "plugin/path-kind",
	Summary:  "A component path of the wrong kind (file vs folder, extension).",
	Kinds:    "plugin",
	Severity: "CC REJ (agents entries must end in `.md`, even a folder; hooks/mcpServers must name `.json`).",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "REJ", Source: "Claude Code 2.1.332 `claude plugin validate`: \"agents.0: Invalid string: must end with \".md\"\", \"hooks: Invalid string: must end with \".json\"\""},
		{Consumer: "V", Reaction: "ok", Source: "src/vs/platform/agentPlugins/common/pluginParsers.ts resolveComponentDirs scans an agents folder"},
	},
}

var pluginInDotdir = &core.Rule{
	ID:       "plugin/in-dotdir",
	Summary:  "Component folders inside .claude-plugin/, where Claude Code does not look.",
	Kinds:    "plugin",
	Severity: "CC LOSE (the folders are not scanned; the plugin loads).",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "LOSE", Source: "Claude Code 2.1.332 `claude plugin validate` passes a plugin with .claude-plugin/skills/ and lists none of its skills"},
	},
}

var pluginApSchema = &core.Rule{
	ID:       "plugin/ap-schema",
	Fix:      core.FixUnsafe,
	FixWhy:   "changes the manifest's schema",
	Summary:  "An agent-plugins.org `$schema` other than the 1.0.0 plugin schema.",
	Kinds:    "plugin",
	Severity: "AP fatal · V ?.",
}

const ApSchemaURL = "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json"

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
	*core.JSONCheck
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

func CheckPluginManifest(f core.File, r *core.Reporter) {
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
			if _, err := f.FS.Stat(core.JJoin(root, other)); err == nil {
				m.copy = true
			}
		}
	}
	m.JSONCheck = core.NewJSONCheck(f, r, "plugin", manifestReaders(format, m.copy))
	doc := m.Parse()
	if doc == nil {
		return
	}
	if loc == "plugin.json" && doc.Is(core.JSONObject) {
		if s := doc.Get("$schema"); s.Is(core.JSONString) && strings.HasPrefix(s.Str, "https://agent-plugins.org/schemas/") && strings.HasSuffix(s.Str, "/plugin.schema.json") {
			format, m.ap = model.FormatAP, true
			m.Readers = core.NewJSONCheck(f, r, "", manifestReaders(format, m.copy)).Readers
		}
	}
	m.Format, m.PluginRoot = format, root
	if !doc.Is(core.JSONObject) {
		m.Report(pluginNameMissing, doc.Span, m.All(model.Reject), fmt.Sprintf("%%s cannot load this plugin: the manifest is %s, not an object.", doc.Kind))
		return
	}
	m.name(doc)
	m.copies(doc)
	m.location(doc)
	m.fieldTypes(doc)
	if doc.Member("version") == nil && !m.copy {
		m.Fixed(pluginVersionMissing, core.OpenBrace(doc), model.SeverityInfo,
			"Updates cannot be detected without a 'version': VS Code keys updates on it and Claude Code's validator warns.")
	}
	m.keys(doc)
	m.paths(doc)
	m.dotdirs(doc)
	m.schema(doc)
	if sv := doc.Get("mcpServers"); sv.Is(core.JSONObject) {
		shared.NewMCPWalk(m.JSONCheck, format).Servers(sv)
	}
	if hv := doc.Get("hooks"); hv.Is(core.JSONObject) {
		// Inline hooks: the hooks.json shape, with or without its wrapper.
		w := &shared.HooksWalk{C: m.JSONCheck, CcExpands: format == model.FormatClaude}
		if format == model.FormatCopilot || format == model.FormatOpenPlugin {
			w.TokenFix = shared.PluginRootToken
		}
		if inner := hv.Get("hooks"); inner.Is(core.JSONObject) {
			w.Events(inner, false)
		} else {
			w.Events(hv, true)
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
	return core.JReadersFor(format)
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
		if m.Reads(t) {
			fv[t] = x
		}
	}
	sev, _, _ := fv.Decide(m.R.Effective)
	return sev
}

func (m *manifest) name(doc *core.JSONValue) {
	nm := doc.Member("name")
	folder := JKebab(path.Base(m.PluginRoot))
	if m.PluginRoot == "" {
		folder = ""
	}
	if nm == nil {
		var fixes []model.Fix
		if folder != "" {
			fixes = append(fixes, model.Fix{Title: fmt.Sprintf("Add \"name\": %q", folder), Preferred: true, Edits: []model.Edit{core.JInsertMember(doc, `"name": `+core.JQuote(folder))}})
		}
		m.Report(pluginNameMissing, core.OpenBrace(doc), m.apOr(true, model.V(model.Unknown).With(model.Verdicts{model.TargetClaudeCode: model.Reject, model.TargetCopilotCLI: model.Reject})),
			"%s cannot load this plugin: the manifest has no 'name'.", fixes...)
		return
	}
	v := nm.Value
	if !v.Is(core.JSONString) {
		m.Report(pluginNameFormat, v.Span, m.apOr(true, model.V(model.Skip).With(model.Verdicts{model.TargetClaudeCode: model.Reject, model.TargetCopilotCLI: model.Reject.Unverified()})),
			fmt.Sprintf("%%s will not load this plugin: 'name' is %s, not a string.", v.Kind))
		return
	}
	name := v.Str
	ok := JKebabRe().MatchString(name)
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
		if short, cut := JDropPrefix(name); cut && JKebabRe().MatchString(JKebab(short)) {
			fixes = append(fixes, core.JReplace(fmt.Sprintf("Drop the prefix: '%s'", JKebab(short)), v.Span, core.JQuote(JKebab(short))))
		}
		if k := JKebab(name); k != "" && k != name {
			fixes = append(fixes, core.JReplace(fmt.Sprintf("Use kebab-case: '%s'", k), v.Span, core.JQuote(k)))
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
		m.Report(pluginNameFormat, BadNameSpan(m.Text, v, m.ap), verd,
			fmt.Sprintf("%%s %s: name '%s' may use only a–z, 0–9 and single '-'.", verb, core.JClip(name)), fixes...)
	}
	if n := utf8.RuneCountInString(name); n > 64 {
		cut := len(string([]rune(name)[:64]))
		m.Report(pluginNameLength, v.StrSpan(m.Text, cut, len(name)), m.apOr(true, model.Verdicts{model.TargetCopilotCLI: model.Reject.Unverified()}),
			fmt.Sprintf("%%s may reject this plugin: its name has %d characters, more than 64.", n))
	}
	if reservedPluginName(name) && !m.inOfficialMarketplace() {
		m.Report(pluginNameReserved, v.Span, m.apOr(false, model.Verdicts{model.TargetClaudeCode: model.Reject}),
			fmt.Sprintf("%%s will reject this plugin: the name '%s' is reserved for Anthropic's own plugins.", core.JClip(name)))
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
	if m.F.FS == nil {
		return false
	}
	dir := m.PluginRoot
	for {
		if doc, ok := core.ReadJSONFile(m.F, core.JJoin(dir, ".claude-plugin/marketplace.json")); ok {
			if n := doc.Get("name"); n.Is(core.JSONString) && core.JHas(officialMarketplaces, strings.ToLower(n.Str)) {
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
	if core.JHas(pluginReservedNames, n) {
		return true
	}
	for _, p := range pluginReservedPrefixes {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	return strings.Contains(n, "official") && (strings.Contains(n, "claude") || strings.Contains(n, "anthropic"))
}

func (m *manifest) location(doc *core.JSONValue) {
	if m.loc != ".github/plugin/plugin.json" || m.F.FS == nil || m.copy {
		return
	}
	if _, err := m.F.FS.Stat(core.JJoin(m.PluginRoot, ".claude-plugin/plugin.json")); err == nil {
		return
	}
	m.Report(pluginManifestLocation, core.OpenBrace(doc), model.V(model.Unknown),
		"%s may not find this manifest: VS Code's docs list this location but its code does not read it.")
}

func (m *manifest) fieldTypes(doc *core.JSONValue) {
	cc := func(x model.Reaction) model.Verdicts { return m.apOr(false, model.Verdicts{model.TargetClaudeCode: x}) }
	for _, f := range doc.Members {
		v := f.Value
		switch f.Key {
		case "author":
			if !v.Is(core.JSONObject) {
				var fixes []model.Fix
				if v.Is(core.JSONString) {
					fixes = append(fixes, core.JReplace("Use {\"name\": …}", v.Span, `{"name": `+core.JQuote(v.Str)+`}`))
				}
				m.Report(pluginFieldType, v.Span, cc(model.Reject), "%s will not load this plugin: 'author' must be an object such as {\"name\": \"…\"}.", fixes...)
			} else if !v.Get("name").Is(core.JSONString) {
				m.Report(pluginFieldType, v.Span, cc(model.Reject), "%s will not load this plugin: 'author' needs a 'name' string.")
			}
		case "keywords":
			if !core.JStringList(v) {
				var fixes []model.Fix
				if v.Is(core.JSONString) {
					fixes = append(fixes, core.JReplace("Use a list", v.Span, "["+core.JQuote(v.Str)+"]"))
				}
				m.Report(pluginFieldType, v.Span, cc(model.Reject), "%s will not load this plugin: 'keywords' must be a list of strings.", fixes...)
			}
		case "homepage":
			u, err := url.Parse(v.Str)
			if !v.Is(core.JSONString) || err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
				m.Report(pluginFieldType, v.Span, cc(model.Reject), "%s will not load this plugin: 'homepage' must be an http(s) URL.")
			}
		case "lspServers":
			for _, e := range v.MembersOf() {
				switch {
				case !e.Value.Is(core.JSONObject):
					m.Report(pluginFieldType, e.Value.Span, cc(model.Reject), fmt.Sprintf("%%s will not load this plugin: language server '%s' must be an object.", core.JClip(e.Key)))
				case !e.Value.Get("extensionToLanguage").Is(core.JSONObject):
					m.Report(pluginFieldType, e.KeySpan, cc(model.Reject), fmt.Sprintf("%%s will not load this plugin: language server '%s' needs an 'extensionToLanguage' object.", core.JClip(e.Key)))
				}
			}
		case "userConfig":
			for _, e := range v.MembersOf() {
				if !e.Value.Is(core.JSONObject) {
					m.Report(pluginFieldType, e.Value.Span, cc(model.Reject), fmt.Sprintf("%%s will not load this plugin: user option '%s' must be an object.", core.JClip(e.Key)))
					continue
				}
				for _, k := range []string{"title", "description"} {
					if !e.Value.Get(k).Is(core.JSONString) {
						m.Report(pluginFieldType, e.KeySpan, cc(model.Reject), fmt.Sprintf("%%s will not load this plugin: user option '%s' needs a '%s' string.", core.JClip(e.Key), k))
					}
				}
			}
		case "channels":
			if !v.Is(core.JSONArray) {
				m.Report(pluginFieldType, v.Span, cc(model.Reject), fmt.Sprintf("%%s will not load this plugin: 'channels' must be a list, not %s.", v.Kind))
				continue
			}
			for _, it := range v.Items {
				if !it.Get("server").Is(core.JSONString) {
					m.Report(pluginFieldType, it.Span, cc(model.Reject), "%s will not load this plugin: each channel needs a 'server' string.")
				}
			}
		case "version", "license", "repository", "description":
			if f.Key == "version" && v.Is(core.JSONString) && !core.SemverRe().MatchString(v.Str) && !strings.Contains(v.Str, "${") {
				m.Report(pluginVersionSemver, v.Span, model.Verdicts{model.TargetClaudeCode: model.Should},
					fmt.Sprintf("%%s advises a semantic version such as '1.0.0', not '%s'.", core.JClip(v.Str)))
			}
			if !v.Is(core.JSONString) {
				// Claude's manifest schema: "version: Invalid input:
				// expected string, received number".
				m.Report(pluginFieldType, v.Span, cc(model.Reject), fmt.Sprintf("%%s will not load this plugin: '%s' must be a string, not %s.", f.Key, v.Kind))
			}
		case "dependencies":
			// A list of plugins; an npm-style {"name": "version"} map is
			// refused (#25 repro 7).
			if !v.Is(core.JSONArray) {
				m.Report(pluginFieldType, v.Span, cc(model.Reject), fmt.Sprintf("%%s will not load this plugin: 'dependencies' must be a list of plugins, not %s.", v.Kind))
			}
		case "metadata", "experimental":
			if !v.Is(core.JSONObject) {
				m.Report(pluginFieldType, v.Span, cc(model.Warn), fmt.Sprintf("%%s warns about this plugin: '%s' must be an object.", f.Key))
			}
		}
	}
}

func (m *manifest) keys(doc *core.JSONValue) {
	for _, f := range doc.Members {
		if m.ap {
			if !core.JHas(apKeys, f.Key) {
				m.Report(pluginUnknownKey, f.KeySpan, model.V(model.Spec),
					fmt.Sprintf("The Agent Plugins schema is closed and does not allow '%s'; VS Code ignores it.", core.JClip(f.Key)))
			}
			continue
		}
		if m.Format == model.FormatClaude {
			switch f.Key {
			case "category", "tags":
				m.Report(pluginMisplacedKey, f.KeySpan, model.Verdicts{model.TargetClaudeCode: model.Ignore},
					fmt.Sprintf("%%s will ignore '%s' here (and warn): it belongs in the marketplace entry.", f.Key))
				continue
			case "themes", "monitors":
				m.Report(pluginMisplacedKey, f.KeySpan, model.Verdicts{model.TargetClaudeCode: model.Warn},
					fmt.Sprintf("%%s warns about '%s' at the top level: it belongs under 'experimental'.", f.Key))
				continue
			}
		}
		if core.JHas(manifestKeys, f.Key) {
			continue
		}
		if best, ok := core.JClosest(f.Key, componentKeys, 2); ok {
			m.Report(pluginUnknownKey, f.KeySpan, m.All(model.Lose),
				fmt.Sprintf("%%s will ignore '%s', so its components are not loaded (did you mean '%s'?).", core.JClip(f.Key), best),
				shared.RenameKeyFix(f, best))
			continue
		}
		m.Report(pluginUnknownKey, f.KeySpan, model.Verdicts{model.TargetClaudeCode: model.Ignore},
			fmt.Sprintf("%%s will ignore the unknown manifest key '%s' (and warn).", core.JClip(f.Key)))
	}
}

// paths checks the component paths of the manifest.
func (m *manifest) paths(doc *core.JSONValue) {
	for _, f := range doc.Members {
		if !core.JHas(componentKeys, f.Key) {
			continue
		}
		switch {
		case f.Value.Is(core.JSONString):
			m.path(f.Key, f.Value, nil, f)
		case f.Value.Is(core.JSONArray):
			for _, it := range f.Value.Items {
				if it.Is(core.JSONString) {
					m.path(f.Key, it, f.Value, f)
				}
			}
		}
	}
}

// list is the array holding v (nil: v is member's whole value).
func (m *manifest) path(key string, v *core.JSONValue, list *core.JSONValue, member *core.JSONMember) {
	p := v.Str
	if sps := core.TokenSpans(m.Text, v, shared.ClaudeRootToken); len(sps) > 0 {
		for _, sp := range sps {
			m.Report(shared.TokenPluginRoot, sp, m.All(model.Lose), "%s will not expand '${CLAUDE_PLUGIN_ROOT}' in manifest paths: use a path starting './'.")
		}
		return
	}
	clean := path.Clean(strings.ReplaceAll(p, "\\", "/"))
	// A leading backslash is a root as much as a slash (`\..` cleans to
	// `/..`): prefixing './' would turn it into a path that leaves.
	if strings.HasPrefix(p, "/") || strings.HasPrefix(clean, "/") || strings.HasPrefix(p, "~") || len(p) > 1 && p[1] == ':' || clean == ".." || strings.HasPrefix(clean, "../") {
		m.Report(pluginPathEscape, v.Span, m.apOr(true, model.V(model.Skip).With(model.Verdicts{model.TargetClaudeCode: model.Reject})),
			fmt.Sprintf("%%s will not load '%s': component paths must stay inside the plugin folder.", core.JClip(p)))
		return
	}
	if m.Format == model.FormatClaude && !strings.HasPrefix(p, "./") && !(key == "skills" && p == ".") {
		m.Report(pluginPathPrefix, v.Span, model.Verdicts{model.TargetClaudeCode: model.Reject},
			fmt.Sprintf("%%s will not load this plugin: component path '%s' must start with './'.", core.JClip(p)),
			core.JReplace("Prefix with './'", v.Span, core.JQuote("./"+strings.TrimPrefix(p, "/"))))
	}
	if m.Format == model.FormatClaude && key == "agents" && strings.ToLower(path.Ext(clean)) != ".md" {
		// Claude's manifest schema: `agents.0: Invalid string: must end
		// with ".md"` — a folder is refused, unlike VS Code's
		// resolveComponentDirs, which scans one.
		m.Report(pluginPathKind, v.Span, model.Verdicts{model.TargetClaudeCode: model.Reject},
			fmt.Sprintf("%%s will not load this plugin: agent path '%s' must name a '.md' file (Claude's manifest schema takes no folders here).", core.JClip(p)))
		return
	}
	if m.F.FS == nil || m.ap || strings.ContainsAny(p, "*?[{$") {
		return
	}
	rel := core.JJoin(m.PluginRoot, clean)
	if clean == "." {
		rel = m.PluginRoot
		if rel == "" {
			rel = "."
		}
	}
	info, err := m.F.FS.Stat(rel)
	if err != nil {
		// VS Code scans a missing folder and finds nothing (resolveComponentDirs);
		// Claude Code 2.1.332: "Path not found: ./nope. The runtime loader will
		// report this as a load failure."
		m.Report(pluginPathMissing, v.Span, model.V(model.Lose).With(model.Verdicts{model.TargetClaudeCode: model.Reject}),
			fmt.Sprintf("%%s will not load this plugin's %s: '%s' does not exist.", key, core.JClip(p)),
			missingPathFixes(m.F, m.Text, key, v, rel, list, member)...)
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
			fixes = append(fixes, core.JReplace("Append '.md'", v.Span, core.JQuote(p+".md")))
		}
	case "hooks", "mcpServers":
		if info.IsDir() || ext != ".json" {
			problem = fmt.Sprintf("a '%s' path must name a .json file", key)
		}
	}
	if problem != "" {
		m.Report(pluginPathKind, v.Span, model.Verdicts{model.TargetClaudeCode: model.Reject},
			fmt.Sprintf("%%s will not load this plugin: '%s' is the wrong kind of path (%s).", core.JClip(p), problem), fixes...)
	}
}

func (m *manifest) dotdirs(doc *core.JSONValue) {
	if m.loc != ".claude-plugin/plugin.json" || m.F.FS == nil {
		return
	}
	for _, d := range []string{"skills", "agents", "commands", "hooks"} {
		rel := core.JJoin(m.PluginRoot, ".claude-plugin/"+d)
		if info, err := m.F.FS.Stat(rel); err == nil && info.IsDir() {
			m.Report(pluginInDotdir, core.JFirstLine(m.Text), model.Verdicts{model.TargetClaudeCode: model.Lose},
				fmt.Sprintf("%%s will not load '.claude-plugin/%s/': component folders belong at the plugin root.", d))
		}
	}
}

func (m *manifest) schema(doc *core.JSONValue) {
	s := doc.Get("$schema")
	if !s.Is(core.JSONString) || s.Str == ApSchemaURL {
		return
	}
	u, err := url.Parse(s.Str)
	if err != nil || !strings.EqualFold(u.Host, "agent-plugins.org") {
		return
	}
	m.Report(pluginApSchema, s.Span, model.V(model.Unknown),
		"%s may not load this plugin: Agent Plugins hosts accept only the 1.0.0 plugin schema URL.",
		core.JReplace("Use the 1.0.0 plugin schema", s.Span, core.JQuote(ApSchemaURL)))
}

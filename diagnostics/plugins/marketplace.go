package plugins

import (
	"unicode"

	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/shared"

	"fmt"
	"path"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ahpls-dev/ahpls/model"
)

// Marketplaces (customization-formats.md §5.6): Claude Code reads only
// .claude-plugin/marketplace.json; Copilot CLI reads all four locations. A
// bare `plugins/x` source is fine for Copilot CLI, which is why the prefix
// rule only fires where Claude Code reads the file.

// MarketplaceRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var MarketplaceRules = []*core.Rule{
	marketRequired, marketName, marketEntry, marketDuplicate, marketSourcePath,
	marketPathMissing, marketSourceObject,
}

var marketRequired = &core.Rule{
	ID:       "market/required",
	Fix:      core.FixUnsafe,
	FixWhy:   "the preferred fix reshapes a value, but a lone fix adds a placeholder field",
	Summary:  "`name`, `owner` (with `name`) or `plugins` is missing or mistyped.",
	Kinds:    "market",
	Severity: "CC REJ · CL REJ.",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "REJ", Source: "Claude Code 2.1.332 `claude plugin validate`: \"name: Invalid input: expected string, received undefined\", \"owner: Invalid input: expected object, received undefined\", \"plugins: Invalid input: expected array, received undefined\""},
	},
}

var marketName = &core.Rule{
	ID:       "market/name",
	Fix:      core.FixUnsafe,
	FixWhy:   "renames the marketplace",
	Summary:  "The marketplace name is not kebab-case, too long or reserved.",
	Kinds:    "market",
	Severity: "impersonation pattern, space, `/`, `..`: CC REJ; other non-kebab-case: CC ok, CL REJ?; over 64: CL REJ?; reserved Anthropic name: CC ? (refused when added from elsewhere).",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "REJ", Source: "Claude Code 2.1.332 `claude plugin validate`: \"Marketplace name impersonates an official Anthropic/Claude marketplace\" (official-claude-tools, claude-marketplace, claude-directory); \"Marketplace name cannot contain spaces\""},
		{Consumer: "CC", Reaction: "ok", Source: "Claude Code 2.1.332 `claude plugin validate` passes Claude_Market, claude-tools and claude-plugins-official"},
		{Consumer: "CC", Reaction: "?", Source: "Claude Code 2.1.332 binary: \"The name … is reserved for official Anthropic marketplaces and can only be used with GitHub sources from the 'anthropics' organization\" (at add time)"},
	},
}

var marketEntry = &core.Rule{
	ID:       "market/entry",
	Summary:  "A plugin entry lacks `name`/`source`, or its name or description is too long.",
	Kinds:    "market",
	Severity: "missing/mistyped name or source, reserved plugin name (outside Anthropic's marketplaces): CC REJ; name over 64, description over 1024: CL REJ? (CC ok).",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "REJ", Source: "Claude Code 2.1.332 `claude plugin validate`: \"plugins.0.name: Invalid input: expected string, received undefined\", \"plugins.0.source: Invalid input\", \"plugins[0].name: Plugin name \"claude-bar\" is reserved\""},
		{Consumer: "CC", Reaction: "ok", Source: "Claude Code 2.1.332 `claude plugin validate` passes a 69-character entry name and a 1030-character description"},
	},
}

var marketDuplicate = &core.Rule{
	ID:       "market/duplicate",
	Summary:  "Two plugin entries share a name; Claude Code rejects the marketplace.",
	Kinds:    "market",
	Severity: "CC REJ.",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "REJ", Source: "Claude Code 2.1.332 `claude plugin validate`: \"plugins[1].name: Duplicate plugin name \"a\" found in marketplace\""},
	},
}

var marketSourcePath = &core.Rule{
	ID:       "market/source-path",
	Fix:      core.FixSafe,
	FixWhy:   "prepends './' to the same path below the marketplace root",
	Summary:  "A local `source` without `./`, leaving the repository, or missing.",
	Kinds:    "market",
	Severity: "no `./`, `..`: CC REJ (CL ok without `./`); folder missing: CC LOSE (that entry cannot be installed; the marketplace loads).",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "REJ", Source: "Claude Code 2.1.332 `claude plugin validate`: \"plugins.0.source: Invalid string: must start with \"./\"\"; \"Path contains \"..\" … Plugin source paths are resolved relative to the marketplace root (the directory containing .claude-plugin/)\""},
		{Consumer: "CC", Reaction: "LOSE", Source: "Claude Code 2.1.332 `claude plugin validate` passes a marketplace whose \"./q\" source does not exist"},
	},
}

var marketPathMissing = &core.Rule{
	ID:       "market/path-missing",
	Fix:      core.FixUnsafe,
	FixWhy:   "points the entry at the sibling folder whose SKILL.md has the missing folder's name, or removes the entry",
	Summary:  "A `skills`, `agents` or `commands` path of a plugin entry that does not exist.",
	Kinds:    "market",
	Severity: "CC LOSE (the plugin installs without that component; `validate` passes).",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "LOSE", Source: "Claude Code 2.1.332: `claude plugin validate` passes a marketplace entry with \"skills\": [\"./skills/pptx\"] that does not exist; `claude plugin install` succeeds and `claude plugin list --json` shows the plugin enabled with errors \"Path not found: …/skills/pptx (skills)\""},
	},
}

var marketSourceObject = &core.Rule{
	ID:       "market/source-object",
	Fix:      core.FixUnsafe,
	FixWhy:   "guesses the source kind",
	Summary:  "An object `source` of unknown kind or missing its required field.",
	Kinds:    "market",
	Severity: "CC REJ.",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "REJ", Source: "Claude Code 2.1.332 `claude plugin validate`: \"plugins.0.source: Invalid input\" for {\"source\": \"gitlub\"} and for a github source without \"repo\""},
	},
}

var (
	// marketReserved are the further names Claude Code 2.1.332 keeps for
	// Anthropic beside officialMarketplaces; validation passes them, adding
	// them is refused unless they come from Anthropic's GitHub organisation.
	marketReserved = []string{"claude-community", "claude-plugins-community", "claude-plugin-directory"}
	// sourceKinds maps an object source's `source` to the fields it needs.
	sourceKinds = map[string][]string{
		"github":     {"repo"},
		"url":        {"url"},
		"git":        {"url"},
		"git-subdir": {"url"},
		"npm":        {"package"},
		"pip":        {"package"},
		"archive":    {"url", "sha256"},
	}
	SourceKindNames = []string{"github", "url", "git", "git-subdir", "npm", "pip", "archive"}
)

func CheckMarketplace(f core.File, r *core.Reporter) {
	if cxFallback(f) {
		checkCodexMarketplaceFile(f, r, false) // Codex reads it too
	}
	readers := core.JVCL
	if model.ClaudeMarketplace(f.Path) {
		readers = core.JVCCCL
	}
	// Local sources are relative to the marketplace root, the folder that
	// holds .claude-plugin/ (issue #13, repro 4: a marketplace below the
	// workspace root).
	mroot, _ := model.MarketplaceRoot(f.Path)
	c := core.NewJSONCheck(f, r, "marketplace", readers)
	doc := c.Parse()
	if doc == nil {
		return
	}
	rej := model.Verdicts{model.TargetClaudeCode: model.Reject, model.TargetCopilotCLI: model.Reject}
	if !doc.Is(core.JSONObject) {
		c.Report(marketRequired, doc.Span, rej, fmt.Sprintf("%%s cannot load this marketplace: it is %s, not an object.", doc.Kind))
		return
	}
	skeleton := map[string]string{
		"name":    `"name": "my-marketplace"`,
		"owner":   `"owner": {"name": "your-name"}`,
		"plugins": `"plugins": []`,
	}
	for _, key := range []string{"name", "owner", "plugins"} {
		m := doc.Member(key)
		if m == nil {
			c.Report(marketRequired, core.OpenBrace(doc), rej, fmt.Sprintf("%%s cannot load this marketplace: it has no '%s'.", key),
				model.Fix{Title: fmt.Sprintf("Add '%s'", key), Edits: []model.Edit{core.JInsertMember(doc, skeleton[key])}})
			continue
		}
		v := m.Value
		switch key {
		case "name":
			if !v.Is(core.JSONString) {
				c.Report(marketRequired, v.Span, rej, fmt.Sprintf("%%s cannot load this marketplace: 'name' is %s, not a string.", v.Kind))
			} else {
				checkMarketName(c, v)
			}
		case "owner":
			switch {
			case !v.Is(core.JSONObject):
				var fixes []model.Fix
				if v.Is(core.JSONString) {
					fixes = append(fixes, core.JReplace("Use {\"name\": …}", v.Span, `{"name": `+core.JQuote(v.Str)+`}`))
				}
				c.Report(marketRequired, v.Span, rej, "%s cannot load this marketplace: 'owner' must be an object such as {\"name\": \"…\"}.", fixes...)
			case !v.Get("name").Is(core.JSONString):
				c.Report(marketRequired, v.Span, rej, "%s cannot load this marketplace: 'owner' needs a 'name' string.")
			}
		case "plugins":
			if !v.Is(core.JSONArray) {
				c.Report(marketRequired, v.Span, rej, fmt.Sprintf("%%s cannot load this marketplace: 'plugins' is %s, not an array.", v.Kind))
			}
		}
	}
	plugins := doc.Get("plugins")
	if !plugins.Is(core.JSONArray) {
		return
	}
	pluginRoot := ""
	if pr := doc.Get("metadata").Get("pluginRoot"); pr.Is(core.JSONString) {
		pluginRoot = pr.Str
	}
	seen := map[string]*core.JSONValue{}
	for _, e := range plugins.Items {
		checkMarketEntry(c, e, seen, mroot, pluginRoot)
	}
}

func checkMarketName(c *core.JSONCheck, v *core.JSONValue) {
	name := v.Str
	if !JKebabRe().MatchString(name) {
		var fixes []model.Fix
		if k := JKebab(name); k != "" {
			fixes = append(fixes, core.JReplace(fmt.Sprintf("Use kebab-case: '%s'", k), v.Span, core.JQuote(k)))
		}
		// Claude Code's marketplace schema refuses only spaces, control
		// characters and path separators ("Marketplace name cannot contain
		// spaces"); `Claude_Market` validates clean.
		verd := model.Verdicts{model.TargetCopilotCLI: model.Reject.Unverified()}
		verb := "may not load this marketplace"
		if strings.ContainsAny(name, " /\\") || strings.Contains(name, "..") {
			verd[model.TargetClaudeCode] = model.Reject
			verb = "cannot load this marketplace"
		}
		c.Report(marketName, BadNameSpan(c.Text, v, false), verd,
			fmt.Sprintf("%%s %s: name '%s' may use only a–z, 0–9 and single '-'.", verb, core.JClip(name)), fixes...)
	}
	if n := utf8.RuneCountInString(name); n > 64 {
		c.Report(marketName, v.Span, model.Verdicts{model.TargetCopilotCLI: model.Reject.Unverified()},
			fmt.Sprintf("%%s may not load this marketplace: its name has %d characters, more than 64.", n))
	}
	switch {
	case core.JHas(officialMarketplaces, strings.ToLower(name)) || core.JHas(marketReserved, strings.ToLower(name)):
		// Validation passes; adding the marketplace is refused unless it
		// comes from Anthropic's GitHub organisation, which a file cannot show.
		c.Report(marketName, v.Span, model.Verdicts{model.TargetClaudeCode: model.Unknown},
			fmt.Sprintf("%%s adds a marketplace named '%s' only from Anthropic's GitHub organisation: the name is reserved.", core.JClip(name)))
	case impersonatesAnthropic(name):
		c.Report(marketName, v.Span, model.Verdicts{model.TargetClaudeCode: model.Reject},
			fmt.Sprintf("%%s cannot load this marketplace: the name '%s' reads as an official Anthropic/Claude marketplace.", core.JClip(name)))
	}
}

var (
	impersonationRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)official[^a-z0-9]*(anthropic|claude)|(anthropic|claude)[^a-z0-9]*official|^(anthropic|claude)[^a-z0-9]*(marketplace|plugins|official|directory|directories)`)
	})
	joinedRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(anthropic|claude)(marketplace|plugins|official|directory|directories)s?$`)
	})
	nonAlnumRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-z0-9]+`) })
)

// impersonatesAnthropic is our reading of Claude Code 2.1.332's
// marketplace-name check ("Marketplace name impersonates an official
// Anthropic/Claude marketplace"), a pattern rather than a list: non-ASCII
// look-alikes, "official" beside "claude"/"anthropic", or a name that starts
// with claude/anthropic followed by marketplace, plugins, official or
// directory — also when the words are run together. Checked against the
// validator: official-claude-tools, claude-marketplace, anthropic-plugins-x,
// my-claude-official and claude-directory are refused; claude-tools,
// cc-plugin-x and Claude_Market pass.
func impersonatesAnthropic(name string) bool {
	lower := strings.ToLower(name)
	for _, r := range name {
		if r < 0x20 || r > 0x7e {
			return true
		}
	}
	if impersonationRe().MatchString(lower) || impersonationRe().MatchString(strings.TrimLeft(lower, "-_. ")) {
		return true
	}
	joined := nonAlnumRe().ReplaceAllString(lower, "")
	for _, s := range []string{"officialanthropic", "officialclaude", "anthropicofficial", "claudeofficial"} {
		if strings.Contains(joined, s) {
			return true
		}
	}
	acc := ""
	for _, w := range nonAlnumRe().Split(lower, -1) {
		acc += w
		if joinedRe().MatchString(acc) {
			return true
		}
		if len(acc) > 30 {
			break
		}
	}
	return false
}

func checkMarketEntry(c *core.JSONCheck, e *core.JSONValue, seen map[string]*core.JSONValue, mroot, pluginRoot string) {
	rej := model.Verdicts{model.TargetClaudeCode: model.Reject, model.TargetCopilotCLI: model.Reject.Unverified()}
	if !e.Is(core.JSONObject) {
		c.Report(marketEntry, e.Span, rej, fmt.Sprintf("%%s cannot load this marketplace: a plugin entry is %s, not an object.", e.Kind))
		return
	}
	name := e.Get("name")
	switch {
	case name == nil:
		c.Report(marketEntry, core.OpenBrace(e), rej, "%s cannot load this marketplace: a plugin entry has no 'name'.")
	case !name.Is(core.JSONString):
		c.Report(marketEntry, name.Span, rej, fmt.Sprintf("%%s cannot load this marketplace: an entry's 'name' is %s, not a string.", name.Kind))
	default:
		if n := utf8.RuneCountInString(name.Str); n > 64 {
			// Claude Code 2.1.332 validates a 69-character entry name clean.
			c.Report(marketEntry, name.Span, model.Verdicts{model.TargetCopilotCLI: model.Reject.Unverified()}, fmt.Sprintf("%%s may not load this marketplace: plugin name '%s…' has %d characters, more than 64.", core.JClip(name.Str), n))
		}
		if reservedPluginName(name.Str) && !officialMarket(c) {
			c.Report(marketEntry, name.Span, model.Verdicts{model.TargetClaudeCode: model.Reject},
				fmt.Sprintf("%%s cannot load this marketplace: plugin name '%s' is reserved for Anthropic's own plugins.", core.JClip(name.Str)))
		}
		if first, dup := seen[name.Str]; dup {
			if c.Report(marketDuplicate, name.Span, model.Verdicts{model.TargetClaudeCode: model.Reject},
				fmt.Sprintf("%%s cannot load this marketplace: two entries are named '%s'.", core.JClip(name.Str))) {
				c.Related(first.Span, "first entry with this name")
			}
		} else {
			seen[name.Str] = name
		}
	}
	if d := e.Get("description"); d.Is(core.JSONString) {
		if n := utf8.RuneCountInString(d.Str); n > 1024 {
			// Claude Code 2.1.332 validates a 1030-character description clean.
			c.Report(marketEntry, d.Span, model.Verdicts{model.TargetCopilotCLI: model.Reject.Unverified()}, fmt.Sprintf("%%s may not load this marketplace: an entry's description has %d characters, more than 1024.", n))
		}
	}
	src := e.Get("source")
	switch {
	case src == nil:
		c.Report(marketEntry, core.OpenBrace(e), rej, "%s cannot load this marketplace: a plugin entry has no 'source'.")
	case src.Is(core.JSONString):
		sourcePath(c, src, mroot, pluginRoot)
		if rel, ok := localSourceRel(src.Str, pluginRoot); ok {
			checkMarketVersion(c, e, path.Join(mroot, rel))
			entryPaths(c, e, path.Join(mroot, rel))
		}
	case src.Is(core.JSONObject):
		sourceObject(c, src)
	default:
		c.Report(marketSourceObject, src.Span, model.Verdicts{model.TargetClaudeCode: model.Reject},
			fmt.Sprintf("%%s cannot load this marketplace: 'source' is %s, not a path or a source object.", src.Kind))
	}
	for _, s := range []*core.JSONValue{src, e.Get("name"), e.Get("description")} {
		for _, sp := range core.TokenSpans(c.Text, s, shared.ClaudeRootToken) {
			c.Report(shared.TokenPluginRoot, sp, c.All(model.Lose), "%s will not expand '${CLAUDE_PLUGIN_ROOT}' in a marketplace: write paths relative to it, starting './'.")
		}
	}
}

// entryPaths reports inline component paths of an entry (relative to its
// plugin folder, as in plugin.json) that do not exist. Claude Code 2.1.332
// installs the plugin anyway and lists "Path not found: … (skills)" among
// its errors: the component is missing, the rest loads.
func entryPaths(c *core.JSONCheck, e *core.JSONValue, pluginDir string) {
	if c.F.FS == nil {
		return
	}
	for _, key := range []string{"skills", "agents", "commands"} {
		v := e.Get(key)
		items := []*core.JSONValue{v}
		var list *core.JSONValue
		if v.Is(core.JSONArray) {
			items, list = v.Items, v
		}
		member := e.Member(key)
		for _, it := range items {
			if !it.Is(core.JSONString) {
				continue
			}
			p := it.Str
			if p == "" || strings.Contains(p, "${") || strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") || strings.Contains(p, "://") || len(p) > 1 && p[1] == ':' {
				continue
			}
			rel := path.Join(pluginDir, strings.ReplaceAll(p, "\\", "/"))
			if rel == ".." || strings.HasPrefix(rel, "../") {
				continue
			}
			if _, err := c.F.FS.Stat(rel); err != nil {
				c.Report(marketPathMissing, it.Span, model.Verdicts{model.TargetClaudeCode: model.Lose},
					fmt.Sprintf("%%s will install this plugin without these %s: '%s' does not exist.", key, core.JClip(p)),
					missingPathFixes(c.F, c.Text, key, it, rel, list, member)...)
			}
		}
	}
}

func sourcePath(c *core.JSONCheck, v *core.JSONValue, mroot, pluginRoot string) {
	p := v.Str
	if strings.Contains(p, "${") {
		return
	}
	clean := path.Clean(strings.ReplaceAll(p, "\\", "/"))
	// A leading backslash is a root as much as a slash ('\\..' cleans to
	// '/..'): prefixing './' would turn it into a path that leaves.
	if strings.HasPrefix(p, "/") || strings.HasPrefix(clean, "/") || strings.HasPrefix(p, "~") || len(p) > 1 && p[1] == ':' || clean == ".." || strings.HasPrefix(clean, "../") {
		c.Report(marketSourcePath, v.Span, model.Verdicts{model.TargetClaudeCode: model.Reject},
			fmt.Sprintf("%%s cannot load this marketplace: source '%s' leaves the repository.", core.JClip(p)))
		return
	}
	// "." is the marketplace root itself: Claude Code 2.1.332's schema takes
	// the literal "." or a string starting with "./" (#25 P5).
	if pluginRoot == "" && !strings.HasPrefix(p, "./") && p != "." {
		c.Report(marketSourcePath, v.Span, model.Verdicts{model.TargetClaudeCode: model.Reject},
			fmt.Sprintf("%%s cannot load this marketplace: local source '%s' must start with './'.", core.JClip(p)),
			core.JReplace("Prefix with './'", v.Span, core.JQuote("./"+p)))
	}
	rel, ok := localSourceRel(p, pluginRoot)
	if c.F.FS == nil || !ok || rel == "." {
		return
	}
	rel = path.Join(mroot, rel)
	if info, err := c.F.FS.Stat(rel); err != nil || !info.IsDir() {
		// The marketplace still loads: Claude Code 2.1.332's validator
		// passes a missing local source; only installing that entry fails.
		c.Report(marketSourcePath, v.Span, model.Verdicts{model.TargetClaudeCode: model.Lose, model.TargetCopilotCLI: model.Lose.Unverified()},
			fmt.Sprintf("%%s cannot install this plugin: folder '%s' does not exist.", core.JClip(rel)))
	}
}

// localSourceRel resolves a string source to a workspace-relative folder;
// ok is false for sources that leave the workspace or hold variables.
func localSourceRel(p, pluginRoot string) (string, bool) {
	if strings.Contains(p, "${") || strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") || len(p) > 1 && p[1] == ':' {
		return "", false
	}
	rel := path.Clean(strings.ReplaceAll(p, "\\", "/"))
	if pluginRoot != "" && !strings.HasPrefix(p, "./") {
		rel = path.Clean(path.Join(pluginRoot, p))
	}
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	return rel, true
}

func sourceObject(c *core.JSONCheck, v *core.JSONValue) {
	rej := model.Verdicts{model.TargetClaudeCode: model.Reject}
	kind := v.Get("source")
	if !kind.Is(core.JSONString) {
		c.Report(marketSourceObject, v.Span, rej, fmt.Sprintf("%%s cannot load this marketplace: a source object needs \"source\": one of %s.", core.JListOr(SourceKindNames)))
		return
	}
	need, ok := sourceKinds[kind.Str]
	if !ok {
		var fixes []model.Fix
		if best, ok := core.JClosest(kind.Str, SourceKindNames, 2); ok {
			fixes = append(fixes, core.JReplace(fmt.Sprintf("Use '%s'", best), kind.Span, core.JQuote(best)))
		}
		c.Report(marketSourceObject, kind.Span, rej, fmt.Sprintf("%%s cannot load this marketplace: unknown source kind '%s'.", core.JClip(kind.Str)), fixes...)
		return
	}
	for _, k := range need {
		if !v.Get(k).Is(core.JSONString) {
			c.Report(marketSourceObject, v.Span, rej, fmt.Sprintf("%%s cannot load this marketplace: a '%s' source needs a '%s' string.", kind.Str, k))
		}
	}
}

// officialMarket reports a marketplace file named with one of Anthropic's
// allow-listed names, where reserved plugin names are accepted.
func officialMarket(c *core.JSONCheck) bool {
	doc, _ := core.ParseJSONTree(c.Text)
	n := doc.Get("name")
	return n.Is(core.JSONString) && core.JHas(officialMarketplaces, strings.ToLower(n.Str))
}

// kebab turns a name into kebab-case: `Plugin Settings` → `plugin-settings`,
// `myPlugin` → `my-plugin`.
func JKebab(s string) string {
	var b strings.Builder
	prevLower := false
	dash := false
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			prevLower = true
		case r >= 'A' && r <= 'Z':
			if (dash || prevLower) && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(unicode.ToLower(r))
			prevLower = false
		default:
			dash = true
			prevLower = false
		}
	}
	return b.String()
}

// JDropPrefix removes an `org/` or `org:` prefix.
func JDropPrefix(s string) (string, bool) {
	i := strings.LastIndexAny(s, "/:")
	if i < 0 || i == len(s)-1 {
		return s, false
	}
	return s[i+1:], true
}

// BadNameSpan is the span of the characters that break kebab-case in a
// string value: from the first to the last offending character (decoded
// offsets mapped to the source).
func BadNameSpan(text []byte, v *core.JSONValue, allowDot bool) model.Span {
	s := v.Str
	first, last := -1, -1
	mark := func(i, n int) {
		if first < 0 {
			first = i
		}
		last = i + n
	}
	for i, r := range s {
		n := len(string(r))
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || allowDot && r == '.'
		if r == '-' {
			ok = i > 0 && i+1 < len(s) && s[i-1] != '-'
		}
		if !ok {
			mark(i, n)
		}
	}
	if first < 0 {
		return v.Span
	}
	return v.StrSpan(text, first, last)
}

var JKebabRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`) })

package shared

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"

	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"github.com/ahpls-dev/ahpls/model"
)

// MCP server configs (customization-formats.md §5.8): the workspace root's
// .mcp.json (Claude Code, and the agent host through the virtual plugin),
// plugin .mcp.json / mcp.json / .github/mcp.json, and `mcpServers` inline in
// a plugin manifest, which share the server walk below.

// MCPRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var MCPRules = []*core.Rule{
	mcpWrapper, mcpType, mcpCommand, mcpUrlNoType, mcpUrl, mcpSse, mcpFieldType, mcpName,
	mcpSecret,
}

var mcpWrapper = &core.Rule{
	ID:       "mcp/wrapper",
	Fix:      core.FixUnsafe,
	FixWhy:   "renames the wrapper, so consumers that skipped the servers start them",
	Summary:  "The servers are not under `mcpServers` (`servers` is the .vscode/mcp.json shape).",
	Kinds:    "mcp",
	Severity: "`servers`: CC, V SKIP every server; a bare map in the root `.mcp.json`: CC ?.",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "SKIP", Source: "Claude Code 2.1.332 `claude plugin validate` on a plugin .mcp.json: {\"servers\": …} → \"Invalid input: expected string, received undefined. The plugin loader silently drops this server at load.\""},
		{Consumer: "V", Reaction: "ok (plugin)", Source: "src/vs/platform/agentPlugins/common/pluginParsers.ts resolveMcpServersMap takes the wrapped or the flat map"},
	},

	WholeFile: true,
}

var mcpType = &core.Rule{
	ID:       "mcp/type",
	Fix:      core.FixUnsafe,
	FixWhy:   "guesses the type",
	Summary:  "A server `type` no consumer supports.",
	Kinds:    "mcp",
	Severity: "DROP (the server; V also drops `ws`).",
	Evidence: []core.Evidence{
		{Consumer: "V", Reaction: "SKIP (`ws`)", Source: "src/vs/platform/agentPlugins/common/pluginParsers.ts normalizeMcpServerConfiguration returns undefined for type ws"},
		{Consumer: "CC", Reaction: "ok (`ws`)", Source: "Claude Code 2.1.332 `claude plugin validate` on a plugin .mcp.json passes {\"type\": \"ws\", \"url\": \"wss://…\"}"},
	},
}

var mcpCommand = &core.Rule{
	ID:       "mcp/command",
	Summary:  "A stdio server without a `command`.",
	Kinds:    "mcp",
	Severity: "All DROP (the server).",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "SKIP", Source: "Claude Code 2.1.332 `claude plugin validate` on a plugin .mcp.json: {\"type\": \"stdio\"} → \"Invalid input: expected string, received undefined. The plugin loader silently drops this server at load.\""},
		{Consumer: "V", Reaction: "SKIP", Source: "src/vs/platform/agentPlugins/common/pluginParsers.ts normalizeMcpServerConfiguration returns undefined for a local server without command"},
	},
}

var mcpUrlNoType = &core.Rule{
	ID:       "mcp/url-no-type",
	Fix:      core.FixUnsafe,
	FixWhy:   "guesses the transport",
	Summary:  "A server with `url` but no `type`, which Claude Code reads as stdio and drops.",
	Kinds:    "mcp",
	Severity: "CC DROP (read as stdio, the server is dropped) · V ok (remote).",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "SKIP", Source: "Claude Code 2.1.332 `claude plugin validate` on a plugin .mcp.json: \"server has a \"url\" but no \"type\" … parsed as a stdio server, fails for lacking \"command\", and is silently dropped at load.\""},
		{Consumer: "V", Reaction: "ok", Source: "src/vs/platform/agentPlugins/common/pluginParsers.ts normalizeMcpServerConfiguration reads a url without type as remote"},
	},
}

var mcpUrl = &core.Rule{
	ID:       "mcp/url",
	Summary:  "A remote server without an absolute http(s) `url`.",
	Kinds:    "mcp",
	Severity: "All DROP (the server).",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "SKIP", Source: "Claude Code 2.1.332 `claude plugin validate` on a plugin .mcp.json: \"url is not a valid absolute URL … The plugin loader marks this server as invalid config and it never connects.\""},
	},
}

var mcpSse = &core.Rule{
	ID:       "mcp/sse",
	Fix:      core.FixUnsafe,
	FixWhy:   "changes the transport",
	Summary:  "The `sse` transport, which Claude Code documents as deprecated in favour of `http`.",
	Kinds:    "mcp",
	Severity: "CC SPEC (deprecated).",
}

var mcpFieldType = &core.Rule{
	ID:       "mcp/field-type",
	Summary:  "`args`, `env`, `headers`, `cwd` or `envFile` of the wrong type.",
	Kinds:    "mcp",
	Severity: "V LOSE (bad values dropped) · CC DROP (the server).",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "SKIP (entry)", Source: "Claude Code 2.1.332 `claude plugin validate` on a plugin .mcp.json: {\"args\": \"a\"} → \"Invalid input: expected array, received string. The plugin loader silently drops this server at load.\""},
		{Consumer: "V", Reaction: "LOSE", Source: "src/vs/platform/agentPlugins/common/pluginParsers.ts normalizeMcpServerConfiguration keeps only string args and string/number env values"},
	},
}

var mcpName = &core.Rule{
	ID:       "mcp/name",
	Fix:      core.FixUnsafe,
	FixWhy:   "renames a server",
	Summary:  "A server name Claude Code warns about or reserves.",
	Kinds:    "mcp",
	Severity: "bad characters: CC WARN?; reserved: CC DROP (the server).",
}

var mcpSecret = &core.Rule{
	ID:       "mcp/secret",
	Fix:      core.FixUnsafe,
	FixWhy:   "replaces a literal with a variable the environment must then hold",
	Summary:  "A literal credential in `headers` or `env`.",
	Kinds:    "mcp",
	Severity: "Warning [I] (Agent Plugins forbid literal secrets).",
}

var (
	MCPTypes         = []string{"stdio", "http", "streamable-http", "sse"}
	mcpReservedNames = []string{"workspace", "claude-in-chrome", "computer-use", "Claude Preview", "Claude Browser"}
	mcpNameRe        = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]+$`) })
)

// mcpWalk carries how this file's servers are read.
type mcpWalk struct {
	c *core.JSONCheck
	// expands reports which targets expand ${CLAUDE_PLUGIN_ROOT} here.
	expands map[model.Target]bool
}

func CheckMCPFile(f core.File, r *core.Reporter) {
	format, root := core.JPluginOf(f)
	readers := core.JReadersFor(format)
	// The workspace's own .mcp.json, unless the workspace folder is itself
	// a plugin root: then it is that plugin's config, read as it would be
	// from any ancestor folder (issue #13, repro 3).
	workspaceConfig := f.Path == ".mcp.json" && format == model.FormatNone
	if workspaceConfig {
		readers = core.JVCC
	}
	c := core.NewJSONCheck(f, r, "MCP config", readers)
	c.Format, c.PluginRoot = format, root
	doc := c.Parse()
	if doc == nil {
		return
	}
	if !doc.Is(core.JSONObject) {
		c.Report(mcpWrapper, doc.Span, c.All(model.Skip), fmt.Sprintf("%%s will load no server from this file: its top level is %s, not an object.", doc.Kind))
		return
	}
	w := NewMCPWalk(c, format)
	if format == model.FormatNone && !workspaceConfig {
		// A plugin's config whose format is unknown (no Layout): the root
		// token may expand there, so say nothing about it.
		for _, t := range core.JSONReaders {
			w.expands[t] = true
		}
	}
	if m := doc.Member("mcpServers"); m != nil {
		if !m.Value.Is(core.JSONObject) {
			c.Report(mcpWrapper, m.Value.Span, c.All(model.Skip), fmt.Sprintf("%%s will load no server from this file: 'mcpServers' is %s, not an object.", m.Value.Kind))
			return
		}
		w.Servers(m.Value)
		w.duplicates(m.Value)
		return
	}
	if m := doc.Member("servers"); m != nil {
		c.Report(mcpWrapper, m.KeySpan, c.All(model.Skip),
			"%s will skip every server here: this file lists them under 'mcpServers', not 'servers'.",
			RenameKeyFix(m, "mcpServers"))
		if m.Value.Is(core.JSONObject) {
			w.Servers(m.Value)
			w.duplicates(m.Value)
		}
		return
	}
	// Codex's form (`mcp_servers`, the key of its config.toml) beside a
	// .codex-plugin/ manifest: another product's file, not a map whose
	// one server is named 'mcp_servers' (#25 corpus P7b). Nothing to say.
	if doc.Member("mcp_servers") != nil {
		return
	}
	// A bare map of servers: accepted in plugins; unverified at the root.
	if workspaceConfig && len(doc.Members) > 0 {
		c.Report(mcpWrapper, model.Span{Start: doc.Span.Start, End: doc.Span.Start + 1}, model.Verdicts{model.TargetClaudeCode: model.Unknown},
			"%s may not load these servers: the workspace .mcp.json is documented with a top-level 'mcpServers' object.",
			model.Fix{Title: "Wrap in \"mcpServers\"", Edits: []model.Edit{
				{Span: model.Span{Start: doc.Span.Start, End: doc.Span.Start}, NewText: `{"mcpServers": `},
				{Span: model.Span{Start: doc.Span.End, End: doc.Span.End}, NewText: `}`},
			}})
	}
	w.Servers(doc)
	w.duplicates(doc)
}

func NewMCPWalk(c *core.JSONCheck, format model.PluginFormat) *mcpWalk {
	w := &mcpWalk{c: c, expands: map[model.Target]bool{}}
	switch format {
	case model.FormatClaude:
		w.expands[model.TargetClaudeCode] = true
		fallthrough
	case model.FormatCopilot, model.FormatOpenPlugin:
		// VS Code's MCP loader expands both root tokens in these formats.
		w.expands[model.TargetVSCode] = true
		w.expands[model.TargetVSCodeAgentHost] = true
	}
	return w
}

func (w *mcpWalk) Servers(obj *core.JSONValue) {
	for _, m := range obj.Members {
		w.server(m)
	}
}

func (w *mcpWalk) server(m *core.JSONMember) {
	c := w.c
	w.name(m)
	s := m.Value
	if !s.Is(core.JSONObject) {
		c.Report(mcpCommand, s.Span, c.All(model.Drop), fmt.Sprintf("%%s will skip server '%s': it is %s, not an object.", core.JClip(m.Key), s.Kind))
		return
	}
	typ := ""
	tm := s.Member("type")
	if tm != nil {
		if !tm.Value.Is(core.JSONString) {
			c.Report(mcpType, tm.Value.Span, c.All(model.Drop), fmt.Sprintf("%%s will skip server '%s': its 'type' is %s, not a string.", core.JClip(m.Key), tm.Value.Kind))
			return
		}
		typ = tm.Value.Str
		switch {
		case typ == "ws":
			c.Report(mcpType, tm.Value.Span, model.V(model.Drop).With(model.Verdicts{model.TargetClaudeCode: model.OK, model.TargetCopilotCLI: model.Drop}),
				fmt.Sprintf("%%s will skip server '%s': the 'ws' transport is Claude Code's only.", core.JClip(m.Key)))
		case !core.JHas(MCPTypes, typ):
			var fixes []model.Fix
			if best, ok := closestMCPType(typ); ok {
				fixes = append(fixes, core.JReplace(fmt.Sprintf("Use '%s'", best), tm.Value.Span, core.JQuote(best)))
			}
			c.Report(mcpType, tm.Value.Span, c.All(model.Drop),
				fmt.Sprintf("%%s will skip server '%s': unknown type '%s'.", core.JClip(m.Key), core.JClip(typ)), fixes...)
			return
		case typ == "sse":
			c.Report(mcpSse, tm.Value.Span, model.Verdicts{model.TargetClaudeCode: model.Spec},
				"Claude Code documents the 'sse' transport as deprecated; servers that support it use 'http'.",
				core.JReplace("Use \"http\"", tm.Value.Span, `"http"`))
		}
	}
	um := s.Member("url")
	remote := typ != "" && typ != "stdio" || typ == "" && um != nil
	if typ == "" && um != nil {
		c.Report(mcpUrlNoType, um.KeySpan, model.Verdicts{model.TargetClaudeCode: model.Drop},
			fmt.Sprintf("%%s will drop server '%s': without a 'type' it is read as stdio, which has no 'url'.", core.JClip(m.Key)),
			model.Fix{Title: "Add \"type\": \"http\"", Preferred: true, Edits: []model.Edit{{Span: model.Span{Start: um.KeySpan.Start, End: um.KeySpan.Start}, NewText: `"type": "http", `}}})
	}
	if remote {
		w.url(m, um, typ)
	} else {
		cm := s.Member("command")
		switch {
		case cm == nil:
			c.Report(mcpCommand, m.KeySpan, c.All(model.Drop), fmt.Sprintf("%%s will skip server '%s': a stdio server needs a 'command'.", core.JClip(m.Key)))
		case !cm.Value.Is(core.JSONString) || strings.TrimSpace(cm.Value.Str) == "":
			c.Report(mcpCommand, cm.Value.Span, c.All(model.Drop), fmt.Sprintf("%%s will skip server '%s': its 'command' must be a non-empty string.", core.JClip(m.Key)))
		}
	}
	w.fields(m)
	w.security(m, remote, um)
}

// security runs the security rules on a server: its command line, its
// environment and a plain-http url.
func (w *mcpWalk) security(m *core.JSONMember, remote bool, um *core.JSONMember) {
	c := w.c
	if remote {
		if um != nil {
			plainHTTPURL(c, um.Value, "MCP server")
		}
		return
	}
	commandRisks(c, m.Value.Get("command"))
	if args := m.Value.Get("args"); args.Is(core.JSONArray) {
		for _, a := range args.Items {
			commandRisks(c, a)
		}
	}
	if env := m.Value.Get("env"); env.Is(core.JSONObject) {
		for _, e := range env.Members {
			if e.Value.Is(core.JSONString) && e.Value.Str == "0.0.0.0" {
				c.Fixed(secBindAll, e.Value.Span, model.SeverityWarning,
					"'0.0.0.0' listens on every network interface: the server is reachable from other machines. Use 127.0.0.1 to keep it local.")
			}
		}
	}
}

func closestMCPType(typ string) (string, bool) {
	switch strings.ToLower(typ) {
	case "local", "command", "process":
		return "stdio", true
	case "remote", "streamable", "streamablehttp", "streamable_http", "https":
		return "http", true
	}
	return core.JClosest(typ, MCPTypes, 3)
}

func (w *mcpWalk) name(m *core.JSONMember) {
	c := w.c
	if core.JHas(mcpReservedNames, m.Key) {
		c.Report(mcpName, m.KeySpan, model.Verdicts{model.TargetClaudeCode: model.Drop},
			fmt.Sprintf("%%s will skip server '%s': the name is reserved for a built-in server.", core.JClip(m.Key)),
			RenameKeyFix(m, m.Key+"-server"))
		return
	}
	if !mcpNameRe().MatchString(m.Key) {
		fixed := strings.Trim(regexp.MustCompile(`[^A-Za-z0-9_-]+`).ReplaceAllString(m.Key, "-"), "-")
		var fixes []model.Fix
		if fixed != "" {
			fixes = append(fixes, RenameKeyFix(m, fixed))
		}
		c.Report(mcpName, m.KeySpan, model.Verdicts{model.TargetClaudeCode: model.Warn.Unverified()},
			fmt.Sprintf("%%s may warn about server name '%s': names may use only letters, digits, '_' and '-'.", core.JClip(m.Key)), fixes...)
	}
}

func (w *mcpWalk) url(m *core.JSONMember, um *core.JSONMember, typ string) {
	c := w.c
	if um == nil {
		c.Report(mcpUrl, m.KeySpan, c.All(model.Drop), fmt.Sprintf("%%s will skip server '%s': a '%s' server needs a 'url'.", core.JClip(m.Key), typ))
		return
	}
	v := um.Value
	if !v.Is(core.JSONString) {
		c.Report(mcpUrl, v.Span, c.All(model.Drop), fmt.Sprintf("%%s will skip server '%s': its 'url' is %s, not a string.", core.JClip(m.Key), v.Kind))
		return
	}
	if strings.HasPrefix(v.Str, "${") {
		return // the scheme comes from a variable
	}
	u, err := url.Parse(v.Str)
	schemes := []string{"http", "https"}
	if typ == "ws" {
		schemes = []string{"ws", "wss"}
	}
	if err != nil || !core.JHas(schemes, strings.ToLower(u.Scheme)) || u.Host == "" {
		c.Report(mcpUrl, v.Span, c.All(model.Drop),
			fmt.Sprintf("%%s will skip server '%s': '%s' is not an absolute %s:// URL.", core.JClip(m.Key), core.JClip(v.Str), schemes[0]))
	}
}

func (w *mcpWalk) fields(m *core.JSONMember) {
	c := w.c
	bad := model.V(model.Lose).With(model.Verdicts{model.TargetClaudeCode: model.Drop})
	// Claude Code drops the whole server, VS Code only the bad value: say
	// whichever consequence decides the severity here.
	report := func(span model.Span, v model.Verdicts, field, problem string) {
		msg := fmt.Sprintf("%%s will drop bad values from server '%s': its '%s' %s.", core.JClip(m.Key), field, problem)
		if by := c.DecidedBy(v); jHasTarget(by, model.TargetClaudeCode) {
			msg = fmt.Sprintf("%%s will skip server '%s': its '%s' %s.", core.JClip(m.Key), field, problem)
			if len(by) > 1 {
				msg = fmt.Sprintf("%%s will skip server '%s' or drop its bad values: its '%s' %s.", core.JClip(m.Key), field, problem)
			}
		}
		c.Report(mcpFieldType, span, v, msg)
	}
	for _, f := range m.Value.Members {
		v := f.Value
		switch f.Key {
		case "args":
			if !core.JStringList(v) {
				report(v.Span, bad, "args", "must be a list of strings")
			}
		case "cwd", "envFile":
			if !v.Is(core.JSONString) {
				report(v.Span, bad, f.Key, "must be a string, not "+v.Kind.String())
			}
		case "env", "headers":
			if !v.Is(core.JSONObject) {
				report(v.Span, bad, f.Key, "must map names to strings")
				continue
			}
			for _, e := range v.Members {
				if e.Value.Is(core.JSONString) {
					w.secret(m, f.Key, e)
					continue
				}
				vv := bad
				if f.Key == "env" && (e.Value.Is(core.JSONNumber) || e.Value.Is(core.JSONNull)) {
					vv = model.Verdicts{model.TargetClaudeCode: model.Drop} // VS Code takes numbers and null in env
				}
				report(e.Value.Span, vv, f.Key, fmt.Sprintf("must map names to strings ('%s' is %s)", core.JClip(e.Key), e.Value.Kind))
			}
		}
	}
	w.tokens(m)
}

func jHasTarget(ts []model.Target, t model.Target) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}

var secretPrefixes = []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "sk-", "sk_live_", "rk_live_", "xoxb-", "xoxp-", "xoxa-", "xoxs-", "glpat-", "AKIA", "AIza", "npm_", "pypi-"}

var bearerRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?i:bearer|token|basic)\s+([^\s$]{20,})$`) })

func (w *mcpWalk) secret(server *core.JSONMember, field string, e *core.JSONMember) {
	c := w.c
	prefix, secret := looksSecret(e.Value.Str)
	if !secret {
		return
	}
	name := jEnvName(e.Key)
	if field == "headers" {
		name = jEnvName(server.Key) + "_TOKEN"
	}
	repl := prefix + "${" + name + "}"
	c.Fixed(mcpSecret, e.Value.Span, model.SeverityWarning,
		fmt.Sprintf("Anyone who can read this file gets this credential: reference an environment variable such as '${%s}'.", name),
		core.JReplace(fmt.Sprintf("Use ${%s}", name), e.Value.Span, core.JQuote(repl)))
}

// looksSecret reports a whole value that is a credential: a known token
// prefix with a long tail, or an Authorization scheme with a long
// credential (prefix is then the scheme and its space, kept by the fix).
func looksSecret(s string) (prefix string, ok bool) {
	if strings.Contains(s, "${") {
		return "", false
	}
	if sm := bearerRe().FindStringSubmatchIndex(s); sm != nil {
		return s[:sm[2]], true
	}
	for _, p := range secretPrefixes {
		if strings.HasPrefix(s, p) && len(s)-len(p) >= 16 && !strings.ContainsAny(s, " \t") {
			return "", true
		}
	}
	return "", false
}

func jEnvName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(s) {
		if r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "TOKEN"
	}
	return b.String()
}

// tokens reports ${CLAUDE_PLUGIN_ROOT} in the fields where some reader of
// this file does not expand it.
func (w *mcpWalk) tokens(m *core.JSONMember) {
	c := w.c
	v := model.Verdicts{}
	lose := false
	for _, t := range core.JSONReaders {
		if !c.Reads(t) {
			continue
		}
		if w.expands[t] {
			v[t] = model.OK
		} else {
			v[t], lose = model.Lose, true
		}
	}
	if !lose {
		return
	}
	var strs []*core.JSONValue
	for _, f := range m.Value.Members {
		switch f.Key {
		case "command", "url", "cwd", "envFile", "headersHelper":
			strs = append(strs, f.Value)
		case "args":
			if f.Value.Is(core.JSONArray) {
				strs = append(strs, f.Value.Items...)
			}
		case "env", "headers":
			if f.Value.Is(core.JSONObject) {
				for _, e := range f.Value.Members {
					strs = append(strs, e.Value)
				}
			}
		}
	}
	where := "workspace MCP configs"
	switch c.Format {
	case model.FormatAP:
		where = "Agent Plugins packages"
	case model.FormatCopilot:
		where = "Copilot-format plugins"
	}
	for _, s := range strs {
		for _, sp := range core.TokenSpans(c.Text, s, ClaudeRootToken) {
			c.Report(TokenPluginRoot, sp, v, fmt.Sprintf("%%s will leave '${CLAUDE_PLUGIN_ROOT}' empty: it does not expand in %s.", where))
		}
	}
}

var MCPDuplicate = &core.Rule{
	ID:       "mcp/duplicate",
	Fix:      core.FixUnsafe,
	FixWhy:   "renames a server",
	Summary:  "One MCP server name in two files that one consumer merges.",
	Kinds:    "mcp",
	Severity: "V SHADOWED (first wins) · CL LOSE (last wins).",

	NameClash: true,
}

// mcpSources are the files of one plugin whose servers are merged, in the
// order we assume consumers load them (VS Code: first wins).
var mcpSources = []string{".mcp.json", ".github/mcp.json", "mcp.json"}

// duplicates reports servers of this file that an earlier source of the
// same plugin already defines.
func (w *mcpWalk) duplicates(own *core.JSONValue) {
	c := w.c
	if c.Format == model.FormatNone || own == nil {
		return
	}
	self := c.F.Path
	type source struct {
		rel     string
		servers *core.JSONValue
	}
	var earlier []source
	// The effective manifest's inline mcpServers come first.
	for _, loc := range model.ManifestPaths {
		rel := core.JJoin(c.PluginRoot, loc)
		if man, ok := core.ReadJSONFile(c.F, rel); ok {
			if s := man.Get("mcpServers"); s.Is(core.JSONObject) {
				earlier = append(earlier, source{rel, s})
			}
			break
		}
	}
	for _, loc := range mcpSources {
		rel := core.JJoin(c.PluginRoot, loc)
		if rel == self {
			break
		}
		if v, ok := core.ReadJSONFile(c.F, rel); ok {
			earlier = append(earlier, source{rel, mcpServersOf(v)})
		}
	}
	if len(earlier) == 0 || !own.Is(core.JSONObject) {
		return
	}
	for _, m := range own.Members {
		for _, s := range earlier {
			first := s.servers.Member(m.Key)
			if first == nil {
				continue
			}
			v := model.V(model.ShadowedBy).With(model.Verdicts{model.TargetCopilotCLI: model.Lose})
			msg := fmt.Sprintf("%%s will replace server '%s' of '%s' with this one.", core.JClip(m.Key), s.rel)
			if jHasTarget(c.DecidedBy(v), model.TargetVSCode) || jHasTarget(c.DecidedBy(v), model.TargetVSCodeAgentHost) {
				msg = fmt.Sprintf("%%s will skip this server: '%s' already defines '%s'.", s.rel, core.JClip(m.Key))
			}
			if c.Report(MCPDuplicate, m.KeySpan, v, msg, model.Fix{Title: "Rename this server", Edits: []model.Edit{{Span: m.KeySpan, NewText: core.JQuote(m.Key + "-2")}}}) {
				n := len(c.R.Diags) - 1
				c.R.Diags[n].Related = append(c.R.Diags[n].Related, model.Related{Path: s.rel, Span: first.KeySpan, Message: "first definition"})
			}
			break
		}
	}
}

// mcpServersOf returns the object holding an MCP config's servers.
func mcpServersOf(doc *core.JSONValue) *core.JSONValue {
	if s := doc.Get("mcpServers"); s != nil {
		return s
	}
	if s := doc.Get("servers"); s != nil {
		return s
	}
	return doc
}

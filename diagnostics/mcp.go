package diagnostics

import (
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

// mcpRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var mcpRules = []*Rule{
	mcpWrapper, mcpType, mcpCommand, mcpUrlNoType, mcpUrl, mcpSse, mcpFieldType, mcpName,
	mcpSecret,
}

var mcpWrapper = &Rule{
	ID:       "mcp/wrapper",
	Fix:      FixUnsafe,
	FixWhy:   "renames the wrapper, so consumers that skipped the servers start them",
	Summary:  "The servers are not under `mcpServers` (`servers` is the .vscode/mcp.json shape).",
	Kinds:    "mcp",
	Severity: "`servers`: CC, V SKIP every server; a bare map in the root `.mcp.json`: CC ?.",
	Evidence: []Evidence{
		{Consumer: "CC", Reaction: "SKIP", Source: "Claude Code 2.1.332 `claude plugin validate` on a plugin .mcp.json: {\"servers\": …} → \"Invalid input: expected string, received undefined. The plugin loader silently drops this server at load.\""},
		{Consumer: "V", Reaction: "ok (plugin)", Source: "src/vs/platform/agentPlugins/common/pluginParsers.ts resolveMcpServersMap takes the wrapped or the flat map"},
	},

	WholeFile: true,
}

var mcpType = &Rule{
	ID:       "mcp/type",
	Fix:      FixUnsafe,
	FixWhy:   "guesses the type",
	Summary:  "A server `type` no consumer supports.",
	Kinds:    "mcp",
	Severity: "SKIP (V also skips `ws`).",
	Evidence: []Evidence{
		{Consumer: "V", Reaction: "SKIP (`ws`)", Source: "src/vs/platform/agentPlugins/common/pluginParsers.ts normalizeMcpServerConfiguration returns undefined for type ws"},
		{Consumer: "CC", Reaction: "ok (`ws`)", Source: "Claude Code 2.1.332 `claude plugin validate` on a plugin .mcp.json passes {\"type\": \"ws\", \"url\": \"wss://…\"}"},
	},
}

var mcpCommand = &Rule{
	ID:       "mcp/command",
	Summary:  "A stdio server without a `command`.",
	Kinds:    "mcp",
	Severity: "All SKIP.",
	Evidence: []Evidence{
		{Consumer: "CC", Reaction: "SKIP", Source: "Claude Code 2.1.332 `claude plugin validate` on a plugin .mcp.json: {\"type\": \"stdio\"} → \"Invalid input: expected string, received undefined. The plugin loader silently drops this server at load.\""},
		{Consumer: "V", Reaction: "SKIP", Source: "src/vs/platform/agentPlugins/common/pluginParsers.ts normalizeMcpServerConfiguration returns undefined for a local server without command"},
	},
}

var mcpUrlNoType = &Rule{
	ID:       "mcp/url-no-type",
	Fix:      FixUnsafe,
	FixWhy:   "guesses the transport",
	Summary:  "A server with `url` but no `type`, which Claude Code reads as stdio and drops.",
	Kinds:    "mcp",
	Severity: "CC SKIP (read as stdio, dropped) · V ok (remote).",
	Evidence: []Evidence{
		{Consumer: "CC", Reaction: "SKIP", Source: "Claude Code 2.1.332 `claude plugin validate` on a plugin .mcp.json: \"server has a \"url\" but no \"type\" … parsed as a stdio server, fails for lacking \"command\", and is silently dropped at load.\""},
		{Consumer: "V", Reaction: "ok", Source: "src/vs/platform/agentPlugins/common/pluginParsers.ts normalizeMcpServerConfiguration reads a url without type as remote"},
	},
}

var mcpUrl = &Rule{
	ID:       "mcp/url",
	Summary:  "A remote server without an absolute http(s) `url`.",
	Kinds:    "mcp",
	Severity: "All SKIP.",
	Evidence: []Evidence{
		{Consumer: "CC", Reaction: "SKIP", Source: "Claude Code 2.1.332 `claude plugin validate` on a plugin .mcp.json: \"url is not a valid absolute URL … The plugin loader marks this server as invalid config and it never connects.\""},
	},
}

var mcpSse = &Rule{
	ID:       "mcp/sse",
	Fix:      FixUnsafe,
	FixWhy:   "changes the transport",
	Summary:  "The `sse` transport, which Claude Code documents as deprecated in favour of `http`.",
	Kinds:    "mcp",
	Severity: "CC SPEC (deprecated).",
}

var mcpFieldType = &Rule{
	ID:       "mcp/field-type",
	Summary:  "`args`, `env`, `headers`, `cwd` or `envFile` of the wrong type.",
	Kinds:    "mcp",
	Severity: "V LOSE (bad values dropped) · CC SKIP (entry).",
	Evidence: []Evidence{
		{Consumer: "CC", Reaction: "SKIP (entry)", Source: "Claude Code 2.1.332 `claude plugin validate` on a plugin .mcp.json: {\"args\": \"a\"} → \"Invalid input: expected array, received string. The plugin loader silently drops this server at load.\""},
		{Consumer: "V", Reaction: "LOSE", Source: "src/vs/platform/agentPlugins/common/pluginParsers.ts normalizeMcpServerConfiguration keeps only string args and string/number env values"},
	},
}

var mcpName = &Rule{
	ID:       "mcp/name",
	Fix:      FixUnsafe,
	FixWhy:   "renames a server",
	Summary:  "A server name Claude Code warns about or reserves.",
	Kinds:    "mcp",
	Severity: "bad characters: CC WARN?; reserved: CC SKIP.",
}

var mcpSecret = &Rule{
	ID:       "mcp/secret",
	Fix:      FixUnsafe,
	FixWhy:   "replaces a literal with a variable the environment must then hold",
	Summary:  "A literal credential in `headers` or `env`.",
	Kinds:    "mcp",
	Severity: "Warning [I] (Agent Plugins forbid literal secrets).",
}

var (
	mcpTypes         = []string{"stdio", "http", "streamable-http", "sse"}
	mcpReservedNames = []string{"workspace", "claude-in-chrome", "computer-use", "Claude Preview", "Claude Browser"}
	mcpNameRe        = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]+$`) })
)

// mcpWalk carries how this file's servers are read.
type mcpWalk struct {
	c *jsonCheck
	// expands reports which targets expand ${CLAUDE_PLUGIN_ROOT} here.
	expands map[model.Target]bool
}

func checkMCPFile(f File, r *reporter) {
	format, root := jPluginOf(f)
	readers := jReadersFor(format)
	// The workspace's own .mcp.json, unless the workspace folder is itself
	// a plugin root: then it is that plugin's config, read as it would be
	// from any ancestor folder (issue #13, repro 3).
	workspaceConfig := f.Path == ".mcp.json" && format == model.FormatNone
	if workspaceConfig {
		readers = jVCC
	}
	c := newJSONCheck(f, r, "MCP config", readers)
	c.format, c.pluginRoot = format, root
	doc := c.parse()
	if doc == nil {
		return
	}
	if !doc.Is(JSONObject) {
		c.report(mcpWrapper, doc.Span, c.all(model.Skip), fmt.Sprintf("%%s will load no server from this file: its top level is %s, not an object.", doc.Kind))
		return
	}
	w := newMCPWalk(c, format)
	if format == model.FormatNone && !workspaceConfig {
		// A plugin's config whose format is unknown (no Layout): the root
		// token may expand there, so say nothing about it.
		for _, t := range jsonReaders {
			w.expands[t] = true
		}
	}
	if m := doc.Member("mcpServers"); m != nil {
		if !m.Value.Is(JSONObject) {
			c.report(mcpWrapper, m.Value.Span, c.all(model.Skip), fmt.Sprintf("%%s will load no server from this file: 'mcpServers' is %s, not an object.", m.Value.Kind))
			return
		}
		w.servers(m.Value)
		w.duplicates(m.Value)
		return
	}
	if m := doc.Member("servers"); m != nil {
		c.report(mcpWrapper, m.KeySpan, c.all(model.Skip),
			"%s will skip every server here: this file lists them under 'mcpServers', not 'servers'.",
			renameKeyFix(m, "mcpServers"))
		if m.Value.Is(JSONObject) {
			w.servers(m.Value)
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
		c.report(mcpWrapper, model.Span{Start: doc.Span.Start, End: doc.Span.Start + 1}, model.Verdicts{model.TargetClaudeCode: model.Unknown},
			"%s may not load these servers: the workspace .mcp.json is documented with a top-level 'mcpServers' object.",
			model.Fix{Title: "Wrap in \"mcpServers\"", Edits: []model.Edit{
				{Span: model.Span{Start: doc.Span.Start, End: doc.Span.Start}, NewText: `{"mcpServers": `},
				{Span: model.Span{Start: doc.Span.End, End: doc.Span.End}, NewText: `}`},
			}})
	}
	w.servers(doc)
	w.duplicates(doc)
}

func newMCPWalk(c *jsonCheck, format model.PluginFormat) *mcpWalk {
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

func (w *mcpWalk) servers(obj *JSONValue) {
	for _, m := range obj.Members {
		w.server(m)
	}
}

func (w *mcpWalk) server(m *JSONMember) {
	c := w.c
	w.name(m)
	s := m.Value
	if !s.Is(JSONObject) {
		c.report(mcpCommand, s.Span, c.all(model.Skip), fmt.Sprintf("%%s will skip server '%s': it is %s, not an object.", jClip(m.Key), s.Kind))
		return
	}
	typ := ""
	tm := s.Member("type")
	if tm != nil {
		if !tm.Value.Is(JSONString) {
			c.report(mcpType, tm.Value.Span, c.all(model.Skip), fmt.Sprintf("%%s will skip server '%s': its 'type' is %s, not a string.", jClip(m.Key), tm.Value.Kind))
			return
		}
		typ = tm.Value.Str
		switch {
		case typ == "ws":
			c.report(mcpType, tm.Value.Span, model.V(model.Skip).With(model.Verdicts{model.TargetClaudeCode: model.OK, model.TargetCopilotCLI: model.Skip}),
				fmt.Sprintf("%%s will skip server '%s': the 'ws' transport is Claude Code's only.", jClip(m.Key)))
		case !jHas(mcpTypes, typ):
			var fixes []model.Fix
			if best, ok := closestMCPType(typ); ok {
				fixes = append(fixes, jReplace(fmt.Sprintf("Use '%s'", best), tm.Value.Span, jQuote(best)))
			}
			c.report(mcpType, tm.Value.Span, c.all(model.Skip),
				fmt.Sprintf("%%s will skip server '%s': unknown type '%s'.", jClip(m.Key), jClip(typ)), fixes...)
			return
		case typ == "sse":
			c.report(mcpSse, tm.Value.Span, model.Verdicts{model.TargetClaudeCode: model.Spec},
				"Claude Code documents the 'sse' transport as deprecated; servers that support it use 'http'.",
				jReplace("Use \"http\"", tm.Value.Span, `"http"`))
		}
	}
	um := s.Member("url")
	remote := typ != "" && typ != "stdio" || typ == "" && um != nil
	if typ == "" && um != nil {
		c.report(mcpUrlNoType, um.KeySpan, model.Verdicts{model.TargetClaudeCode: model.Skip},
			fmt.Sprintf("%%s will drop server '%s': without a 'type' it is read as stdio, which has no 'url'.", jClip(m.Key)),
			model.Fix{Title: "Add \"type\": \"http\"", Preferred: true, Edits: []model.Edit{{Span: model.Span{Start: um.KeySpan.Start, End: um.KeySpan.Start}, NewText: `"type": "http", `}}})
	}
	if remote {
		w.url(m, um, typ)
	} else {
		cm := s.Member("command")
		switch {
		case cm == nil:
			c.report(mcpCommand, m.KeySpan, c.all(model.Skip), fmt.Sprintf("%%s will skip server '%s': a stdio server needs a 'command'.", jClip(m.Key)))
		case !cm.Value.Is(JSONString) || strings.TrimSpace(cm.Value.Str) == "":
			c.report(mcpCommand, cm.Value.Span, c.all(model.Skip), fmt.Sprintf("%%s will skip server '%s': its 'command' must be a non-empty string.", jClip(m.Key)))
		}
	}
	w.fields(m)
	w.security(m, remote, um)
}

// security runs the security rules on a server: its command line, its
// environment and a plain-http url.
func (w *mcpWalk) security(m *JSONMember, remote bool, um *JSONMember) {
	c := w.c
	if remote {
		if um != nil {
			c.plainHTTPURL(um.Value, "MCP server")
		}
		return
	}
	c.commandRisks(m.Value.Get("command"))
	if args := m.Value.Get("args"); args.Is(JSONArray) {
		for _, a := range args.Items {
			c.commandRisks(a)
		}
	}
	if env := m.Value.Get("env"); env.Is(JSONObject) {
		for _, e := range env.Members {
			if e.Value.Is(JSONString) && e.Value.Str == "0.0.0.0" {
				c.fixed(secBindAll, e.Value.Span, model.SeverityWarning,
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
	return jClosest(typ, mcpTypes, 3)
}

func (w *mcpWalk) name(m *JSONMember) {
	c := w.c
	if jHas(mcpReservedNames, m.Key) {
		c.report(mcpName, m.KeySpan, model.Verdicts{model.TargetClaudeCode: model.Skip},
			fmt.Sprintf("%%s will skip server '%s': the name is reserved for a built-in server.", jClip(m.Key)),
			renameKeyFix(m, m.Key+"-server"))
		return
	}
	if !mcpNameRe().MatchString(m.Key) {
		fixed := strings.Trim(regexp.MustCompile(`[^A-Za-z0-9_-]+`).ReplaceAllString(m.Key, "-"), "-")
		var fixes []model.Fix
		if fixed != "" {
			fixes = append(fixes, renameKeyFix(m, fixed))
		}
		c.report(mcpName, m.KeySpan, model.Verdicts{model.TargetClaudeCode: model.Warn.Unverified()},
			fmt.Sprintf("%%s may warn about server name '%s': names may use only letters, digits, '_' and '-'.", jClip(m.Key)), fixes...)
	}
}

func (w *mcpWalk) url(m *JSONMember, um *JSONMember, typ string) {
	c := w.c
	if um == nil {
		c.report(mcpUrl, m.KeySpan, c.all(model.Skip), fmt.Sprintf("%%s will skip server '%s': a '%s' server needs a 'url'.", jClip(m.Key), typ))
		return
	}
	v := um.Value
	if !v.Is(JSONString) {
		c.report(mcpUrl, v.Span, c.all(model.Skip), fmt.Sprintf("%%s will skip server '%s': its 'url' is %s, not a string.", jClip(m.Key), v.Kind))
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
	if err != nil || !jHas(schemes, strings.ToLower(u.Scheme)) || u.Host == "" {
		c.report(mcpUrl, v.Span, c.all(model.Skip),
			fmt.Sprintf("%%s will skip server '%s': '%s' is not an absolute %s:// URL.", jClip(m.Key), jClip(v.Str), schemes[0]))
	}
}

func (w *mcpWalk) fields(m *JSONMember) {
	c := w.c
	bad := model.V(model.Lose).With(model.Verdicts{model.TargetClaudeCode: model.Skip})
	// Claude Code drops the whole server, VS Code only the bad value: say
	// whichever consequence decides the severity here.
	report := func(span model.Span, v model.Verdicts, field, problem string) {
		msg := fmt.Sprintf("%%s will drop bad values from server '%s': its '%s' %s.", jClip(m.Key), field, problem)
		if jHasTarget(c.decidedBy(v), model.TargetClaudeCode) {
			msg = fmt.Sprintf("%%s will skip server '%s': its '%s' %s.", jClip(m.Key), field, problem)
		}
		c.report(mcpFieldType, span, v, msg)
	}
	for _, f := range m.Value.Members {
		v := f.Value
		switch f.Key {
		case "args":
			if !jStringList(v) {
				report(v.Span, bad, "args", "must be a list of strings")
			}
		case "cwd", "envFile":
			if !v.Is(JSONString) {
				report(v.Span, bad, f.Key, "must be a string, not "+v.Kind.String())
			}
		case "env", "headers":
			if !v.Is(JSONObject) {
				report(v.Span, bad, f.Key, "must map names to strings")
				continue
			}
			for _, e := range v.Members {
				if e.Value.Is(JSONString) {
					w.secret(m, f.Key, e)
					continue
				}
				vv := bad
				if f.Key == "env" && (e.Value.Is(JSONNumber) || e.Value.Is(JSONNull)) {
					vv = model.Verdicts{model.TargetClaudeCode: model.Skip} // VS Code takes numbers and null in env
				}
				report(e.Value.Span, vv, f.Key, fmt.Sprintf("must map names to strings ('%s' is %s)", jClip(e.Key), e.Value.Kind))
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

func (w *mcpWalk) secret(server *JSONMember, field string, e *JSONMember) {
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
	c.fixed(mcpSecret, e.Value.Span, model.SeverityWarning,
		fmt.Sprintf("Anyone who can read this file gets this credential: reference an environment variable such as '${%s}'.", name),
		jReplace(fmt.Sprintf("Use ${%s}", name), e.Value.Span, jQuote(repl)))
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
func (w *mcpWalk) tokens(m *JSONMember) {
	c := w.c
	v := model.Verdicts{}
	lose := false
	for _, t := range jsonReaders {
		if !c.reads(t) {
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
	var strs []*JSONValue
	for _, f := range m.Value.Members {
		switch f.Key {
		case "command", "url", "cwd", "envFile", "headersHelper":
			strs = append(strs, f.Value)
		case "args":
			if f.Value.Is(JSONArray) {
				strs = append(strs, f.Value.Items...)
			}
		case "env", "headers":
			if f.Value.Is(JSONObject) {
				for _, e := range f.Value.Members {
					strs = append(strs, e.Value)
				}
			}
		}
	}
	where := "workspace MCP configs"
	switch c.format {
	case model.FormatAP:
		where = "Agent Plugins packages"
	case model.FormatCopilot:
		where = "Copilot-format plugins"
	}
	for _, s := range strs {
		for _, sp := range tokenSpans(c.text, s, claudeRootToken) {
			c.report(tokenPluginRoot, sp, v, fmt.Sprintf("%%s will leave '${CLAUDE_PLUGIN_ROOT}' empty: it does not expand in %s.", where))
		}
	}
}

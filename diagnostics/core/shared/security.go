package shared

// Security findings (issue #29): configurations that run or expose more than
// their author likely means. No consumer reacts to them — a `curl … | sh`
// hook runs fine — so each severity is ahpls's own ([I]) and each rule's
// Severity line states the risk. The scanners here are pure functions of a
// string; the hooks, MCP, settings and Markdown walks map what they find to
// source spans.

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"

	"net"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/ahpls-dev/ahpls/model"
)

// SecurityRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var SecurityRules = []*core.Rule{secRemoteExec, secDestructive, secPlainHTTP, secBindAll, secSecret, secBypass, secUnscopedBash}

const secCommandKinds = "hooks, settings, mcp, plugin (`mcpServers`, `hooks`), agent/ccagent/skill/cmd frontmatter `hooks:`"

var secRemoteExec = &core.Rule{
	ID:       "security/remote-exec",
	Summary:  "A hook or MCP server command pipes a download into a shell or interpreter (`curl … | sh`, `bash <(wget …)`, `irm … | iex`).",
	Kinds:    secCommandKinds,
	Severity: "Warning [I]; risk: whoever controls that URL runs any code on the user's machine each time the hook or server starts, and nothing pins or reviews what is downloaded.",
}

var secDestructive = &core.Rule{
	ID:       "security/destructive",
	Summary:  "A hook or MCP server command deletes recursively from `/`, `~` or `$HOME` (`rm -rf /`, `rm -rf ~/`).",
	Kinds:    secCommandKinds,
	Severity: "Warning [I]; risk: one run deletes the user's home folder or the whole file system; agents run hooks unattended.",
}

var secPlainHTTP = &core.Rule{
	ID:       "security/plain-http",
	Fix:      core.FixUnsafe,
	FixWhy:   "changes the address the client connects to; the server may not serve https",
	Summary:  "A remote MCP server or an `http` hook at a plain `http://` URL on another machine (loopback addresses are fine).",
	Kinds:    "mcp, plugin (`mcpServers`), hooks, settings",
	Severity: "Warning [I]; risk: tool calls, their results and any `headers` credential cross the network unencrypted, readable and changeable by anyone on the path.",
}

var secBindAll = &core.Rule{
	ID:       "security/bind-all",
	Summary:  "A hook or MCP server command or environment that binds `0.0.0.0`, every network interface.",
	Kinds:    secCommandKinds,
	Severity: "Warning [I]; risk: the server started for the agent is reachable from the whole network, not only from this machine; `127.0.0.1` keeps it local.",
}

var secSecret = &core.Rule{
	ID:       "security/secret",
	Summary:  "A literal credential (a GitHub, OpenAI, Anthropic, Slack, GitLab, AWS, Google, npm or PyPI token) in a hook, an MCP command, settings `env` or an AGENTS.md/CLAUDE.md file; `mcp/secret` covers MCP `env` and `headers`.",
	Kinds:    "hooks, settings, mcp, plugin, memory, agent/ccagent/skill/cmd frontmatter `hooks:`",
	Severity: "Warning [I]; risk: everyone who can read the repository gets the credential, and it stays in the history after removal; placeholders (`EXAMPLE`, `xxxx`, low-variety tails) are not reported.",
}

var secBypass = &core.Rule{
	ID:       "security/bypass-permissions",
	Summary:  "`permissionMode: bypassPermissions` in a project subagent, or `permissions.defaultMode: \"bypassPermissions\"` in settings.",
	Kinds:    "ccagent, settings",
	Severity: "Warning [I]; risk: every tool call runs without asking, including shell commands and file writes a prompt injection asks for.",
}

var secUnscopedBash = &core.Rule{
	ID:       "security/unscoped-bash",
	Summary:  "`Bash` (or `Bash(*)`) without a command pattern in `allowed-tools` or in settings `permissions.allow`.",
	Kinds:    "skill, cmd, settings",
	Severity: "Warning [I]; risk: any shell command runs without asking while the skill or command is active; scope it (`Bash(git status:*)`).",
}

// secHit is one finding in a string: [Start, End) in the decoded string.
type secHit struct {
	Rule       *core.Rule
	start, end int
	msg        string
}

var (
	// A download piped into a shell or interpreter, directly or through sudo.
	pipeToShellRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(?:curl|wget)\b[^|;&\n]*\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+)?(?:(?:ba|z|da|k|fi)?sh|python[0-9.]*|perl|ruby|node)\b`)
	})
	// The shell reads the download: bash <(curl …), sh -c "$(curl …)".
	shellReadsRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(?:(?:ba|z|da|k)?sh)\s+(?:-c\s+)?["']?(?:<\(|\$\()\s*(?:curl|wget)\b`)
	})
	// PowerShell's forms: irm … | iex, iex (irm …), iex (New-Object Net.WebClient).DownloadString(…).
	psPipeRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:irm|iwr|invoke-restmethod|invoke-webrequest)\b[^|;\n]*\|\s*(?:iex|invoke-expression)\b`)
	})
	psCallRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:iex|invoke-expression)\b\s*\(?\s*(?:\(?\s*(?:irm|iwr|invoke-restmethod|invoke-webrequest)\b|\(?\s*new-object\s+(?:system\.)?net\.webclient\))`)
	})
	rmRe      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\brm\s+((?:-{1,2}[A-Za-z-]+\s+)+)(\S+)`) })
	bindAllRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|[^0-9.])0\.0\.0\.0(?:[^0-9.]|$|\.[^0-9])`) })
)

// CommandRisks scans one command string (a hook command, an MCP command or
// argument) for the command rules.
func CommandRisks(s string) []secHit {
	var out []secHit
	for i, re := range []*regexp.Regexp{pipeToShellRe(), shellReadsRe(), psPipeRe(), psCallRe()} {
		for _, loc := range re.FindAllStringIndex(s, -1) {
			if i == 0 && !readsStdin(s[loc[0]:loc[1]], s[loc[1]:]) {
				continue
			}
			out = append(out, secHit{secRemoteExec, loc[0], loc[1],
				"This command runs code downloaded at run time: whoever controls the URL runs anything here. Download, review and pin the script instead."})
		}
	}
	for _, loc := range rmRe().FindAllStringSubmatchIndex(s, -1) {
		flags := s[loc[2]:loc[3]]
		target := strings.Trim(s[loc[4]:loc[5]], `"'`)
		if !rmRecursive(flags) || !rootTarget(target) {
			continue
		}
		out = append(out, secHit{secDestructive, loc[0], loc[5],
			"This command deletes '" + target + "' recursively: one run erases the home folder or the whole disk."})
	}
	for _, loc := range bindAllRe().FindAllStringIndex(s, -1) {
		i := strings.Index(s[loc[0]:loc[1]], "0.0.0.0") + loc[0]
		out = append(out, secHit{secBindAll, i, i + len("0.0.0.0"),
			"'0.0.0.0' listens on every network interface: the server is reachable from other machines. Use 127.0.0.1 to keep it local."})
	}
	return out
}

// readsStdin reports whether the program a download is piped into runs
// it: a shell unless given -c, an interpreter only with no script of its
// own (`| python3 -m json.tool` parses JSON, `| python3` runs code).
func readsStdin(match, rest string) bool {
	rest = strings.TrimLeft(rest, " \t")
	shell := strings.HasSuffix(match, "sh")
	if shell {
		return !strings.HasPrefix(rest, "-c")
	}
	if strings.HasPrefix(rest, "- ") || rest == "-" {
		return true
	}
	return rest == "" || strings.ContainsRune(";&|)\n'\"", rune(rest[0]))
}

// rmRecursive reports rm flags that delete recursively (-r, -R, --recursive).
func rmRecursive(flags string) bool {
	for _, f := range strings.Fields(flags) {
		if f == "--recursive" || !strings.HasPrefix(f, "--") && strings.ContainsAny(f, "rR") {
			return true
		}
	}
	return false
}

// rootTarget is a path whose recursive deletion erases the disk or the home folder.
func rootTarget(t string) bool {
	t = strings.TrimRight(t, ";&|")
	switch strings.TrimSuffix(strings.TrimSuffix(t, "*"), "/") {
	case "", "~", "$HOME", "${HOME}", "/.":
		return true
	}
	return false
}

var (
	secretTokenRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,}|sk-ant-[A-Za-z0-9_-]{30,}|sk-proj-[A-Za-z0-9_-]{30,}|sk-[A-Za-z0-9]{32,}|[sr]k_live_[A-Za-z0-9]{20,}|xox[abps]-[A-Za-z0-9-]{20,}|glpat-[A-Za-z0-9_-]{20,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35}|npm_[A-Za-z0-9]{36,}|pypi-[A-Za-z0-9_-]{50,}`)
	})
	secretPrefixRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:gh[pousr]_|github_pat_|sk-ant-|sk-proj-|sk-|[sr]k_live_|xox[abps]-|glpat-|AKIA|AIza|npm_|pypi-)`)
	})
)

// SecretsIn finds credentials in free text (a command line, a Markdown
// file): a known token prefix, a tail long and varied enough to be real.
func SecretsIn(s string) [][2]int {
	var out [][2]int
	for _, loc := range secretTokenRe().FindAllStringIndex(s, -1) {
		if loc[0] > 0 && tokenChar(s[loc[0]-1]) || loc[1] < len(s) && tokenChar(s[loc[1]]) {
			continue // part of a longer word
		}
		if plausibleSecret(s[loc[0]:loc[1]]) {
			out = append(out, [2]int{loc[0], loc[1]})
		}
	}
	return out
}

func tokenChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// plausibleSecret drops documentation placeholders: a tail of one case and
// no digits, a repeated character, the words docs use.
func plausibleSecret(tok string) bool {
	tail := tok[len(secretPrefixRe().FindString(tok)):]
	low := strings.ToLower(tail)
	for _, w := range []string{"example", "xxxx", "your", "placeholder", "0000", "1234", "abcd", "redacted", "dummy", "fake", "sample", "token", "secret"} {
		if strings.Contains(low, w) {
			return false
		}
	}
	digits, letters := false, false
	seen := map[rune]bool{}
	for _, r := range tail {
		seen[r] = true
		switch {
		case r >= '0' && r <= '9':
			digits = true
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			letters = true
		}
	}
	return digits && letters && len(seen) >= 10
}

const secretMsg = "Anyone who can read this file gets this credential: read it from an environment variable instead, and revoke it."

// localHost reports a loopback or unspecified host, where plain http stays
// on this machine.
func localHost(h string) bool {
	h = strings.Trim(h, "[]")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") || h == "host.docker.internal" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && (ip.IsLoopback() || ip.IsUnspecified())
}

// PlainHTTP reports an http:// URL to another machine.
func PlainHTTP(s string) bool {
	if !strings.HasPrefix(strings.ToLower(s), "http://") || strings.Contains(s, "${") {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && u.Hostname() != "" && !localHost(u.Hostname())
}

// jsonCommandRisks reports the command rules and secrets in a JSON string.
func commandRisks(c *core.JSONCheck, v *core.JSONValue) {
	if !v.Is(core.JSONString) {
		return
	}
	for _, h := range CommandRisks(v.Str) {
		c.Fixed(h.Rule, v.StrSpan(c.Text, h.start, h.end), model.SeverityWarning, h.msg)
	}
	secrets(c, v)
}

// secrets reports credentials inside a JSON string.
func secrets(c *core.JSONCheck, v *core.JSONValue) {
	if !v.Is(core.JSONString) {
		return
	}
	for _, loc := range SecretsIn(v.Str) {
		c.Fixed(secSecret, v.StrSpan(c.Text, loc[0], loc[1]), model.SeverityWarning, secretMsg)
	}
}

// secretValue reports a whole JSON value that is a credential (env and
// header values), with mcp/secret's detector.
func secretValue(c *core.JSONCheck, v *core.JSONValue) {
	if !v.Is(core.JSONString) {
		return
	}
	if _, ok := looksSecret(v.Str); ok {
		c.Fixed(secSecret, v.Span, model.SeverityWarning, secretMsg)
		return
	}
	secrets(c, v)
}

// plainHTTPURL reports an http:// URL to another machine.
func plainHTTPURL(c *core.JSONCheck, v *core.JSONValue, what string) {
	if v.Is(core.JSONString) && PlainHTTP(v.Str) {
		c.Fixed(secPlainHTTP, v.Span, model.SeverityWarning,
			"This "+what+" is reached over plain http on another machine: anyone on the network can read and change the traffic. Use https.",
			core.JReplace("Use https", v.StrSpan(c.Text, 0, len("http")), "https"))
	}
}

// SettingsSecurity checks settings' `env`, `permissions.defaultMode` and
// `permissions.allow`.
func SettingsSecurity(c *core.JSONCheck, doc *core.JSONValue) {
	if env := doc.Get("env"); env.Is(core.JSONObject) {
		for _, e := range env.Members {
			secretValue(c, e.Value)
			if e.Value.Is(core.JSONString) && e.Value.Str == "0.0.0.0" {
				c.Fixed(secBindAll, e.Value.Span, model.SeverityWarning,
					"'0.0.0.0' listens on every network interface: the server is reachable from other machines. Use 127.0.0.1 to keep it local.")
			}
		}
	}
	perms := doc.Get("permissions")
	if !perms.Is(core.JSONObject) {
		return
	}
	if dm := perms.Get("defaultMode"); dm.Is(core.JSONString) && dm.Str == "bypassPermissions" {
		c.Fixed(secBypass, dm.Span, model.SeverityWarning,
			"'bypassPermissions' runs every tool call without asking, including what a prompt injection asks for; prefer 'acceptEdits' with allow rules.")
	}
	if allow := perms.Get("allow"); allow.Is(core.JSONArray) {
		for _, it := range allow.Items {
			if it.Is(core.JSONString) && unscopedBash(it.Str) {
				c.Fixed(secUnscopedBash, it.Span, model.SeverityWarning, unscopedBashMsg(it.Str))
			}
		}
	}
}

// unscopedBash is a tool entry that allows every shell command.
func unscopedBash(s string) bool {
	switch strings.TrimSpace(s) {
	case "Bash", "Bash(*)", "Bash(:*)", "Bash(**)", "Bash()":
		return true
	}
	return false
}

func unscopedBashMsg(s string) string {
	return "'" + strings.TrimSpace(s) + "' lets any shell command run without asking; allow only the commands needed, such as 'Bash(git status:*)'."
}

// ToolEntries splits an allowed-tools string into entries with their byte
// offsets: commas and spaces separate them, except inside parentheses.
func ToolEntries(s string) [][2]int {
	var out [][2]int
	depth, start := 0, -1
	for i := 0; i <= len(s); i++ {
		var ch byte = ','
		if i < len(s) {
			ch = s[i]
		}
		switch {
		case ch == '(':
			depth++
		case ch == ')' && depth > 0:
			depth--
		case depth == 0 && (ch == ',' || ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r'):
			if start >= 0 {
				out = append(out, [2]int{start, i})
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	return out
}

// securityFields runs the frontmatter security rules: unscoped Bash in
// allowed-tools, bypassPermissions in a project subagent.
func securityFields(m *core.MDFile) {
	if f := m.Field("allowed-tools"); f != nil && f.DupIndex == 0 && (m.Kind == model.KindSkill || m.Kind == model.KindCommand) {
		for _, e := range toolField(m, f) {
			if unscopedBash(e.entry) {
				m.R.Add(model.Diagnostic{Rule: secUnscopedBash.ID, Severity: model.SeverityWarning, Span: e.span, Message: unscopedBashMsg(e.entry)})
			}
		}
	}
	if f := m.Field("permissionMode"); f != nil && f.DupIndex == 0 && m.Kind == model.KindClaudeAgent && !m.Plugin {
		if s, ok := core.Str(f.V); ok && s == "bypassPermissions" {
			m.R.Add(model.Diagnostic{Rule: secBypass.ID, Severity: model.SeverityWarning, Span: f.ValSpan,
				Message: "'bypassPermissions' runs every tool call of this subagent without asking, including what a prompt injection asks for; prefer 'acceptEdits' or 'default'."})
		}
	}
}

// hookStringRisks reports the command rules and secrets in a frontmatter
// hook's string value; the span is the value's (YAML escapes make offsets
// inside it unreliable).
func hookStringRisks(m *core.MDFile, v *yaml.Node) {
	s, ok := core.Str(v)
	if !ok {
		return
	}
	span := m.Doc.Span(v)
	for _, h := range CommandRisks(s) {
		m.R.Add(model.Diagnostic{Rule: h.Rule.ID, Severity: model.SeverityWarning, Span: span, Message: h.msg})
	}
	if len(SecretsIn(s)) > 0 {
		m.R.Add(model.Diagnostic{Rule: secSecret.ID, Severity: model.SeverityWarning, Span: span, Message: secretMsg})
	}
}

// MemorySecrets reports credentials in an always-on Markdown file.
func MemorySecrets(m *core.MDFile) {
	for _, loc := range SecretsIn(string(m.Text)) {
		m.R.Add(model.Diagnostic{Rule: secSecret.ID, Severity: model.SeverityWarning, Span: model.Span{Start: loc[0], End: loc[1]}, Message: secretMsg})
	}
}

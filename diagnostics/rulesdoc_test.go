package diagnostics

// docs/rules.md is generated: one section per rule from Rules(), the kinds
// and severity line below, and an example taken from the golden fixtures
// (the first finding of the rule there, so every example is a real run).
// TestRulesDocUpToDate fails when the file differs; regenerate with
// `go test ./diagnostics -run TestRulesDocUpToDate -update`.

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/model"
)

const rulesDocPath = "../docs/rules.md"

// ruleDoc is what Rules() does not carry: which kinds a rule applies to and,
// in one line, how its severity follows from the consumers' reactions
// (codes as in the legend at the top of the generated file).
type ruleDoc struct {
	kinds    string
	severity string
}

const (
	mdHeaderKinds = "skill, agent, ccagent, prompt, cmd, instr, rule"
	mdKinds       = "skill, agent, ccagent, prompt, cmd, instr, rule, memory"
	jsonKinds     = "plugin, market, hooks, mcp, settings"
	vsKinds       = "skill, agent, prompt, instr"
	hookKinds     = "hooks, settings (`hooks`), agent/ccagent/skill/cmd frontmatter `hooks:`"
)

var ruleDocs = map[string]ruleDoc{
	"file/too-large":  {"every kind", "Warning [I]; the file is not parsed."},
	"file/unreadable": {"every kind", "Warning [I]; the file is not opened (a FIFO would block, a device never ends, a link out of the folder is not the workspace's)."},
	"file/encoding":   {"every kind", "Error [I]; nothing else is reported."},
	"internal/error":  {"every kind", "Warning [I]; please report it with the file."},

	"fm/bom":           {mdHeaderKinds, "V LOSE (no header: every field lost) · CC ok · AS SPEC."},
	"fm/leading-lines": {mdHeaderKinds, "V LOSE · CC LOSE (skill: AS SKIP; ccagent: as fm/missing)."},
	"fm/missing":       {"skill, ccagent", "skill: V LOSE (folder name, no description) · AS SKIP · CC LOSE; ccagent: CC SKIP (project) or LOSE (plugin: file name)."},
	"fm/unclosed":      {mdHeaderKinds, "V LOSE (all is header; REJ if it fails to parse) · CC: no header (skill LOSE, agent SKIP) · AS SKIP."},
	"fm/inline-dashes": {mdHeaderKinds, "CC: header ends there, SKIP if parsing breaks or name/description is lost, else LOSE · AS SPEC · V ok."},
	"fm/not-mapping":   {mdHeaderKinds, "V REJ · CC REJ (empty metadata)."},
	"fm/crlf":          {"skill", "UP REJ; every other consumer accepts CRLF."},

	"yaml/syntax":           {mdHeaderKinds, "V REJ if its reader errors, else LOSE · CC: skill/cmd LOSE, project agent SKIP, plugin agent REJ · CL ? · AS SKIP."},
	"yaml/unquoted-special": {mdHeaderKinds, "CC ok (retry) · V LOSE (value cut, later keys lost) · CL ? · AS SPEC."},
	"yaml/tab-indent":       {mdHeaderKinds, "CC ok (retry) · V per its reader (REJ on a tab-led block-scalar line) · CL ? · AS SKIP."},
	"yaml/duplicate-key":    {mdHeaderKinds, "V REJ · CC ? · AS SPEC."},
	"yaml/vscode-subset":    {mdHeaderKinds, "`? ` keys, empty `key:`: V REJ; anchors, aliases, tags, `...`: V LOSE."},

	"json/syntax":        {jsonKinds, "All REJ: the plugin is not loaded, the hooks or MCP file is skipped."},
	"json/jsonc":         {jsonKinds, "V ok (JSONC) · CC, CL REJ? (Warning)."},
	"json/duplicate-key": {jsonKinds, "All LOSE: the last value wins."},
	"md/link":            {mdKinds, "V WARN."},

	"field/type":    {vsKinds, "V REJ."},
	"field/empty":   {vsKinds, "V REJ; `argument-hint`: V WARN."},
	"field/bool":    {vsKinds + ", ccagent, cmd", "V REJ · CC ok (`yes/no/on/off/1/0`)."},
	"field/unknown": {vsKinds + ", ccagent, cmd, rule", "V IGN · CC IGN · AS ok · UP REJ (skills); a near miss of a known key: LOSE."},
	"field/renamed": {"skill, agent, prompt", "V WARN (Deprecated tag)."},

	"skill/name-missing":   {"skill", "V WARN (folder name used) · CC ok · CL ? · AS SPEC."},
	"skill/name-charset":   {"skill", "V REJ · CC ok · CL ? · AS SPEC (Unicode lower case allowed) · UP REJ."},
	"skill/name-hyphens":   {"skill", "V ok · AS SPEC · UP REJ."},
	"skill/name-length":    {"skill", "V LOSE (cut to 64, then the folder name) · AS SPEC · UP REJ."},
	"skill/name-dir":       {"skill", "V WARN (loads under the folder name) · CC ok · CL ? · AS SPEC."},
	"skill/name-reserved":  {"skill", "`claude`/`anthropic` in the name: UP REJ; folder `synced`: CC SKIP?."},
	"skill/name-duplicate": {"skill", "Same folder (VS Code ignores case): V SKIP · CL SKIP · CC ok; same `name` in another folder: VH SKIP · CL SKIP?; the first root wins (`.github/skills`, `.claude/skills`, `.agents/skills`); an identical copy: Hint [I]."},
	"skill/desc-missing":   {"skill", "V WARN · AS SKIP · CC WARN (first paragraph used) · CL ?."},
	"skill/desc-empty":     {"skill", "V REJ · AS SKIP."},
	"skill/desc-length":    {"skill", "V LOSE (cut) · AS SPEC · UP REJ."},
	"skill/listing-length": {"skill", "CC LOSE (listing cut)."},
	"skill/desc-xml":       {"skill", "V IGN (stripped) · UP REJ."},
	"skill/compat":         {"skill", "AS SPEC · UP REJ."},
	"skill/metadata":       {"skill", "not a map: CC LOSE, AS SPEC; a non-string value: AS SPEC."},
	"skill/allowed-tools":  {"skill, cmd", "not a string or list: CC REJ; a list: AS SPEC."},
	"skill/enum":           {"skill, cmd", "`shell`: CC REJ · `effort`: CC LOSE · `context`: V REJ?, CC LOSE."},
	"skill/file-name":      {"skill", "V ok · CC ? · CL ? · AS SPEC."},
	"skill/nested":         {"skill", "Never discovered: Warning [I]; Info when the enclosing skill mentions it."},
	"skill/body-lines":     {"skill", "AS SHOULD."},

	"agent/infer":              {"agent", "V REJ (deprecated) · CL IGN."},
	"agent/target":             {"agent", "V REJ."},
	"agent/github-only":        {"agent", "V IGN."},
	"agent/handoff":            {"agent", "V REJ."},
	"agent/handoff-key":        {"agent", "V WARN."},
	"agent/agents":             {"agent", "not a string list: V REJ; `tools` without `agent`: V WARN."},
	"agent/github-permissions": {"agent", "unknown scope: V WARN; bad value: V REJ."},
	"agent/desc-missing":       {"agent", "CL REJ? (GitHub.com requires a description)."},
	"agent/body-length":        {"agent", "CL LOSE? (GitHub.com cap)."},

	"prompt/agent":        {"prompt", "V WARN."},
	"prompt/tools-mode":   {"prompt", "V LOSE (ignored)."},
	"instr/apply-to":      {"instr", "V REJ (never attached automatically)."},
	"instr/glob":          {"instr", "V REJ."},
	"instr/exclude-agent": {"instr", "wrong type: V REJ; unknown agent: CL ? (Info)."},
	"rule/paths":          {"rule", "V REJ · CC ok for a string."},
	"rule/apply-to":       {"rule", "CC IGN, so the rule is always loaded: LOSE."},
	"memory/agents-md":    {"memory", "CC IGN (reads only CLAUDE*.md)."},
	"memory/import":       {"memory", "CC LOSE."},

	"ccagent/name-missing":   {"ccagent", "CC SKIP (project); a plugin agent is named after its file."},
	"ccagent/name-skip":      {"ccagent", "CC SKIP."},
	"ccagent/name-case":      {"ccagent", "CC SPEC (docs only)."},
	"ccagent/desc-missing":   {"ccagent", "CC SKIP (project), WARN (plugin)."},
	"ccagent/enum":           {"ccagent", "CC LOSE · V WARN."},
	"ccagent/color":          {"ccagent", "CC IGN."},
	"ccagent/tools":          {"ccagent", "V REJ · CC ?."},
	"ccagent/plugin-ignored": {"ccagent", "CC LOSE (not applied)."},
	"ccagent/duplicate":      {"ccagent", "CC SKIP (file order decides which one loads); both files are reported."},
	"cmd/argument-hint-list": {"cmd", "CC ok (tolerated) · CL ? · Hint [I]."},
	"cmd/ignored-key":        {"cmd", "CC IGN (the name is the file path)."},

	"plugin/name-missing":      {"plugin", "CC REJ · CL REJ · V ? (folder name)."},
	"plugin/name-format":       {"plugin", "V SKIP · CC: space REJ, other WARN · CL REJ? · AP also allows `.`."},
	"plugin/name-length":       {"plugin", "CL REJ? · AP REJ."},
	"plugin/name-reserved":     {"plugin", "CC REJ (third parties); silent when an official marketplace lists it."},
	"plugin/copies":            {"plugin", "V WARN · CL WARN."},
	"plugin/manifest-location": {"plugin", "V ? (documented, not in the code)."},
	"plugin/field-type":        {"plugin", "`author`, `keywords`, `homepage`: CC REJ; `metadata`, `experimental`: CC WARN."},
	"plugin/version-missing":   {"plugin", "Info [I]: Claude's validator warns; VS Code keys updates on `version`."},
	"plugin/unknown-key":       {"plugin", "CC IGN (warns) · AP IGN; a near miss (`agnets`): LOSE."},
	"plugin/misplaced-key":     {"plugin", "marketplace keys: CC IGN; `themes`/`monitors` at the top: CC WARN."},
	"plugin/path-prefix":       {"plugin", "CC REJ · Copilot format ok."},
	"plugin/path-escape":       {"plugin", "CC REJ · V SKIP (dropped) · AP REJ."},
	"plugin/path-missing":      {"plugin", "CC REJ · V SKIP."},
	"plugin/path-kind":         {"plugin", "CC REJ."},
	"plugin/in-dotdir":         {"plugin", "CC SKIP."},
	"plugin/ap-schema":         {"plugin", "AP fatal · V ?."},
	"market/required":          {"market", "CC REJ · CL REJ."},
	"market/name":              {"market", "not kebab-case, too long: CC REJ, CL REJ; reserved: CC REJ?."},
	"market/entry":             {"market", "CC REJ · CL REJ?."},
	"market/duplicate":         {"market", "CC REJ."},
	"market/source-path":       {"market", "no `./`: CC REJ (CL ok); `..`: CC REJ; folder missing: CC REJ, CL SKIP."},
	"market/source-object":     {"market", "CC REJ."},
	"market/version":           {"market", "CC WARN (plugin.json wins)."},
	"settings/recommendations": {"settings", "V LOSE."},

	"hooks/shape":             {hookKinds, "All REJ (VS Code reads a wrapper-less file's top level: ok)."},
	"hooks/version":           {"hooks", "CL REJ."},
	"hooks/event":             {hookKinds, "Unknown to every effective consumer: SKIP (never runs); to some: LOSE, naming them."},
	"hooks/flat-for-claude":   {hookKinds, "CC REJ."},
	"hooks/matcher-ignored":   {hookKinds, "V LOSE (runs on every such event)."},
	"hooks/matcher-no-effect": {hookKinds, "CC IGN."},
	"hooks/group-key":         {hookKinds, "V WARN in agent `hooks:`, IGN in hook files."},
	"hooks/type":              {hookKinds, "REJ per target (CC: `command http mcp_tool prompt agent`; V, CL: `command`; VH: may be absent)."},
	"hooks/command":           {hookKinds, "REJ per target that finds none of its command fields."},
	"hooks/field-type":        {"hooks, settings", "V LOSE (default used) · CC SKIP (hook dropped) · CL ?."},
	"hooks/field-form":        {"hooks, settings", "IGN, so the value is lost: LOSE."},
	"hooks/unknown-key":       {hookKinds, "V WARN in agent `hooks:`, IGN in hook files · CC ok."},
	"hooks/user-config":       {"hooks, settings", "CC REJ."},
	"hooks/unquoted-root":     {"hooks, settings", "CC WARN."},
	"hooks/script":            {"hooks, settings", "Fails on every run: Warning [I]."},
	"token/plugin-root":       {"hooks, settings, mcp, plugin, market", "LOSE (empty or literal text)."},

	"mcp/wrapper":     {"mcp", "`servers`: CC, V SKIP every server; a bare map in the root `.mcp.json`: CC ?."},
	"mcp/type":        {"mcp", "SKIP (V also skips `ws`)."},
	"mcp/command":     {"mcp", "All SKIP."},
	"mcp/url-no-type": {"mcp", "CC SKIP (read as stdio, dropped) · V ok (remote)."},
	"mcp/url":         {"mcp", "All SKIP."},
	"mcp/sse":         {"mcp", "CC SPEC (deprecated)."},
	"mcp/field-type":  {"mcp", "V LOSE (bad values dropped) · CC SKIP (entry)."},
	"mcp/name":        {"mcp", "bad characters: CC WARN?; reserved: CC SKIP."},
	"mcp/duplicate":   {"mcp", "V SKIP (first wins) · CL LOSE (last wins)."},
	"mcp/secret":      {"mcp", "Warning [I] (Agent Plugins forbid literal secrets)."},
}

// handExamples stand in for rules no fixture on disk can fire.
var handExamples = map[string]docExample{
	"file/unreadable": {path: ".github/skills/pipe/SKILL.md", lang: "text", code: "(a FIFO named SKILL.md: mkfifo .github/skills/pipe/SKILL.md)\n", line: 1, sev: model.SeverityWarning,
		message: "ahpls did not read this file: a FIFO (named pipe), not a regular file. Only regular files inside the workspace folder are checked."},
	"file/too-large": {path: ".github/skills/huge/SKILL.md", lang: "text", code: "(a 5 MiB SKILL.md)\n", line: 1, sev: model.SeverityWarning,
		message: "ahpls does not check files over 4 MiB; this one has 5242880 bytes."},
	"internal/error": {path: ".github/skills/odd/SKILL.md", lang: "text", code: "(any input a rule did not expect)\n", line: 1, sev: model.SeverityWarning,
		message: "ahpls could not finish checking this file (internal error: …); please report it."},
}

// handInputs are run through Check like a fixture would be.
var handInputs = map[string]struct {
	path    string
	text    string
	targets []model.Target
}{
	"file/encoding": {".github/skills/nul/SKILL.md", "---\nname: nul\x00\n---\n", nil},
	"fm/crlf":       {".github/skills/crlf/SKILL.md", "---\r\nname: crlf\r\ndescription: Uses CRLF.\r\n---\r\n", []model.Target{model.TargetClaudeUpload}},
}

type docExample struct {
	path, lang, code string
	// targets is set when the example needs other than the default targets.
	targets   []model.Target
	line, col int
	sev       model.Severity
	message   string
}

// fixtureExamples runs Check over the golden workspace and keeps the first
// finding of each rule (files in sorted order).
func fixtureExamples(t *testing.T) map[string]docExample {
	var files []string
	require.NoError(t, filepath.WalkDir(goldenRoot, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || strings.HasSuffix(p, ".golden") {
			return err
		}
		files = append(files, p)
		return nil
	}))
	sort.Strings(files)
	out := map[string]docExample{}
	for _, p := range files {
		rel := filepath.ToSlash(strings.TrimPrefix(p, goldenRoot+string(filepath.Separator)))
		kind := model.Classify(rel, dirLayout(goldenRoot))
		if kind == model.KindNone {
			continue
		}
		text, err := os.ReadFile(p)
		require.NoError(t, err)
		for _, d := range Check(File{Path: rel, Kind: kind, Text: text, FS: dirFS(goldenRoot), Layout: dirLayout(goldenRoot)}, Options{}) {
			// The first of the most severe findings shows the rule's main case.
			if prev, ok := out[d.Rule]; !ok || d.Severity < prev.sev { // LSP numbering: Error is 1
				out[d.Rule] = makeExample(rel, kind, text, d)
			}
		}
	}
	for id, in := range handInputs {
		text := []byte(in.text)
		for _, d := range Check(File{Path: in.path, Text: text}, Options{Targets: in.targets}) {
			if d.Rule == id {
				ex := makeExample(in.path, model.Classify(in.path, nil), text, d)
				ex.targets = in.targets
				out[id] = ex
				break
			}
		}
	}
	for id, ex := range handExamples {
		out[id] = ex
	}
	return out
}

// makeExample quotes up to three source lines of the finding's span.
func makeExample(rel string, kind model.Kind, text []byte, d model.Diagnostic) docExample {
	idx := model.NewLineIndex(text)
	r := idx.Range(d.Span, model.UTF16)
	lines := strings.Split(strings.ReplaceAll(string(text), "\r\n", "\n"), "\n")
	first, last := r.Start.Line, r.End.Line
	if r.End.Character == 0 && last > first {
		last--
	}
	last = min(last, first+2, len(lines)-1)
	var b strings.Builder
	for i := first; i <= last; i++ {
		l := strings.Map(func(c rune) rune {
			switch {
			case c == '\t':
				return c
			case c == '\uFEFF':
				return -1
			case unicode.IsControl(c):
				return '·'
			}
			return c
		}, lines[i])
		if rs := []rune(l); len(rs) > 120 {
			// Keep the finding in view: start a little before it.
			from := 0
			if i == first && r.Start.Character > 80 {
				from = min(r.Start.Character-40, len(rs)-118)
			}
			l = string(rs[from:min(from+118, len(rs))])
			if from > 0 {
				l = "…" + l
			}
			if from+118 < len(rs) {
				l += "…"
			}
		}
		b.WriteString(l + "\n")
	}
	lang := "markdown"
	switch {
	case !kind.Markdown():
		lang = "json"
	case InHeader(text, d.Span.Start):
		lang = "yaml"
	}
	return docExample{path: rel, lang: lang, code: b.String(), line: r.Start.Line + 1, col: r.Start.Character + 1, sev: d.Severity, message: d.Message}
}

// githubAnchor is the anchor GitHub gives a Markdown heading: lower case,
// punctuation other than '-' and '_' dropped, spaces turned into '-'.
func githubAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

const hrefPrefix = "https://github.com/ahpls-dev/ahpls/blob/main/docs/rules.md#"

var kindTitles = []struct{ prefix, title string }{
	{"file", "Every file"}, {"internal", "Every file"}, {"fm", "Frontmatter"}, {"yaml", "Frontmatter YAML"},
	{"json", "JSON files"}, {"md", "Markdown links"}, {"field", "Shared frontmatter fields"}, {"skill", "Skills (SKILL.md)"},
	{"agent", "VS Code agents (*.agent.md)"}, {"ccagent", "Claude subagents"}, {"prompt", "Prompts"}, {"cmd", "Claude commands"},
	{"instr", "Instructions"}, {"rule", "Claude rules"}, {"memory", "Always-on files (AGENTS.md, CLAUDE.md)"},
	{"plugin", "Plugin manifests"}, {"market", "Marketplaces"}, {"settings", "Settings"}, {"hooks", "Hooks"},
	{"token", "Plugin-root tokens"}, {"mcp", "MCP servers"},
}

func generateRulesDoc(t *testing.T) []byte {
	examples := fixtureExamples(t)
	rules := Rules()
	byPrefix := map[string][]RuleInfo{}
	for _, r := range rules {
		p, _, _ := strings.Cut(r.ID, "/")
		byPrefix[p] = append(byPrefix[p], r)
	}
	var b bytes.Buffer
	b.WriteString(rulesDocIntro)
	fence := "```"
	titled := map[string]bool{}
	for _, kt := range kindTitles {
		rs := byPrefix[kt.prefix]
		if len(rs) == 0 {
			continue
		}
		if !titled[kt.title] { // internal/ shares "Every file" with file/
			titled[kt.title] = true
			fmt.Fprintf(&b, "\n## %s\n", kt.title)
		}
		writeRules(&b, rs, examples, fence)
		delete(byPrefix, kt.prefix)
	}
	// Prefixes without a title: rules of a checker registered from
	// another package.
	var rest []string
	for p := range byPrefix {
		rest = append(rest, p)
	}
	sort.Strings(rest)
	for _, p := range rest {
		fmt.Fprintf(&b, "\n## Other rules: %s\n", p)
		writeRules(&b, byPrefix[p], examples, fence)
	}
	b.WriteString(rulesDocOtherRooms)
	return b.Bytes()
}

// rulesDocOtherRooms documents the rule ids that other rooms report
// (package tools registers tools/config at run time; hostlink publishes the
// rest while an agent host is configured), so their links resolve too.
const rulesDocOtherRooms = `
## Client tools and the agent host

These come from outside the rule engine: the client tool config's own checker and the link to an agent host
(reported only while ` + "`ahpls.host`" + ` is set).

### tools/config

The client tool config (` + "`.ahpls/tools.json`" + `) does not match its JSON Schema (` + "`tools/tools.schema.json`" + `), or a
tool in it could not run as written (a working directory or program outside the workspace, a placeholder as
the program). Error, or Warning for what still works.

### tools/untrusted

The workspace is not trusted (` + "`ahpls.trustWorkspaceTools`" + `), so this command tool is not registered with the
agent host. Warning, on the tool's ` + "`command`" + `.

### publish/excluded

The file has an Error, so it is left out of the virtual plugin published to agent sessions; the message
gives the reason. Warning, on the first line.

### host/load-error

The agent host reports that it could not load a plugin or directory (load state ` + "`error`" + `); shown on the
file its message names, else on the plugin's manifest or first file. Error.

### host/load-degraded

The agent host loaded a plugin or directory with problems (load state ` + "`degraded`" + `). Warning.

### host/mcp-error

The agent host reports that an MCP server failed to start; shown on the server's key in ` + "`.mcp.json`" + `. Error.

### enablement/state

This customization is off in a joined session, or a decision about it is not yet confirmed by the host; the
message gives the reason (its plugin is off, or a scope decided). Hint.
`

func kindTitleOf(prefix string) string {
	for _, kt := range kindTitles {
		if kt.prefix == prefix {
			return kt.title
		}
	}
	return ""
}

func writeRules(b *bytes.Buffer, rs []RuleInfo, examples map[string]docExample, fence string) {
	for _, r := range rs {
		doc := ruleDocs[r.ID]
		fmt.Fprintf(b, "\n### %s\n\n%s\n\n", r.ID, r.Summary)
		if doc.kinds != "" {
			fmt.Fprintf(b, "- **Kinds:** %s\n", doc.kinds)
		}
		if doc.severity != "" {
			fmt.Fprintf(b, "- **Severity:** %s\n", doc.severity)
		}
		ex, ok := examples[r.ID]
		if !ok {
			continue
		}
		where := fmt.Sprintf("`%s` line %d", ex.path, ex.line)
		if ex.col > 0 {
			where += fmt.Sprintf(", column %d", ex.col)
		}
		if len(ex.targets) > 0 {
			var ts []string
			for _, t := range ex.targets {
				ts = append(ts, "`"+string(t)+"`")
			}
			where += " with targets " + strings.Join(ts, ", ")
		}
		f := fence
		for strings.Contains(ex.code, f) {
			f += "`"
		}
		fmt.Fprintf(b, "\nExample, %s:\n\n%s%s\n%s%s\n\n", where, f, ex.lang, ex.code, f)
		fmt.Fprintf(b, "> **%s** %s\n", ex.sev, ex.message)
	}
}

const rulesDocIntro = `# ahpls rules

<!-- Generated by TestRulesDocUpToDate (diagnostics/rulesdoc_test.go) from diagnostics.Rules(); do not edit by hand. -->
<!-- Regenerate: go test ./diagnostics -run TestRulesDocUpToDate -update -->

Every diagnostic ahpls reports carries one of these rule ids as its ` + "`code`" + `, and its link points at the
section below. Each section gives what the rule checks, the file kinds it applies to, how its severity follows
from what each consumer does, and an example taken from ahpls' own test fixtures (checked with the default
targets, ` + "`vscode-agent-host`" + ` and ` + "`agent-skills`" + `, plus the targets a path implies).

Change a rule's severity or turn it off with ` + "`ahpls.rules`" + ` (` + "`{\"skill/name-dir\": \"off\"}`" + `) or
` + "`ahpls check --rule skill/name-dir=off`" + `; choose consumers with ` + "`ahpls.targets`" + ` / ` + "`--targets`" + `.

## How severities are decided

A finding's severity is the most severe reaction among the effective targets that read the file's kind; the
message names those consumers.

| code | consumer |
|---|---|
| V | VS Code and the VS Code agent host (` + "`vscode`" + `, ` + "`vscode-agent-host`" + `) |
| VS / VH | only VS Code / only the VS Code agent host |
| CC | Claude Code (` + "`claude-code`" + `) |
| CL | Copilot CLI and the GitHub.com cloud agent (` + "`copilot-cli`" + `) |
| AS | the Agent Skills spec (` + "`agent-skills`" + `) |
| UP | claude.ai upload and the Skills API (` + "`claude-upload`" + `, opt-in) |
| AP | Agent Plugins 1.0 (no target of its own: its verdicts count as SPEC) |

| reaction | what the consumer does | severity |
|---|---|---|
| SKIP | silently does not load the file or entry | Error |
| REJ | fails loudly (an error, or the file or plugin does not load) | Error |
| LOSE | loads, but silently drops, cuts or changes something | Warning |
| WARN | loads and warns | Warning |
| IGN | ignores an unsupported field, nothing else | Hint, shown faded |
| SPEC | only the spec forbids it | Info |
| SHOULD | a spec recommendation | Hint |
| ok | accepts it | – |

A trailing ` + "`?`" + ` marks an unverified reaction, capped at Warning; a bare ` + "`?`" + ` (unknown) gives at most Info.
**[I]** marks a severity ahpls sets itself.

File kinds: ` + "`skill`" + ` SKILL.md · ` + "`agent`" + ` VS Code agent · ` + "`ccagent`" + ` Claude subagent · ` + "`prompt`" + ` · ` + "`cmd`" + ` Claude command ·
` + "`instr`" + ` instructions · ` + "`rule`" + ` Claude rule · ` + "`memory`" + ` AGENTS.md, CLAUDE.md and friends · ` + "`plugin`" + ` manifest ·
` + "`market`" + ` marketplace · ` + "`hooks`" + ` · ` + "`mcp`" + ` · ` + "`settings`" + `.
`

func TestRulesDocUpToDate(t *testing.T) {
	got := generateRulesDoc(t)
	if *update {
		require.NoError(t, os.WriteFile(rulesDocPath, got, 0o644))
		return
	}
	want, err := os.ReadFile(rulesDocPath)
	require.NoError(t, err, "docs/rules.md is missing; run go test ./diagnostics -run TestRulesDocUpToDate -update")
	assert.Equal(t, string(want), string(got), "docs/rules.md is out of date; run go test ./diagnostics -run TestRulesDocUpToDate -update")
}

// Every rule has a documented section, and the section's heading gets
// exactly the anchor model.RuleHref links to (GitHub numbers repeated
// anchors, so headings must also be unique).
func TestRulesDocAnchors(t *testing.T) {
	doc := string(generateRulesDoc(t))
	anchors := map[string]int{}
	for _, l := range strings.Split(doc, "\n") {
		if h, ok := strings.CutPrefix(l, "#"); ok {
			anchors[githubAnchor(strings.TrimLeft(h, "# "))]++
		}
	}
	for a, n := range anchors {
		assert.Equal(t, 1, n, "heading anchor %q is not unique", a)
	}
	for _, r := range Rules() {
		want, ok := strings.CutPrefix(model.RuleHref(r.ID), hrefPrefix)
		require.True(t, ok, "RuleHref(%s) points elsewhere", r.ID)
		assert.Equal(t, want, githubAnchor(r.ID), "rule %s: GitHub anchor differs from RuleHref", r.ID)
		assert.Contains(t, doc, "\n### "+r.ID+"\n", "rule %s has no section", r.ID)
		d, ok := ruleDocs[r.ID]
		if assert.True(t, ok, "rule %s has no kinds/severity entry in ruleDocs", r.ID) {
			assert.NotEmpty(t, d.kinds, r.ID)
			assert.NotEmpty(t, d.severity, r.ID)
		}
		assert.NotEqual(t, "", kindTitleOf(strings.SplitN(r.ID, "/", 2)[0]), "rule %s: prefix has no section title", r.ID)
	}
	for id := range ruleDocs {
		_, ok := LookupRule(id)
		assert.True(t, ok, "ruleDocs documents %s, which is no rule", id)
	}
}

func TestRulesDocHasAnExampleForEveryRule(t *testing.T) {
	ex := fixtureExamples(t)
	for _, r := range Rules() {
		e, ok := ex[r.ID]
		if assert.True(t, ok, "rule %s has no example", r.ID) {
			assert.NotEmpty(t, e.message, r.ID)
		}
	}
}

func TestGithubAnchor(t *testing.T) {
	for in, want := range map[string]string{
		"skill/name-charset":         "skillname-charset",
		"How severities are decided": "how-severities-are-decided",
		"Skills (SKILL.md)":          "skills-skillmd",
		"a_b/C":                      "a_bc",
	} {
		assert.Equal(t, want, githubAnchor(in), in)
	}
}

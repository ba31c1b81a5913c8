// Command rulesdoc writes docs/rules.md: one section per rule from
// diagnostics.Rules() (its summary, kinds, severity line and evidence), and
// an example taken from the golden fixtures (the first of the most severe
// findings of the rule there, so every example is a real run).
//
// Run it through `go generate ./diagnostics`; its test fails when the
// committed file differs from what it would write.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/tools"
	"github.com/ahpls-dev/ahpls/wsfolder"
)

func main() {
	fixtures := flag.String("fixtures", "testdata/ws", "the golden workspace whose findings give the examples")
	out := flag.String("o", "../docs/rules.md", "the file to write")
	flag.Parse()
	b, err := generate(*fixtures)
	if err == nil {
		err = os.WriteFile(*out, b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "rulesdoc:", err)
		os.Exit(1)
	}
}

// handExamples stand in for rules no fixture on disk can fire.
var handExamples = map[string]docExample{
	"file/unreadable": {path: ".github/skills/pipe/SKILL.md", lang: "text", code: "(a FIFO named SKILL.md: mkfifo .github/skills/pipe/SKILL.md)\n", line: 1, sev: model.SeverityWarning,
		message: "ahpls did not read this file: a FIFO (named pipe), not a regular file. Only regular files inside the workspace folder are checked."},
	"file/too-large": {path: ".github/skills/huge/SKILL.md", lang: "text", code: "(a 5 MiB SKILL.md)\n", line: 1, sev: model.SeverityWarning,
		message: "ahpls does not check files over 4 MiB; this one has 5242880 bytes."},
	// No rule has been renamed or removed yet: these show what a rename
	// (md/link once md/old-link) and a removal would report.
	"config/rule-renamed": {path: ".ahpls/config.json", lang: "json", code: "  \"overrides\": [{\"files\": [\"docs/**\"], \"rules\": {\"md/old-link\": \"off\"}}]\n", line: 2, col: 50, sev: model.SeverityHint,
		message: "'md/old-link' is now 'md/link'; ahpls applies this level to 'md/link'. Rename the key."},
	"config/rule-removed": {path: ".ahpls/config.json", lang: "json", code: "  \"overrides\": [{\"files\": [\"docs/**\"], \"rules\": {\"md/gone\": \"off\"}}]\n", line: 2, col: 50, sev: model.SeverityHint,
		message: "'md/gone' is no longer an ahpls rule (merged into md/link); this key has no effect."},
	"suppress/renamed": {path: "docs/guide.md", lang: "markdown", code: "<!-- ahpls-disable-next-line md/old-link -->\n", line: 1, col: 30, sev: model.SeverityHint,
		message: "'md/old-link' is now 'md/link'; this comment applies to 'md/link'. Rename it here."},
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
	// The golden workspace is check's and the server's too: no broken
	// .ahpls/config.json there.
	"config/invalid":      {".ahpls/config.json", "{\n  \"overrides\": [{\"files\": [\"docs/**\"], \"rules\": {\"md/link\": \"quiet\"}}]\n}\n", nil},
	"config/unknown-key":  {".ahpls/config.json", "{\n  \"excludes\": [\"fixtures/**\"]\n}\n", nil},
	"config/unknown-rule": {".ahpls/config.json", "{\n  \"overrides\": [{\"files\": [\"docs/**\"], \"rules\": {\"md/links\": \"off\"}}]\n}\n", nil},
	// The golden fixtures are checked without package tools' validator.
	// The golden workspace holds one copilot-setup-steps.yml, at its root.
	"setup/job-missing": {".github/workflows/copilot-setup-steps.yml", "on: workflow_dispatch\njobs:\n  setup:\n    runs-on: ubuntu-latest\n    steps:\n      - run: npm ci\n", nil},
	"setup/syntax":      {".github/workflows/copilot-setup-steps.yml", "jobs:\n\tcopilot-setup-steps:\n    runs-on: ubuntu-latest\n", nil},
	// AGENTS.md implies no Windsurf: the example names it.
	"memory/windsurf-size": {"AGENTS.md", "# Notes for agents\n\n" + strings.Repeat("Keep each change small and run the tests before a commit.\n", 210), []model.Target{model.TargetWindsurf}},
	"tools/config":         {".ahpls/tools.json", "{\n  \"version\": 1,\n  \"tools\": [\n    {\"name\": \"unit tests\", \"command\": {\"argv\": [\"go\", \"test\", \"./...\"]}}\n  ]\n}\n", nil},
}

// options are the rule options of every example: the defaults, with the
// client tool config validator `ahpls check` and the server pass.
var options = diagnostics.Options{ToolsConfig: tools.ConfigProblems}

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
func fixtureExamples(root string) (map[string]docExample, error) {
	var files []string
	if err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || strings.HasSuffix(p, ".golden") {
			return err
		}
		files = append(files, p)
		return nil
	}); err != nil {
		return nil, err
	}
	sort.Strings(files)
	layout := wsfolder.DirLayout(root)
	out := map[string]docExample{}
	for _, p := range files {
		rel := filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
		kind := model.Classify(rel, layout)
		if kind == model.KindNone {
			continue
		}
		text, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		for _, d := range diagnostics.Check(diagnostics.File{Path: rel, Kind: kind, Text: text, FS: wsfolder.DirFS(root), Layout: layout}, options) {
			// The first of the most severe findings shows the rule's main case.
			if prev, ok := out[d.Rule]; !ok || d.Severity < prev.sev { // LSP numbering: Error is 1
				out[d.Rule] = makeExample(rel, kind, text, d)
			}
		}
	}
	if err := roomodesExamples(filepath.Join(filepath.Dir(root), "roomodes"), out); err != nil {
		return nil, err
	}
	for id, in := range handInputs {
		text := []byte(in.text)
		for _, d := range diagnostics.Check(diagnostics.File{Path: in.path, Text: text}, withTargets(options, in.targets)) {
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
	return out, nil
}

// roomodesExamples adds the examples of Roo Code's .roomodes rules: the
// file is read at a workspace root only, so each case is a workspace of
// its own under dir (testdata/roomodes/<case>/.roomodes), in sorted order.
func roomodesExamples(dir string, out map[string]docExample) error {
	cases, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, c := range cases {
		ws := filepath.Join(dir, c.Name())
		text, err := os.ReadFile(filepath.Join(ws, model.RooModes))
		if err != nil {
			return err
		}
		for _, d := range diagnostics.Check(diagnostics.File{Path: model.RooModes, Kind: model.KindRooModes, Text: text, FS: wsfolder.DirFS(ws), Layout: wsfolder.DirLayout(ws)}, options) {
			if prev, ok := out[d.Rule]; !ok || d.Severity < prev.sev {
				out[d.Rule] = makeExample(model.RooModes, model.KindRooModes, text, d)
			}
		}
	}
	return nil
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
	spec, _ := kind.Spec()
	lang := spec.Lang
	switch {
	case lang == "":
		lang = "text"
	case spec.Markdown() && diagnostics.InHeader(text, d.Span.Start):
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

// sections orders docs/rules.md by rule-id prefix. A kind's section is
// titled by its model.KindSpec; groupTitles titles the prefixes that are no
// kind. A kind missing here gets its section after these.
var sections = []string{"file", "internal", "fm", "yaml", "json", "md", "field",
	"skill", "agent", "ccagent", "prompt", "cmd", "instr", "rule", "memory",
	"plugin", "market", "settings", "hooks", "token", "mcp", "tools", "config",
	"suppress", "tool", "body", "security", "style", "setup"}

var groupTitles = map[string]string{
	"file": "Every file", "internal": "Every file", "fm": "Frontmatter", "yaml": "Frontmatter YAML",
	"json": "JSON files", "md": "Markdown links", "field": "Shared frontmatter fields",
	"token": "Plugin-root tokens", "suppress": "Suppression comments", "tool": "Tool names",
	"body": "Empty files", "security": "Security (severities ahpls sets, [I])",
}

// generate renders docs/rules.md from Rules() and the fixtures under root.
func generate(root string) ([]byte, error) {
	examples, err := fixtureExamples(root)
	if err != nil {
		return nil, err
	}
	rules := diagnostics.Rules()
	byPrefix := map[string][]diagnostics.Rule{}
	for _, r := range rules {
		p, _, _ := strings.Cut(r.ID, "/")
		byPrefix[p] = append(byPrefix[p], r)
	}
	var b bytes.Buffer
	intro, afterIntro, _ := strings.Cut(rulesDocIntro, "{{consumers}}")
	b.WriteString(intro)
	writeConsumerLegend(&b)
	legendRest, after, _ := strings.Cut(afterIntro, "{{REACTIONS}}")
	b.WriteString(legendRest)
	writeReactions(&b)
	b.WriteString(after)
	writeImplied(&b)
	fence := "```"
	titled := map[string]bool{}
	order := slices.Clone(sections)
	for _, k := range model.Kinds {
		if !slices.Contains(order, string(k.Kind)) {
			order = append(order, string(k.Kind))
		}
	}
	for _, prefix := range order {
		rs := byPrefix[prefix]
		if len(rs) == 0 {
			continue
		}
		title := kindTitleOf(prefix)
		if !titled[title] { // internal/ shares "Every file" with file/
			titled[title] = true
			fmt.Fprintf(&b, "\n## %s\n", title)
		}
		writeRules(&b, rs, examples, fence)
		delete(byPrefix, prefix)
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
	return b.Bytes(), nil
}

// reactions is the legend of the Severity lines: each reaction's
// consequence (model.Reaction.Consequence) decides its level.
var reactions = []struct {
	code string
	r    model.Reaction
	does string
}{
	{"SKIP", model.Skip, "silently does not load the file"},
	{"REJ", model.Reject, "fails loudly: the file or plugin does not load"},
	{"NOHDR", model.NoHeader, "loads the file with its whole header dropped (empty metadata)"},
	{"DROP", model.Drop, "loads the file and drops one entry of it (a hook, a server): it never runs"},
	{"LOSE", model.Lose, "loads, but silently drops, cuts or changes fields"},
	{"WARN", model.Warn, "loads and warns"},
	{"SHADOWED", model.ShadowedBy, "loads another file of the same name instead of this one"},
	{"WINS", model.Wins, "loads this file instead of another of the same name"},
	{"UNDISC", model.Undiscovered, "does not discover the file where it is"},
	{"LINKED", model.LinkedOnly, "does not discover the file, but reads it through another file's link"},
	{"IGN", model.Ignore, "ignores an unsupported field, nothing else"},
	{"SPEC", model.Spec, "only the spec forbids it"},
	{"SHOULD", model.Should, "a spec recommendation"},
}

// writeReactions writes the policy table from the model, so the document
// cannot disagree with the levels the rules report.
func writeReactions(b *bytes.Buffer) {
	b.WriteString("| reaction | what the consumer does | consequence | severity |\n|---|---|---|---|\n")
	for _, x := range reactions {
		c, _ := x.r.Consequence()
		used, _ := x.r.Level(true)
		unused, _ := x.r.Level(false)
		level := capitalize(used.String())
		if unused != used {
			level += " when the consumer uses what is lost, " + capitalize(unused.String()) + " when it does not"
		}
		if x.r == model.Ignore {
			level += ", shown faded"
		}
		fmt.Fprintf(b, "| %s | %s | `%s` | %s |\n", x.code, x.does, c, level)
	}
	b.WriteString("| ok | accepts it | – | – |\n\nFields each consumer uses (a loss of any other field is Info):\n\n")
	for _, c := range model.Consumers {
		var kinds []string
		for k := range c.Fields {
			kinds = append(kinds, string(k))
		}
		sort.Strings(kinds)
		for _, k := range kinds {
			fmt.Fprintf(b, "- %s, %s: `%s` (evidence: %s).\n", c.Name, k, strings.Join(c.Fields[model.Kind(k)], "`, `"), c.FieldsEvidence[model.Kind(k)])
		}
	}
}

func capitalize(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// writeConsumerLegend writes a legend row for each consumer of
// model.Consumers that no group row (V, VS / VH) already explains.
func writeConsumerLegend(b *bytes.Buffer) {
	for _, c := range model.Consumers {
		if len(c.Groups) > 0 {
			continue
		}
		name := c.Legend
		if name == "" {
			name = c.Name
		}
		optIn := ""
		if c.OptIn {
			optIn = ", opt-in"
		}
		fmt.Fprintf(b, "| %s | %s (`%s`%s) |\n", c.Code, name, c.Target, optIn)
	}
}

// rulesDocOtherRooms documents the rule ids that other rooms report
// (hostlink publishes them while an agent host is configured), so their
// links resolve too.
const rulesDocOtherRooms = `
## Client tools and the agent host

These come from outside the rule engine: the link to an agent host (reported only while ` + "`ahpls.host`" + ` is
set).

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

// writeImplied renders model.ImpliedTable, the decision of which targets
// a file adds to the configured ones (model.TestImpliedTable checks each
// row), and what the walk checks.
func writeImplied(b *bytes.Buffer) {
	b.WriteString(`
## Implied targets

With ` + "`ahpls.impliedTargets`" + ` on (the default; ` + "`--no-implied-targets`" + ` turns it off) a file adds a consumer to the
configured targets only where that consumer's own discovery would load it and nothing in the tree says the author
targets another consumer. Rows are tried in order; a plugin's rows look at its root (the nearest folder holding a
manifest a target reads).

| when | adds | unless | why |
|---|---|---|---|
`)
	for _, r := range model.ImpliedTable {
		adds := "–"
		if r.Adds != "" {
			adds = "`" + string(r.Adds) + "`"
		}
		unless := r.Unless
		if unless == "" {
			unless = "–"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", r.When, adds, unless, r.Why)
	}
	b.WriteString(`
Evidence or silence: a Copilot CLI reaction without an evidence entry in its rule is reported as unknown (Info at
most), and one backed only by Copilot CLI's documentation (an entry marked ` + "`?`" + `) at Warning at most. For every other
consumer a test runs every fixture with every target and fails on an Error or Warning whose consumer has no entry.

## Which files are checked

` + "`ahpls check`" + ` and the server check every customization file below a workspace folder at any depth. They skip ` + "`.git`" + `,
` + "`node_modules`" + `, the ` + "`--exclude`" + ` / ` + "`ahpls.exclude`" + ` / ` + "`.ahpls/config.json`" + ` globs, and what ` + "`.gitignore`" + ` files ignore
(patterns, ` + "`!`" + ` negation, anchoring, folder-only patterns and nested files), except what a consumer loads whatever
` + "`.gitignore`" + ` says: ` + "`.claude/`" + `, ` + "`.github/`" + `, ` + "`.agents/`" + ` and the root ` + "`CLAUDE.md`" + `, ` + "`CLAUDE.local.md`" + `, ` + "`AGENTS.md`" + `,
` + "`GEMINI.md`" + ` and ` + "`.mcp.json`" + `. As in git, ` + "`.gitignore`" + ` counts only inside a git work tree and never for a file the
index tracks (a committed file is in every clone); a tree without ` + "`.git`" + ` (an export) is checked whole. ` + "`--no-gitignore`" + ` (or ` + "`\"gitignore\": false`" + ` in ` + "`.ahpls/config.json`" + `) checks ignored files too.
` + "`ahpls check`" + ` says what it checked, by kind, and what it skipped and why: one line on stderr, and ` + "`files`" + `, ` + "`checked`" + `
and ` + "`skipped`" + ` beside ` + "`findings`" + ` in ` + "`--format json`" + `.
`)
}

// withTargets is o with the given targets (none: the defaults).
func withTargets(o diagnostics.Options, ts []model.Target) diagnostics.Options {
	o.Targets = ts
	return o
}

// kindTitleOf is the section title of a rule-id prefix: its kind's, or
// its group's.
func kindTitleOf(prefix string) string {
	if spec, ok := model.Kind(prefix).Spec(); ok {
		return spec.Title
	}
	return groupTitles[prefix]
}

func writeRules(b *bytes.Buffer, rs []diagnostics.Rule, examples map[string]docExample, fence string) {
	for _, r := range rs {
		fmt.Fprintf(b, "\n### %s\n\n%s\n\n", r.ID, r.Summary)
		if r.Kinds != "" {
			fmt.Fprintf(b, "- **Kinds:** %s\n", r.Kinds)
		}
		if r.Severity != "" {
			fmt.Fprintf(b, "- **Severity:** %s\n", r.Severity)
		}
		switch r.Fix {
		case diagnostics.FixSafe:
			fmt.Fprintf(b, "- **Fix:** safe, so `ahpls check --fix` and the editor's fix-all apply it: %s. Each fix is first applied and the file read again; one that would not parse, or would change another value or how a consumer splits this one, is offered as unsafe instead.\n", r.FixWhy)
		case diagnostics.FixUnsafe:
			fmt.Fprintf(b, "- **Fix:** unsafe, so only `ahpls check --fix --unsafe-fixes` or a quick fix picked in the editor applies it: %s.\n", r.FixWhy)
		}
		if len(r.Evidence) > 0 {
			b.WriteString("- **Evidence:**\n")
			for _, e := range r.Evidence {
				fmt.Fprintf(b, "  - %s %s: %s\n", e.Consumer, e.Reaction, e.Source)
			}
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

<!-- Generated by internal/rulesdoc from diagnostics.Rules(); do not edit by hand. -->
<!-- Regenerate: go generate ./diagnostics -->

Every diagnostic ahpls reports carries one of these rule ids as its ` + "`code`" + `, and its link points at the
section below. Each section gives what the rule checks, the file kinds it applies to, how its severity follows
from what each consumer does, and an example taken from ahpls' own test fixtures (checked with the default
targets, ` + "`vscode-agent-host`" + ` and ` + "`agent-skills`" + `, plus the targets a path implies).

Change a rule's severity or turn it off with ` + "`ahpls.rules`" + ` (` + "`{\"skill/name-dir\": \"off\"}`" + `) or
` + "`ahpls check --rule skill/name-dir=off`" + `; choose consumers with ` + "`ahpls.targets`" + ` / ` + "`--targets`" + `.

Quiet one place with a comment: ` + "`<!-- ahpls-disable-next-line md/link -->`" + ` (the next line) or
` + "`<!-- ahpls-disable md/link -->`" + ` (the whole file) in Markdown, ` + "`# ahpls-disable-next-line yaml/unquoted-special`" + `
inside a ` + "`---`" + ` header; set levels by path in ` + "`.ahpls/config.json`" + `:
` + "`{\"overrides\": [{\"files\": [\"tests/fixtures/**\"], \"rules\": {\"md/link\": \"off\"}}]}`" + ` (the only way
for strict JSON files). A comment that hides nothing is reported as suppress/unused.

Fixes have a tier: **safe** fixes change the form and never the meaning (` + "`ahpls check --fix`" + ` and the
editor's ` + "`source.fixAll.ahpls`" + ` apply them); **unsafe** fixes delete, rename, guess or change a value
(` + "`ahpls check --fix --unsafe-fixes`" + `, or a quick fix picked in the editor). Each rule below says its tier and why.

## How severities are decided

A finding's severity is the most severe reaction among the effective targets that read the file's kind; the
message names those consumers. Each reaction has a consequence, a typed field of the finding (` + "`consequence`" + ` in
` + "`--format json`" + `), and the level follows from it alone: a file the consumer does not load, or loads with its whole
header dropped, is an Error; an entry or field dropped from a file that otherwise loads is a Warning when the
consumer uses it and Info when it does not (the fields each consumer uses are listed below the table, with their
evidence); shadowing is a Warning on the file that loses and Info on the one that wins.

| code | consumer |
|---|---|
| V | VS Code and the VS Code agent host (` + "`vscode`" + `, ` + "`vscode-agent-host`" + `) |
| VS / VH | only VS Code / only the VS Code agent host |
{{consumers}}| AP | Agent Plugins 1.0 (no target of its own: its verdicts count as SPEC) |

{{REACTIONS}}
Evidence: each rule lists, per consumer, where its reaction is seen: a function or message in the consumer's
source (VS Code's ` + "`promptValidator.ts`" + `), a validator's message (` + "`claude plugin validate`" + `, skills-ref), or a line of the
Agent Skills specification or client guide. A marker a consumer's editor shows is not a refusal: when VS Code's
validator marks a skill name as an error but still loads the skill under its folder name, that is WARN
(Warning), and Error is kept for a consumer that refuses or fails to load the file.

### Where ahpls and a consumer disagree

- **skills-ref rejects YAML flow collections** (` + "`allowed-tools: [Read, Grep]`" + `, ` + "`mcp: [rube]`" + `): its strictyaml parser
  refuses them (` + "`Found ugly disallowed JSONesque flow mapping`" + `), so it reports nothing else for the file. They are plain
  YAML 1.2 that VS Code, Claude Code and anthropics/skills' ` + "`quick_validate.py`" + ` (PyYAML) all read; skills-ref is
  wrong here and ahpls does not report them. On the corpus used to tune ahpls (~3,100 SKILL.md files) this is 945 of
  skills-ref's 965 YAML rejections; ahpls still checks those files' names and descriptions.
- **skills-ref rejects any top-level key outside the spec's six**; agents ignore such keys, so ahpls reports
  ` + "`field/unknown`" + ` as a Hint (Error only with the opt-in ` + "`claude-upload`" + ` target, whose validator refuses them).
- **skills-ref reports name and folder mismatches as errors**; the spec requires the name rules and its own client
  guide says "warn, load anyway", so ` + "`skill/name-*`" + ` are Warning for the ` + "`agent-skills`" + ` target (a default) and for
  ` + "`vscode`" + `, and Info when only consumers that load the skill anyway (the agent host, Claude Code) are targeted.
- **Catalogs** (` + "`skills/<category>/<skill>/SKILL.md`" + `) are skills like any other: every rule runs, and where a skill
  sits only changes the ` + "`skill/catalog`" + ` note (Info). ` + "`skill/nested`" + ` needs a real enclosing SKILL.md.
- **Claude's validator fails a plugin whose command or skill header does not parse** and says "At runtime this
  command loads with empty metadata (all frontmatter fields silently dropped)": the file loads with its whole header
  dropped, which leaves a skill without the description that decides when it is used. That is an Error
  (` + "`header-dropped`" + `), and the differential harness counts such a root as refused.
- **Claude Code's YAML reader is not YAML 1.2.** Where Claude Code 2.1.332's validator fails a header that YAML 1.2
  reads, ahpls reports ` + "`yaml/syntax`" + ` for Claude Code at the level of a dropped header, with the minimal case in
  the rule's evidence (a continuation line of a double-quoted scalar that starts with a non-ASCII letter; a block
  sequence on the key's own line, ` + "`allowed-tools: - Read`" + `).

### OpenCode: the version and evidence modelled

OpenCode's rules model opencode-ai 1.18.33 through its Linux platform package ` + "`opencode-linux-x64@1.18.33`" + ` (npm,
` + "`dist.integrity`" + ` ` + "`sha512-q/t/3p2CTxOT9y2kvjesb/LZab2+1eqlhhWA02Be6mjTtmYtNBcBsrI5yDo4Fw7ZSPBW2oyMIGMNRqiKQjiAWw==`" + `). It is a
Bun-compiled binary whose minified JavaScript is embedded and readable with ` + "`strings`" + `; no JSON Schema for ` + "`opencode.json`" + `
is embedded (the config is an Effect Schema), so ahpls checks the fields its rules list against that schema, not the
whole of it. Each reaction was also run: ` + "`opencode --pure debug config`" + ` and ` + "`opencode --pure debug skill`" + ` in a folder
holding only the case, with HOME and the XDG folders pointed at an empty one. What the code and the runs show:

- Agents are scanned with ` + "`{agent,agents}/**/*.md`" + ` and the legacy ` + "`{mode,modes}/*.md`" + `, commands with
  ` + "`{command,commands}/**/*.md`" + `, in each ` + "`.opencode`" + ` folder from the working folder up to the worktree root, and each
  header is decoded against the agent or command Struct. A failure throws (` + "`Configuration is invalid at …/.opencode/agents/a.md`" + `
  ` + "`↳ Expected object | undefined, got [\"Read\",\"Bash\"] tools`" + `) and OpenCode does not start: Error.
  A header that is not YAML or is never closed is not read: the whole file, header included, becomes the prompt
  (` + "`\"prompt\": \"---\\ndescription: [unclosed\\n---\\n…\"`" + `): Error, the header dropped.
- ` + "`opencode.json`" + ` and ` + "`opencode.jsonc`" + ` are both read as JSONC (comments and trailing commas load in either); a file that
  does not parse stops OpenCode (` + "`is not valid JSON(C)`" + `, ` + "`PropertyNameExpected`" + `). An unknown top-level key is dropped
  from the resolved config, although OpenCode's built-in customize-opencode skill says such keys are rejected: the run
  decides (Hint).
- Skills: ` + "`.claude`" + ` and ` + "`.agents`" + ` with ` + "`skills/**/SKILL.md`" + `, each ` + "`.opencode`" + ` with ` + "`{skill,skills}/**/SKILL.md`" + `, at any
  depth. A skill whose header has no string ` + "`name`" + ` is skipped (` + "`typeof j.name===\"string\"`" + `, no folder-name fallback); one
  without a description loads but is left out of the list shown to the model
  (` + "`j.filter((z)=>z.description!==void 0)`" + `); names are not checked against the folder or a character set.
- Judged on public repositories with ` + "`.opencode`" + ` folders or ` + "`opencode.json`" + ` (0rac1e/opencode-kit, dpolishuk/hyperpowers,
  RamiKrispin/my-agents, BNasraoui/opencode-orchestration, MykalMachon/llm-config, enact-on/super-ai-github,
  FortiumPartners/claude-config, ZeiZel/ai-config, GrupoUS/gpus and others): where OpenCode started, ` + "`--targets opencode`" + `
  gave no Error for a file it reads; the one header OpenCode dropped (ZeiZel/ai-config
  ` + "`.opencode/agent/refactor-agent.md`" + `) is the one ` + "`ocagent/header`" + ` reported; ` + "`skill/nested`" + ` no longer fires for a skill
  OpenCode finds inside another skill's folder (GrupoUS/gpus). Over the 19 repositories judged (1,359 files checked),
  OpenCode started in every one and ` + "`--targets opencode`" + ` gave no Error the run contradicts (its one Error, the
  dropped header above, the run confirms); ` + "`ahpls list`" + ` and ` + "`opencode debug skill`" + ` count the same 327 skills, equal by name (OpenCode keeps one skill
  per name and which copy of a duplicate it keeps varies from run to run, so 33 differ only in that).

A trailing ` + "`?`" + ` marks an unverified reaction, capped at Warning; a bare ` + "`?`" + ` (unknown) gives at most Info.
**[I]** marks a severity ahpls sets itself.

File kinds: ` + "`skill`" + ` SKILL.md · ` + "`agent`" + ` VS Code agent · ` + "`ccagent`" + ` Claude subagent · ` + "`prompt`" + ` · ` + "`cmd`" + ` Claude command ·
` + "`instr`" + ` instructions · ` + "`rule`" + ` Claude rule · ` + "`memory`" + ` AGENTS.md, CLAUDE.md and friends · ` + "`plugin`" + ` manifest ·
` + "`market`" + ` marketplace · ` + "`hooks`" + ` · ` + "`mcp`" + ` · ` + "`settings`" + ` · ` + "`style`" + ` Claude output style · ` + "`setup`" + ` copilot-setup-steps.yml ·
` + "`occonfig`" + ` opencode.json(c) · ` + "`ocagent`" + ` OpenCode agent · ` + "`occmd`" + ` OpenCode command.
`

// Package diagnostics holds the pure rules: a customization file's text and
// path go in, diagnostics with exact byte spans come out. Nothing here talks
// to an editor, a host or the clock, so the language server, `ahpls check`
// and virtual-plugin publication all see the same findings.
//
// Start at Check (check.go): it guards size and encoding, then hands the
// file to the checker for its kind (a Checker in rules.go's checkers: the kind,
// its rules and its check function in one value). Every finding goes through
// a core.Reporter, which turns the per-target reactions of
// customization-formats.md into a severity for the effective targets;
// finish (check.go) then applies `ahpls.rules`, the config's overrides and
// suppression comments (suppress.go) and guards the quick fixes
// (fixguard.go).
//
// The package is the joint of rooms below it; its api_*.go files keep the
// names its importers use for what moved there (aliases and wrappers):
//
//   - core/syntax: reading the formats with positions, reporting nothing
//     (frontmatter, the strict YAML tree and its fast path, Claude Code's
//     retry, VS Code's YAML subset, Cursor's MDC header, the outline).
//   - core: File and Options, the Reporter and the evidence gate, the Rule
//     value, MDFile (a Markdown file with its parsed header and the header
//     rules every Markdown kind runs), the field catalogue and field rules,
//     JSON with byte offsets and JSONCheck.
//   - core/shared: rules several families run: shared frontmatter fields,
//     hooks (files and `hooks:` in headers), MCP servers, security, tool
//     names, Markdown links, duplicate skill and subagent names.
//   - one rule package per family or consumer: skills, memory, plugins
//     (Claude Code's and Codex's manifests and marketplaces, Claude Code
//     settings), copilot, claude, cursor (rules, plugins, MCP), gemini, kiro,
//     windsurf, cline, roo, opencode.
//
// Rule packages import only the core (its three layers) and model, never
// each other nor this package; internal/archtest checks it.
//
// Rules that compare files (manifest copies, duplicate MCP servers, skills
// or subagents sharing a name) read the others through File.FS and its
// optional extensions WorkspaceReader and WorkspaceLister. The client tool
// config's validator comes in through Options.ToolsConfig (toolsconfig.go).
//
// Each rule is one value, a *Rule (id, summary, kinds, severity line,
// evidence, fix tier) declared at the top of the checker file that reports
// it and listed in that file's group; ruleTable (rules.go) joins the groups of
// the checkers and the shared ones. Facts other rooms need (NameClash,
// WholeFile) are fields of the rule, not switches on its id.
// Findings are reported through the value, so there are no free rule ids.
// docs/rules.md, the page every diagnostic links to, is generated from
// Rules() and the golden fixtures by ../internal/rulesdoc (above this
// package: it reads the fixtures through check).
//
// Adding a rule: its *Rule, its group entry and its report call in the
// checker file of its rule package, a fixture under testdata/ws with its
// .golden (go test ./diagnostics -run TestGolden -update), then go generate
// ./diagnostics. Adding a kind: its model.KindSpec and Classify case
// (model/kind.go), its checker file in the rule package of its consumer (a
// new package under diagnostics/ for a new agent, importing only core and
// model), and its Checker entry in rules.go.
package diagnostics

//go:generate go run ../internal/rulesdoc -fixtures testdata/ws -o ../docs/rules.md

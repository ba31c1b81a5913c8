// Package diagnostics holds the pure rules: a customization file's text and
// path go in, diagnostics with exact byte spans come out. Nothing here talks
// to an editor, a host or the clock, so the language server, `ahpls check`
// and virtual-plugin publication all see the same findings.
//
// Start at Check (check.go): it guards size and encoding, then hands the
// file to the checker for its kind (a Checker in rules.go's checkers: the kind,
// its rules and its check function in one value) — Markdown kinds with YAML frontmatter
// (frontmatter splitting, the strict YAML tree, the Claude Code retry and the
// VS Code subset simulation) or JSON kinds (decoded with byte offsets). Every
// finding goes through a reporter, which turns the per-target reactions of
// customization-formats.md into a severity for the effective targets and
// applies `ahpls.rules` overrides.
//
// Rules that compare files (manifest copies, duplicate MCP servers, skills
// or subagents sharing a name) read the others through File.FS and its
// optional extensions WorkspaceReader and WorkspaceLister (crossfile.go,
// duplicates.go). The client tool config's validator comes in
// through Options.ToolsConfig (toolsconfig.go).
//
// Each rule is one value, a *Rule (id, summary, kinds, severity line,
// evidence, fix tier) declared at the top of the checker file that reports
// it and listed in that file's group; ruleTable (rules.go) joins the groups of
// the checkers and the shared ones. Facts other rooms need (NameClash,
// WholeFile) are fields of the rule, not switches on its id.
// Findings are reported through the value, so there are no free rule ids.
// docs/rules.md, the page every diagnostic links to, is generated from
// Rules() and the golden fixtures by ../internal/rulesdoc (above this
// package: it reads the fixtures through check). Adding a rule: its
// *Rule, its group entry and its report call in the checker file, a fixture
// under testdata/ws with its .golden (go test ./diagnostics -run TestGolden
// -update), then go generate ./diagnostics. Adding a kind: its model.KindSpec
// and Classify case (model/kind.go), its checker file, and its Checker entry.
package diagnostics

//go:generate go run ../internal/rulesdoc -fixtures testdata/ws -o ../docs/rules.md

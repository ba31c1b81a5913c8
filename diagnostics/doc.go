// Package diagnostics holds the pure rules: a customization file's text and
// path go in, diagnostics with exact byte spans come out. Nothing here talks
// to an editor, a host or the clock, so the language server, `ahpls check`
// and virtual-plugin publication all see the same findings.
//
// Start at Check (check.go): it guards size and encoding, then hands the
// file to the checker for its kind — Markdown kinds with YAML frontmatter
// (frontmatter splitting, the strict YAML tree, the Claude Code retry and the
// VS Code subset simulation) or JSON kinds (decoded with byte offsets). Every
// finding goes through a reporter, which turns the per-target reactions of
// customization-formats.md into a severity for the effective targets and
// applies `ahpls.rules` overrides.
//
// Rules that compare files (manifest copies, duplicate MCP servers, skills
// or subagents sharing a name) read the others through File.FS and its
// optional extensions WorkspaceReader and WorkspaceLister (crossfile.go,
// duplicates.go). Kinds validated in another package plug in with
// RegisterChecker (external.go). docs/rules.md, the page every diagnostic
// links to, is generated from Rules() by rulesdoc_test.go.
package diagnostics

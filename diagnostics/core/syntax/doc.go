// Package syntax reads the formats customization files are written in,
// with byte positions: frontmatter split from Markdown, the strict YAML tree
// with exact spans (and its fast path), Claude Code's lenient retry, VS
// Code's YAML subset, Cursor's MDC header and a header's outline. It reports
// nothing; the rules in diagnostics/core and the rule packages do.
package syntax

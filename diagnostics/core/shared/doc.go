// Package shared holds the rules several families run on their own files:
// the shared frontmatter fields, hooks (the hooks file, and hooks: in a
// Markdown header), MCP servers, security, tool names, Markdown links, and
// names duplicated across skills and subagents. It imports only core,
// core/syntax and model.
package shared

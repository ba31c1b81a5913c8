// Package plugins checks plugin manifests and marketplaces (Claude Code,
// Codex, Cursor), Cursor's MCP file and Claude Code's settings (its plugins
// and marketplaces). A rule package: it imports only diagnostics/core and
// model.
package plugins

// Package plugins checks plugin manifests and marketplaces (Claude Code and
// Agent Plugins, Codex's plugins and marketplaces, which Codex also reads
// from Claude Code's marketplace file) and Claude Code's settings (its
// plugins and marketplaces). A rule package: it imports only diagnostics/core and
// model.
package plugins

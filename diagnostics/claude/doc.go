// Package claude checks Claude Code's subagents, rules (.claude/rules) and
// output styles. A rule package: it imports only diagnostics/core and model.
package claude

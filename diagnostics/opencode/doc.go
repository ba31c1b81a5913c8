// Package opencode checks OpenCode's config, agents and commands. A rule
// package: it imports only diagnostics/core and model.
package opencode

// Package cursor checks Cursor's kinds: rules (.mdc), plugins and
// marketplaces, and its MCP file. A rule package: it imports
// only diagnostics/core and model.
package cursor

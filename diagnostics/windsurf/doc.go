// Package windsurf checks Windsurf rules. A rule package: it imports only
// diagnostics/core and model.
package windsurf

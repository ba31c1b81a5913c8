// Package windsurf checks Windsurf rules and workflows. A rule package: it imports only
// diagnostics/core and model.
package windsurf

// Package cursor checks Cursor rules (.mdc). A rule package: it imports
// only diagnostics/core and model.
package cursor

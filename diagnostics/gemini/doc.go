// Package gemini checks Gemini CLI's commands (TOML) and extensions. A
// rule package: it imports only diagnostics/core and model.
package gemini

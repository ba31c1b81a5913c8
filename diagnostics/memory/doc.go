// Package memory checks memory files (CLAUDE.md, AGENTS.md and their kin)
// and their @imports. A rule package: it imports only diagnostics/core and
// model.
package memory

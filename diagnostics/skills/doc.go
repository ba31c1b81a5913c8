// Package skills checks Agent Skills (SKILL.md) and commands. A rule
// package: it imports only diagnostics/core and model.
package skills

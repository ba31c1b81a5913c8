// Package copilot checks GitHub Copilot's and VS Code's kinds: custom
// agents, prompt files, instructions files and copilot-setup-steps, and
// finds where VS Code looks for them. A rule package: it imports only
// diagnostics/core and model.
package copilot

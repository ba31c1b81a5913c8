// Package core is what every rule package of diagnostics shares: the file
// to check (File, Options), the Reporter that turns per-consumer reactions
// into a severity (with the evidence gate), the Rule value, MDFile (a
// Markdown file with its parsed header and the header rules every Markdown
// kind runs), the field catalogue and field rules, and JSON with byte
// offsets (JSONValue) with its checker (JSONCheck). It imports only
// core/syntax and model.
package core

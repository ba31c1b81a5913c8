// Package model is the customization model shared by every room that reads
// customization files: which file kinds exist (Kinds, one KindSpec each:
// noun, title, language, extensions, editor patterns) and how a workspace
// path is classified (kind.go), byte spans and their conversion to editor positions
// in any LSP position encoding (span.go), the diagnostic shape that rules
// produce and the server and `ahpls check` render (diagnostic.go), and the
// consumer targets whose reactions decide a diagnostic's severity
// (target.go: Consumers, one ConsumerSpec each, from which AllTargets,
// DefaultTargets and the editors' targets enum are derived).
//
// It imports nothing of ours, so diagnostics, virtualplugin, server and the
// CLI can all depend on it without pulling each other in. Start with
// Classify and Diagnostic.
package model

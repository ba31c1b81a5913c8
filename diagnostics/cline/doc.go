// Package cline checks Cline rules. A rule package: it imports only
// diagnostics/core and model.
package cline

// Package kiro checks Kiro steering files. A rule package: it imports only
// diagnostics/core and model.
package kiro

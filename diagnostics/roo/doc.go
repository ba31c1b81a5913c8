// Package roo checks Roo Code rules. A rule package: it imports only
// diagnostics/core and model.
package roo

// Package roo checks Roo Code rules and its project custom modes (.roomodes). A rule package: it imports only
// diagnostics/core and model.
package roo

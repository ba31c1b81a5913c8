// Package buildinfo is the one version string of ahpls' two binaries
// (cmd/ahpls and cmd/ahpls-mcp), so `ahpls version`, the LSP and MCP
// initialize results and the AHP client name the same build.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Version is the build's version. stamped is the binary's own
// `-ldflags "-X main.version=…"` value (release archives, npm and the vsix
// stamp the tag without its "v") and wins when set. Otherwise it is the
// module version a `go install …@v0.2.0` build records, without its "v",
// so every channel prints "0.2.0"; a build from a checkout records no
// version (or "(devel)") and gets "devel".
func Version(stamped string) string {
	if stamped != "" {
		return stamped
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	return moduleVersion(bi.Main.Version)
}

// moduleVersion is Version's answer for a recorded module version.
func moduleVersion(v string) string {
	if v == "" || v == "(devel)" {
		return "devel"
	}
	return strings.TrimPrefix(v, "v")
}

// Package virtualplugin turns what a workspace folder holds on disk into
// the Open Plugins trees ahpls publishes to an agent host, and serves those
// trees back when the host reads them.
//
// Flow: a Builder scans one workspace folder (scan.go), classifying files
// with model.Classify. Loose customizations (skills, agents, prompts,
// instructions, Claude rules and commands, hooks, the root .mcp.json) are
// laid out as one synthesized plugin per folder; every plugin folder found
// (a folder with a manifest, 1–4 levels deep) becomes a plugin of its own
// with its files as they are. Files whose rules report an Error are left out
// and listed as Exclusions so the editor can say why. Each plugin gets a
// content nonce (nonce.go): a hash over the sorted virtual paths and their
// content hashes, independent of scan order, mtimes and machine.
//
// Serving (serve.go) answers the host's reverse resourceResolve, -List and
// -Read for `virtual://ahpls/<folder-hash>/<plugin>` URIs. Every path is
// confined: only files in the published tree are readable, the URI may not
// climb or smuggle separators through escapes, and a file that became a
// symlink leaving the workspace folder, or a device, is refused. The trees
// are read-only.
//
// Kept versions (keep.go): a host may capture a plugin at a nonce (an
// automation) and read it after the plugin changed, so a tree a new
// publication replaces stays readable for requests naming its nonce in
// _meta["x-ahpls/nonce"] (AHP has no field for it, and plugin URIs carry
// no nonce), bounded by DefaultKeepVersions per plugin and
// DefaultKeepBytes in all, oldest first. Withdrawal wins: a deleted or
// excluded file, and in a folder without workspace trust any hooks or MCP
// servers, leave every kept version.
package virtualplugin

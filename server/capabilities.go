package server

import "go.lsp.dev/protocol"

// addFeatureCapabilities announces the navigation and editing features of
// #18 (each implemented in its own file: symbols.go, links.go, rename.go,
// folding.go, fixall.go). Kept apart from Initialize so the list is one
// place to read; README.md lists the same capabilities.
func addFeatureCapabilities(c *protocol.ServerCapabilities) {
	yes := true
	c.DocumentSymbolProvider = protocol.Boolean(true)
	c.WorkspaceSymbolProvider = protocol.Boolean(true)
	c.DocumentLinkProvider = &protocol.DocumentLinkOptions{}
	c.DefinitionProvider = protocol.Boolean(true)
	c.RenameProvider = &protocol.RenameOptions{PrepareProvider: &yes}
	c.FoldingRangeProvider = protocol.Boolean(true)
	// Multi-root: the server scans folders the editor adds (#18).
	c.Workspace = &protocol.WorkspaceOptions{WorkspaceFolders: &protocol.WorkspaceFoldersServerCapabilities{
		Supported:           &yes,
		ChangeNotifications: protocol.Boolean(true),
	}, FileOperations: fileOperations()}
}

package check

import (
	"github.com/ahpls-dev/ahpls/view"
	"github.com/ahpls-dev/ahpls/wsfolder"
)

// Inventory is wsfolder.Inventory with cfg's excludes, .gitignore choice
// and warnings: what `ahpls list` and the MCP server's
// list_customizations show.
func Inventory(root string, cfg Config) (view.Input, error) {
	return wsfolder.Inventory(root, wsfolder.InventoryOptions{Exclude: cfg.Exclude, NoGitIgnore: cfg.NoGitIgnore, Warn: cfg.Warn})
}

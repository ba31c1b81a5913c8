package hostlink

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ahpls-dev/ahpls/enablement"
	"github.com/ahpls-dev/ahpls/model"
)

// ErrNotListed: "toggle this file" found no row of the file's own yet
// (the host has not listed it), and falling back to its plugin would
// switch off every other customization published with it.
var ErrNotListed = errors.New("not listed by the agent host yet")

// FileToggleRow picks the row an editor's "toggle this file" acts on: the
// file's own leaf as the host lists it; for a plugin manifest, the plugin;
// for a .mcp.json, its one server (several: name one by id). A
// customization file the host has not listed yet is refused with
// ErrNotListed rather than toggling its whole plugin.
func (t *toggler) FileToggleRow(session, absPath string) (enablement.Row, error) {
	absPath = filepath.Clean(absPath)
	rows := t.FileRows(session, absPath)
	if len(rows) == 0 {
		return enablement.Row{}, fmt.Errorf("%s is not published to the agent host by this workspace", absPath)
	}
	_, vpath := t.pub.fileAt(absPath)
	var plugin *enablement.Row
	var servers []enablement.Row
	for i, r := range rows {
		switch r.Type {
		case enablement.TypePlugin:
			plugin = &rows[i]
		case enablement.TypeMCPServer:
			servers = append(servers, r)
		}
	}
	switch {
	case slices.Contains(model.ManifestPaths, vpath) && plugin != nil:
		return *plugin, nil
	case vpath == ".mcp.json":
		if len(servers) == 1 {
			return servers[0], nil
		}
		if len(servers) == 0 {
			return enablement.Row{}, fmt.Errorf("%s defines no MCP server to toggle", absPath)
		}
		names := make([]string, len(servers))
		for i, s := range servers {
			names[i] = fmt.Sprintf("%s (id %q)", s.Name, s.ID)
		}
		return enablement.Row{}, fmt.Errorf("%s defines several MCP servers: toggle one by id: %s", absPath, strings.Join(names, ", "))
	case rows[0].Type != enablement.TypePlugin:
		return rows[0], nil
	}
	hint := ""
	if plugin != nil {
		hint = fmt.Sprintf("; to toggle everything published with it, use plugin %s by id %q", plugin.Name, plugin.ID)
	}
	return enablement.Row{}, fmt.Errorf("%s: %w in session %s%s", absPath, ErrNotListed, session, hint)
}

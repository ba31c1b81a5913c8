package enablement

import (
	"errors"
	"fmt"
)

// ErrUnsupportedType: only plugins and MCP servers have scoped keys.
var ErrUnsupportedType = errors.New("enablement: only plugins and MCP servers have scoped decisions")

// Target is an item decisions attach to. Its Session key is ID; its
// Global/Workspace key is DurableKey, which never depends on tree position,
// materialized paths or content hashes.
type Target struct {
	ID   string // session key: the customization id
	Type string // TypePlugin or TypeMCPServer
	Name string // MCP: raw server name from .mcp.json
	// Source is a plugin's source URI as published (virtual://ahpls/…),
	// never the host's materialized copy.
	Source string
	// Owner is the owning plugin's source URI for an MCP server, "" if none.
	Owner string
	// Bundled: the client published this plugin, or lists this server as a
	// key of its plugin's childEnablement; the client then owns its Global.
	Bundled bool
	// DiscoveryDefault is the backend config's own value; nil = none.
	DiscoveryDefault *bool
}

// DurableKey returns the Global/Workspace storage key.
func (t Target) DurableKey() (string, error) {
	switch t.Type {
	case TypePlugin:
		if t.Source == "" {
			return "", fmt.Errorf("enablement: plugin %q has no source uri", t.ID)
		}
		return t.Source, nil
	case TypeMCPServer:
		return MCPKey(t.Owner, t.Name), nil
	}
	return "", ErrUnsupportedType
}

// MCPKey is the durable key of an MCP server: "<pluginUri>#mcp=<name>" when
// a plugin owns it (nested or top-level alike), else "mcpServers#<name>".
func MCPKey(ownerURI, name string) string {
	if ownerURI != "" {
		return ownerURI + "#mcp=" + name
	}
	return "mcpServers#" + name
}

// PluginTarget builds the target of a plugin node.
func PluginTarget(p Node, bundled bool) Target {
	return Target{ID: p.ID, Type: TypePlugin, Name: p.Name, Source: p.URI, Bundled: bundled}
}

// MCPTarget is the only way to build an MCP server's target: the key follows
// the owning plugin, so a server found at top level and the same server found
// under its plugin share one decision.
func MCPTarget(server Node, ownerURI string, bundled bool) Target {
	return Target{
		ID:               server.ID,
		Type:             TypeMCPServer,
		Name:             server.Name,
		Source:           server.URI,
		Owner:            ownerURI,
		Bundled:          bundled && ownerURI != "",
		DiscoveryDefault: server.DiscoveryDefault,
	}
}

package diagnostics

import (
	"encoding/json"
	"strings"

	"github.com/ahpls-dev/ahpls/model"
)

// DetectPluginFormat reports the format of the plugin rooted at dir (slash
// path relative to the workspace folder), reading manifests through read,
// by VS Code's first-match order (customization-formats.md §2.2).
func DetectPluginFormat(read func(rel string) ([]byte, bool), dir string) model.PluginFormat {
	join := func(p string) string {
		if dir == "" {
			return p
		}
		return dir + "/" + p
	}
	if b, ok := read(join("plugin.json")); ok {
		var m struct {
			Schema string `json:"$schema"`
		}
		if json.Unmarshal(b, &m) == nil && strings.HasPrefix(m.Schema, "https://agent-plugins.org/schemas/") && strings.HasSuffix(m.Schema, "/plugin.schema.json") {
			return model.FormatAP
		}
	}
	found := false
	for _, m := range model.ManifestPaths {
		if _, ok := read(join(m)); ok {
			found = true
			break
		}
	}
	if !found {
		return model.FormatNone
	}
	if _, ok := read(join(".plugin/plugin.json")); ok {
		return model.FormatOpenPlugin
	}
	if _, ok := read(join(".claude-plugin/plugin.json")); ok {
		return model.FormatClaude
	}
	for _, s := range strings.Split(dir, "/") {
		if s == ".claude" {
			return model.FormatClaude
		}
	}
	return model.FormatCopilot
}

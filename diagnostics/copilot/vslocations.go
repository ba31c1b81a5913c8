package copilot

// VS Code's chat.*Locations settings (issue #25): the folders VS Code
// searches for agents, prompts, instructions, skills and hooks are its
// defaults plus what the workspace's .vscode/settings.json adds, so a
// reference to an agent in such a folder resolves.
//
// Source: VS Code src/vs/workbench/contrib/chat/common/promptSyntax/
// config/config.ts (PromptsConfig.promptSourceFolders: a map of path →
// boolean; a default stays unless mapped to false; values go through
// asBoolean, so "true"/"false" strings count) and utils/promptFilesLocator.ts
// (relative paths are joined to each workspace folder; a location without
// glob characters has its direct children listed, one with them is
// searched from its first non-glob parent).

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/shared"

	"path"
	"strings"
)

// VS Code's setting keys (config.ts PromptsConfig).
const (
	VsAgentLocations = "chat.agentFilesLocations"
	VsModeLocations  = "chat.modeFilesLocations" // deprecated alias of the agents key
)

// Prompts (chat.promptFilesLocations), instructions
// (chat.instructionsFilesLocations), skills (chat.agentSkillsLocations) and
// hooks (chat.hookFilesLocations) need no lookup here: their files are
// recognised by name wherever they are (*.prompt.md, *.instructions.md,
// SKILL.md, model.Classify), and no rule resolves a reference to them by
// name.

// vsSettingsFile is the workspace settings file VS Code reads.
const vsSettingsFile = ".vscode/settings.json"

// VsLocation is one workspace folder VS Code searches: a clean
// slash-separated path below the workspace folder, and whether the setting
// gave a glob below it (then every depth counts).
type VsLocation struct {
	Dir       string
	Recursive bool
}

// VsLocations returns the workspace-relative locations VS Code searches
// for the setting keys, defaults first (each kept unless a key maps it to
// false), then the enabled relative paths the settings add. Absolute and
// `~/` paths are another machine's or user's, not the workspace's.
func VsLocations(fs core.WorkspaceFS, defaults []string, keys ...string) []VsLocation {
	values := map[string]bool{}
	var order []string
	if rd, ok := fs.(core.WorkspaceReader); ok {
		if b, err := rd.ReadFile(vsSettingsFile); err == nil && len(b) <= core.MaxFileSize {
			root, _ := core.ParseJSONTree(b)
			for _, key := range keys {
				for _, mem := range root.Get(key).MembersOf() {
					p := strings.TrimSpace(mem.Key)
					on, ok := AsBoolean(mem.Value)
					if !ok || p == "" {
						continue
					}
					if _, seen := values[p]; !seen {
						order = append(order, p)
					}
					values[p] = on
				}
			}
		}
	}
	var out []VsLocation
	seen := map[string]bool{}
	add := func(l VsLocation) {
		if !seen[l.Dir] {
			seen[l.Dir] = true
			out = append(out, l)
		}
	}
	for _, d := range defaults {
		if on, set := values[d]; !set || on {
			add(VsLocation{Dir: d})
		}
	}
	for _, p := range order {
		if !values[p] || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, "/") || (len(p) > 1 && p[1] == ':') {
			continue
		}
		p = strings.ReplaceAll(p, `\`, "/")
		if l, ok := cleanVSLocation(p); ok {
			add(l)
		}
	}
	return out
}

// cleanVSLocation turns a setting's relative path into a location: the
// first non-glob parent, recursive when a glob followed it.
func cleanVSLocation(p string) (VsLocation, bool) {
	segs := strings.Split(p, "/")
	var keep []string
	recursive := false
	for _, s := range segs {
		if strings.ContainsAny(s, "*?[{") {
			recursive = true
			break
		}
		keep = append(keep, s)
	}
	dir := path.Clean(strings.Join(keep, "/"))
	if dir == ".." || strings.HasPrefix(dir, "../") {
		return VsLocation{}, false // outside the workspace folder
	}
	if dir == "." {
		dir = ""
	}
	return VsLocation{Dir: dir, Recursive: recursive}, true
}

// maxAgentFiles bounds how many files one agent lookup reads.
const maxAgentFiles = 512

// AgentDefined reports whether a VS Code agent named name exists in the
// workspace: a file in an agent location (.github/agents, the
// chat.agentFilesLocations folders, .github/chatmodes, .claude/agents,
// and the extra folders the caller knows of)
// whose frontmatter 'name' or file stem is name (VS Code names an agent by
// its 'name', else by getCleanPromptName: the stem).
func AgentDefined(fs core.WorkspaceFS, name string, extra ...string) bool {
	// promptFilesLocator.ts getLocalParentFolders adds .github/agents for
	// agents even when the setting maps it to false.
	locs := VsLocations(fs, nil, VsAgentLocations, VsModeLocations)
	locs = append([]VsLocation{{Dir: ".github/agents"}}, locs...)
	for _, d := range extra {
		locs = append(locs, VsLocation{Dir: d})
	}
	locs = append(locs, VsLocation{Dir: ".github/chatmodes"}, VsLocation{Dir: ".claude/agents", Recursive: true})
	// The cheap way first: a file named after the agent.
	for _, stem := range []string{name, core.Kebab(name)} {
		for _, l := range locs {
			for _, ext := range []string{".agent.md", ".chatmode.md", ".md"} {
				if _, err := fs.Stat(path.Join(l.Dir, stem+ext)); err == nil {
					return true
				}
			}
		}
	}
	ls, lok := fs.(core.WorkspaceLister)
	rd, rok := fs.(core.WorkspaceReader)
	if !lok || !rok {
		return false
	}
	budget := maxAgentFiles
	var search func(dir string, recursive bool, depth int) bool
	search = func(dir string, recursive bool, depth int) bool {
		entries, err := ls.ReadDir(dir)
		if err != nil {
			return false
		}
		for _, e := range entries {
			rel := path.Join(dir, e.Name())
			if e.IsDir() {
				if recursive && depth < 8 && e.Name() != "node_modules" && e.Name() != ".git" && search(rel, true, depth+1) {
					return true
				}
				continue
			}
			n := e.Name()
			if !strings.HasSuffix(n, ".agent.md") && !strings.HasSuffix(n, ".chatmode.md") &&
				!(strings.HasSuffix(n, ".md") && (dir == ".github/agents" || strings.HasPrefix(dir, ".claude/agents"))) {
				continue
			}
			if budget--; budget < 0 {
				return false
			}
			if stem := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(n, ".md"), ".agent"), ".chatmode"); stem == name {
				return true
			}
			if b, err := rd.ReadFile(rel); err == nil && len(b) <= core.MaxFileSize {
				if other, _, ok := shared.HeaderName(b); ok && other == name {
					return true
				}
			}
		}
		return false
	}
	for _, l := range locs {
		if search(l.Dir, l.Recursive, 0) {
			return true
		}
	}
	return false
}

// AsBoolean is VS Code's config.ts asBoolean: a boolean, or a string that
// trims and lower-cases to "true" or "false".
func AsBoolean(v *core.JSONValue) (bool, bool) {
	switch {
	case v == nil:
		return false, false
	case v.Kind == core.JSONBool:
		return v.Str == "true", true
	case v.Kind == core.JSONString:
		switch strings.ToLower(strings.TrimSpace(v.Str)) {
		case "true":
			return true, true
		case "false":
			return false, true
		}
	}
	return false, false
}

// Package view answers "what does each agent see?" (issue #32): per target
// consumer, what it would load from a workspace folder — skills, agents,
// prompts and commands, instructions and rules, hooks, MCP servers and
// plugins with their components — under which name, from which file, and
// if not, why not (shadowed by another file, not scanned, fails to load
// because of a rule, disabled by an enablement scope), with the
// description as the consumer presents it to the model.
//
// It is pure: Build takes the files a walk found (kind, text and the
// rules' findings with every target's verdict), the layout and a reader
// for component folders, and returns the model. It knows nothing of LSP
// or AHP; the CLI (`ahpls list`), the server's hover and command and the
// editors render the same View. Start at Build; scan.go holds which
// consumer reads which path (customization-formats.md §2.1), plugin.go how
// Claude Code reads a plugin's components, describe.go the listing
// budgets.
package view

import (
	"io/fs"
	"sort"
	"strings"

	"github.com/ahpls-dev/ahpls/model"
)

// Status is what a consumer does with one item.
type Status string

const (
	Loads      Status = "loads"
	Shadowed   Status = "shadowed"    // another item of the same name wins
	NotScanned Status = "not-scanned" // the consumer never looks there
	Fails      Status = "fails"       // a rule says the consumer refuses or skips it
	Disabled   Status = "disabled"    // an enablement decision turns it off
)

// Category groups items the way consumers list them.
type Category string

const (
	CatSkills       Category = "skills"
	CatAgents       Category = "agents"
	CatCommands     Category = "commands" // prompt files and commands
	CatInstructions Category = "instructions"
	CatHooks        Category = "hooks"
	CatMCP          Category = "mcpServers"
	CatPlugins      Category = "plugins"
)

// Categories in display order.
var Categories = []Category{CatSkills, CatAgents, CatCommands, CatInstructions, CatHooks, CatMCP, CatPlugins}

// Item is one thing one consumer would load (or not).
type Item struct {
	Category Category `json:"category"`
	// Name is what the consumer calls it (`pdf`, `my-plugin:review`,
	// `PreToolUse`).
	Name string `json:"name"`
	// Source is the workspace-relative file that defines it.
	Source string `json:"source"`
	Status Status `json:"status"`
	// Reason says why the status is not "loads", in one sentence.
	Reason string `json:"reason,omitempty"`
	// ShadowedBy is the file of the winning item (Status shadowed).
	ShadowedBy string `json:"shadowedBy,omitempty"`
	// Rule is the rule id behind a "fails" status.
	Rule string `json:"rule,omitempty"`
	// Scope is the enablement scope behind a "disabled" status.
	Scope string `json:"scope,omitempty"`
	// HostState is the load state an agent host reported for it.
	HostState string `json:"hostState,omitempty"`
	// Install says when an item of a plugin loads: "once plugin X from
	// marketplace Y is installed" (a plugin is read from where the
	// consumer installs it, not from the workspace).
	Install string `json:"install,omitempty"`
	// Notes are losses that do not stop it loading (a rule whose
	// verified reaction is "lose" or "warn" for this consumer).
	Notes       []string     `json:"notes,omitempty"`
	Description *Description `json:"description,omitempty"`
	// Components are a plugin's items as this consumer reads them.
	Components []Item `json:"components,omitempty"`
}

// Consumer is one target's view of the workspace.
type Consumer struct {
	Target model.Target `json:"target"`
	Name   string       `json:"name"`
	Items  []Item       `json:"items"`
	// Listing is the consumer's skill listing budget as a whole, when it
	// has one.
	Listing *Listing `json:"listing,omitempty"`
}

// View is every requested consumer's view.
type View struct {
	Consumers []Consumer `json:"consumers"`
}

// File is one customization file the walk found.
type File struct {
	Rel  string
	Kind model.Kind
	Text []byte
	// Findings are the rules' diagnostics for the file, checked with every
	// target effective, so each carries every consumer's verdict.
	Findings []model.Diagnostic
}

// FS lists and reads workspace folders for plugin components that no
// path shape classifies (a manifest's `commands: ["./cmds"]`).
type FS interface {
	ReadDir(rel string) ([]fs.DirEntry, error)
	ReadFile(rel string) ([]byte, error)
}

// Input is everything Build needs.
type Input struct {
	Files  []File
	Layout model.Layout
	// FS is optional; without it plugin components come from Files only.
	FS FS
	// Targets are the consumers to show; empty means every target but
	// claude-upload.
	Targets []model.Target
	State
}

// State is what a connected editor or agent host knows beyond the files
// (both optional): `ahpls list --state FILE` and the server's list
// command take it in this JSON shape.
type State struct {
	// Disabled maps a source file or plugin root to the enablement scope
	// that turned it off in VS Code or its agent host ("global",
	// "workspace", "session").
	Disabled map[string]string `json:"disabled,omitempty"`
	// Host maps a source file or plugin root to the load state a connected
	// agent host reported ("loaded", "error: …").
	Host map[string]string `json:"host,omitempty"`
}

// ViewTargets is what an empty Input.Targets means: every consumer that
// needs no opt-in, VS Code first (the editor this view is read in most),
// then in model.Consumers order, so a new consumer's value is enough.
var ViewTargets = func() []model.Target {
	out := []model.Target{model.TargetVSCode}
	for _, c := range model.Consumers {
		if !c.OptIn && c.Target != model.TargetVSCode {
			out = append(out, c.Target)
		}
	}
	return out
}()

// Build computes the view.
func Build(in Input) View {
	targets := in.Targets
	if len(targets) == 0 {
		targets = ViewTargets
	}
	w := newWorkspace(in)
	v := View{Consumers: []Consumer{}}
	for _, t := range targets {
		c := Consumer{Target: t, Name: consumerName(t), Items: []Item{}}
		for _, f := range w.files {
			// Codex, Cursor and Gemini CLI read no plugin of ours: their
			// files are judged by path like any other.
			if root, ok := w.pluginOfFor(t, f.Rel); ok && !agentTarget(t) && !(root == "" && workspaceLocated(f.Rel)) {
				if t != model.TargetAgentSkills || f.Kind != model.KindSkill {
					continue // listed under its plugin
				}
			}
			c.Items = append(c.Items, w.items(t, f, "", model.FormatNone)...)
		}
		if t != model.TargetAgentSkills && !agentTarget(t) { // the spec has no plugins; their skills are listed as skills
			for _, root := range w.pluginRootsFor(t) {
				c.Items = append(c.Items, w.plugin(t, root))
			}
		}
		w.shadow(t, c.Items)
		for i := range c.Items {
			w.overlay(t, &c.Items[i])
		}
		sortItems(c.Items)
		c.Listing = listing(t, c.Items)
		v.Consumers = append(v.Consumers, c)
	}
	return v
}

func consumerName(t model.Target) string {
	switch t {
	case model.TargetVSCodeAgentHost:
		return "VS Code agent host"
	case model.TargetAgentSkills:
		return "Agent Skills spec"
	}
	return t.DisplayName()
}

// overlay applies the optional inputs: enablement and host state.
func (w *workspace) overlay(t model.Target, it *Item) {
	key := it.Source
	if it.Category == CatPlugins {
		key = pluginKey(it.Source)
	}
	// Enablement decisions are VS Code's and its agent host's (AHP
	// customization enablement); the CLIs have none to apply.
	vscode := t == model.TargetVSCode || t == model.TargetVSCodeAgentHost
	if s, ok := w.in.Disabled[key]; ok && vscode && it.Status == Loads {
		it.Status, it.Scope = Disabled, s
		it.Reason = "turned off by the " + s + " enablement decision"
	}
	if t == model.TargetVSCodeAgentHost {
		if s, ok := w.in.Host[key]; ok {
			it.HostState = s
		}
	}
	for i := range it.Components {
		w.overlay(t, &it.Components[i])
	}
}

// pluginKey is the plugin root of a plugin item's source (its manifest).
func pluginKey(manifest string) string {
	if root, _, ok := model.ManifestRoot(manifest); ok {
		return root
	}
	return manifest
}

func sortItems(items []Item) {
	order := map[Category]int{}
	for i, c := range Categories {
		order[c] = i
	}
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i], items[j]
		if a.Category != b.Category {
			return order[a.Category] < order[b.Category]
		}
		if a.Source != b.Source {
			return a.Source < b.Source
		}
		return a.Name < b.Name
	})
	for i := range items {
		if len(items[i].Components) > 0 {
			sortItems(items[i].Components)
		}
	}
}

// ForFile returns, per consumer, the items whose source is rel (for the
// first-line hover and code lens), components included.
func (v View) ForFile(rel string) map[model.Target][]Item {
	out := map[model.Target][]Item{}
	var walk func(t model.Target, items []Item)
	walk = func(t model.Target, items []Item) {
		for _, it := range items {
			if it.Source == rel {
				out[t] = append(out[t], it)
			}
			walk(t, it.Components)
		}
	}
	for _, c := range v.Consumers {
		walk(c.Target, c.Items)
	}
	return out
}

// Summary is one line per consumer for the items of rel: "Claude Code:
// loads as `pdf`; VS Code: shadowed by .github/skills/pdf".
func (v View) Summary(rel string) []string {
	by := v.ForFile(rel)
	var out []string
	for _, c := range v.Consumers {
		items := by[c.Target]
		if len(items) == 0 {
			continue
		}
		var parts []string
		for _, it := range items {
			parts = append(parts, it.Phrase())
		}
		out = append(out, c.Name+": "+strings.Join(dedupe(parts), "; "))
	}
	return out
}

// Phrase says what happens to the item in a few words.
func (it Item) Phrase() string {
	switch it.Status {
	case Loads:
		s := "loads as `" + it.Name + "`"
		if it.Install != "" {
			s += " " + it.Install
		}
		if it.Description != nil && it.Description.Truncated {
			s += " (description cut)"
		}
		return s
	case Shadowed:
		return "shadowed by " + it.ShadowedBy
	case Fails:
		return "fails to load (" + it.Rule + ")"
	case Disabled:
		return "disabled (" + it.Scope + ")"
	case NotScanned:
		return "not scanned: " + it.Reason
	}
	return string(it.Status)
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	out := in[:0]
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

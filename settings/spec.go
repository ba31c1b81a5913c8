package settings

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"github.com/ahpls-dev/ahpls/model"
)

// Spec is one setting, written once: VS Code's package.json (the whole
// `ahpls.*` block of contributes.configuration), the README's settings
// tables and Neovim's options table are generated from Specs and
// NvimOptions by editors/vscode/internal/rulesettings, whose tests fail
// when one of them is edited by hand.
type Spec struct {
	// Key is the setting's name below `ahpls.` ("targets", "trace.server").
	Key string
	// Schema is the JSON schema VS Code's settings editor reads (type,
	// enum, default, scope, its markdown description).
	Schema Schema
	// Doc is the one line the README tables print.
	Doc string
	// Client names the one client that reads the setting itself
	// ("vscode"); "" is a key of the server's `ahpls` section, which
	// every client forwards as written and Parse validates.
	Client string
}

// Schema is the part of JSON Schema VS Code's settings use, its fields in
// the order package.json writes them.
type Schema struct {
	Type                 string             `json:"type,omitempty"`
	AnyOf                []Schema           `json:"anyOf,omitempty"`
	Items                *Schema            `json:"items,omitempty"`
	Enum                 []string           `json:"enum,omitempty"`
	UniqueItems          bool               `json:"uniqueItems,omitempty"`
	Default              json.RawMessage    `json:"default,omitempty"`
	Pattern              string             `json:"pattern,omitempty"`
	AdditionalProperties *Schema            `json:"additionalProperties,omitempty"`
	Properties           map[string]*Schema `json:"properties,omitempty"`
	Scope                string             `json:"scope,omitempty"`
	MarkdownDescription  string             `json:"markdownDescription,omitempty"`
	Description          string             `json:"description,omitempty"`
}

// NvimOption is one option of the Neovim plugin's setup() and
// vim.lsp.config: Neovim's own, not the server's (those go in
// `settings.ahpls`, as Specs).
type NvimOption struct {
	Name, Default, Doc string
}

// NvimOptions are the Neovim plugin's options, as README documents them.
var NvimOptions = sync.OnceValue(func() []NvimOption {
	return []NvimOption{
		{"cmd", "`{ 'ahpls', 'serve' }`", "the server command (the binary from `PATH`)"},
		{"settings", "`{ ahpls = {} }`", "`settings.ahpls` is the server's section (the settings above), passed through as written"},
		{"init_options", "`nil`", "nil: `settings.ahpls` is sent as `initializationOptions`"},
		{"filetypes", nvimFiletypes(), "buffers to consider; only customization files attach (generated `lua/ahpls/filekinds.lua`)"},
		{"root_markers", "`{ '.git', '.github', '.claude', '.plugin', '.claude-plugin', '.codex-plugin', '.cursor-plugin' }`", "the root is the nearest folder with `.git`, else with one of the others"},
		{"root_dir", "`nil`", "a folder, or `function(fname, bufnr)` returning one or nil; replaces the root rule"},
		{"capabilities", "`nil`", "client capabilities, merged over Neovim's"},
		{"on_attach", "`nil`", "`function(client, bufnr)` after the client attaches"},
		{"on_exit", "`nil`", "`function(code, signal, client_id)` when the server exits"},
	}
})

// ServerSpecs are the keys of the server's `ahpls` section.
func ServerSpecs() []Spec {
	var out []Spec
	for _, s := range Specs() {
		if s.Client == "" {
			out = append(out, s)
		}
	}
	return out
}

// nvimFiletypes is the filetypes default as Lua: the kinds' editor
// languages.
func nvimFiletypes() string {
	var langs []string
	for _, k := range model.Kinds {
		for _, l := range k.Languages {
			if !slices.Contains(langs, "'"+l+"'") {
				langs = append(langs, "'"+l+"'")
			}
		}
	}
	return "`{ " + strings.Join(langs, ", ") + " }`"
}

func js(s string) json.RawMessage { return json.RawMessage(s) }

func jsonOf(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // a []string always marshals
	}
	return b
}

func ids(ts []model.Target) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = string(t)
	}
	return out
}

func targetList() string {
	var b strings.Builder
	for i, t := range model.AllTargets {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("`" + string(t) + "`")
	}
	return b.String()
}

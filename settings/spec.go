package settings

import (
	"encoding/json"
	"slices"
	"strings"

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

// Specs are ahpls' settings in the order the VS Code settings editor
// lists them. `rules` is generated from the rule table and `targets`' enum
// and default from model.Consumers, so neither is written here.
var Specs = []Spec{
	{Key: "path", Client: "vscode", Doc: "path of the `ahpls` binary (`~` and `${workspaceFolder}` expanded)",
		Schema: Schema{Type: "string", Default: js(`""`), Scope: "machine-overridable",
			MarkdownDescription: "Path of the `ahpls` binary. Empty: the binary bundled in the extension's `bin/` folder, else `ahpls` on `PATH`. `~` and `${workspaceFolder}` are expanded."}},
	{Key: "host", Doc: "agent host WebSocket URL (`ws://…`/`wss://…`); also `AHPLS_HOST`; empty: no host",
		Schema: Schema{Type: "string", Default: js(`""`), Pattern: "^$|^wss?://",
			MarkdownDescription: "WebSocket URL of the agent host (`ws://…` or `wss://…`). Empty: do not connect."}},
	{Key: "hostHeaders", Doc: "headers sent with the WebSocket upgrade, e.g. `{\"Authorization\": \"Bearer …\"}`; `AHPLS_HOST_AUTHORIZATION` sets `Authorization` when none is given",
		Schema: Schema{Type: "object", Default: js(`{}`), AdditionalProperties: &Schema{Type: "string"}, Scope: "machine-overridable",
			MarkdownDescription: "Headers sent with the WebSocket upgrade to `#ahpls.host#`, e.g. `{ \"X-Team\": \"docs\" }`. For a token use **ahpls: Set Agent Host Token…** (kept in the secret storage) instead of writing it here."}},
	{Key: "sessions", Doc: "`\"auto\"` (every session whose working directories cover a workspace folder) or a list of session URIs",
		Schema: Schema{AnyOf: []Schema{{Type: "string", Enum: []string{"auto"}}, {Type: "array", Items: &Schema{Type: "string"}}}, Default: js(`"auto"`),
			MarkdownDescription: "Agent-host sessions to publish customizations to: `\"auto\"` (every session of this workspace) or a list of session URIs."}},
	{Key: "trustWorkspaceTools", Doc: "let the host run the command tools of `.ahpls/tools.json` (only in a trusted workspace)",
		Schema: Schema{Type: "boolean", Default: js(`false`),
			MarkdownDescription: "Let the agent host run this workspace's client tools through ahpls. Takes effect only in a trusted workspace."}},
	{Key: "targets", Doc: "consumers whose reactions decide severities: " + targetList(),
		Schema: Schema{Type: "array", Items: &Schema{Type: "string", Enum: ids(model.AllTargets)}, UniqueItems: true, Default: jsonOf(ids(model.DefaultTargets)),
			MarkdownDescription: "Consumers whose behaviour decides what is reported and how severely. An empty list means the default."}},
	{Key: "impliedTargets", Doc: "a file only one family reads adds that family (`.claude/**` → `claude-code`)",
		Schema: Schema{Type: "boolean", Default: js(`true`),
			MarkdownDescription: "Add the consumer a file belongs to (e.g. `claude-code` for `.claude/**`) to `#ahpls.targets#` for that file."}},
	{Key: "rules", Doc: "rule id → `off`, `error`, `warning`, `info`, `hint` (every rule id is offered with its summary)",
		Schema: Schema{Type: "object", Default: js(`{}`)}},
	{Key: "exclude", Doc: "globs of files and folders that get no diagnostics and are not published (see [Excluding files](#excluding-files)); `.ahpls/config.json` adds its own",
		Schema: Schema{Type: "array", Items: &Schema{Type: "string"}, UniqueItems: true, Default: js(`[]`), Scope: "resource",
			MarkdownDescription: "Globs of files and folders (relative to the workspace folder) that get no diagnostics and are not published, e.g. `[\"test/fixtures\", \"**/testdata/**\", \"*.draft.md\"]`. `*` stays within one path segment, `**` spans any number. The workspace's `.ahpls/config.json` adds its own."}},
	{Key: "tools", Doc: "more command tools, same shape as `.ahpls/tools.json` (`{\"tools\": […]}`)",
		Schema: Schema{Type: "object", Default: js(`{}`), Properties: map[string]*Schema{"tools": {Type: "array", Items: &Schema{Type: "object"}}},
			MarkdownDescription: "More command tools for the agent host, in the shape of `.ahpls/tools.json` (`{ \"tools\": [ … ] }`). They run only when `#ahpls.trustWorkspaceTools#` is on in a trusted workspace."}},
	{Key: "trace.server", Client: "vscode", Doc: "log the LSP traffic in the \"ahpls\" output channel",
		Schema: Schema{Type: "string", Enum: []string{"off", "messages", "verbose"}, Default: js(`"off"`), Scope: "window",
			Description: "Traces the communication between VS Code and the ahpls language server."}},
}

// NvimOption is one option of the Neovim plugin's setup() and
// vim.lsp.config: Neovim's own, not the server's (those go in
// `settings.ahpls`, as Specs).
type NvimOption struct {
	Name, Default, Doc string
}

// NvimOptions are the Neovim plugin's options, as README documents them.
var NvimOptions = []NvimOption{
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

// ServerSpecs are the keys of the server's `ahpls` section.
func ServerSpecs() []Spec {
	var out []Spec
	for _, s := range Specs {
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

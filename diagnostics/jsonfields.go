package diagnostics

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/shared"
	"github.com/ahpls-dev/ahpls/diagnostics/plugins"

	"sync"

	"github.com/ahpls-dev/ahpls/model"
)

// The JSON field catalogue for hover and completion: the keys each JSON kind
// knows, at every level (the Doc says where a key sits), with enumerated
// values and the consumers that read them. It mirrors the rules in
// hooks.go, mcp.go, plugin_manifest.go, marketplace.go and settings.go.

var (
	jfV    = []model.Target{model.TargetVSCodeAgentHost, model.TargetVSCode}
	jfCC   = []model.Target{model.TargetClaudeCode}
	jfCL   = []model.Target{model.TargetCopilotCLI}
	jfAll  = []model.Target{model.TargetVSCodeAgentHost, model.TargetVSCode, model.TargetClaudeCode, model.TargetCopilotCLI}
	jfVCC  = []model.Target{model.TargetVSCodeAgentHost, model.TargetVSCode, model.TargetClaudeCode}
	jfVCL  = []model.Target{model.TargetVSCodeAgentHost, model.TargetVSCode, model.TargetCopilotCLI}
	jfCCCL = []model.Target{model.TargetClaudeCode, model.TargetCopilotCLI}
)

var jsonCatalogue = sync.OnceValue(func() map[model.Kind][]core.FieldInfo {
	return map[model.Kind][]core.FieldInfo{
		model.KindConfig: {
			{Key: "exclude", Doc: "Globs of files and folders ahpls neither checks nor publishes (`**` spans folders), added to the editor's `ahpls.exclude` and `ahpls check --exclude`.", Values: nil, Targets: nil},
			{Key: "gitignore", Doc: "`false` checks what .gitignore files ignore too (default: they are honoured).", Values: []string{"true", "false"}, Targets: nil},
			{Key: "overrides", Doc: "A list of {\"files\": [globs], \"rules\": {\"rule-id\": \"off|error|warning|info|hint\"}}: rule levels for the files the globs match; later entries win, and all win over `ahpls.rules`. The only way to quiet a rule in a strict JSON file.", Values: nil, Targets: nil},
			{Key: "files", Doc: "In an override: the globs (the `exclude` syntax, relative to the workspace folder) of the files it covers.", Values: nil, Targets: nil},
			{Key: "rules", Doc: "In an override: rule ids mapped to `off`, `error`, `warning`, `info` or `hint`.", Values: nil, Targets: nil},
		},
		model.KindPlugin: {
			{Key: "name", Doc: "Plugin name (required): kebab-case, at most 64 characters; Claude Code reserves `claude-*` and `anthropic-*`.", Values: nil, Targets: jfAll},
			{Key: "version", Doc: "Semantic version; VS Code and Claude Code detect updates by it.", Values: nil, Targets: jfAll},
			{Key: "description", Doc: "What the plugin provides.", Values: nil, Targets: jfAll},
			{Key: "author", Doc: "An object: {\"name\": …, \"email\": …, \"url\": …}.", Values: nil, Targets: jfAll},
			{Key: "homepage", Doc: "An http(s) URL.", Values: nil, Targets: jfAll},
			{Key: "repository", Doc: "Source repository URL.", Values: nil, Targets: jfAll},
			{Key: "license", Doc: "SPDX license id.", Values: nil, Targets: jfAll},
			{Key: "keywords", Doc: "A list of strings.", Values: nil, Targets: jfAll},
			{Key: "skills", Doc: "Skill folders (string or list). Claude format: paths start with `./` and add to `skills/`.", Values: nil, Targets: jfAll},
			{Key: "agents", Doc: "Agent files (string or list); Claude format: replaces `agents/`, paths start with `./`.", Values: nil, Targets: jfAll},
			{Key: "commands", Doc: "Command files or folders (string or list); Claude format: replaces `commands/`.", Values: nil, Targets: jfAll},
			{Key: "hooks", Doc: "Path to a hooks .json file, or an inline hooks object; merged with `hooks/hooks.json`.", Values: nil, Targets: jfAll},
			{Key: "mcpServers", Doc: "Path to an MCP .json file, or an inline map of servers; merged with `.mcp.json`.", Values: nil, Targets: jfAll},
			{Key: "outputStyles", Doc: "Output style files or folders (Claude Code).", Values: nil, Targets: jfCC},
			{Key: "lspServers", Doc: "LSP server config (Claude Code).", Values: nil, Targets: jfCC},
			{Key: "userConfig", Doc: "Values Claude Code asks the user for at install time.", Values: nil, Targets: jfCC},
			{Key: "metadata", Doc: "An object of extra properties.", Values: nil, Targets: jfCC},
			{Key: "experimental", Doc: "An object of experimental features (`themes`, `monitors`).", Values: nil, Targets: jfCC},
			{Key: "category", Doc: "Marketplace category (Copilot format; in Claude format it belongs in the marketplace entry).", Values: nil, Targets: jfCL},
			{Key: "tags", Doc: "Marketplace tags (Copilot format).", Values: nil, Targets: jfCL},
			{Key: "$schema", Doc: "Agent Plugins: https://agent-plugins.org/schemas/1.0.0/plugin.schema.json (required in AP manifests).", Values: []string{plugins.ApSchemaURL}, Targets: jfV},
		},
		model.KindMarketplace: {
			{Key: "name", Doc: "Marketplace name (required): kebab-case, at most 64 characters.", Values: nil, Targets: jfCCCL},
			{Key: "owner", Doc: "Required object with a `name` (and optional `email`).", Values: nil, Targets: jfCCCL},
			{Key: "plugins", Doc: "Required array of plugin entries: {\"name\", \"source\", \"description\", \"version\", …}.", Values: nil, Targets: jfCCCL},
			{Key: "metadata", Doc: "Object: `description`, `version`, `pluginRoot` (base folder for bare sources).", Values: nil, Targets: jfCCCL},
			{Key: "source", Doc: "Plugin entry: a local path starting `./`, or an object {\"source\": kind, …}.", Values: plugins.SourceKindNames, Targets: jfCCCL},
			{Key: "strict", Doc: "Plugin entry: false lets the entry define the plugin without a plugin.json (Claude Code).", Values: []string{"true", "false"}, Targets: jfCC},
		},
		model.KindHooks: {
			{Key: "hooks", Doc: "Top level: an object mapping event names to arrays of matcher groups or handlers.", Values: nil, Targets: jfAll},
			{Key: "version", Doc: "Copilot form: must be 1; makes the file a Copilot CLI hooks file (camelCase events, `bash`/`powershell`).", Values: []string{"1"}, Targets: jfCL},
			{Key: "description", Doc: "Top level: a description of the hooks (Claude Code).", Values: nil, Targets: jfCC},
			{Key: "matcher", Doc: "Matcher group: tool-name pattern such as \"Write|Edit\"; VS Code ignores it and runs the hook on every event.", Values: []string{"*"}, Targets: jfCC},
			{Key: "type", Doc: "Handler type: `command` everywhere; Claude Code also `http`, `mcp_tool`, `prompt`, `agent`.", Values: shared.CCHookTypes, Targets: jfAll},
			{Key: "command", Doc: "Handler: the shell command (Claude Code, VS Code). `${CLAUDE_PLUGIN_ROOT}` expands only in Claude-format plugins.", Values: nil, Targets: jfVCC},
			{Key: "args", Doc: "Handler: exec-form arguments (Claude Code).", Values: nil, Targets: jfCC},
			{Key: "bash", Doc: "Handler: command for bash (Copilot form).", Values: nil, Targets: jfVCL},
			{Key: "powershell", Doc: "Handler: command for PowerShell (Copilot form).", Values: nil, Targets: jfVCL},
			{Key: "windows", Doc: "Handler: Windows command override (VS Code).", Values: nil, Targets: jfV},
			{Key: "linux", Doc: "Handler: Linux command override (VS Code).", Values: nil, Targets: jfV},
			{Key: "osx", Doc: "Handler: macOS command override (VS Code).", Values: nil, Targets: jfV},
			{Key: "timeout", Doc: "Handler: timeout in seconds (Claude and VS Code forms).", Values: nil, Targets: jfVCC},
			{Key: "timeoutSec", Doc: "Handler: timeout in seconds (Copilot form).", Values: nil, Targets: jfVCL},
			{Key: "cwd", Doc: "Handler: working directory.", Values: nil, Targets: jfVCL},
			{Key: "env", Doc: "Handler: environment variables (string map).", Values: nil, Targets: jfVCL},
			{Key: "comment", Doc: "Handler: a note (Copilot form).", Values: nil, Targets: jfCL},
			{Key: "async", Doc: "Handler: run without waiting (Claude Code).", Values: []string{"true", "false"}, Targets: jfCC},
			{Key: "statusMessage", Doc: "Handler: message shown while the hook runs (Claude Code).", Values: nil, Targets: jfCC},
			{Key: "url", Doc: "Handler of type http: the endpoint (Claude Code).", Values: nil, Targets: jfCC},
			{Key: "prompt", Doc: "Handler of type prompt or agent: the prompt (Claude Code).", Values: nil, Targets: jfCC},
		},
		model.KindMCP: {
			{Key: "mcpServers", Doc: "Top level: an object mapping server names to server configs.", Values: nil, Targets: jfAll},
			{Key: "type", Doc: "Transport: `stdio` (default), `http` (alias `streamable-http`), `sse` (deprecated); Claude Code also `ws`.", Values: shared.MCPTypes, Targets: jfAll},
			{Key: "command", Doc: "stdio: the program to start (required).", Values: nil, Targets: jfAll},
			{Key: "args", Doc: "stdio: a list of string arguments.", Values: nil, Targets: jfAll},
			{Key: "env", Doc: "stdio: environment variables (string map); use ${VAR} instead of literal secrets.", Values: nil, Targets: jfAll},
			{Key: "cwd", Doc: "stdio: working directory (VS Code).", Values: nil, Targets: jfV},
			{Key: "envFile", Doc: "stdio: a .env file to load (VS Code).", Values: nil, Targets: jfV},
			{Key: "url", Doc: "http/sse: the absolute server URL (required); without `type` Claude Code drops the server.", Values: nil, Targets: jfAll},
			{Key: "headers", Doc: "http/sse: request headers (string map); use ${VAR} for tokens.", Values: nil, Targets: jfAll},
			{Key: "headersHelper", Doc: "http: a command printing headers as JSON (Claude Code).", Values: nil, Targets: jfCC},
			{Key: "oauth", Doc: "http: OAuth settings (Claude Code).", Values: nil, Targets: jfCC},
			{Key: "timeout", Doc: "Startup timeout (Claude Code).", Values: nil, Targets: jfCC},
			{Key: "alwaysLoad", Doc: "Load the server's tools eagerly (Claude Code).", Values: []string{"true", "false"}, Targets: jfCC},
		},
		model.KindSettings: {
			{Key: "hooks", Doc: "Hooks in matcher-group form (Claude Code; VS Code reads them too).", Values: nil, Targets: jfVCC},
			{Key: "extraKnownMarketplaces", Doc: "Marketplaces to recommend: {name: {\"source\": {\"source\": \"github\", \"repo\": \"o/r\"}}}.", Values: nil, Targets: jfVCC},
			{Key: "enabledPlugins", Doc: "Plugins to enable: {\"plugin@marketplace\": true}.", Values: nil, Targets: jfVCC},
		},
	}
})

// JSONFields lists the keys a JSON kind knows, for hover and completion;
// nil for other kinds. Callers must not modify the result.
func JSONFields(kind model.Kind) []core.FieldInfo {
	return jsonCatalogue()[kind]
}

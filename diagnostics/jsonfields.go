package diagnostics

import (
	"github.com/ahpls-dev/ahpls/model"
	"sync"
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

var jsonCatalogue = sync.OnceValue(func() map[model.Kind][]FieldInfo {
	return map[model.Kind][]FieldInfo{
		model.KindConfig: {
			{"exclude", "Globs of files and folders ahpls neither checks nor publishes (`**` spans folders), added to the editor's `ahpls.exclude` and `ahpls check --exclude`.", nil, nil},
			{"gitignore", "`false` checks what .gitignore files ignore too (default: they are honoured).", []string{"true", "false"}, nil},
			{"overrides", "A list of {\"files\": [globs], \"rules\": {\"rule-id\": \"off|error|warning|info|hint\"}}: rule levels for the files the globs match; later entries win, and all win over `ahpls.rules`. The only way to quiet a rule in a strict JSON file.", nil, nil},
			{"files", "In an override: the globs (the `exclude` syntax, relative to the workspace folder) of the files it covers.", nil, nil},
			{"rules", "In an override: rule ids mapped to `off`, `error`, `warning`, `info` or `hint`.", nil, nil},
		},
		model.KindPlugin: {
			{"name", "Plugin name (required): kebab-case, at most 64 characters; Claude Code reserves `claude-*` and `anthropic-*`.", nil, jfAll},
			{"version", "Semantic version; VS Code and Claude Code detect updates by it.", nil, jfAll},
			{"description", "What the plugin provides.", nil, jfAll},
			{"author", "An object: {\"name\": …, \"email\": …, \"url\": …}.", nil, jfAll},
			{"homepage", "An http(s) URL.", nil, jfAll},
			{"repository", "Source repository URL.", nil, jfAll},
			{"license", "SPDX license id.", nil, jfAll},
			{"keywords", "A list of strings.", nil, jfAll},
			{"skills", "Skill folders (string or list). Claude format: paths start with `./` and add to `skills/`.", nil, jfAll},
			{"agents", "Agent files (string or list); Claude format: replaces `agents/`, paths start with `./`.", nil, jfAll},
			{"commands", "Command files or folders (string or list); Claude format: replaces `commands/`.", nil, jfAll},
			{"hooks", "Path to a hooks .json file, or an inline hooks object; merged with `hooks/hooks.json`.", nil, jfAll},
			{"mcpServers", "Path to an MCP .json file, or an inline map of servers; merged with `.mcp.json`.", nil, jfAll},
			{"outputStyles", "Output style files or folders (Claude Code).", nil, jfCC},
			{"lspServers", "LSP server config (Claude Code).", nil, jfCC},
			{"userConfig", "Values Claude Code asks the user for at install time.", nil, jfCC},
			{"metadata", "An object of extra properties.", nil, jfCC},
			{"experimental", "An object of experimental features (`themes`, `monitors`).", nil, jfCC},
			{"category", "Marketplace category (Copilot format; in Claude format it belongs in the marketplace entry).", nil, jfCL},
			{"tags", "Marketplace tags (Copilot format).", nil, jfCL},
			{"$schema", "Agent Plugins: https://agent-plugins.org/schemas/1.0.0/plugin.schema.json (required in AP manifests).", []string{apSchemaURL}, jfV},
		},
		model.KindMarketplace: {
			{"name", "Marketplace name (required): kebab-case, at most 64 characters.", nil, jfCCCL},
			{"owner", "Required object with a `name` (and optional `email`).", nil, jfCCCL},
			{"plugins", "Required array of plugin entries: {\"name\", \"source\", \"description\", \"version\", …}.", nil, jfCCCL},
			{"metadata", "Object: `description`, `version`, `pluginRoot` (base folder for bare sources).", nil, jfCCCL},
			{"source", "Plugin entry: a local path starting `./`, or an object {\"source\": kind, …}.", sourceKindNames, jfCCCL},
			{"strict", "Plugin entry: false lets the entry define the plugin without a plugin.json (Claude Code).", []string{"true", "false"}, jfCC},
		},
		model.KindHooks: {
			{"hooks", "Top level: an object mapping event names to arrays of matcher groups or handlers.", nil, jfAll},
			{"version", "Copilot form: must be 1; makes the file a Copilot CLI hooks file (camelCase events, `bash`/`powershell`).", []string{"1"}, jfCL},
			{"description", "Top level: a description of the hooks (Claude Code).", nil, jfCC},
			{"matcher", "Matcher group: tool-name pattern such as \"Write|Edit\"; VS Code ignores it and runs the hook on every event.", []string{"*"}, jfCC},
			{"type", "Handler type: `command` everywhere; Claude Code also `http`, `mcp_tool`, `prompt`, `agent`.", ccHookTypes, jfAll},
			{"command", "Handler: the shell command (Claude Code, VS Code). `${CLAUDE_PLUGIN_ROOT}` expands only in Claude-format plugins.", nil, jfVCC},
			{"args", "Handler: exec-form arguments (Claude Code).", nil, jfCC},
			{"bash", "Handler: command for bash (Copilot form).", nil, jfVCL},
			{"powershell", "Handler: command for PowerShell (Copilot form).", nil, jfVCL},
			{"windows", "Handler: Windows command override (VS Code).", nil, jfV},
			{"linux", "Handler: Linux command override (VS Code).", nil, jfV},
			{"osx", "Handler: macOS command override (VS Code).", nil, jfV},
			{"timeout", "Handler: timeout in seconds (Claude and VS Code forms).", nil, jfVCC},
			{"timeoutSec", "Handler: timeout in seconds (Copilot form).", nil, jfVCL},
			{"cwd", "Handler: working directory.", nil, jfVCL},
			{"env", "Handler: environment variables (string map).", nil, jfVCL},
			{"comment", "Handler: a note (Copilot form).", nil, jfCL},
			{"async", "Handler: run without waiting (Claude Code).", []string{"true", "false"}, jfCC},
			{"statusMessage", "Handler: message shown while the hook runs (Claude Code).", nil, jfCC},
			{"url", "Handler of type http: the endpoint (Claude Code).", nil, jfCC},
			{"prompt", "Handler of type prompt or agent: the prompt (Claude Code).", nil, jfCC},
		},
		model.KindMCP: {
			{"mcpServers", "Top level: an object mapping server names to server configs.", nil, jfAll},
			{"type", "Transport: `stdio` (default), `http` (alias `streamable-http`), `sse` (deprecated); Claude Code also `ws`.", mcpTypes, jfAll},
			{"command", "stdio: the program to start (required).", nil, jfAll},
			{"args", "stdio: a list of string arguments.", nil, jfAll},
			{"env", "stdio: environment variables (string map); use ${VAR} instead of literal secrets.", nil, jfAll},
			{"cwd", "stdio: working directory (VS Code).", nil, jfV},
			{"envFile", "stdio: a .env file to load (VS Code).", nil, jfV},
			{"url", "http/sse: the absolute server URL (required); without `type` Claude Code drops the server.", nil, jfAll},
			{"headers", "http/sse: request headers (string map); use ${VAR} for tokens.", nil, jfAll},
			{"headersHelper", "http: a command printing headers as JSON (Claude Code).", nil, jfCC},
			{"oauth", "http: OAuth settings (Claude Code).", nil, jfCC},
			{"timeout", "Startup timeout (Claude Code).", nil, jfCC},
			{"alwaysLoad", "Load the server's tools eagerly (Claude Code).", []string{"true", "false"}, jfCC},
		},
		model.KindSettings: {
			{"hooks", "Hooks in matcher-group form (Claude Code; VS Code reads them too).", nil, jfVCC},
			{"extraKnownMarketplaces", "Marketplaces to recommend: {name: {\"source\": {\"source\": \"github\", \"repo\": \"o/r\"}}}.", nil, jfVCC},
			{"enabledPlugins", "Plugins to enable: {\"plugin@marketplace\": true}.", nil, jfVCC},
		},
	}
})

// JSONFields lists the keys a JSON kind knows, for hover and completion;
// nil for other kinds. Callers must not modify the result.
func JSONFields(kind model.Kind) []FieldInfo {
	return jsonCatalogue()[kind]
}

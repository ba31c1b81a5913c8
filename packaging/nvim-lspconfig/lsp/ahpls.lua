---@brief
---
--- https://github.com/ahpls-dev/ahpls
---
--- Language server for agent customization files: skills (SKILL.md), custom
--- agents, prompts, instructions and rules, hooks (hooks.json), MCP configs
--- (.mcp.json), plugin manifests and marketplaces. Checks them as you type for
--- the consumers you target (VS Code, Claude Code, Copilot CLI, the Agent
--- Skills spec, …), with quick fixes, hover, completion and rename.
---
--- Install `ahpls` and `ahpls-mcp` (from the first release: a release archive,
--- `npm install -g ahpls`, or `go install github.com/ahpls-dev/ahpls/cmd/...@latest`).
--- Settings go under `settings.ahpls` (targets, rules, exclude, host, …); see
--- the README. The plugin in editors/nvim adds commands, `:checkhealth ahpls`
--- and attaches to customization files only.
---
--- This file is the nvim-lspconfig entry proposed upstream (lsp/ahpls.lua);
--- until it is there, copy it into an `lsp/` folder on your 'runtimepath'
--- and call `vim.lsp.enable('ahpls')` (Neovim 0.11+). Its cmd, filetypes and
--- root_markers are the plugin's defaults (editors/nvim/test/lspconfig_spec.lua).

---@type vim.lsp.Config
return {
  cmd = { 'ahpls', 'serve' },
  filetypes = { 'markdown', 'json', 'jsonc', 'yaml', 'mdc', 'toml' },
  root_markers = { '.git', '.github', '.claude', '.plugin', '.claude-plugin', '.codex-plugin', '.cursor-plugin' },
}

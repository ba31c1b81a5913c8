-- ahpls for Neovim: starts `ahpls serve` for agent customization files
-- (SKILL.md, *.agent.md, prompts, instructions, Claude agents/commands/rules,
-- hooks.json, .mcp.json, plugin.json, marketplace.json).
--
-- Two ways in:
--   * Neovim 0.11+: `vim.lsp.enable('ahpls')` reads lsp/ahpls.lua (built by
--     M.lsp_config below); override with `vim.lsp.config('ahpls', {...})`.
--   * Any version from 0.7: `require('ahpls').setup(opts)`. On 0.11+ it goes
--     through vim.lsp.config/enable; before that it starts clients itself with
--     vim.lsp.start_client + vim.lsp.buf_attach_client (Debian ships 0.7.2).
-- Both attach only to our file kinds (M.is_ours) under a root (M.find_root).
local M = {}
-- Generated from the server's kind table (model.Kinds): filetypes and patterns.
local filekinds = require('ahpls.filekinds')

M.name = 'ahpls'
M.filetypes = vim.deepcopy(filekinds.filetypes)
-- `.git` wins when present (one server per repository, which also sees the
-- plugins inside it); otherwise the nearest folder with one of the others
-- (a plugin folder has only its manifest folder). Without any, a SKILL.md's
-- root is the folder that holds the skill folder, and any other file is
-- served on its own folder (M.root_with_reason).
M.root_markers = { '.git', '.github', '.claude', '.plugin', '.claude-plugin', '.codex-plugin', '.cursor-plugin' }

M.lsp_commands = {
  toggle = 'ahpls.toggleCustomization',
  show_host_connection = 'ahpls.showHostConnection',
}
M.scopes = { 'session', 'workspace', 'global' }

local defaults = {
  cmd = { 'ahpls', 'serve' },
  filetypes = M.filetypes,
  root_markers = M.root_markers,
  -- Passed through untouched: `settings.ahpls` is the server's section
  -- (targets, host, sessions, trustWorkspaceTools, rules, impliedTargets).
  settings = { ahpls = vim.empty_dict and vim.empty_dict() or {} },
  -- nil: send settings.ahpls as initializationOptions.
  init_options = nil,
  capabilities = nil,
  on_attach = nil,
  on_exit = nil,
  flags = nil,
}

local has_011 = vim.fn.has('nvim-0.11') == 1

-- tbl_deep_extend merges lists index by index ({'x'} over {'ahpls','serve'}
-- would give {'x','serve'}); list options replace the defaults instead.
local list_options = { 'cmd', 'filetypes', 'root_markers', 'root_dir' }
local function merge(opts)
  opts = opts or {}
  local out = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts)
  for _, k in ipairs(list_options) do
    if opts[k] ~= nil then
      out[k] = opts[k]
    end
  end
  return out
end

---@private
M._opts = vim.deepcopy(defaults)
--- Last `ahpls/hostStatus` params per client id.
M._host_status = {}
--- root dir -> client id (0.7–0.10 path only).
M._clients = {}

-- Client methods are called with `:` from 0.11 on (the `.` forms are deprecated there).
local function call(client, method, ...)
  if has_011 then
    return client[method](client, ...)
  end
  return client[method](...)
end

local function notify(msg, level)
  vim.notify('ahpls: ' .. msg, level or vim.log.levels.INFO)
end

--- A one-line notice that never asks to press Enter: shown after the
--- buffer opens (a message while a file loads stacks with its own), and cut
--- to fit the command line. The full reason is in :checkhealth ahpls.
---@param msg string
function M.notice(msg)
  msg = 'ahpls: ' .. msg
  vim.schedule(function()
    local width = math.max(20, vim.o.columns - 15)
    if vim.fn.strdisplaywidth(msg) > width then
      msg = vim.fn.strcharpart(msg, 0, width - 1) .. '…'
    end
    vim.notify(msg, vim.log.levels.INFO)
  end)
end

local function normalize(path)
  if path == nil then
    return ''
  end
  path = path:gsub('\\', '/')
  return path
end

local function basename(path)
  return path:match('([^/]+)$') or path
end

--- Neovim knows no filetype for Cursor's rules or Roo Code's .roomodes:
--- .mdc files and .cursorrules get their own, .roomodes yaml (each kept if
--- the user already set one), so the client attaches.
function M.setup_filetypes()
  if not (vim.filetype and vim.filetype.add) then
    return
  end
  vim.filetype.add({
    extension = { mdc = 'mdc' },
    -- the kinds' languages (model.Kinds)
    filename = { ['.cursorrules'] = 'mdc', ['.roomodes'] = 'yaml' },
  })
end

-- A hooks.json or mcp.json outside .github/hooks is checked only as part of
-- a plugin: the server classifies it by the plugin's manifest on disk.
local plugin_json = {
  ['hooks.json'] = true,
  ['mcp.json'] = true,
}
local manifest_paths = { '.plugin/plugin.json', 'plugin.json', '.github/plugin/plugin.json', '.claude-plugin/plugin.json' }

--- Whether a plugin's hooks.json or mcp.json belongs to a plugin the server
--- would see: <P>/hooks/hooks.json, <P>/hooks.json or <P>/mcp.json with a
--- plugin manifest in P, or <P>/hooks/hooks.json below a Claude marketplace
--- (which may list P without a manifest). A lone hooks.json is nobody's.
---@param path string
---@return boolean
function M.in_plugin(path)
  local dir = path:match('^(.*)/[^/]*$')
  if dir == nil then
    return false
  end
  local nested = basename(path) == 'hooks.json' and basename(dir) == 'hooks'
  local p = nested and dir:match('^(.*)/[^/]*$') or dir
  if p == nil then
    return false
  end
  for _, m in ipairs(manifest_paths) do
    if vim.loop.fs_stat(p .. '/' .. m) ~= nil then
      return true
    end
  end
  if nested then
    local up = p
    while up ~= nil and up ~= '' do
      if vim.loop.fs_stat(up .. '/.claude-plugin/marketplace.json') ~= nil then
        return true
      end
      local next_up = up:match('^(.*)/[^/]*$')
      if next_up == up then
        break
      end
      up = next_up
    end
  end
  return false
end

--- Whether a path is one of the customization file kinds ahpls reads
--- (customization-formats.md §2.1): it matches a kind's document pattern
--- (filekinds.lua, generated). A little wider than the server's own
--- classifier for plugin agents/commands folders: the server ignores the rest.
---@param path string
---@return boolean
function M.is_ours(path)
  path = normalize(path)
  if path == '' or path:match('^%a+://') then
    return false
  end
  if path:find('/node_modules/', 1, true) or path:find('/.git/', 1, true) then
    return false
  end
  if basename(path):lower() == 'readme.md' then
    return false
  end
  local p = '/' .. path
  if p:find('/.vscode/mcp.json', 1, true) then
    return false
  end
  for _, pattern in ipairs(filekinds.patterns) do
    if p:match(pattern) then
      if plugin_json[basename(path)] and not p:match('/%.github/hooks/[^/]*%.json$') then
        return M.in_plugin(path)
      end
      return true
    end
  end
  return false
end

local function exists(path)
  return vim.loop.fs_stat(path) ~= nil
end

local function parent(dir)
  local p = dir:match('^(.*)/[^/]*$')
  if p == nil or p == '' then
    return dir:sub(1, 1) == '/' and '/' or nil
  end
  -- Windows drive root: keep "C:/".
  if p:match('^%a:$') then
    return p .. '/'
  end
  return p
end

--- The workspace root for a file: the nearest ancestor holding `.git`, else
--- the nearest holding any other marker; nil when there is none. The
--- second value is the marker found there.
---@param path string absolute file path
---@param markers string[]|nil
---@return string|nil, string|nil
function M.find_root(path, markers)
  markers = markers or M._opts.root_markers or M.root_markers
  path = normalize(path)
  local start = parent(path)
  local function search(list)
    local dir = start
    while dir ~= nil do
      for _, m in ipairs(list) do
        local base = dir:sub(-1) == '/' and dir or (dir .. '/')
        if exists(base .. m) then
          return dir, m
        end
      end
      local up = parent(dir)
      if up == dir then
        break
      end
      dir = up
    end
    return nil
  end
  local first = markers[1]
  if first == '.git' then
    local git = search({ '.git' })
    if git ~= nil then
      return git, '.git'
    end
  end
  return search(markers)
end

--- Why each root was chosen, for :checkhealth (root -> sentence).
M._root_reasons = {}
--- Set once the single-file notice was shown (it is shown once per session).
M._single_file_noticed = false

--- The root for a buffer and why: the user's `root_dir`, else the nearest
--- root marker, else (a SKILL.md) the folder holding the skill folder, else
--- the file's own folder with a one-time notice, so that a file in a
--- downloaded archive or a bare folder is still served. A `root_dir`
--- function that gives nil means "do not attach" and is obeyed.
---@param path string absolute file name of the buffer
---@param bufnr integer|nil
---@param opts table|nil defaults to the options of the last setup()
---@return string|nil root, string|nil reason
function M.root_with_reason(path, bufnr, opts)
  opts = opts or M._opts
  local rd = opts.root_dir
  if rd ~= nil and rd ~= '' then
    local r = M.root_for(path, bufnr, opts)
    if r == nil then
      return nil, nil
    end
    return r, 'the root_dir option'
  end
  local root, marker = M.find_root(path, opts.root_markers)
  if root ~= nil then
    return root, ('nearest folder with %s'):format(marker)
  end
  path = normalize(path)
  local dir = parent(path)
  if dir == nil then
    return nil, nil
  end
  if basename(path):lower() == 'skill.md' then
    local up = parent(dir)
    if up ~= nil and up ~= dir then
      return up, ('no root marker (%s) above; the folder holding the skill folder %s'):format(
        table.concat(opts.root_markers or M.root_markers, ', '),
        basename(dir)
      )
    end
  end
  if not M._single_file_noticed then
    M._single_file_noticed = true
    M.notice(('%s: no root marker above, serving its folder on its own (:checkhealth ahpls)'):format(basename(path)))
  end
  return dir, 'single file: no root marker above it; its own folder'
end

local function host_status_handler(_, result, ctx)
  if type(result) ~= 'table' or type(result.state) ~= 'string' then
    return
  end
  M._host_status[ctx.client_id] = {
    state = result.state,
    message = type(result.message) == 'string' and result.message or nil,
    host = type(result.host) == 'string' and result.host or nil,
  }
  -- For statuslines: `autocmd User AhplsHostStatus redrawstatus`.
  pcall(vim.api.nvim_exec_autocmds, 'User', { pattern = 'AhplsHostStatus', modeline = false })
end

-- Before 0.10 the hover float shows tables and links raw (ahpls/hover.lua).
local function own_handlers()
  local h = { ['ahpls/hostStatus'] = host_status_handler }
  if vim.fn.has('nvim-0.10') == 0 then
    h['textDocument/hover'] = require('ahpls.hover').handler
  end
  return h
end

--- The ahpls clients, for a buffer or all of them.
---@param bufnr integer|nil
function M.clients(bufnr)
  local out = {}
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ name = M.name, bufnr = bufnr })
  end
  if bufnr ~= nil then
    for _, c in pairs(vim.lsp.buf_get_clients(bufnr)) do
      if c.name == M.name then
        table.insert(out, c)
      end
    end
    return out
  end
  for _, c in ipairs(vim.lsp.get_active_clients()) do
    if c.name == M.name then
      table.insert(out, c)
    end
  end
  return out
end

--- One line for a statusline: the host connection of the current buffer's server.
---@return string
function M.status(bufnr)
  local c = M.clients(bufnr or vim.api.nvim_get_current_buf())[1]
  if c == nil then
    return ''
  end
  local s = M._host_status[c.id]
  if s == nil or not M.host_configured(s) then
    return 'ahpls'
  end
  return 'ahpls: host ' .. s.state
end

--- Whether a host status is about a configured agent host: without one the
--- server reports "disconnected" with a message saying none is configured,
--- and a statusline should stay neutral, as VS Code's does (most users only
--- lint).
---@param s table { state, message, host }
---@return boolean
function M.host_configured(s)
  if s.host ~= nil then
    return true
  end
  local msg = (s.message or ''):lower()
  local unconfigured = msg:find('not configured', 1, true) or msg:find('no agent host configured', 1, true)
  return not (s.state == 'disconnected' and unconfigured)
end

local function before_init(params, config)
  if params.initializationOptions == nil or params.initializationOptions == vim.NIL then
    local s = config.settings and config.settings.ahpls
    if s ~= nil then
      params.initializationOptions = s
    end
  end
end

--- The root for a buffer under `opts`: the user's `root_dir` when given (a
--- string, or a function(fname, bufnr) -> string|nil as in nvim-lspconfig),
--- else the nearest folder with one of `opts.root_markers` (`.git` first).
---@param path string absolute file name of the buffer
---@param bufnr integer|nil
---@param opts table|nil defaults to the options of the last setup()
---@return string|nil
function M.root_for(path, bufnr, opts)
  opts = opts or M._opts
  local rd = opts.root_dir
  if type(rd) == 'string' and rd ~= '' then
    return rd
  end
  if type(rd) == 'function' then
    local ok, r = pcall(rd, path, bufnr)
    if not ok then
      notify('root_dir failed: ' .. tostring(r), vim.log.levels.ERROR)
      return nil
    end
    return (type(r) == 'string' and r ~= '') and r or nil
  end
  return M.find_root(path, opts.root_markers)
end

--- The client capabilities to send: the user's, except that Neovim before
--- 0.10 stops advertising file renames. It lists `rename` among its
--- resource operations, but its util.rename cannot move a folder (it writes
--- the folder's "buffer" first: E502, a traceback, the name changed and the
--- folder left), and a folder is the only thing ahpls renames. Without the
--- capability the server changes the skill's name only and says which
--- folder to rename by hand. 0.10+ moves folders itself (with their open
--- buffers) and keeps the capability.
---@param user table|nil capabilities from setup()
---@param version_010 boolean|nil Neovim is 0.10 or newer (default: this one)
function M.capabilities(user, version_010)
  if version_010 == nil then
    version_010 = vim.fn.has('nvim-0.10') == 1
  end
  if version_010 then
    return user
  end
  local caps = vim.tbl_deep_extend('force', vim.lsp.protocol.make_client_capabilities(), user or {})
  local we = caps.workspace and caps.workspace.workspaceEdit
  if type(we) == 'table' and type(we.resourceOperations) == 'table' then
    we.resourceOperations = vim.tbl_filter(function(op)
      return op ~= 'rename'
    end, we.resourceOperations)
  end
  return caps
end

--- The client configuration shared by both paths (without root/attach logic).
---@param opts table|nil
function M.client_config(opts)
  opts = merge(opts)
  local user_on_attach = opts.on_attach
  return {
    name = M.name,
    cmd = opts.cmd,
    filetypes = opts.filetypes,
    settings = opts.settings,
    init_options = opts.init_options,
    capabilities = M.capabilities(opts.capabilities),
    flags = opts.flags,
    before_init = before_init,
    handlers = vim.tbl_extend('force', own_handlers(), opts.handlers or {}),
    on_attach = function(client, bufnr)
      M.create_user_commands()
      if user_on_attach then
        user_on_attach(client, bufnr)
      end
    end,
    on_exit = function(code, signal, client_id)
      M._host_status[client_id] = nil
      if opts.on_exit then
        opts.on_exit(code, signal, client_id)
      end
      for root, id in pairs(M._clients) do
        if id == client_id then
          M._clients[root] = nil
        end
      end
    end,
  }
end

--- The table lsp/ahpls.lua returns (Neovim 0.11+).
---
--- The root is decided when a buffer opens, not when this file loads, so
--- `vim.lsp.config('ahpls', { root_markers = {...} })` after loading still
--- counts (a `root_dir` given there replaces this function altogether).
function M.lsp_config(opts)
  M.setup_filetypes()
  local cfg = M.client_config(opts)
  local own = merge(opts)
  cfg.root_markers = own.root_markers
  cfg.root_dir = function(bufnr, on_dir)
    local path = vim.api.nvim_buf_get_name(bufnr)
    if not M.is_ours(path) then
      return
    end
    local effective = { root_dir = own.root_dir, root_markers = own.root_markers }
    local ok, merged = pcall(function()
      return vim.lsp.config[M.name]
    end)
    if ok and type(merged) == 'table' and type(merged.root_markers) == 'table' then
      effective.root_markers = merged.root_markers
    end
    local root, reason = M.root_with_reason(path, bufnr, effective)
    if root ~= nil then
      M._root_reasons[root] = reason
      on_dir(root)
    end
  end
  return cfg
end

--- 0.7–0.10: start (or reuse) the client for the buffer's root and attach.
---@return integer|nil client id
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local path = vim.api.nvim_buf_get_name(bufnr)
  if vim.bo[bufnr].buftype ~= '' or not M.is_ours(path) then
    return nil
  end
  local root, reason = M.root_with_reason(path, bufnr, M._opts)
  if root == nil then
    return nil
  end
  M._root_reasons[root] = reason
  local id = M._clients[root]
  local client = id and vim.lsp.get_client_by_id(id)
  if client == nil or call(client, 'is_stopped') then
    local cfg = M.client_config(M._opts)
    cfg.root_dir = root
    cfg.workspace_folders = { { uri = vim.uri_from_fname(root), name = root } }
    cfg.on_init = function(c)
      -- 0.10+ sends this itself; older versions leave it to the client config.
      if vim.fn.has('nvim-0.10') == 0 and c.config.settings ~= nil then
        call(c, 'notify', 'workspace/didChangeConfiguration', { settings = c.config.settings })
      end
    end
    if vim.fn.executable(cfg.cmd[1]) ~= 1 then
      notify(("cannot run '%s': install ahpls or pass cmd to setup()"):format(cfg.cmd[1]), vim.log.levels.ERROR)
      return nil
    end
    id = vim.lsp.start_client(cfg)
    if id == nil then
      return nil
    end
    M._clients[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
  return id
end

--- Configures ahpls. Safe to call more than once; the last call wins for new clients.
---@param opts table|nil cmd, settings = { ahpls = {...} }, init_options, root_markers, root_dir (string or function(fname, bufnr)), filetypes, capabilities, on_attach, on_exit, handlers, flags
function M.setup(opts)
  M.setup_filetypes()
  M._opts = merge(opts)
  M.create_user_commands()
  if has_011 then
    vim.lsp.config(M.name, M.lsp_config(M._opts))
    vim.lsp.enable(M.name)
    return
  end
  local group = vim.api.nvim_create_augroup('ahpls', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = M._opts.filetypes,
    callback = function(ev)
      M.attach(ev.buf)
    end,
  })
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.tbl_contains(M._opts.filetypes, vim.bo[b].filetype) then
      M.attach(b)
    end
  end
end

local function execute(client, command, args, bufnr, on_done)
  call(client, 'request', 'workspace/executeCommand', { command = command, arguments = args }, function(err, result)
    if on_done then
      on_done(err, result)
    end
  end, bufnr)
end

local function pick_client(bufnr)
  local c = M.clients(bufnr)[1] or M.clients()[1]
  if c == nil then
    notify('no ahpls server is running (open a customization file first)', vim.log.levels.WARN)
  end
  return c
end

--- Executes ahpls.toggleCustomization for a file (default: current buffer) or id.
---@param opts { enabled: boolean, scope: string|nil, uri: string|nil, id: string|nil, bufnr: integer|nil }
function M.toggle(opts)
  local bufnr = opts.bufnr or vim.api.nvim_get_current_buf()
  local scope = opts.scope or 'workspace'
  if not vim.tbl_contains(M.scopes, scope) then
    notify(("unknown scope '%s' (session, workspace, global)"):format(scope), vim.log.levels.ERROR)
    return
  end
  local arg = { scope = scope, enabled = opts.enabled and true or false }
  if opts.id ~= nil then
    arg.id = opts.id
  else
    arg.uri = opts.uri or vim.uri_from_bufnr(bufnr)
  end
  local c = pick_client(bufnr)
  if c == nil then
    return
  end
  execute(c, M.lsp_commands.toggle, { arg }, bufnr, function(err)
    if err then
      notify('toggle failed: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    else
      notify(('%s (%s)'):format(arg.enabled and 'enabled' or 'disabled', scope))
    end
  end)
end

local function str(v)
  return type(v) == 'string' and v ~= '' and v or nil
end

local function list(v)
  return type(v) == 'table' and v or {}
end

--- Lines for :AhplsHostConnection: the last `ahpls/hostStatus` and the
--- answer of ahpls.showHostConnection (hostlink.Status), one fact a line.
---@param status table|nil { state, host, message }
---@param result any the command's result (a table, a string, nil or vim.NIL)
---@return string[]
function M.format_host_connection(status, result)
  local lines = {}
  local r = type(result) == 'table' and result or {}
  local state = str(r.state) or (status and status.state) or 'not reported yet'
  local head = 'Agent host: ' .. state
  local url = str(r.url) or (status and status.host)
  if url then
    head = head .. ' (' .. url .. ')'
  end
  table.insert(lines, head)
  local msg = str(r.message) or (status and status.message)
  if msg then
    table.insert(lines, '  Last message: ' .. msg)
  end
  if str(r.protocolVersion) or str(r.dialect) then
    table.insert(lines, ('  Protocol: %s%s'):format(str(r.protocolVersion) or '?', str(r.dialect) and (' (dialect ' .. r.dialect .. ')') or ''))
  end
  if str(r.clientId) then
    table.insert(lines, '  Client id: ' .. r.clientId)
  end
  local details = list(r.sessionDetails)
  local sessions = list(r.sessions)
  if #details > 0 or #sessions > 0 then
    table.insert(lines, '  Sessions:')
    if #details > 0 then
      for _, d in ipairs(details) do
        local dirs = table.concat(list(d.workingDirectories), ', ')
        table.insert(lines, ('    %s%s%s'):format(tostring(d.uri), str(d.title) and (' "' .. d.title .. '"') or '', dirs ~= '' and (' in ' .. dirs) or ''))
      end
    else
      for _, u in ipairs(sessions) do
        table.insert(lines, '    ' .. tostring(u))
      end
    end
  elseif type(result) == 'table' and r.state == 'connected' then
    table.insert(lines, '  Sessions: none joined')
  end
  local plugins = list(r.plugins)
  if #plugins > 0 then
    table.insert(lines, '  Published plugins:')
    for _, p in ipairs(plugins) do
      local line = ('    %s  %s'):format(tostring(p.name or p.id), tostring(p.uri or ''))
      if #list(p.omitted) > 0 then
        line = line .. '  (left out: ' .. table.concat(p.omitted, ', ') .. ')'
      end
      table.insert(lines, line)
    end
  end
  for _, c in ipairs(list(r.toolCollisions)) do
    table.insert(lines, '  Tool collision: ' .. tostring(c))
  end
  if type(result) == 'string' and result ~= '' then
    table.insert(lines, result)
  end
  return lines
end

--- Shows the agent-host connection: the last ahpls/hostStatus and the server's answer.
function M.show_host_connection(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local c = pick_client(bufnr)
  if c == nil then
    return
  end
  local s = M._host_status[c.id]
  execute(c, M.lsp_commands.show_host_connection, {}, bufnr, function(err, result)
    local lines = M.format_host_connection(s, (not err) and result or nil)
    if err then
      table.insert(lines, '  (the server did not answer: ' .. (err.message or 'error') .. ')')
    end
    notify(table.concat(lines, '\n'))
  end)
end

--- Stops the ahpls clients and starts them again for the buffers they served.
function M.restart()
  local buffers = {}
  for _, c in ipairs(M.clients()) do
    local attached = c.attached_buffers
    if attached == nil then
      attached = {}
      for _, b in ipairs(vim.lsp.get_buffers_by_client_id(c.id)) do
        attached[b] = true
      end
    end
    for b in pairs(attached) do
      buffers[b] = true
    end
    call(c, 'stop')
  end
  vim.wait(5000, function()
    return #M.clients() == 0
  end, 50)
  M._clients = {}
  for b in pairs(buffers) do
    if vim.api.nvim_buf_is_valid(b) then
      if has_011 then
        vim.api.nvim_exec_autocmds('FileType', { buffer = b, modeline = false })
      else
        M.attach(b)
      end
    end
  end
end

local commands_created = false

--- :AhplsRestart, :AhplsToggle enable|disable [session|workspace|global], :AhplsHostConnection,
--- :AhplsList [consumer]
function M.create_user_commands()
  if commands_created then
    return
  end
  commands_created = true
  vim.api.nvim_create_user_command('AhplsRestart', function()
    M.restart()
  end, { desc = 'Restart the ahpls language server' })
  vim.api.nvim_create_user_command('AhplsToggle', function(a)
    local what, scope = a.fargs[1], a.fargs[2]
    if what ~= 'enable' and what ~= 'disable' then
      notify('usage: :AhplsToggle enable|disable [session|workspace|global]', vim.log.levels.ERROR)
      return
    end
    M.toggle({ enabled = what == 'enable', scope = scope })
  end, {
    nargs = '+',
    desc = 'Enable or disable the customization in this buffer',
    complete = function(_, line)
      local n = #vim.split(line, '%s+')
      if n <= 2 then
        return { 'enable', 'disable' }
      end
      return M.scopes
    end,
  })
  vim.api.nvim_create_user_command('AhplsHostConnection', function()
    M.show_host_connection()
  end, { desc = 'Show the agent host connection of ahpls' })
  vim.api.nvim_create_user_command('AhplsList', function(a)
    require('ahpls.list').open({ consumer = a.fargs[1] })
  end, {
    nargs = '?',
    desc = 'What each agent loads from the workspace (one consumer: vscode, vscode-agent-host, claude-code, copilot-cli, agent-skills)',
    complete = function()
      return { 'vscode', 'vscode-agent-host', 'claude-code', 'copilot-cli', 'agent-skills' }
    end,
  })
end

return M

-- :checkhealth ahpls — works with the health API of 0.7–0.9 (report_*) and 0.10+.
local M = {}

local function api()
  local h = vim.health
  if h == nil or (h.start == nil and h.report_start == nil) then
    h = require('health')
  end
  return {
    start = h.start or h.report_start,
    ok = h.ok or h.report_ok,
    warn = h.warn or h.report_warn,
    error = h.error or h.report_error,
    info = h.info or h.report_info,
  }
end

function M.check()
  local h = api()
  local ahpls = require('ahpls')
  h.start('ahpls')

  local v = vim.version()
  local version = ('%d.%d.%d'):format(v.major, v.minor, v.patch)
  if vim.fn.has('nvim-0.7') == 0 then
    h.error('Neovim ' .. version .. ' is too old: ahpls needs 0.7 or newer')
  elseif vim.fn.has('nvim-0.11') == 1 then
    h.ok('Neovim ' .. version .. ": use vim.lsp.enable('ahpls') or require('ahpls').setup()")
  else
    h.ok('Neovim ' .. version .. ": use require('ahpls').setup()")
  end

  local cmd = ahpls._opts.cmd or { 'ahpls', 'serve' }
  if vim.fn.has('nvim-0.11') == 1 and vim.lsp.config and vim.lsp.config.ahpls and vim.lsp.config.ahpls.cmd then
    local c = vim.lsp.config.ahpls.cmd
    if type(c) == 'table' then
      cmd = c
    end
  end
  local exe = cmd[1]
  if vim.fn.executable(exe) ~= 1 then
    h.error(("'%s' is not executable"):format(exe), {
      'Build it: make build (bin/ahpls and bin/ahpls-mcp), or go install ./cmd/... in a checkout',
      "Or pass the path: require('ahpls').setup({ cmd = { '/path/to/ahpls', 'serve' } })",
    })
  else
    local path = vim.fn.exepath(exe)
    local out = vim.fn.system({ path, 'version' })
    local first = (out:match('[^\n]+') or ''):gsub('%s+$', '')
    if vim.v.shell_error == 0 then
      h.ok(first ~= '' and ('%s: %s'):format(path, first) or path)
    else
      h.warn(("%s found, but '%s version' failed: %s"):format(path, path, first))
    end
  end

  local clients = ahpls.clients()
  if #clients == 0 then
    h.info(
      ('No ahpls server running (open a SKILL.md, *.agent.md, .mcp.json, …; the root is the nearest folder with one of %s, else the folder holding a skill folder, else the file\'s own folder)'):format(
        table.concat(ahpls._opts.root_markers or ahpls.root_markers, ', ')
      )
    )
  end
  for _, c in ipairs(clients) do
    local root = c.config and c.config.root_dir or '?'
    h.info(('server %d root %s, chosen because: %s'):format(c.id, root, ahpls._root_reasons[root] or 'unknown (set outside ahpls)'))
    local s = ahpls._host_status[c.id]
    local host = s and (s.state .. (s.host and (' ' .. s.host) or '') .. (s.message and (' — ' .. s.message) or ''))
      or 'no host status reported yet'
    if s and s.state == 'refused' then
      h.warn(('server %d for %s: agent host %s'):format(c.id, root, host))
    else
      h.ok(('server %d for %s: agent host %s'):format(c.id, root, host))
    end
  end
end

return M

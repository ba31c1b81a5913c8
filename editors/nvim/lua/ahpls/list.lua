-- :AhplsList — what each agent sees (issue #32): the server's ahpls.listView
-- (package view in Go) rendered in a scratch buffer, one block per consumer,
-- one line per item; <CR> on an item opens its source file. Works on 0.7.2.
local M = {}

M.command = 'ahpls.listView'

local status_width = 11

-- Per list buffer, line number -> file (a sparse table: not a buffer variable).
M._targets = {}

local function item_lines(out, targets, root, items, indent)
  for _, it in ipairs(items or {}) do
    local line = ('%s%-' .. status_width .. 's %s  <- %s'):format(indent, it.status or '', it.name or '', it.source or '')
    if it.status == 'shadowed' and it.shadowedBy then
      line = line .. '  (shadowed by ' .. it.shadowedBy .. ')'
    elseif it.status == 'fails' then
      line = line .. '  (' .. (it.rule or '') .. ': ' .. (it.reason or '') .. ')'
    elseif it.reason and it.reason ~= '' then
      line = line .. '  (' .. it.reason .. ')'
    elseif it.status == 'loads' and it.install and it.install ~= '' then
      line = line .. '  (' .. it.install .. ')'
    end
    if it.description and it.description.truncated then
      line = line .. ('  [description cut at %d of %d]'):format(it.description.budget or 0, it.description.length or 0)
    end
    if it.hostState and it.hostState ~= '' then
      line = line .. '  [host: ' .. it.hostState .. ']'
    end
    table.insert(out, line)
    if it.source and it.source ~= '' then
      targets[#out] = root .. '/' .. it.source
    end
    item_lines(out, targets, root, it.components, indent .. '    ')
  end
end

--- Lines for the list buffer and, per line number, the file it names.
--- views is ahpls.listView's answer: [{folder, uri, consumers: [...]}].
--- consumer, when set, keeps only that target ("claude-code").
function M.format(views, consumer)
  local out, targets = {}, {}
  for _, fv in ipairs(views or {}) do
    if #views > 1 then
      table.insert(out, '# ' .. (fv.folder or ''))
    end
    for _, c in ipairs(fv.consumers or {}) do
      if consumer == nil or consumer == '' or c.target == consumer then
        if #out > 0 then
          table.insert(out, '')
        end
        table.insert(out, ('%s (%s)'):format(c.name or c.target, c.target))
        if c.items == nil or #c.items == 0 then
          table.insert(out, '  (nothing)')
        end
        item_lines(out, targets, fv.folder or '.', c.items, '  ')
        if c.listing then
          table.insert(out, ('  skill listing: %d of %d characters%s'):format(c.listing.chars or 0, c.listing.budget or 0, c.listing.over and ' (over)' or ''))
        end
      end
    end
  end
  if #out == 0 then
    out = { '(no workspace folder)' }
  end
  return out, targets
end

--- Shows the list in a scratch buffer; opts.consumer keeps one target.
function M.open(opts)
  opts = opts or {}
  local ahpls = require('ahpls')
  local bufnr = vim.api.nvim_get_current_buf()
  local client = ahpls.clients(bufnr)[1] or ahpls.clients()[1]
  if client == nil then
    vim.notify('ahpls: no ahpls server is running (open a customization file first)', vim.log.levels.WARN)
    return
  end
  local args = {}
  if opts.targets then
    args = { { targets = opts.targets } }
  end
  client.request('workspace/executeCommand', { command = M.command, arguments = args }, function(err, result)
    if err then
      vim.notify('ahpls: ' .. M.command .. ': ' .. (err.message or tostring(err)), vim.log.levels.ERROR)
      return
    end
    M.show(result, opts.consumer)
  end, bufnr)
end

--- Fills (or reuses) the "ahpls://list" scratch buffer with the view.
function M.show(views, consumer)
  local lines, targets = M.format(views, consumer)
  local buf = vim.fn.bufnr('ahpls://list')
  if buf == -1 then
    buf = vim.api.nvim_create_buf(true, true)
    vim.api.nvim_buf_set_name(buf, 'ahpls://list')
  end
  vim.api.nvim_buf_set_option(buf, 'buftype', 'nofile')
  vim.api.nvim_buf_set_option(buf, 'bufhidden', 'hide')
  vim.api.nvim_buf_set_option(buf, 'swapfile', false)
  vim.api.nvim_buf_set_option(buf, 'modifiable', true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.api.nvim_buf_set_option(buf, 'modifiable', false)
  vim.api.nvim_buf_set_option(buf, 'filetype', 'ahplslist')
  M._targets[buf] = targets
  vim.api.nvim_buf_set_keymap(buf, 'n', '<CR>', '', {
    noremap = true,
    silent = true,
    callback = function()
      local t = (M._targets[buf] or {})[vim.api.nvim_win_get_cursor(0)[1]]
      if t then
        vim.cmd('edit ' .. vim.fn.fnameescape(t))
      end
    end,
  })
  vim.api.nvim_set_current_buf(buf)
  return buf
end

return M

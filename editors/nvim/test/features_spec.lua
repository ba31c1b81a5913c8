-- Headless Neovim test of the navigation features of #18 against the real
-- server ($AHPLS_BIN), on Neovim 0.7.2 (Debian) or newer:
--   nvim --headless -u NONE -i NONE -n -c 'luafile editors/nvim/test/features_spec.lua'
-- document symbols, definition on a Markdown link, and rename of a skill
-- (its folder renamed on disk). Prints TAP-like lines and "N passed, N failed".
local here = debug.getinfo(1, 'S').source:sub(2):match('(.*)/') or '.'
here = vim.fn.fnamemodify(here, ':p'):gsub('/$', '')
vim.opt.runtimepath:prepend(vim.fn.fnamemodify(here, ':h'))
package.path = here .. '/?.lua;' .. package.path
local A = require('assert')
local ahpls = require('ahpls')

local WAIT = 30000
local bin = os.getenv('AHPLS_BIN') or vim.fn.fnamemodify(here .. '/../../../bin/ahpls', ':p')
local s = {}

local function write(rel, text)
  local p = s.root .. '/' .. rel
  vim.fn.mkdir(vim.fn.fnamemodify(p, ':h'), 'p')
  local f = assert(io.open(p, 'w'))
  f:write(text)
  f:close()
  return p
end

local function request(method, params)
  local responses = vim.lsp.buf_request_sync(s.buf, method, params, WAIT) or {}
  local resp = responses[s.client_id]
  A.truthy(resp, method .. ' answered')
  A.truthy(not resp.err, method .. ' error: ' .. vim.inspect(resp and resp.err))
  return resp.result
end

-- Messages the server shows (a value-only rename says why).
local shown = {}
local show_message = vim.lsp.handlers['window/showMessage']
vim.lsp.handlers['window/showMessage'] = function(err, result, ctx, config)
  table.insert(shown, result and result.message or '')
  return show_message(err, result, ctx, config)
end
local has_010 = vim.fn.has('nvim-0.10') == 1

local tests = {}
local function step(name, fn)
  table.insert(tests, { name = name, fn = fn })
end

step('starts ahpls on a skill with a linked reference', function()
  A.eq(1, vim.fn.executable(bin), 'AHPLS_BIN ' .. bin .. ' is executable')
  s.root = vim.fn.resolve(vim.fn.tempname())
  vim.fn.mkdir(s.root .. '/.git', 'p')
  s.skill = write('.github/skills/db-migrate/SKILL.md', table.concat({
    '---',
    'name: db-migrate',
    'description: Runs database migrations.',
    '---',
    '# DB Migrate',
    '',
    'Read [the guide](references/guide.md) first.',
    '',
    '## Steps',
    '',
  }, '\n'))
  s.guide = write('.github/skills/db-migrate/references/guide.md', '# Guide\n')
  vim.cmd('filetype on')
  ahpls.setup({ cmd = { bin, 'serve' }, settings = { ahpls = {} } })
  vim.cmd('edit ' .. vim.fn.fnameescape(s.skill))
  s.buf = vim.api.nvim_get_current_buf()
  local c = A.wait_for('ahpls to attach and initialize', WAIT, function()
    local cl = ahpls.clients(s.buf)[1]
    return cl and cl.initialized and cl or nil
  end)
  s.client_id = c.id
end)

step('document symbols: frontmatter keys and nested headings', function()
  local syms = request('textDocument/documentSymbol', { textDocument = { uri = vim.uri_from_bufnr(s.buf) } })
  local names = {}
  for _, sym in ipairs(syms) do
    table.insert(names, sym.name)
    for _, child in ipairs(sym.children or {}) do
      table.insert(names, sym.name .. ' > ' .. child.name)
    end
  end
  A.eq({ 'name', 'description', 'DB Migrate', 'DB Migrate > Steps' }, names, 'outline')
  A.eq({ line = 4, character = 2 }, syms[3].selectionRange.start, 'heading selection start')
end)

step('definition on a Markdown link opens the linked file', function()
  local result = request('textDocument/definition', {
    textDocument = { uri = vim.uri_from_bufnr(s.buf) },
    position = { line = 6, character = 20 },
  })
  A.eq(1, #result, 'one location')
  A.eq(vim.uri_from_fname(s.guide), result[1].uri, 'target')
  vim.lsp.util.jump_to_location(result[1], 'utf-16')
  A.eq(s.guide, vim.api.nvim_buf_get_name(0), 'jumped to the guide')
  vim.cmd('buffer ' .. s.buf)
end)

-- Neovim 0.10+ moves the folder with the name. Before 0.10 the plugin
-- does not advertise renames (util.rename cannot move a folder: E502), so
-- the server changes the name only and tells the user which folder to
-- rename; either way no error and no traceback.
step('rename of the skill name: folder moved, or the user told why not', function()
  local client = vim.lsp.get_client_by_id(s.client_id)
  local ops = vim.tbl_get(client.config, 'capabilities', 'workspace', 'workspaceEdit', 'resourceOperations')
  A.eq(has_010, ops == nil or vim.tbl_contains(ops, 'rename'), 'renames advertised only from 0.10: ' .. vim.inspect(ops))
  local edit = request('textDocument/rename', {
    textDocument = { uri = vim.uri_from_bufnr(s.buf) },
    position = { line = 1, character = 8 },
    newName = 'schema-migrate',
  })
  local ok, err = pcall(vim.lsp.util.apply_workspace_edit, edit, client.offset_encoding)
  A.truthy(ok, 'the edit applies without an error: ' .. tostring(err))
  local skills = s.root .. '/.github/skills/'
  if has_010 then
    A.truthy(edit.documentChanges, 'a WorkspaceEdit with documentChanges: ' .. vim.inspect(edit))
    A.eq(0, vim.fn.isdirectory(skills .. 'db-migrate'), 'old folder gone')
    A.eq(1, vim.fn.isdirectory(skills .. 'schema-migrate'), 'new folder exists')
    A.eq(1, vim.fn.filereadable(skills .. 'schema-migrate/references/guide.md'), 'its files moved along')
    local lines = vim.fn.readfile(skills .. 'schema-migrate/SKILL.md')
    A.eq('name: schema-migrate', lines[2], 'the name on disk')
    return
  end
  A.eq(nil, edit.documentChanges, 'no folder operation sent to this Neovim')
  A.eq(1, vim.fn.isdirectory(skills .. 'db-migrate'), 'the folder stays')
  A.eq('name: schema-migrate', vim.api.nvim_buf_get_lines(s.buf, 1, 2, false)[1], 'the name changed in the buffer')
  local told = A.wait_for('the server to say which folder to rename', WAIT, function()
    for _, m in ipairs(shown) do
      if m:find("Rename the folder 'db-migrate' to 'schema-migrate'", 1, true) then
        return m
      end
    end
  end)
  A.truthy(told, 'message shown')
end)

local passed, failed = 0, 0
local broken
for _, t in ipairs(tests) do
  if broken then
    failed = failed + 1
    io.stdout:write(('not ok - features: %s # not run: %s failed\n'):format(t.name, broken))
  else
    local ok, err = xpcall(t.fn, debug.traceback)
    if ok then
      passed = passed + 1
      io.stdout:write(('ok - features: %s\n'):format(t.name))
    else
      failed = failed + 1
      broken = t.name
      io.stdout:write(('not ok - features: %s\n'):format(t.name))
      for line in tostring(err):gmatch('[^\n]+') do
        io.stdout:write('#   ' .. line .. '\n')
      end
    end
  end
end
io.stdout:write(('%d passed, %d failed\n'):format(passed, failed))
io.stdout:flush()
for _, c in pairs(vim.lsp.get_active_clients()) do
  c.stop()
end
vim.wait(2000, function()
  return #vim.lsp.get_active_clients() == 0
end, 50)
vim.cmd(failed > 0 and 'cquit 1' or 'qall!')

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

-- Neovim before 0.10 cannot apply a RenameFile of a folder (util.rename
-- writes the "buffer" of the folder first: E502). Newer Neovim renames
-- folders itself; on older ones the test renames the folder the way 0.10
-- does (save its buffers, rename, point them at the new path), so the
-- server's WorkspaceEdit is still applied by Neovim's own
-- apply_workspace_edit.
if vim.fn.has('nvim-0.10') == 0 then
  local file_rename = vim.lsp.util.rename
  vim.lsp.util.rename = function(old, new, opts)
    if vim.fn.isdirectory(old) == 0 then
      return file_rename(old, new, opts)
    end
    A.truthy(vim.loop.fs_stat(new) == nil, 'rename target ' .. new .. ' is free')
    local moved = {}
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      local name = vim.api.nvim_buf_get_name(b)
      if name:sub(1, #old + 1) == old .. '/' then
        if vim.bo[b].modified then
          vim.api.nvim_buf_call(b, function()
            vim.cmd('silent write!')
          end)
        end
        moved[b] = new .. name:sub(#old + 1)
      end
    end
    assert(os.rename(old, new))
    for b, name in pairs(moved) do
      vim.api.nvim_buf_set_name(b, name)
      vim.api.nvim_buf_call(b, function()
        vim.cmd('silent! write!')
      end)
    end
  end
end

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

step('rename of the skill name renames its folder on disk', function()
  local client = vim.lsp.get_client_by_id(s.client_id)
  local edit = request('textDocument/rename', {
    textDocument = { uri = vim.uri_from_bufnr(s.buf) },
    position = { line = 1, character = 8 },
    newName = 'schema-migrate',
  })
  A.truthy(edit.documentChanges, 'a WorkspaceEdit with documentChanges: ' .. vim.inspect(edit))
  vim.lsp.util.apply_workspace_edit(edit, client.offset_encoding)
  local skills = s.root .. '/.github/skills/'
  A.eq(0, vim.fn.isdirectory(skills .. 'db-migrate'), 'old folder gone')
  A.eq(1, vim.fn.isdirectory(skills .. 'schema-migrate'), 'new folder exists')
  A.eq(1, vim.fn.filereadable(skills .. 'schema-migrate/references/guide.md'), 'its files moved along')
  local lines = vim.fn.readfile(skills .. 'schema-migrate/SKILL.md')
  A.eq('name: schema-migrate', lines[2], 'the name on disk')
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

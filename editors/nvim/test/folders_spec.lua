-- End-to-end on 0.7 (#41): the fsnotify fallback's regression test. Neovim
-- before 0.10 cannot watch files for a server, so ahpls watches itself: a
-- skill folder moved in a shell clears the old path's findings, shows the
-- new path's, and re-checks the marketplace that pointed at it; the
-- marketplace's quick fix and a rename of the skill finish the move.
-- Also: completion inside quotes under "hooks", status() is neutral
-- without an agent host, and a lone hooks.json
-- (which the server never checks) gets no client.
local A = require('assert')
local ahpls = require('ahpls')

local WAIT = 30000
local here = debug.getinfo(1, 'S').source:sub(2):match('(.*)/')
local bin = os.getenv('AHPLS_BIN') or vim.fn.fnamemodify(here .. '/../../../bin/ahpls', ':p')

local s = {}
local tests = {}
local function step(name, fn)
  table.insert(tests, { name = name, fn = fn, sequential = true })
end

local function ns()
  return vim.lsp.diagnostic.get_namespace(s.client_id)
end

-- The findings Neovim holds for a file, open or not (0.7 keeps a
-- publication for an unopened file in a buffer of its own).
local function codes(path)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(vim.uri_to_bufnr(vim.uri_from_fname(path)), { namespace = ns() })) do
    table.insert(out, d.code)
  end
  table.sort(out)
  return out
end

local function has(list, code)
  return vim.tbl_contains(list, code)
end

local function say(msg)
  io.stdout:write('# ' .. msg .. '\n')
end

step('attaches to a marketplace listing a skill with a finding', function()
  A.eq(1, vim.fn.executable(bin), 'AHPLS_BIN ' .. bin .. ' is executable')
  s.root = vim.fn.tempname() .. '-folders'
  vim.fn.mkdir(s.root .. '/.git', 'p')
  vim.fn.mkdir(s.root .. '/.claude-plugin', 'p')
  s.market = s.root .. '/.claude-plugin/marketplace.json'
  vim.fn.writefile({
    '{',
    '  "name": "m",',
    '  "owner": { "name": "o" },',
    '  "plugins": [{ "name": "p", "source": "./", "skills": ["./skills/deploy"] }]',
    '}',
  }, s.market)
  s.old_dir = s.root .. '/skills/deploy'
  s.new_dir = s.root .. '/skills/deploy2'
  vim.fn.mkdir(s.old_dir, 'p')
  -- An upper-case name: skill/name-charset, wherever the folder is.
  vim.fn.writefile({ '---', 'name: Deploy', 'description: Deploys the app.', '---', 'Body.' }, s.old_dir .. '/SKILL.md')
  s.old_skill = s.old_dir .. '/SKILL.md'
  s.new_skill = s.new_dir .. '/SKILL.md'
  vim.cmd('filetype on')
  ahpls.setup({ cmd = { bin, 'serve' }, settings = { ahpls = { targets = {} } } })
  vim.cmd('edit ' .. vim.fn.fnameescape(s.market))
  s.buf = vim.api.nvim_get_current_buf()
  local c = A.wait_for('ahpls to attach and initialize', WAIT, function()
    local cl = ahpls.clients(s.buf)[1]
    return cl and cl.initialized and cl or nil
  end)
  s.client_id = c.id
  A.eq(s.root, c.config.root_dir, 'root_dir')
  A.wait_for('the scan to report the skill', WAIT, function()
    return has(codes(s.old_skill), 'skill/name-charset')
  end, function()
    return vim.inspect(codes(s.old_skill))
  end)
  A.eq({}, codes(s.market), 'the marketplace is clean')
end)

step('status() is neutral without an agent host', function()
  -- The server reports its host state once it is up; wait for it briefly.
  vim.wait(3000, function()
    return ahpls._host_status[s.client_id] ~= nil
  end, 20)
  A.eq('ahpls', ahpls.status(s.buf), 'status() with no host configured: ' .. vim.inspect(ahpls._host_status[s.client_id]))
end)

step('mv of the skill folder in a shell: old findings gone, new shown, marketplace re-checked', function()
  local t0 = vim.loop.hrtime()
  local out = vim.fn.system({ 'mv', s.old_dir, s.new_dir })
  A.eq(0, vim.v.shell_error, 'mv: ' .. out)
  local gone, shown, market
  A.wait_for('old findings gone, new shown, marketplace path-missing', WAIT, function()
    local now = (vim.loop.hrtime() - t0) / 1e6
    if not gone and #codes(s.old_skill) == 0 then
      gone = now
    end
    if not shown and has(codes(s.new_skill), 'skill/name-charset') then
      shown = now
    end
    if not market and has(codes(s.market), 'market/path-missing') then
      market = now
    end
    return gone and shown and market
  end, function()
    return ('old %s, new %s, marketplace %s'):format(vim.inspect(codes(s.old_skill)), vim.inspect(codes(s.new_skill)), vim.inspect(codes(s.market)))
  end)
  say(('folder move: old findings gone after %d ms, new shown after %d ms, marketplace re-checked after %d ms'):format(gone, shown, market))
end)

step("the marketplace's quick fix points the entry at the folder that now holds the skill", function()
  local d
  for _, x in ipairs(vim.diagnostic.get(s.buf, { namespace = ns() })) do
    if x.code == 'market/path-missing' then
      d = x
    end
  end
  A.truthy(d, 'a market/path-missing diagnostic')
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(s.buf) },
    range = { start = { line = d.lnum, character = d.col }, ['end'] = { line = d.end_lnum, character = d.end_col } },
    context = { diagnostics = { d.user_data.lsp } },
  }
  local actions = A.wait_for('code actions', WAIT, function()
    local r = (vim.lsp.buf_request_sync(s.buf, 'textDocument/codeAction', params, WAIT) or {})[s.client_id]
    return r and type(r.result) == 'table' and #r.result > 0 and r.result or nil
  end)
  local fix
  local titles = {}
  for _, a in ipairs(actions) do
    table.insert(titles, a.title)
    if a.title:find("deploy2", 1, true) then
      fix = a
    end
  end
  A.truthy(fix, 'a fix naming deploy2 among ' .. vim.inspect(titles))
  A.truthy(vim.tbl_contains(titles, 'Remove this skill entry'), 'a removal among ' .. vim.inspect(titles))
  vim.lsp.util.apply_workspace_edit(fix.edit, vim.lsp.get_client_by_id(s.client_id).offset_encoding)
  A.contains(table.concat(vim.api.nvim_buf_get_lines(s.buf, 0, -1, false), '\n'), '"./skills/deploy2"', 'the entry')
  A.wait_for('the marketplace clean again', WAIT, function()
    return #codes(s.market) == 0
  end, function()
    return vim.inspect(codes(s.market))
  end)
end)

step('renaming the skill to its new folder clears its findings (0.7: the value only, no folder move)', function()
  vim.cmd('edit ' .. vim.fn.fnameescape(s.new_skill))
  local buf = vim.api.nvim_get_current_buf()
  A.wait_for('ahpls to attach to the moved skill', WAIT, function()
    return ahpls.clients(buf)[1] ~= nil
  end)
  local params = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = 1, character = 7 }, newName = 'deploy2' }
  local r = (vim.lsp.buf_request_sync(buf, 'textDocument/rename', params, WAIT) or {})[s.client_id]
  A.truthy(r and r.result, 'rename answer: ' .. vim.inspect(r))
  vim.lsp.util.apply_workspace_edit(r.result, vim.lsp.get_client_by_id(s.client_id).offset_encoding)
  A.eq('name: deploy2', vim.api.nvim_buf_get_lines(buf, 1, 2, false)[1], 'the name')
  A.wait_for('the skill clean', WAIT, function()
    return #vim.diagnostic.get(buf, { namespace = ns() }) == 0
  end, function()
    return vim.inspect(vim.diagnostic.get(buf, { namespace = ns() }))
  end)
end)

step('completion inside the quotes of a key under "hooks" offers event names, not handler keys', function()
  local hooks = s.root .. '/.github/hooks/hooks.json'
  vim.fn.mkdir(vim.fn.fnamemodify(hooks, ':h'), 'p')
  vim.fn.writefile({ '{', '  "hooks": {', '    ""', '  }', '}' }, hooks)
  vim.cmd('edit ' .. vim.fn.fnameescape(hooks))
  local buf = vim.api.nvim_get_current_buf()
  A.wait_for('ahpls to attach to hooks.json', WAIT, function()
    return ahpls.clients(buf)[1] ~= nil
  end)
  local params = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = 2, character = 5 } }
  local r = (vim.lsp.buf_request_sync(buf, 'textDocument/completion', params, WAIT) or {})[s.client_id]
  A.truthy(r and r.result, 'completion answer: ' .. vim.inspect(r))
  local labels = {}
  for _, it in ipairs(r.result.items or r.result) do
    table.insert(labels, it.label)
  end
  local events = vim.tbl_filter(function(l)
    return l:find('ToolUse', 1, true) ~= nil
  end, labels)
  A.truthy(#events > 0, 'hook events among ' .. vim.inspect(labels))
  A.truthy(not vim.tbl_contains(labels, 'command') and not vim.tbl_contains(labels, 'type'), 'no handler keys among ' .. vim.inspect(labels))
end)

step('a lone hooks.json (no plugin, not .github/hooks) gets no client', function()
  local lone = vim.fn.tempname() .. '-lone'
  vim.fn.mkdir(lone, 'p')
  vim.fn.writefile({ '{ "hooks": {} }' }, lone .. '/hooks.json')
  s.lone = lone
  vim.cmd('edit ' .. vim.fn.fnameescape(lone .. '/hooks.json'))
  local buf = vim.api.nvim_get_current_buf()
  A.eq('json', vim.bo[buf].filetype, 'filetype')
  vim.wait(500, function()
    return false
  end, 50)
  A.eq(0, #ahpls.clients(buf), 'clients attached to the lone hooks.json')
end)

table.insert(tests, {
  name = 'cleanup',
  cleanup = true,
  fn = function()
    if s.client_id then
      vim.lsp.stop_client(s.client_id, true)
    end
    for _, d in ipairs({ s.root, s.lone }) do
      if d then
        vim.fn.delete(d, 'rf')
      end
    end
  end,
})

return tests

-- End-to-end for :AhplsList (issue #32): the real ahpls binary ($AHPLS_BIN)
-- answers ahpls.listView for a workspace where VS Code reads one copy of a
-- skill first and Claude Code prefers a skill over a command of the same
-- name; the list buffer shows both shadowed items.
local A = require('assert')
local list = require('ahpls.list')

local WAIT = 30000
local here = debug.getinfo(1, 'S').source:sub(2):match('(.*)/')
local bin = os.getenv('AHPLS_BIN') or vim.fn.fnamemodify(here .. '/../../../bin/ahpls', ':p')

local s = {}
local tests = {}
local function step(name, fn)
  table.insert(tests, { name = name, fn = fn, sequential = true })
end

local function write(rel, lines)
  local p = s.root .. '/' .. rel
  vim.fn.mkdir(vim.fn.fnamemodify(p, ':h'), 'p')
  vim.fn.writefile(lines, p)
end

step('starts ahpls on a workspace with two shadowed items', function()
  A.eq(1, vim.fn.executable(bin), 'AHPLS_BIN ' .. bin .. ' is executable')
  s.root = vim.fn.tempname()
  write('.github/skills/pdf/SKILL.md', { '---', 'name: pdf', 'description: Fill PDF forms.', '---', 'Body.' })
  write('.claude/skills/pdf/SKILL.md', { '---', 'name: pdf', 'description: Read PDFs.', '---', 'Body.' })
  write('.claude/skills/deploy/SKILL.md', { '---', 'name: deploy', 'description: Deploy the site.', '---', 'Body.' })
  write('.claude/commands/deploy.md', { 'Deploy by hand.' })
  s.id = vim.lsp.start_client({
    name = 'ahpls',
    cmd = { bin, 'serve' },
    root_dir = s.root,
    workspace_folders = { { uri = vim.uri_from_fname(s.root), name = 'ws' } },
  })
  A.truthy(s.id, 'client started')
  s.client = A.wait_for('ahpls to initialize', WAIT, function()
    local c = vim.lsp.get_client_by_id(s.id)
    return c and c.initialized and c or nil
  end)
end)

step('ahpls.listView answers and the list buffer shows the shadowed items', function()
  local done, result, err = false, nil, nil
  s.client.request('workspace/executeCommand', { command = list.command, arguments = {} }, function(e, r)
    err, result, done = e, r, true
  end)
  A.wait_for('the ahpls.listView answer', WAIT, function()
    return done
  end)
  A.eq(nil, err, 'error')
  local buf = list.show(result)
  local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
  A.contains(text, 'VS Code (vscode)')
  A.contains(text, 'Claude Code (claude-code)')
  A.contains(text, 'pdf  <- .claude/skills/pdf/SKILL.md  (shadowed by .github/skills/pdf/SKILL.md)')
  A.contains(text, '/deploy  <- .claude/commands/deploy.md  (shadowed by .claude/skills/deploy/SKILL.md)')
end)

step('one consumer only', function()
  local done, result = false, nil
  s.client.request('workspace/executeCommand', { command = list.command, arguments = { { targets = { 'claude-code' } } } }, function(_, r)
    result, done = r, true
  end)
  A.wait_for('the answer', WAIT, function()
    return done
  end)
  local lines = list.format(result)
  A.eq('Claude Code (claude-code)', lines[1], 'header')
end)

table.insert(tests, {
  name = 'cleanup',
  cleanup = true,
  fn = function()
    if s.id then
      vim.lsp.stop_client(s.id, true)
    end
  end,
})

return tests

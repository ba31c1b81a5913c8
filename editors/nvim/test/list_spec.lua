-- :AhplsList without a server: the rendering of ahpls.listView's answer and
-- the scratch buffer's <CR> (issue #32).
local A = require('assert')
local list = require('ahpls.list')

local tests = {}
local function test(name, fn)
  table.insert(tests, { name = name, fn = fn })
end

local views = {
  {
    folder = '/w',
    uri = 'file:///w',
    consumers = {
      {
        target = 'vscode',
        name = 'VS Code',
        items = {
          { category = 'skills', name = 'pdf', source = '.claude/skills/pdf/SKILL.md', status = 'shadowed', shadowedBy = '.github/skills/pdf/SKILL.md' },
          { category = 'skills', name = 'pdf', source = '.github/skills/pdf/SKILL.md', status = 'loads' },
        },
      },
      {
        target = 'claude-code',
        name = 'Claude Code',
        items = {
          { category = 'skills', name = 'pdf', source = '.claude/skills/pdf/SKILL.md', status = 'loads',
            description = { text = 'x', length = 2000, budget = 1536, truncated = true } },
          { category = 'plugins', name = 'claude-x', source = 'p/.claude-plugin/plugin.json', status = 'fails', rule = 'plugin/name-reserved', reason = 'reserved',
            components = { { category = 'skills', name = 'claude-x:s', source = 'p/skills/s/SKILL.md', status = 'fails', rule = 'plugin/name-reserved', reason = 'its plugin does not load' } } },
        },
        listing = { chars = 2010, budget = 8000 },
      },
    },
  },
}

test('format: one block per consumer, statuses with reasons, components indented', function()
  local lines, targets = list.format(views)
  A.eq('VS Code (vscode)', lines[1], 'first header')
  A.contains(lines[2], 'shadowed')
  A.contains(lines[2], '(shadowed by .github/skills/pdf/SKILL.md)')
  A.eq('/w/.claude/skills/pdf/SKILL.md', targets[2], 'line 2 opens the shadowed file')
  local text = table.concat(lines, '\n')
  A.contains(text, 'Claude Code (claude-code)')
  A.contains(text, '[description cut at 1536 of 2000]')
  A.contains(text, 'fails       claude-x  <- p/.claude-plugin/plugin.json  (plugin/name-reserved: reserved)')
  A.contains(text, '      fails       claude-x:s  <- p/skills/s/SKILL.md')
  A.contains(text, 'skill listing: 2010 of 8000 characters')
end)

test('format: one consumer when asked', function()
  local lines = list.format(views, 'claude-code')
  A.eq('Claude Code (claude-code)', lines[1], 'only header')
  for _, l in ipairs(lines) do
    A.truthy(not l:find('VS Code', 1, true), 'no VS Code line: ' .. l)
  end
end)

test('show: a scratch buffer whose <CR> opens the source', function()
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir .. '/.github/skills/pdf', 'p')
  vim.fn.writefile({ '---', 'name: pdf', '---' }, dir .. '/.github/skills/pdf/SKILL.md')
  local v = vim.deepcopy(views)
  v[1].folder = dir
  local buf = list.show(v)
  A.eq('nofile', vim.api.nvim_buf_get_option(buf, 'buftype'), 'buftype')
  A.eq(false, vim.api.nvim_buf_get_option(buf, 'modifiable'), 'modifiable')
  vim.api.nvim_win_set_cursor(0, { 3, 0 })
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<CR>', true, false, true), 'x', false)
  A.eq(dir .. '/.github/skills/pdf/SKILL.md', vim.api.nvim_buf_get_name(0), 'opened file')
end)

return tests

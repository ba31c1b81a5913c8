-- End-to-end on 0.7–0.10 (#31): the real ahpls binary ($AHPLS_BIN) attaches
-- in a plugin folder that has only `.claude-plugin/` (no .git), its hover
-- renders as lines without raw pipe tables, and :checkhealth says which root
-- was chosen and why. Steps run in order; after a failure the rest are not run.
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

step('attaches to a SKILL.md in a folder with only .claude-plugin/ (root: that folder)', function()
  A.eq(1, vim.fn.executable(bin), 'AHPLS_BIN ' .. bin .. ' is executable')
  s.root = vim.fn.tempname() .. '-plug'
  vim.fn.mkdir(s.root .. '/.claude-plugin', 'p')
  vim.fn.writefile({ '{ "name": "plug" }' }, s.root .. '/.claude-plugin/plugin.json')
  vim.fn.mkdir(s.root .. '/skills/bad-skill', 'p')
  s.skill = s.root .. '/skills/bad-skill/SKILL.md'
  vim.fn.writefile({ '---', 'name: Bad_Skill', 'description: Checks a plugin folder without git.', '---', 'Body.' }, s.skill)
  vim.cmd('filetype on')
  ahpls.setup({ cmd = { bin, 'serve' }, settings = { ahpls = { targets = {} } } })
  vim.cmd('edit ' .. vim.fn.fnameescape(s.skill))
  s.buf = vim.api.nvim_get_current_buf()
  local c = A.wait_for('ahpls to attach and initialize', WAIT, function()
    local cl = ahpls.clients(s.buf)[1]
    return cl and cl.initialized and cl or nil
  end)
  s.client_id = c.id
  A.eq(s.root, c.config.root_dir, 'root_dir')
  A.eq('nearest folder with .claude-plugin', ahpls._root_reasons[s.root], 'reason')
end)

step('diagnostics arrive for the skill', function()
  local ns = vim.lsp.diagnostic.get_namespace(s.client_id)
  local d = A.wait_for('a diagnostic on the name', WAIT, function()
    for _, x in ipairs(vim.diagnostic.get(s.buf, { namespace = ns })) do
      if x.lnum == 1 then
        return x
      end
    end
  end)
  A.contains(d.message, 'Bad_Skill', 'message')
end)

step('hover on the flagged name is readable: a consumer list, no raw pipe table', function()
  vim.api.nvim_win_set_cursor(0, { 2, 8 })
  local float
  A.wait_for('the hover float', WAIT, function()
    vim.lsp.buf.hover()
    return vim.wait(2000, function()
      for _, w in ipairs(vim.api.nvim_list_wins()) do
        if vim.api.nvim_win_get_config(w).relative ~= '' then
          float = w
          return true
        end
      end
      return false
    end, 20)
  end)
  local lines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(float), 0, -1, false)
  local text = table.concat(lines, '\n')
  A.contains(text, 'skill/name', 'rule id')
  for _, l in ipairs(lines) do
    A.truthy(not l:match('^%s*|'), 'no raw table row: ' .. l .. '\n' .. text)
    A.truthy(not l:match('%]%('), 'no raw link: ' .. l)
  end
  A.truthy(text:find('\n%- [^\n]+: ') ~= nil, 'consumers as a list:\n' .. text)
  vim.api.nvim_win_close(float, true)
end)

step(':checkhealth ahpls says which root was chosen and why', function()
  vim.cmd('checkhealth ahpls')
  local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  vim.cmd('tabclose')
  A.contains(text, ('root %s, chosen because: nearest folder with .claude-plugin'):format(s.root), 'health report')
end)

table.insert(tests, {
  name = 'cleanup',
  cleanup = true,
  fn = function()
    if s.client_id then
      vim.lsp.stop_client(s.client_id, true)
    end
    if s.root then
      vim.fn.delete(s.root, 'rf')
    end
  end,
})

return tests

-- Headless test runner for the Neovim client (works on 0.7.2):
--   AHPLS_BIN=/abs/bin/ahpls nvim --headless -u NONE -i NONE -n -c 'luafile editors/nvim/test/run.lua'
-- AHPLS_NVIM_TESTS=unit runs only the tests that need no server.
-- Prints TAP-like lines and "N passed, N failed"; the exit code is 0 only if all passed.
local here = debug.getinfo(1, 'S').source:sub(2):match('(.*)/') or '.'
here = vim.fn.fnamemodify(here, ':p'):gsub('/$', '')
local plugin = vim.fn.fnamemodify(here, ':h')
vim.opt.runtimepath:prepend(plugin)
package.path = here .. '/?.lua;' .. package.path

local out = io.stdout
local passed, failed = 0, 0
local function say(s)
  out:write(s .. '\n')
  out:flush()
end

local function run_suite(name, tests)
  local broken = nil
  for _, t in ipairs(tests) do
    if t.cleanup then
      pcall(t.fn)
    elseif broken and t.sequential then
      failed = failed + 1
      say(('not ok - %s: %s # not run: an earlier step failed (%s)'):format(name, t.name, broken))
    else
      local ok, err = xpcall(t.fn, debug.traceback)
      if ok then
        passed = passed + 1
        say(('ok - %s: %s'):format(name, t.name))
      else
        failed = failed + 1
        say(('not ok - %s: %s'):format(name, t.name))
        for line in tostring(err):gmatch('[^\n]+') do
          say('#   ' .. line)
        end
        if t.sequential then
          broken = t.name
        end
      end
    end
  end
end

local which = os.getenv('AHPLS_NVIM_TESTS') or 'all'
local ok, err = xpcall(function()
  run_suite('unit', require('unit_spec'))
  run_suite('list', require('list_spec'))
  run_suite('lspconfig', require('lspconfig_spec'))
  if which ~= 'unit' then
    run_suite('e2e', require('e2e_spec'))
    run_suite('roots', require('roots_spec'))
    run_suite('list-e2e', require('list_e2e_spec'))
    run_suite('folders', require('folders_spec'))
  end
end, debug.traceback)
if not ok then
  failed = failed + 1
  say('not ok - runner: ' .. tostring(err))
end
say(('%d passed, %d failed'):format(passed, failed))
if failed > 0 then
  vim.cmd('cquit 1')
else
  vim.cmd('qall!')
end

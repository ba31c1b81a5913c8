-- The nvim-lspconfig entry (packaging/nvim-lspconfig/lsp/ahpls.lua) starts
-- the server as the plugin does: the same cmd, filetypes and root markers.
local A = require('assert')
local ahpls = require('ahpls')

local here = debug.getinfo(1, 'S').source:sub(2):match('(.*)/') or '.'
local file = vim.fn.fnamemodify(here, ':p') .. '../../../packaging/nvim-lspconfig/lsp/ahpls.lua'

return {
  {
    name = 'the nvim-lspconfig entry has the plugin defaults',
    fn = function()
      local cfg = dofile(file)
      A.eq({ 'ahpls', 'serve' }, cfg.cmd, 'cmd')
      A.eq(ahpls.filetypes, cfg.filetypes, 'filetypes')
      A.eq(ahpls.root_markers, cfg.root_markers, 'root_markers')
    end,
  },
}

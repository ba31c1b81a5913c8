-- Neovim 0.11+: `vim.lsp.enable('ahpls')` with this directory on 'runtimepath'.
-- Override anything with `vim.lsp.config('ahpls', { settings = { ahpls = {...} } })`.
-- Older versions: require('ahpls').setup(opts) instead.
return require('ahpls').lsp_config()

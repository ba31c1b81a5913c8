-- End-to-end: the real ahpls binary ($AHPLS_BIN) serving a copy of
-- editors/testdata/workspace, driven through the 0.7–0.10 setup() path.
-- Steps share state and run in order; after a failure the rest are not run.
local A = require('assert')
local ahpls = require('ahpls')

local WAIT = 30000
local here = debug.getinfo(1, 'S').source:sub(2):match('(.*)/')
local fixture = vim.fn.fnamemodify(here .. '/../../testdata/workspace', ':p'):gsub('/$', '')
local bin = os.getenv('AHPLS_BIN') or vim.fn.fnamemodify(here .. '/../../../bin/ahpls', ':p')

local s = {} -- shared state between steps
local tests = {}
local function step(name, fn)
  table.insert(tests, { name = name, fn = fn, sequential = true })
end

local function ns()
  return vim.lsp.diagnostic.get_namespace(s.client_id)
end

local function diags()
  return vim.diagnostic.get(s.buf, { namespace = ns() })
end

local function context()
  return ('diagnostics %s; publishes %s; server stderr in %s'):format(
    vim.inspect(diags()),
    vim.inspect(s.publishes),
    vim.lsp.get_log_path()
  )
end

step('copies the fixture workspace and starts ahpls on the broken SKILL.md', function()
  A.eq(1, vim.fn.executable(bin), 'AHPLS_BIN ' .. bin .. ' is executable (go build -o bin/ahpls ./cmd/ahpls)')
  s.root = vim.fn.tempname()
  vim.fn.mkdir(s.root, 'p')
  local out = vim.fn.system({ 'cp', '-R', fixture .. '/.', s.root })
  A.eq(0, vim.v.shell_error, 'cp: ' .. out)
  s.skill = s.root .. '/.github/skills/my-skill/SKILL.md'
  A.eq(1, vim.fn.filereadable(s.skill), 'fixture copied')

  -- Record every publishDiagnostics (with its version) before the default handler.
  s.publishes = {}
  local default = vim.lsp.handlers['textDocument/publishDiagnostics']
  vim.lsp.handlers['textDocument/publishDiagnostics'] = function(err, result, ctx, config)
    if result and result.uri == vim.uri_from_fname(s.skill) then
      table.insert(s.publishes, { version = result.version, count = #result.diagnostics })
    end
    return default(err, result, ctx, config)
  end

  vim.cmd('filetype on')
  ahpls.setup({
    cmd = { bin, 'serve' },
    settings = { ahpls = { targets = {}, trustWorkspaceTools = false } },
    on_exit = function(code, signal)
      s.exit = { code = code, signal = signal }
    end,
  })
  vim.cmd('edit ' .. vim.fn.fnameescape(s.skill))
  s.buf = vim.api.nvim_get_current_buf()
  A.eq('markdown', vim.bo[s.buf].filetype, 'filetype')
  local c = A.wait_for('ahpls to attach and initialize', WAIT, function()
    local cl = ahpls.clients(s.buf)[1]
    return cl and cl.initialized and cl or nil
  end)
  s.client_id = c.id
  A.eq(s.root, c.config.root_dir, 'root_dir')
end)

step('reports skill/name-charset on the name value (a Warning with the default targets: the Agent Skills spec warns)', function()
  -- Either the publication for the opened buffer or, when the server's
  -- workspace scan already published the same set for the file on disk, that
  -- one: the server publishes only when the set changes.
  local d = A.wait_for('ahpls diagnostics', WAIT, function()
    local all = diags()
    return #all > 0 and all or nil
  end, context)
  A.eq(1, #d, 'diagnostic count ' .. vim.inspect(d))
  d = d[1]
  A.eq('skill/name-charset', d.code, 'code')
  A.eq('ahpls', d.source, 'source')
  A.eq(vim.diagnostic.severity.WARN, d.severity, 'severity')
  A.contains(d.message, 'My_Skill', 'message')
  A.eq({ 1, 6, 1, 14 }, { d.lnum, d.col, d.end_lnum, d.end_col }, 'range (line, col, end line, end col)')
  s.diag = d
end)

step('offers the name quick fix, applies it, and the diagnostics clear', function()
  local d = s.diag
  local lsp_diag = {
    range = { start = { line = d.lnum, character = d.col }, ['end'] = { line = d.end_lnum, character = d.end_col } },
    severity = d.severity,
    code = d.code,
    source = d.source,
    message = d.message,
    data = d.user_data and d.user_data.lsp and d.user_data.lsp.data or nil,
  }
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(s.buf) },
    range = lsp_diag.range,
    context = { diagnostics = { lsp_diag } },
  }
  -- Until its check of the opened text has run, the server may answer [];
  -- ask again (as on the next cursor move) until it offers actions.
  local actions = A.wait_for('code actions for the diagnostic', WAIT, function()
    local responses = vim.lsp.buf_request_sync(s.buf, 'textDocument/codeAction', params, WAIT) or {}
    local resp = responses[s.client_id]
    A.truthy(resp and not resp.err, 'codeAction error: ' .. vim.inspect(resp))
    local result = resp.result
    return type(result) == 'table' and #result > 0 and result or nil
  end)
  local fix
  local titles = {}
  for _, a in ipairs(actions) do
    table.insert(titles, a.title)
    if type(a.title) == 'string' and (a.title:find('kebab%-case') or a.title:find('folder name')) then
      fix = fix or a
    end
  end
  A.truthy(fix, 'name quick fix among ' .. vim.inspect(titles))
  A.eq('quickfix', fix.kind, 'kind')
  local client = vim.lsp.get_client_by_id(s.client_id)
  if fix.edit == nil then
    local r = (vim.lsp.buf_request_sync(s.buf, 'codeAction/resolve', fix, WAIT) or {})[s.client_id]
    A.truthy(r and r.result and r.result.edit, 'resolved edit: ' .. vim.inspect(r))
    fix = r.result
  end
  local before = #s.publishes
  vim.lsp.util.apply_workspace_edit(fix.edit, client.offset_encoding)
  A.eq('name: my-skill', vim.api.nvim_buf_get_lines(s.buf, 1, 2, false)[1], 'line 2 after the fix')
  A.wait_for('diagnostics to clear', WAIT, function()
    local p = s.publishes[#s.publishes]
    return #s.publishes > before and p.count == 0 and #diags() == 0
  end, context)
  -- The clearing publish belongs to the edited text (versioned like the didChange).
  local last = s.publishes[#s.publishes]
  if last.version ~= nil then
    A.eq(vim.lsp.util.buf_versions[s.buf], last.version, 'version of the clearing publish')
  end
end)

step('non-ASCII names are underlined on the right bytes (UTF-16 positions converted)', function()
  -- 'ÀÉ_ÎÔ' is 5 UTF-16 code units but 9 bytes; every character is outside [a-z0-9-].
  vim.api.nvim_buf_set_lines(s.buf, 1, 2, false, { 'name: ÀÉ_ÎÔ' })
  local d = A.wait_for('a diagnostic on the new name', WAIT, function()
    local last = s.publishes[#s.publishes]
    local all = diags()
    return last.version == vim.lsp.util.buf_versions[s.buf] and #all == 1 and all[1].message:find('ÀÉ_ÎÔ', 1, true) and all[1] or nil
  end, context)
  A.eq('skill/name-charset', d.code, 'code')
  A.eq({ 1, 6, 1, 15 }, { d.lnum, d.col, d.end_lnum, d.end_col }, 'byte range')
end)

step(':AhplsHostConnection answers without breaking the server', function()
  local seen
  local orig = vim.notify
  vim.notify = function(msg)
    seen = msg
  end
  local ok, err = pcall(vim.cmd, 'AhplsHostConnection')
  local answered = vim.wait(WAIT, function()
    return seen ~= nil
  end, 20)
  vim.notify = orig
  A.truthy(ok, 'command: ' .. tostring(err))
  A.truthy(answered, 'a message from :AhplsHostConnection')
  A.contains(seen, 'ahpls: Agent host: ', 'message')
  A.truthy(not seen:find('{', 1, true), 'readable lines, not a Lua table dump: ' .. seen)
  local c = vim.lsp.get_client_by_id(s.client_id)
  A.truthy(c and not vim.lsp.client_is_stopped(s.client_id), 'server still running')
end)

step(':AhplsToggle sends ahpls.toggleCustomization and reports the answer', function()
  local seen
  local orig = vim.notify
  vim.notify = function(msg)
    seen = msg
  end
  local ok, err = pcall(vim.cmd, 'AhplsToggle disable session')
  local answered = vim.wait(WAIT, function()
    return seen ~= nil
  end, 20)
  vim.notify = orig
  A.truthy(ok, 'command: ' .. tostring(err))
  A.truthy(answered, 'a message from :AhplsToggle')
  -- Without an agent host the server may refuse; either way the user is told.
  A.truthy(seen == 'ahpls: disabled (session)' or seen:find('^ahpls: toggle failed: ') ~= nil, 'message: ' .. seen)
  A.truthy(not vim.lsp.client_is_stopped(s.client_id), 'server still running')
end)

step(':checkhealth ahpls reports the binary and the running server without errors', function()
  vim.cmd('checkhealth ahpls')
  local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  A.contains(text, 'ahpls', 'health report')
  A.contains(text, 'OK', 'health report')
  A.contains(text, 'server ' .. s.client_id .. ' for ' .. s.root, 'health report')
  A.truthy(not text:find('ERROR'), 'no ERROR in:\n' .. text)
  vim.cmd('tabclose')
end)

step('the server shuts down cleanly (exit code 0)', function()
  vim.lsp.stop_client(s.client_id)
  -- Neovim sends shutdown, then exit, and keeps stdin open: the exit
  -- notification alone must end the process.
  A.wait_for('the server to exit after shutdown and exit', WAIT, function()
    return s.exit
  end)
  A.eq({ code = 0, signal = 0 }, s.exit, 'exit')
end)

-- Not counted as a test; runs even after a failure.
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

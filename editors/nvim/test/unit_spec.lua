-- Tests of the Neovim client that need no server: file kinds, roots, config.
local A = require('assert')
local ahpls = require('ahpls')

local tests = {}
local function test(name, fn)
  table.insert(tests, { name = name, fn = fn })
end

local ours = {
  '/r/.github/skills/my-skill/SKILL.md',
  '/r/.claude/skills/x/SKILL.md',
  '/r/.agents/skills/x/skill.md',
  '/r/plugins/p/skills/x/SKILL.md',
  '/r/.github/agents/reviewer.agent.md',
  '/r/.github/agents/plain.md',
  '/r/.github/chatmodes/old.chatmode.md',
  '/r/.github/prompts/release.prompt.md',
  '/r/.github/instructions/go.instructions.md',
  '/r/.github/copilot-instructions.md',
  '/r/.claude/agents/sub/helper.md',
  '/r/.claude/commands/deploy.md',
  '/r/.claude/rules/style.md',
  '/r/plugins/p/agents/a.md',
  '/r/plugins/p/commands/c.md',
  '/r/AGENTS.md',
  '/r/CLAUDE.md',
  '/r/CLAUDE.local.md',
  '/r/.github/hooks/pre.json',
  '/r/.mcp.json',
  '/r/.plugin/plugin.json',
  '/r/.claude-plugin/marketplace.json',
  '/r/.claude/settings.json',
  '/r/.claude/settings.local.json',
  '/r/.github/copilot/settings.json',
  '/r/.claude/output-styles/terse.md',
  '/r/.github/workflows/copilot-setup-steps.yml',
  'C:\\r\\.github\\skills\\x\\SKILL.md',
}
local not_ours = {
  '',
  '/r/README.md',
  '/r/.github/agents/README.md',
  '/r/docs/guide.md',
  '/r/package.json',
  '/r/.vscode/mcp.json',
  '/r/.vscode/settings.json',
  '/r/src/settings.json',
  '/r/node_modules/x/.github/skills/y/SKILL.md',
  'fugitive:///r/.git//0/.github/skills/x/SKILL.md',
  '/r/.github/skills/x/SKILL.md.bak',
  '/r/.github/workflows/ci.yml',
}

for _, p in ipairs({ '/r/.cursor/rules/ts.mdc', '/r/.cursorrules', '/r/.gemini/commands/git/commit.toml',
  '/r/ext/gemini-extension.json', '/r/p/.codex-plugin/plugin.json', '/r/AGENTS.override.md', '/r/.roomodes' }) do
  table.insert(ours, p)
end
for _, p in ipairs({ '/r/Cargo.toml', '/r/docs/notes.mdc' }) do
  table.insert(not_ours, p)
end

test('is_ours accepts every customization file kind', function()
  for _, p in ipairs(ours) do
    A.eq(true, ahpls.is_ours(p), p)
  end
end)

test('is_ours rejects ordinary files, .vscode/mcp.json and non-file buffers', function()
  for _, p in ipairs(not_ours) do
    A.eq(false, ahpls.is_ours(p), p)
  end
end)

-- A real directory tree for root detection.
local tmp = vim.fn.tempname()
local function touch(rel)
  local p = tmp .. '/' .. rel
  vim.fn.mkdir(vim.fn.fnamemodify(p, ':h'), 'p')
  vim.fn.writefile({}, p)
  return p
end
local function mkdir(rel)
  vim.fn.mkdir(tmp .. '/' .. rel, 'p')
end
mkdir('repo/.git')
local repo_skill = touch('repo/.github/skills/a/SKILL.md')
local repo_plugin = touch('repo/plugins/p/.plugin/plugin.json')
local ws_agent = touch('ws/.claude/agents/a.md')
local plug_manifest = touch('plug/.plugin/plugin.json')
local nested_plugin_skill = touch('ws2/.github/x.md')
touch('ws2/plugins/q/.plugin/plugin.json')
local nested_q_skill = touch('ws2/plugins/q/skills/s/SKILL.md')
local lonely = touch('lonely/SKILL.md')
local cplug_skill = touch('cplug/skills/s/SKILL.md')
mkdir('cplug/.claude-plugin')
local codex_manifest = touch('xplug/.codex-plugin/plugin.json')
local cursor_agent = touch('uplug/agents/a.md')
mkdir('uplug/.cursor-plugin')
local loose_prompt = touch('loose/notes.prompt.md')

test('find_root prefers the .git folder over nearer markers', function()
  A.eq(tmp .. '/repo', ahpls.find_root(repo_skill), 'skill in repo')
  A.eq(tmp .. '/repo', ahpls.find_root(repo_plugin), 'plugin inside repo')
end)

test('find_root without .git uses the nearest .github, .claude or .plugin', function()
  A.eq(tmp .. '/ws', ahpls.find_root(ws_agent), '.claude')
  A.eq(tmp .. '/plug', ahpls.find_root(plug_manifest), '.plugin')
  A.eq(tmp .. '/ws2', ahpls.find_root(nested_plugin_skill), '.github')
  A.eq(tmp .. '/ws2/plugins/q', ahpls.find_root(nested_q_skill), 'nearest .plugin')
end)

test('find_root gives nil outside any root marker', function()
  A.eq(nil, ahpls.find_root(lonely), 'no markers')
end)

test('a plugin folder with only .claude-plugin, .codex-plugin or .cursor-plugin is a root', function()
  A.eq({ tmp .. '/cplug', '.claude-plugin' }, { ahpls.find_root(cplug_skill) }, '.claude-plugin')
  A.eq({ tmp .. '/xplug', '.codex-plugin' }, { ahpls.find_root(codex_manifest) }, '.codex-plugin')
  A.eq({ tmp .. '/uplug', '.cursor-plugin' }, { ahpls.find_root(cursor_agent) }, '.cursor-plugin')
  A.eq({ tmp .. '/cplug', 'nearest folder with .claude-plugin' }, { ahpls.root_with_reason(cplug_skill, nil, { root_markers = ahpls.root_markers }) }, 'reason')
end)

test("without a marker a SKILL.md's root holds its skill folder; other files get their folder, noticed once", function()
  local notices = {}
  local orig = vim.notify
  vim.notify = function(m)
    table.insert(notices, m)
  end
  ahpls._single_file_noticed = false
  local opts = { root_markers = ahpls.root_markers }
  local skill_root, skill_why = ahpls.root_with_reason(lonely, nil, opts)
  local r1, why1 = ahpls.root_with_reason(loose_prompt, nil, opts)
  local r2 = ahpls.root_with_reason(loose_prompt, nil, opts)
  local refused = ahpls.root_with_reason(loose_prompt, nil, { root_dir = function() return nil end })
  -- Shown once the buffer has opened (scheduled), so it never stacks with
  -- the file's own message into a hit-enter prompt.
  A.eq(0, #notices, 'not while the file loads')
  vim.wait(1000, function()
    return #notices > 0
  end, 10)
  vim.notify = orig
  A.eq(tmp, skill_root, 'skill: the folder holding lonely/')
  A.contains(skill_why, 'skill folder lonely', 'skill reason')
  A.eq(tmp .. '/loose', r1, 'single file: its folder')
  A.eq(tmp .. '/loose', r2, 'again')
  A.contains(why1, 'single file', 'single-file reason')
  A.eq(1, #notices, 'one notice for two single-file roots: ' .. vim.inspect(notices))
  A.contains(notices[1], 'notes.prompt.md', 'the notice names the file')
  A.contains(notices[1], 'no root marker', 'the notice says why')
  A.truthy(not notices[1]:find('\n'), 'one line')
  A.truthy(vim.fn.strdisplaywidth(notices[1]) < vim.o.columns - 12, 'shorter than the command line: ' .. notices[1])
  A.eq(nil, refused, "a root_dir function's nil is obeyed")
end)

test('lsp_config.root_dir (0.11) reports a root only for our files', function()
  local cfg = ahpls.lsp_config()
  A.eq({ 'markdown', 'json', 'jsonc', 'yaml', 'mdc', 'toml' }, cfg.filetypes, 'filetypes')
  A.eq({ 'ahpls', 'serve' }, cfg.cmd, 'cmd')
  local function root_for(path)
    local b = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(b, path)
    local got
    cfg.root_dir(b, function(r)
      got = r
    end)
    vim.api.nvim_buf_delete(b, { force = true })
    return got
  end
  A.eq(tmp .. '/repo', root_for(repo_skill), 'skill')
  A.eq(nil, root_for(tmp .. '/repo/README.md'), 'README in repo')
  A.eq(tmp, root_for(lonely), 'skill outside roots: the folder holding its folder')
end)

test("the user's root_markers and root_dir decide the root (both paths)", function()
  local marked = touch('custom/sub/.ahplsroot')
  local skill = touch('custom/sub/deep/skills/s/SKILL.md')
  A.eq(nil, ahpls.root_for(skill, nil, { root_markers = ahpls.root_markers }), 'default markers: none here')
  A.eq(vim.fn.fnamemodify(marked, ':h'), ahpls.root_for(skill, nil, { root_markers = { '.ahplsroot' } }), 'root_markers')
  A.eq('/fixed', ahpls.root_for(skill, nil, { root_dir = '/fixed' }), 'root_dir string')
  local seen
  A.eq('/from-fn', ahpls.root_for(skill, 7, {
    root_dir = function(fname, bufnr)
      seen = { fname, bufnr }
      return '/from-fn'
    end,
  }), 'root_dir function')
  A.eq({ skill, 7 }, seen, 'root_dir gets (fname, bufnr) like nvim-lspconfig')
  local notified
  local orig = vim.notify
  vim.notify = function(m)
    notified = m
  end
  local r = ahpls.root_for(skill, nil, { root_dir = function() error('boom') end })
  vim.notify = orig
  A.eq(nil, r, 'a failing root_dir gives no root')
  A.contains(notified, 'root_dir failed', 'the failure is reported')

  -- The 0.11 config built when lsp/ahpls.lua loads honours options given later.
  local cfg = ahpls.lsp_config({ root_markers = { '.ahplsroot' } })
  A.eq({ '.ahplsroot' }, cfg.root_markers, 'root_markers in the config')
  local b = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(b, skill)
  local got
  cfg.root_dir(b, function(x)
    got = x
  end)
  vim.api.nvim_buf_delete(b, { force = true })
  A.eq(vim.fn.fnamemodify(marked, ':h'), got, 'lsp_config root_dir uses them')

  -- setup() on 0.7–0.10 keeps root_dir (a list option: never deep-merged).
  ahpls.setup({ cmd = { 'ahpls-does-not-exist' }, root_dir = '/fixed' })
  A.eq('/fixed', ahpls._opts.root_dir, 'setup keeps root_dir')
  ahpls.setup({})
  A.eq(nil, ahpls._opts.root_dir, 'a later setup without it clears it')
end)

test('hover Markdown for 0.7–0.9: tables become lists, links text and address', function()
  local hover = require('ahpls.hover')
  local md = table.concat({
    '**skill/name-charset** (info) — [rule documentation](https://x.test/rules.md#skill-name-charset)',
    '',
    'Names use lowercase letters.',
    '',
    '| consumer | reaction |',
    '|---|---|',
    '| VS Code | accepts it |',
    '| Agent Skills spec | only the spec forbids it |',
    '',
    '```',
    '| kept | in code |',
    '```',
  }, '\n')
  A.eq({
    '**skill/name-charset** (info) — rule documentation <https://x.test/rules.md#skill-name-charset>',
    '',
    'Names use lowercase letters.',
    '',
    '- VS Code: accepts it',
    '- Agent Skills spec: only the spec forbids it',
    '',
    '```',
    '| kept | in code |',
    '```',
  }, hover.plain_lines(md), 'lines')
  A.eq('a\n\nb', hover.markdown_of({ 'a', { value = 'b' } }), 'MarkedString list')
  if vim.fn.has('nvim-0.10') == 0 then
    A.eq(hover.handler, ahpls.client_config({}).handlers['textDocument/hover'], 'the handler is installed before 0.10')
  end
end)

test(':AhplsHostConnection output is one fact a line', function()
  local lines = ahpls.format_host_connection({ state = 'connecting', host = 'ws://h' }, {
    state = 'connected',
    url = 'ws://127.0.0.1:9/ahp',
    clientId = 'ahpls-1',
    protocolVersion = '1.0.0',
    dialect = '1.x',
    sessions = { 'ahp-session:/s1' },
    sessionDetails = { { uri = 'ahp-session:/s1', title = 'Fix bug', workingDirectories = { 'file:///w' } } },
    plugins = { { id = 'p', name = 'workspace', uri = 'virtual://ahpls/1/workspace', omitted = { 'db' } } },
    toolCollisions = { 'ahpls_run_tests is also a host tool' },
  })
  A.eq({
    'Agent host: connected (ws://127.0.0.1:9/ahp)',
    '  Protocol: 1.0.0 (dialect 1.x)',
    '  Client id: ahpls-1',
    '  Sessions:',
    '    ahp-session:/s1 "Fix bug" in file:///w',
    '  Published plugins:',
    '    workspace  virtual://ahpls/1/workspace  (left out: db)',
    '  Tool collision: ahpls_run_tests is also a host tool',
  }, lines, 'connected')
  A.eq({ 'Agent host: disconnected', '  Last message: no agent host configured (ahpls.host)' },
    ahpls.format_host_connection(nil, { state = 'disconnected', message = 'no agent host configured (ahpls.host)' }), 'no host')
  A.eq({ 'Agent host: refused (ws://h)', '  Last message: no common version' },
    ahpls.format_host_connection({ state = 'refused', host = 'ws://h', message = 'no common version' }, vim.NIL), 'server gave nothing')
  A.eq({ 'Agent host: not reported yet' }, ahpls.format_host_connection(nil, nil), 'nothing at all')
end)

test('settings pass through; initializationOptions default to settings.ahpls', function()
  local s = { ahpls = { targets = { 'claude-code' }, host = 'ws://127.0.0.1:1', rules = { ['md/link'] = 'off' }, future = 1 } }
  local cfg = ahpls.client_config({ settings = s })
  A.eq(s, cfg.settings, 'settings')
  local params = {}
  cfg.before_init(params, cfg)
  A.eq(s.ahpls, params.initializationOptions, 'initializationOptions')
  local explicit = { initializationOptions = { x = 1 } }
  cfg.before_init(explicit, cfg)
  A.eq({ x = 1 }, explicit.initializationOptions, 'explicit init_options win')
  -- An empty section must encode as a JSON object, not an array.
  local d = ahpls.client_config({})
  A.eq('{}', vim.json.encode(d.settings.ahpls), 'empty section (as the RPC layer encodes it)')
end)

test('list options replace the defaults instead of merging into them', function()
  local cfg = ahpls.client_config({ cmd = { '/opt/ahpls-wrapper' }, filetypes = { 'markdown' } })
  A.eq({ '/opt/ahpls-wrapper' }, cfg.cmd, 'cmd')
  A.eq({ 'markdown' }, cfg.filetypes, 'filetypes')
  A.eq({ 'ahpls', 'serve' }, ahpls.client_config({}).cmd, 'default cmd')
end)

test('ahpls/hostStatus updates the status; malformed params are ignored', function()
  local h = ahpls.client_config({}).handlers['ahpls/hostStatus']
  h(nil, { state = 'refused', message = 'protocol 2.0 not supported', host = 'ws://h' }, { client_id = 4242 })
  A.eq({ state = 'refused', message = 'protocol 2.0 not supported', host = 'ws://h' }, ahpls._host_status[4242], 'stored')
  h(nil, { state = 7 }, { client_id = 4242 })
  h(nil, 'connected', { client_id = 4242 })
  A.eq('refused', ahpls._host_status[4242].state, 'unchanged by malformed params')
  ahpls._host_status[4242] = nil
end)

test('setup creates the user commands and attaches nothing to other files', function()
  ahpls.setup({ cmd = { tmp .. '/no-such-ahpls', 'serve' } })
  for _, c in ipairs({ 'AhplsRestart', 'AhplsToggle', 'AhplsHostConnection' }) do
    A.eq(2, vim.fn.exists(':' .. c), ':' .. c)
  end
  local b = vim.api.nvim_create_buf(true, false)
  vim.api.nvim_buf_set_name(b, tmp .. '/repo/README.md')
  A.eq(nil, ahpls.attach(b), 'README.md')
  vim.api.nvim_buf_delete(b, { force = true })
end)

test('a missing binary is reported, not thrown', function()
  local seen
  local orig = vim.notify
  vim.notify = function(msg)
    seen = msg
  end
  local b = vim.api.nvim_create_buf(true, false)
  vim.api.nvim_buf_set_name(b, repo_skill)
  local ok, id = pcall(ahpls.attach, b)
  vim.notify = orig
  vim.api.nvim_buf_delete(b, { force = true })
  A.truthy(ok, 'attach did not throw')
  A.eq(nil, id, 'client id')
  A.contains(seen, 'no-such-ahpls', 'message')
  A.eq(0, #ahpls.clients(), 'clients')
end)

test('lsp/ahpls.lua (for vim.lsp.enable on 0.11) loads and returns a complete config', function()
  local here = debug.getinfo(1, 'S').source:sub(2):match('(.*)/')
  local cfg = dofile(here .. '/../lsp/ahpls.lua')
  A.eq({ 'ahpls', 'serve' }, cfg.cmd, 'cmd')
  A.eq('function', type(cfg.root_dir), 'root_dir')
  A.eq('function', type(cfg.handlers['ahpls/hostStatus']), 'hostStatus handler')
  A.eq('function', type(cfg.before_init), 'before_init')
end)

test(':checkhealth ahpls explains a missing binary', function()
  ahpls.setup({ cmd = { tmp .. '/no-such-ahpls', 'serve' } })
  vim.cmd('checkhealth ahpls')
  local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  vim.cmd('tabclose')
  A.contains(text, 'ERROR', 'report')
  A.contains(text, 'no-such-ahpls', 'report')
  A.contains(text, 'make build (bin/ahpls and bin/ahpls-mcp)', 'advice')
  A.contains(text, 'No ahpls server running', 'report')
end)

test('capabilities: no folder renames advertised before Neovim 0.10', function()
  local old = ahpls.capabilities({ workspace = { workspaceEdit = { resourceOperations = { 'create', 'rename', 'delete' } } } }, false)
  A.eq({ 'create', 'delete' }, old.workspace.workspaceEdit.resourceOperations, 'before 0.10')
  local dflt = ahpls.capabilities(nil, false)
  A.truthy(not vim.tbl_contains(dflt.workspace.workspaceEdit.resourceOperations or {}, 'rename'), 'defaults before 0.10')
  A.truthy(dflt.textDocument ~= nil, 'the other defaults are kept')
  local user = { workspace = { workspaceEdit = { resourceOperations = { 'rename' } } } }
  A.eq(user, ahpls.capabilities(user, true), '0.10+: the user\'s, untouched')
  A.eq(nil, ahpls.capabilities(nil, true), '0.10+: Neovim\'s defaults')
end)

test("a plugin's hooks.json and mcp.json are ours; a lone hooks.json is not (the server never checks it)", function()
  touch('plug/.claude-plugin/plugin.json')
  local hooks = touch('plug/hooks/hooks.json')
  local mcp = touch('plug/mcp.json')
  local lone = touch('lone/hooks.json')
  local lone_nested = touch('lone2/hooks/hooks.json')
  touch('market/.claude-plugin/marketplace.json')
  local listed = touch('market/plugins/q/hooks/hooks.json')
  A.eq(true, ahpls.is_ours(hooks), hooks)
  A.eq(true, ahpls.is_ours(mcp), mcp)
  A.eq(true, ahpls.is_ours(listed), 'below a Claude marketplace: ' .. listed)
  A.eq(false, ahpls.is_ours(lone), lone)
  A.eq(false, ahpls.is_ours(lone_nested), lone_nested)
  A.eq(false, ahpls.is_ours(tmp .. '/lone/mcp.json'), 'a lone mcp.json')
end)

test('status() is neutral without an agent host, and says the state of a configured one', function()
  local unconfigured = { state = 'disconnected', message = 'no agent host configured (ahpls.host)' }
  A.eq(false, ahpls.host_configured(unconfigured), 'no host')
  A.eq(true, ahpls.host_configured({ state = 'disconnected', host = 'ws://h', message = 'EOF' }), 'a host that dropped')
  A.eq(true, ahpls.host_configured({ state = 'connected' }), 'connected')
  -- status() itself, with a fake client for the current buffer.
  local orig = ahpls.clients
  ahpls.clients = function()
    return { { id = 4242 } }
  end
  ahpls._host_status[4242] = unconfigured
  local neutral = ahpls.status()
  ahpls._host_status[4242] = { state = 'refused', host = 'ws://h' }
  local refused = ahpls.status()
  ahpls._host_status[4242] = nil
  ahpls.clients = orig
  A.eq('ahpls', neutral, 'without a host')
  A.eq('ahpls: host refused', refused, 'with a host')
end)

table.insert(tests, {
  name = 'cleanup',
  cleanup = true,
  fn = function()
    vim.fn.delete(tmp, 'rf')
  end,
})

return tests

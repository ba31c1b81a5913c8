import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatHostConnection, hostConfigured, parseHostStatus, presentLanguageStatus, presentStatus } from '../../src/status';
import { leaveSymbolsToVSCode } from '../../src/symbols';

describe('parseHostStatus', () => {
  const cases: { params: unknown; want: unknown }[] = [
    { params: { state: 'connected', host: 'ws://127.0.0.1:9/ahp' }, want: { state: 'connected', host: 'ws://127.0.0.1:9/ahp' } },
    { params: { state: 'refused', message: 'protocol 2.0 not supported' }, want: { state: 'refused', message: 'protocol 2.0 not supported' } },
    { params: { state: 'connecting', message: '', host: '' }, want: { state: 'connecting' } },
    { params: { state: 'disconnected', extra: 1 }, want: { state: 'disconnected' } },
    { params: { state: 'exploded' }, want: undefined },
    { params: { state: 1 }, want: undefined },
    { params: null, want: undefined },
    { params: 'connected', want: undefined },
    { params: [{ state: 'connected' }], want: undefined },
  ];
  for (const c of cases) {
    it(`parses ${JSON.stringify(c.params)}`, () => {
      assert.deepEqual(parseHostStatus(c.params), c.want);
    });
  }
});

describe('presentStatus', () => {
  it('shows each host state with its icon, host and message', () => {
    const table = [
      { state: 'connected', icon: '$(plug)', level: 'normal', tip: /^Agent host connected: ws:\/\/h — hi$/ },
      { state: 'connecting', icon: '$(sync~spin)', level: 'normal', tip: /^Connecting to agent host ws:\/\/h — hi$/ },
      { state: 'refused', icon: '$(error)', level: 'error', tip: /refused the connection ws:\/\/h — hi/ },
      { state: 'disconnected', icon: '$(debug-disconnect)', level: 'warning', tip: /^Agent host disconnected ws:\/\/h — hi$/ },
    ] as const;
    for (const t of table) {
      const p = presentStatus('running', { state: t.state, host: 'ws://h', message: 'hi' });
      assert.ok(p.text.startsWith(t.icon), `${t.state}: ${p.text}`);
      assert.equal(p.level, t.level);
      assert.match(p.tooltip, t.tip);
    }
  });

  it('the server process state wins over a stale host state', () => {
    assert.equal(presentStatus('stopped', { state: 'connected' }).level, 'error');
    assert.match(presentStatus('stopped', { state: 'connected' }).tooltip, /not running/);
    assert.match(presentStatus('starting', undefined).tooltip, /starting/);
    assert.match(presentStatus('running', undefined).tooltip, /no agent host status/);
  });
});

describe('without an agent host configured', () => {
  const unconfigured = { state: 'disconnected', message: 'no agent host configured (ahpls.host)' } as const;
  it('knows when a host is configured: the setting, or a status that names one', () => {
    assert.equal(hostConfigured(undefined, undefined), false);
    assert.equal(hostConfigured('', unconfigured), false);
    assert.equal(hostConfigured('ws://h', unconfigured), true);
    assert.equal(hostConfigured(undefined, { state: 'connected', host: 'ws://from-env' }), true);
    assert.equal(hostConfigured(undefined, { state: 'disconnected', host: 'ws://from-env', message: 'closed' }), true);
  });
  it('the status bar item is neutral and says nothing of hosts, with the server version', () => {
    const p = presentStatus('running', unconfigured, false, '0.1.0+abc');
    assert.equal(p.text, '$(check) ahpls');
    assert.equal(p.level, 'normal');
    assert.doesNotMatch(p.text, /host|disconnect/);
    assert.match(p.tooltip, /^ahpls 0\.1\.0\+abc: running/);
    // The same status with a host configured is the warning it should be.
    assert.equal(presentStatus('running', { state: 'disconnected', host: 'ws://h' }, true).level, 'warning');
  });
  it('the language status names the server version', () => {
    const l = presentLanguageStatus('running', unconfigured, 'Workspace tools: off.', '0.1.0');
    assert.equal(l.text, 'ahpls: running');
    assert.equal(l.detail, 'ahpls 0.1.0');
    assert.match(l.tooltip, /^ahpls 0\.1\.0 · .*Workspace tools: off/);
  });
});

describe('formatHostConnection', () => {
  it('is one fact a line, never JSON', () => {
    const lines = formatHostConnection({ state: 'connecting', host: 'ws://h' }, {
      state: 'connected',
      url: 'ws://127.0.0.1:9/ahp',
      clientId: 'ahpls-1',
      protocolVersion: '1.0.0',
      sessionDetails: [{ uri: 'ahp-session:/s1', title: 'Fix bug', workingDirectories: ['file:///w'] }],
      plugins: [{ id: 'p', name: 'workspace', uri: 'virtual://ahpls/1/workspace', omitted: ['db'] }],
      toolCollisions: ['ahpls_run_tests is also a host tool'],
    }, true);
    assert.deepEqual(lines, [
      'Agent host: connected (ws://127.0.0.1:9/ahp)',
      '  Protocol: 1.0.0',
      '  Client id: ahpls-1',
      '  Sessions:',
      '    ahp-session:/s1 "Fix bug" in file:///w',
      '  Published plugins:',
      '    workspace  virtual://ahpls/1/workspace  (left out: db)',
      '  Tool collision: ahpls_run_tests is also a host tool',
    ]);
    for (const l of lines) assert.doesNotMatch(l, /[{}]/);
  });
  it('says plainly that no host is configured', () => {
    assert.deepEqual(formatHostConnection(undefined, { state: 'disconnected', message: 'no agent host configured' }, false), [
      'Agent host: none configured (set ahpls.host to a ws:// or wss:// URL to publish customizations to one).',
    ]);
    assert.deepEqual(formatHostConnection({ state: 'refused', host: 'ws://h', message: 'no common version' }, null, true), [
      'Agent host: refused (ws://h)',
      '  Last message: no common version',
    ]);
  });
});

describe('document symbols', () => {
  it("leaves Markdown and JSON to VS Code's own providers", () => {
    assert.equal(leaveSymbolsToVSCode('markdown'), true);
    assert.equal(leaveSymbolsToVSCode('json'), true);
    assert.equal(leaveSymbolsToVSCode('jsonc'), true);
    assert.equal(leaveSymbolsToVSCode('yaml'), false);
  });
});

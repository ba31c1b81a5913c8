import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseHostStatus, presentStatus } from '../../src/status';

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

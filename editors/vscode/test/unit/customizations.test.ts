import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildTree, CustomizationNode, parseRow, toggleFor } from '../../src/customizations';
import { presentLanguageStatus } from '../../src/status';

// Rows as ahpls.listCustomizations sends them (enablement.Row in Go).
const plugin = {
  id: 'p1',
  name: 'workspace',
  type: 'plugin',
  on: true,
  scopes: { session: true, workspace: true, global: true },
  actions: [{ title: 'Disable for this session', id: 'p1', scope: 'session', enabled: false }],
};
const skillOff = {
  id: 's1',
  name: 'my-skill',
  type: 'skill',
  owner: 'p1',
  on: false,
  scopes: { session: false, workspace: true, global: true },
  reason: 'disabled for this session',
  pending: true,
  actions: [],
};

describe('Customizations view model', () => {
  it('nests rows under their owner and shows the effective state with the reason when off', () => {
    const tree = buildTree({ 'ahp-session:/s1': [plugin, skillOff] });
    assert.equal(tree.length, 1, 'one session: no session level');
    const p = tree[0] as CustomizationNode;
    assert.equal(p.kind, 'customization');
    assert.equal(p.label, 'workspace');
    assert.equal(p.description, 'on');
    assert.equal(p.contextValue, 'ahpls.customization.on');
    assert.equal(p.children.length, 1);
    const s = p.children[0];
    assert.equal(s.label, 'my-skill');
    assert.equal(s.description, 'off — disabled for this session · not confirmed by host');
    assert.match(s.tooltip, /Why off: disabled for this session/);
    assert.match(s.tooltip, /session: off, workspace: on, global: on/);
    assert.equal(s.contextValue, 'ahpls.customization.off');
  });

  it('shows a session level when there are several sessions, with their titles', () => {
    const tree = buildTree({ 'ahp-session:/a': [plugin], 'ahp-session:/b': [] }, { 'ahp-session:/a': 'Chat A' });
    assert.deepEqual(
      tree.map((n) => [n.kind, n.label]),
      [
        ['session', 'Chat A'],
        ['session', 'ahp-session:/b'],
      ],
    );
  });

  it('says why the view is empty', () => {
    assert.match((buildTree({})[0] as { label: string }).label, /No agent host session/);
    assert.match((buildTree({ 'ahp-session:/s': [] })[0] as { label: string }).label, /Nothing published/);
    assert.match((buildTree(null)[0] as { label: string }).label, /no customization list/);
  });

  it('drops malformed rows and actions instead of failing', () => {
    assert.equal(parseRow({ name: 'no id' }), undefined);
    assert.equal(parseRow('x'), undefined);
    const r = parseRow({ id: 'x', name: 'x', actions: [{ id: 'x', scope: 'planet', enabled: true }, null] });
    assert.deepEqual(r?.actions, []);
    assert.equal(r?.on, false);
    const tree = buildTree({ s: [plugin, 7, { id: 'p1', name: 'dup' }] });
    assert.equal(tree.length, 1);
  });

  it('toggles with the server action for the scope, else flips that scope', () => {
    const p = parseRow(plugin)!;
    assert.deepEqual(toggleFor(p, 'session'), plugin.actions[0]);
    assert.deepEqual(toggleFor(p, 'global'), { title: 'Disable (global)', id: 'p1', scope: 'global', enabled: false });
    const s = parseRow(skillOff)!;
    assert.equal(toggleFor(s, 'session').enabled, true);
  });
});

describe('presentLanguageStatus', () => {
  const trust = 'Workspace tools: off (ahpls.trustWorkspaceTools is false).';
  it('shows server state, host connection with the last error, and trust', () => {
    const table = [
      { server: 'stopped', host: undefined, text: 'ahpls: stopped', level: 'error', detail: /not running · Workspace tools: off/ },
      { server: 'starting', host: undefined, text: 'ahpls: starting', level: 'normal', detail: /^Workspace tools/ },
      { server: 'running', host: { state: 'connected', host: 'ws://h' }, text: 'ahpls: host connected', level: 'normal', detail: /^ws:\/\/h · Workspace/ },
      { server: 'running', host: { state: 'connecting', host: 'ws://h', message: 'dial tcp: connection refused' }, text: 'ahpls: connecting', level: 'normal', detail: /connection refused/ },
      { server: 'running', host: { state: 'refused', message: 'no common version' }, text: 'ahpls: host refused', level: 'error', detail: /^no common version/ },
      { server: 'running', host: { state: 'disconnected', message: 'no agent host configured (ahpls.host)' }, text: 'ahpls: running', level: 'normal', detail: /no agent host configured/ },
      { server: 'running', host: { state: 'disconnected', message: 'EOF' }, text: 'ahpls: host disconnected', level: 'warning', detail: /EOF/ },
    ] as const;
    for (const t of table) {
      const p = presentLanguageStatus(t.server, t.host, trust);
      assert.equal(p.text, t.text, JSON.stringify(t.host));
      assert.equal(p.level, t.level, t.text);
      assert.match(p.tooltip, t.detail, t.text);
      assert.ok(p.detail.length <= 40, `a short detail: ${p.detail}`);
    }
  });
});

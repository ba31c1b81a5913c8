import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answerConfigurationItem, ConfigReader, sameSettings, ServerSettings, toServerSettings } from '../../src/settings';

/** What vscode.workspace.getConfiguration('ahpls') returns, reduced to get(). */
function reader(values: Record<string, unknown>): ConfigReader {
  return { get: <T>(key: string) => values[key] as T | undefined };
}

const defaults: ServerSettings = {
  targets: [],
  impliedTargets: true,
  sessions: 'auto',
  trustWorkspaceTools: false,
  rules: {},
  exclude: [],
};

describe('toServerSettings', () => {
  const cases: { name: string; values: Record<string, unknown>; trusted: boolean; want: ServerSettings; warnings?: RegExp[] }[] = [
    { name: 'nothing configured gives the server defaults', values: {}, trusted: true, want: defaults },
    {
      name: 'every setting maps to its key in the ahpls section',
      values: {
        targets: ['claude-code', ' vscode '],
        impliedTargets: false,
        host: ' ws://127.0.0.1:8080/ahp ',
        sessions: ['ahp://copilot/session-1'],
        trustWorkspaceTools: true,
        rules: { 'skill/name-dir': 'off', 'md/link': 'Warning' },
        exclude: ['test/fixtures', ' **/testdata/** '],
        hostHeaders: { 'X-Team': 'docs' },
        tools: { tools: [{ name: 'vet', command: { argv: ['go', 'vet', './...'] } }] },
        path: '/opt/ahpls',
        'trace.server': 'verbose',
      },
      trusted: true,
      want: {
        targets: ['claude-code', 'vscode'],
        impliedTargets: false,
        host: 'ws://127.0.0.1:8080/ahp',
        sessions: ['ahp://copilot/session-1'],
        trustWorkspaceTools: true,
        rules: { 'skill/name-dir': 'off', 'md/link': 'warning' },
        exclude: ['test/fixtures', '**/testdata/**'],
        hostHeaders: { 'X-Team': 'docs' },
        tools: { tools: [{ name: 'vet', command: { argv: ['go', 'vet', './...'] } }] },
      },
    },
    { name: 'wss hosts are accepted', values: { host: 'wss://host.example/ahp' }, trusted: true, want: { ...defaults, host: 'wss://host.example/ahp' } },
    { name: 'a non-WebSocket host is dropped with a warning', values: { host: 'http://localhost:1' }, trusted: true, want: defaults, warnings: [/not a ws:\/\/ or wss:\/\/ URL/] },
    { name: 'an empty host means no host', values: { host: '' }, trusted: true, want: defaults },
    { name: 'unknown targets pass through to the server, which validates them', values: { targets: ['vscode', 'emacs'] }, trusted: true, want: { ...defaults, targets: ['vscode', 'emacs'] }, warnings: [] },
    { name: 'non-string targets are dropped', values: { targets: ['vscode', 3, null] }, trusted: true, want: { ...defaults, targets: ['vscode'] } },
    { name: 'targets that are not a list fall back to the default', values: { targets: 'vscode' }, trusted: true, want: defaults, warnings: [/must be a list/] },
    { name: 'a bad sessions value falls back to auto', values: { sessions: 7 }, trusted: true, want: defaults, warnings: [/"auto" or a list/] },
    { name: 'bad rule levels are dropped, good ones kept', values: { rules: { a: 'loud', b: 'hint' } }, trusted: true, want: { ...defaults, rules: { b: 'hint' } }, warnings: [/'a' has level 'loud'/] },
    { name: 'rules that are not a map are ignored', values: { rules: ['x'] }, trusted: true, want: defaults, warnings: [/must map rule ids/] },
    { name: 'trustWorkspaceTools reaches the server only in a trusted workspace', values: { trustWorkspaceTools: true }, trusted: false, want: defaults },
    { name: 'exclude that is not a list is ignored with a warning', values: { exclude: 'x/**' }, trusted: true, want: defaults, warnings: [/exclude must be a list/] },
    { name: 'non-string header values are left out', values: { hostHeaders: { A: 'b', C: 3 } }, trusted: true, want: { ...defaults, hostHeaders: { A: 'b' } }, warnings: [/'C' is not a string/] },
    { name: 'empty tools are not sent', values: { tools: {} }, trusted: true, want: defaults },
    { name: 'trustWorkspaceTools must be a real boolean', values: { trustWorkspaceTools: 'true' }, trusted: true, want: defaults },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = toServerSettings(reader(c.values), c.trusted);
      assert.deepEqual(got.settings, c.want);
      const expected = c.warnings ?? [];
      assert.equal(got.warnings.length, expected.length, `warnings: ${JSON.stringify(got.warnings)}`);
      expected.forEach((re, i) => assert.match(got.warnings[i], re));
    });
  }

  it('never leaks editor-only settings (path, trace) to the server', () => {
    const got = toServerSettings(reader({ path: '/x', 'trace.server': 'verbose' }), true);
    assert.deepEqual(Object.keys(got.settings).sort(), ['exclude', 'impliedTargets', 'rules', 'sessions', 'targets', 'trustWorkspaceTools']);
  });
});

describe('sameSettings', () => {
  it('ignores key order but sees value changes', () => {
    const a: ServerSettings = { ...defaults, rules: { x: 'off', y: 'hint' } };
    const b: ServerSettings = { rules: { y: 'hint', x: 'off' }, trustWorkspaceTools: false, sessions: 'auto', impliedTargets: true, targets: [], exclude: [] };
    assert.equal(sameSettings(a, b), true);
    assert.equal(sameSettings(a, { ...b, trustWorkspaceTools: true }), false);
    assert.equal(sameSettings(undefined, b), false);
  });
});

describe('answerConfigurationItem', () => {
  const s: ServerSettings = { ...defaults, host: 'ws://h', trustWorkspaceTools: true };
  it('answers the whole section with the gated settings', () => {
    assert.deepEqual(answerConfigurationItem('ahpls', s), { handled: true, value: s });
  });
  it('answers a single key of the section', () => {
    assert.deepEqual(answerConfigurationItem('ahpls.host', s), { handled: true, value: 'ws://h' });
    assert.deepEqual(answerConfigurationItem('ahpls.nope', s), { handled: true, value: null });
  });
  it('leaves other sections to the client library', () => {
    assert.deepEqual(answerConfigurationItem('editor', s), { handled: false });
    assert.deepEqual(answerConfigurationItem('ahplsx', s), { handled: false });
    assert.deepEqual(answerConfigurationItem(undefined, s), { handled: false });
  });
});

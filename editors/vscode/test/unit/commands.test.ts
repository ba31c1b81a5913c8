import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  buildToggleArgs,
  CMD_CHECK_WORKSPACE,
  CMD_FIX_ALL_WORKSPACE,
  CMD_MENU,
  CMD_OPEN_RULES_DOCS,
  CMD_SHOW_OUTPUT,
  CMD_SHOW_VERSION,
  CMD_REFRESH_CUSTOMIZATIONS,
  CMD_RESTART,
  CMD_SET_HOST_TOKEN,
  CMD_SHOW_HOST_CONNECTION,
  CMD_TOGGLE_CUSTOMIZATION,
  CMD_TOGGLE_GLOBAL,
  CMD_TOGGLE_SESSION,
  CMD_TOGGLE_WORKSPACE,
  formatCommandResult,
  LSP_COMMANDS,
  menuItems,
  summarizeCheck,
  toggleChoices,
  unadvertisedLspCommands,
} from '../../src/commands';
import { CHOOSE_CONSUMER, LSP_LIST_VIEW } from '../../src/consumers';
import { LSP_LIST_CUSTOMIZATIONS } from '../../src/customizations';

const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../package.json'), 'utf8'));

describe('toggle arguments', () => {
  it('sends a file uri with scope and enabled', () => {
    assert.deepEqual(buildToggleArgs({ uri: 'file:///w/.github/skills/a/SKILL.md' }, 'workspace', false), {
      uri: 'file:///w/.github/skills/a/SKILL.md',
      scope: 'workspace',
      enabled: false,
    });
  });
  it('prefers a customization id over a uri', () => {
    assert.deepEqual(buildToggleArgs({ uri: 'file:///x', id: 'plugin-1' }, 'session', true), { id: 'plugin-1', scope: 'session', enabled: true });
  });
  it('rejects an unknown scope and a missing target', () => {
    assert.throws(() => buildToggleArgs({ uri: 'file:///x' }, 'planet', true), /unknown scope 'planet'/);
    assert.throws(() => buildToggleArgs({}, 'global', true), /needs the uri/);
    assert.throws(() => buildToggleArgs({ uri: '', id: '' }, 'global', true), /needs the uri/);
  });
  it('offers enable and disable for each of the three scopes', () => {
    const choices = toggleChoices();
    assert.equal(choices.length, 6);
    assert.deepEqual(
      choices.map((c) => `${c.enabled}:${c.scope}`).sort(),
      ['false:global', 'false:session', 'false:workspace', 'true:global', 'true:session', 'true:workspace'],
    );
    assert.ok(choices.every((c) => c.label.startsWith(c.enabled ? 'Enable' : 'Disable')));
  });
});

describe('LSP command forwarding', () => {
  it('forwards only the LSP commands the server did not advertise', () => {
    assert.deepEqual(unadvertisedLspCommands(undefined), [...LSP_COMMANDS]);
    assert.deepEqual(unadvertisedLspCommands(['ahpls.toggleCustomization']), ['ahpls.showHostConnection']);
    assert.deepEqual(unadvertisedLspCommands([...LSP_COMMANDS, 'other']), []);
  });
  it('palette ids never collide with LSP command ids (vscode-languageclient registers those)', () => {
    const palette = pkg.contributes.commands.map((c: { command: string }) => c.command);
    assert.deepEqual(
      palette.sort(),
      [
        CMD_RESTART,
        CMD_SHOW_HOST_CONNECTION,
        CMD_TOGGLE_CUSTOMIZATION,
        CMD_SET_HOST_TOKEN,
        CMD_REFRESH_CUSTOMIZATIONS,
        CMD_TOGGLE_SESSION,
        CMD_TOGGLE_WORKSPACE,
        CMD_TOGGLE_GLOBAL,
        CMD_MENU,
        CMD_SHOW_OUTPUT,
        CMD_SHOW_VERSION,
        CMD_CHECK_WORKSPACE,
        CMD_FIX_ALL_WORKSPACE,
        CMD_OPEN_RULES_DOCS,
        CHOOSE_CONSUMER,
      ].sort(),
    );
    for (const id of [...LSP_COMMANDS, LSP_LIST_CUSTOMIZATIONS, LSP_LIST_VIEW]) {
      assert.ok(!palette.includes(id), id);
    }
  });
  it('formats results for the output channel', () => {
    assert.equal(formatCommandResult(undefined), '');
    assert.equal(formatCommandResult(null), '');
    assert.equal(formatCommandResult('connected'), 'connected');
    assert.equal(formatCommandResult({ state: 'connected' }), '{\n  "state": "connected"\n}');
  });
});

describe('the status bar menu', () => {
  it('offers restart, output, version, check, fix all and rules docs; host entries only with a host', () => {
    const plain = menuItems(false).map((i) => i.command);
    assert.deepEqual(plain, [
      'ahpls.restart',
      'ahpls.client.showOutput',
      'ahpls.client.showVersion',
      'ahpls.client.checkWorkspace',
      'ahpls.client.fixAllInWorkspace',
      'ahpls.client.openRulesDocs',
    ]);
    assert.deepEqual(menuItems(true).map((i) => i.command).slice(plain.length), ['ahpls.client.showHostConnection', 'ahpls.client.setHostToken']);
    const declared = new Set(pkg.contributes.commands.map((c: { command: string }) => c.command));
    for (const i of menuItems(true)) assert.ok(declared.has(i.command), i.command);
  });
});

describe('summarizeCheck', () => {
  it('counts the findings of `ahpls check --format json` by file and severity', () => {
    const json = JSON.stringify([
      { path: '/w/a/SKILL.md', rel: 'a/SKILL.md', line: 2, column: 7, severity: 'info', rule: 'skill/name-dir', message: 'Name differs.' },
      { path: '/w/a/SKILL.md', rel: 'a/SKILL.md', line: 3, column: 1, severity: 'error', rule: 'skill/x', message: 'Bad.' },
      { path: '/w/b.prompt.md', rel: 'b.prompt.md', line: 1, column: 1, severity: 'info', rule: 'p/y', message: 'Hm.' },
    ]);
    const s = summarizeCheck(json)!;
    assert.equal(s.findings, 3);
    assert.equal(s.files, 2);
    assert.deepEqual(s.bySeverity, { info: 2, error: 1 });
    assert.equal(s.lines[0], 'a/SKILL.md:2:7: info: Name differs. [skill/name-dir]');
    assert.deepEqual(summarizeCheck('[]'), { files: 0, findings: 0, bySeverity: {}, lines: [] });
    assert.equal(summarizeCheck('not json'), undefined);
  });
});

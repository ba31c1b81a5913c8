import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  buildToggleArgs,
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
  toggleChoices,
  unadvertisedLspCommands,
} from '../../src/commands';
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
      ].sort(),
    );
    for (const id of [...LSP_COMMANDS, LSP_LIST_CUSTOMIZATIONS]) {
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

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import { installFakeVscode, rec } from './fakeVscode';

installFakeVscode();
const ext = require('../../src/extension') as typeof import('../../src/extension');
const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../package.json'), 'utf8'));

describe('activate() without a usable binary', () => {
  before(async () => {
    rec.settings = { path: '/nonexistent/ahpls-for-test' };
    await ext.activate({ extensionPath: path.join(__dirname, 'no-extension-here'), subscriptions: [], secrets: { get: async () => undefined, store: async () => undefined, delete: async () => undefined, onDidChange: () => ({ dispose: () => undefined }) } } as never);
  });

  it('registers exactly the palette commands of package.json', () => {
    const ids = pkg.contributes.commands.map((c: { command: string }) => c.command).sort();
    assert.deepEqual([...rec.commands.keys()].sort(), ids);
  });

  it('tells the user which setting is wrong', () => {
    assert.equal(rec.errors.length, 1, JSON.stringify(rec.errors));
    assert.match(rec.errors[0], /ahpls\.path is set to '\/nonexistent\/ahpls-for-test'/);
  });

  it('shows a stopped server in the status bar, linked to the ahpls menu', () => {
    const item = rec.statusItems[0];
    assert.ok(item.visible);
    assert.equal(item.text, '$(circle-slash) ahpls');
    assert.equal(item.command, 'ahpls.client.menu');
    assert.match(String(item.tooltip), /not running/);
  });

  it('Show Host Connection explains that the server is not running', async () => {
    await rec.commands.get('ahpls.client.showHostConnection')!();
    assert.match(rec.infos.at(-1) ?? '', /not running/);
    assert.ok(rec.log.some((l) => /ahpls\.showHostConnection: the ahpls language server is not running/.test(l)), rec.log.join('\n'));
  });

  it('granting workspace trust updates the tooltip without throwing', () => {
    rec.trusted = false;
    rec.settings = { ...rec.settings, trustWorkspaceTools: true };
    rec.grantTrust();
    assert.match(String(rec.statusItems[0].tooltip), /Workspace tools: on/);
  });

  it('deactivates cleanly', async () => {
    await ext.deactivate();
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toServerSettings } from '../../src/settings';
import { describeToolTrust, gateToolTrust } from '../../src/trust';

describe('workspace-trust gating of tools', () => {
  const table: { requested: boolean; trusted: boolean; on: boolean; says: RegExp }[] = [
    { requested: false, trusted: false, on: false, says: /off \(ahpls\.trustWorkspaceTools is false\)/ },
    { requested: false, trusted: true, on: false, says: /off \(ahpls\.trustWorkspaceTools is false\)/ },
    { requested: true, trusted: false, on: false, says: /off until you trust this workspace/ },
    { requested: true, trusted: true, on: true, says: /on \(trusted workspace\)/ },
  ];
  for (const t of table) {
    it(`setting=${t.requested} trusted=${t.trusted} → tools ${t.on ? 'on' : 'off'}`, () => {
      assert.equal(gateToolTrust(t.requested, t.trusted), t.on);
      assert.match(describeToolTrust(t.requested, t.trusted), t.says);
      const sent = toServerSettings({ get: <T>(k: string) => (k === 'trustWorkspaceTools' ? t.requested : undefined) as T }, t.trusted);
      assert.equal(sent.settings.trustWorkspaceTools, t.on);
    });
  }

  it('granting trust later turns the same settings into tools-on (what the extension pushes)', () => {
    const cfg = { get: <T>(k: string) => (k === 'trustWorkspaceTools' ? true : undefined) as T };
    const before = toServerSettings(cfg, false).settings;
    const afterGrant = toServerSettings(cfg, true).settings;
    assert.equal(before.trustWorkspaceTools, false);
    assert.equal(afterGrant.trustWorkspaceTools, true);
    assert.deepEqual({ ...afterGrant, trustWorkspaceTools: false }, before);
  });
});

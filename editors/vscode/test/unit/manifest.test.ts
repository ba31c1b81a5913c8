import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { minimatch } from 'minimatch';
import { activationEvents, ACTIVATION_PATTERNS, DOCUMENT_PATTERNS } from '../../src/filekinds';
import { SERVER_SETTINGS } from '../../src/settingkeys';
import { RULE_LEVELS } from '../../src/settings';

const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../package.json'), 'utf8'));
const props = pkg.contributes.configuration.properties;

// Paths relative to a workspace folder: which ones must start the server and be sent to it.
const ours = [
  '.github/skills/my-skill/SKILL.md',
  '.claude/skills/x/SKILL.md',
  '.agents/skills/x/SKILL.md',
  'plugins/p/skills/x/SKILL.md',
  '.github/agents/reviewer.agent.md',
  '.github/chatmodes/old.chatmode.md',
  '.github/prompts/release.prompt.md',
  '.github/instructions/go.instructions.md',
  '.github/copilot-instructions.md',
  '.claude/agents/sub/helper.md',
  '.claude/commands/deploy.md',
  '.claude/rules/style.md',
  '.github/hooks/pre.json',
  'plugins/p/hooks/hooks.json',
  '.mcp.json',
  '.plugin/plugin.json',
  '.claude-plugin/plugin.json',
  '.github/plugin/plugin.json',
  '.claude-plugin/marketplace.json',
  '.claude/settings.json',
  '.github/copilot/settings.json',
  'AGENTS.md',
  'CLAUDE.md',
  '.clinerules/style.md',
  '.clinerules/notes.txt',
  '.clinerules/guide.markdown',
  '.opencode/agents/review.md',
];
const notOurs = ['README.md', 'docs/guide.md', 'package.json', 'tsconfig.json', 'src/settings.json', '.vscode/settings.json'];

function matchesAny(patterns: readonly string[], rel: string): boolean {
  // VS Code matches document filters against the absolute path and
  // workspaceContains against the folder-relative one; test both forms.
  return patterns.some((p) => minimatch(rel, p, { dot: true }) || minimatch('/home/u/repo/' + rel, p, { dot: true }));
}

describe('package.json', () => {
  it('activates on exactly the workspaceContains patterns of filekinds.ts', () => {
    assert.deepEqual(pkg.activationEvents, activationEvents());
  });
  it('points main at the bundled extension and pins the VS Code engine the client library needs', () => {
    assert.equal(pkg.main, './dist/extension.js');
    assert.equal(pkg.engines.vscode, '^1.91.0');
    assert.ok(fs.existsSync(path.join(__dirname, '../../../dist/extension.js')), 'bundle missing (npm run bundle)');
  });
  it('has an icon: a PNG of at least 128x128 pixels, as the Marketplace asks', () => {
    const png = fs.readFileSync(path.join(__dirname, '../../..', pkg.icon));
    assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG');
    assert.ok(png.readUInt32BE(16) >= 128 && png.readUInt32BE(20) >= 128, `size ${png.readUInt32BE(16)}x${png.readUInt32BE(20)}`);
  });
  it('contributes every ahpls.* setting the extension reads', () => {
    // Generated from settings.Specs (rulesettings' TestEverySettingIsASpec);
    // here: every server key the extension forwards is declared, plus its own two.
    for (const k of SERVER_SETTINGS) {
      assert.ok(props[`ahpls.${k}`] !== undefined, `ahpls.${k} is not declared`);
    }
    assert.ok(props['ahpls.path'] !== undefined && props['ahpls.trace.server'] !== undefined);
    // The enum is generated from model.Consumers (rulesettings' drift test).
    for (const t of props['ahpls.targets'].default) {
      assert.ok(props['ahpls.targets'].items.enum.includes(t), `default target ${t} is not in the enum`);
    }
    assert.equal(props['ahpls.trustWorkspaceTools'].default, false);
  });
  it('declares every server setting of the README (the "## Settings" table) as ahpls.<key>', () => {
    const readme = fs.readFileSync(path.join(__dirname, '../../../../../README.md'), 'utf8');
    const section = readme.split('\n## Settings\n')[1].split('\n## ')[0];
    const keys = [...section.matchAll(/^\| `([A-Za-z]+)` \|/gm)].map((m) => m[1]);
    assert.ok(keys.length >= 9, `server settings found in the README: ${keys.join(', ')}`);
    for (const k of keys) {
      assert.ok(props[`ahpls.${k}`] !== undefined, `ahpls.${k} is not declared in package.json`);
    }
  });
  it('offers every rule id as a choice in ahpls.rules (generated from the rule table)', () => {
    const rules = props['ahpls.rules'];
    const ids = Object.keys(rules.properties);
    assert.ok(ids.length > 50, `${ids.length} rule ids`);
    for (const id of ['skill/name-charset', 'skill/name-dir']) {
      assert.deepEqual(rules.properties[id].enum, [...RULE_LEVELS], id);
      assert.match(rules.properties[id].markdownDescription, /docs\/rules\.md#/, id);
    }
    assert.equal(rules.additionalProperties, false);
  });
  it('ignores workspace values of the dangerous settings in untrusted workspaces', () => {
    const u = pkg.capabilities.untrustedWorkspaces;
    assert.equal(u.supported, 'limited');
    assert.deepEqual([...u.restrictedConfigurations].sort(), ['ahpls.host', 'ahpls.hostHeaders', 'ahpls.path', 'ahpls.tools', 'ahpls.trustWorkspaceTools']);
  });
  it('has pinned (exact) dependency versions', () => {
    for (const [name, v] of Object.entries({ ...pkg.dependencies, ...pkg.devDependencies })) {
      assert.match(String(v), /^\d+\.\d+\.\d+$/, name);
    }
  });
});

describe('file kinds', () => {
  for (const rel of ours) {
    it(`${rel} activates the extension and is sent to the server`, () => {
      assert.ok(matchesAny(ACTIVATION_PATTERNS, rel), 'activation');
      assert.ok(matchesAny(DOCUMENT_PATTERNS, rel), 'document selector');
    });
  }
  for (const rel of notOurs) {
    it(`${rel} does not`, () => {
      assert.ok(!matchesAny(ACTIVATION_PATTERNS, rel), 'activation');
      assert.ok(!matchesAny(DOCUMENT_PATTERNS, rel), 'document selector');
    });
  }
});

describe('context menus', () => {
  it('offer Toggle Customization on customization files only', () => {
    for (const where of ['explorer/context', 'editor/title/context']) {
      const [entry] = pkg.contributes.menus[where];
      assert.equal(entry.command, 'ahpls.client.toggleCustomization');
      const re = new RegExp(/=~ \/(.*)\/$/.exec(entry.when)![1]);
      for (const name of ['SKILL.md', 'review.agent.md', 'x.prompt.md', 'go.instructions.md', '.mcp.json', 'plugin.json', 'hooks.json']) {
        assert.ok(re.test(name), `${where}: ${name}`);
      }
      for (const name of ['README.md', 'package.json', 'SKILL.md.bak', 'mcp.json.orig']) {
        assert.ok(!re.test(name), `${where}: ${name}`);
      }
    }
  });
});

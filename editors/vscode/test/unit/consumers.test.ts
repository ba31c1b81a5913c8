import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildConsumerTree, ConsumerGroupNode, ConsumerItemNode, parseItem, statusText } from '../../src/consumers';

const answer = [
  {
    folder: '/w',
    uri: 'file:///w',
    consumers: [
      {
        target: 'vscode',
        name: 'VS Code',
        items: [
          { category: 'skills', name: 'pdf', source: '.claude/skills/pdf/SKILL.md', status: 'shadowed', shadowedBy: '.github/skills/pdf/SKILL.md' },
          { category: 'skills', name: 'pdf', source: '.github/skills/pdf/SKILL.md', status: 'loads', description: { text: 'Fill PDF forms.', length: 15 } },
          { bogus: true },
        ],
      },
      {
        target: 'claude-code',
        name: 'Claude Code',
        items: [
          {
            category: 'plugins',
            name: 'claude-x',
            source: 'p/.claude-plugin/plugin.json',
            status: 'fails',
            rule: 'plugin/name-reserved',
            reason: 'reserved',
            components: [{ category: 'skills', name: 'claude-x:s', source: 'p/skills/s/SKILL.md', status: 'fails', rule: 'plugin/name-reserved' }],
          },
          { category: 'skills', name: 'logs', source: '.claude/skills/logs/SKILL.md', status: 'loads', description: { text: 'x', length: 2000, budget: 1536, truncated: true } },
        ],
      },
    ],
  },
];

describe('consumers view', () => {
  it('groups items by consumer with their statuses and a path to open', () => {
    const tree = buildConsumerTree(answer) as ConsumerGroupNode[];
    assert.deepEqual(
      tree.map((g) => [g.label, g.children.length]),
      [
        ['VS Code', 2],
        ['Claude Code', 2],
      ],
    );
    const shadowed = tree[0].children[0];
    assert.equal(shadowed.description, 'shadowed by .github/skills/pdf/SKILL.md');
    assert.equal(shadowed.path, '/w/.claude/skills/pdf/SKILL.md');
    assert.equal(shadowed.contextValue, 'ahpls.view.shadowed');
    assert.equal(tree[0].description, '1 shadowed · 1 loads');
    const plugin = tree[1].children[0];
    assert.equal(plugin.description, 'fails: plugin/name-reserved — reserved');
    assert.equal(plugin.children[0].label, 'claude-x:s');
    // Keys are unique: two items of one file and name still differ.
    const keys = tree.flatMap((g) => g.children.flatMap((n) => [n.key, ...n.children.map((c) => c.key)]));
    assert.equal(new Set(keys).size, keys.length);
    assert.match(tree[1].children[1].description, /description cut at 1536/);
  });

  it('shows one consumer at the top level when switched to it', () => {
    const tree = buildConsumerTree(answer, 'claude-code') as ConsumerItemNode[];
    assert.deepEqual(
      tree.map((n) => n.label),
      ['claude-x', 'logs'],
    );
    assert.deepEqual(buildConsumerTree(answer, 'copilot-cli'), []);
  });

  it('ignores malformed answers', () => {
    assert.deepEqual(buildConsumerTree(null), []);
    assert.deepEqual(buildConsumerTree({}), []);
    assert.equal(parseItem({ name: 'x' }), undefined);
    assert.equal(statusText({ category: 'skills', name: 'a', source: 's', status: 'disabled', scope: 'workspace' }), 'disabled (workspace)');
    assert.equal(statusText({ category: 'skills', name: 'a', source: 's', status: 'not-scanned', reason: 'r' }), 'not scanned: r');
    const it = parseItem({ category: 'skills', name: 'p:a', source: 's', status: 'loads', install: 'once plugin p from marketplace m is installed' });
    assert.equal(it && statusText(it), 'loads once plugin p from marketplace m is installed');
  });
});

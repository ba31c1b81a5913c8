import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { minimatch } from 'minimatch';
import { ACTIVATION_PATTERNS, DOCUMENT_PATTERNS } from '../../src/filekinds';
import { alternatives, unionGlob } from '../../src/globs';

describe('alternatives', () => {
  const cases: [string, string[]][] = [
    ['**/SKILL.md', ['**/SKILL.md']],
    ['**/.opencode/{agent,agents}/**/*.md', ['**/.opencode/agent/**/*.md', '**/.opencode/agents/**/*.md']],
    ['{a,b}/{c,d}', ['a/c', 'a/d', 'b/c', 'b/d']],
    ['x{a,{b,c}}y', ['xay', 'xby', 'xcy']],
    ['{a,a}', ['a']],
    ['x{a,b', ['x{a,b']],
  ];
  for (const [pattern, want] of cases) {
    it(pattern, () => assert.deepEqual(alternatives(pattern), want));
  }
});

// workspace.findFiles passes the union to ripgrep, which refuses nested
// alternate groups: the extension failed to activate when no customization
// file was open yet (an e2e run on a clean machine).
describe('unionGlob', () => {
  for (const [name, patterns] of [
    ['activation', ACTIVATION_PATTERNS],
    ['document selector', DOCUMENT_PATTERNS],
  ] as const) {
    const union = unionGlob(patterns);
    it(`${name}: one flat alternate group`, () => {
      assert.ok(union.startsWith('{') && union.endsWith('}'));
      assert.doesNotMatch(union.slice(1, -1), /[{}]/);
    });
    it(`${name}: matches what the patterns match`, () => {
      const paths = patterns.flatMap(alternatives).map((p) => p.replace(/\*\*\//g, 'a/b/').replace(/\*/g, 'x'));
      paths.push('README.md', 'a/.opencode/agentz/x.md', 'src/main.go');
      for (const p of paths) {
        assert.equal(
          minimatch(p, union, { dot: true }),
          patterns.some((g) => minimatch(p, g, { dot: true })),
          p,
        );
      }
    });
    it(`${name}: ripgrep accepts it`, (t) => {
      if (spawnSync('rg', ['--version']).status !== 0) {
        t.skip('ripgrep (rg) is not installed');
        return;
      }
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ahpls-glob-'));
      try {
        fs.mkdirSync(path.join(dir, '.opencode', 'agents'), { recursive: true });
        fs.writeFileSync(path.join(dir, '.opencode', 'agents', 'a.md'), 'x');
        fs.writeFileSync(path.join(dir, 'README.md'), 'x');
        const r = spawnSync('rg', ['--files', '--hidden', '-g', union], { cwd: dir, encoding: 'utf8' });
        assert.equal(r.stderr, '');
        assert.equal(r.status, 0);
        assert.deepEqual(r.stdout.trim().split('\n'), [path.join('.opencode', 'agents', 'a.md')]);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

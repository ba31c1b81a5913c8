import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { BinaryEnv, BinaryNotFoundError, isExecutableFile, repairBundledBinary, resolveBinary } from '../../src/binary';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ahpls-binary-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

/** Creates a file below root; executable unless told otherwise. */
function file(rel: string, exec = true): string {
  const p = path.join(root, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, '#!/bin/sh\nexit 0\n');
  fs.chmodSync(p, exec ? 0o755 : 0o644);
  return p;
}

function env(over: Partial<BinaryEnv> = {}): BinaryEnv {
  return {
    platform: 'linux',
    arch: 'x64',
    pathEnv: '',
    homeDir: path.join(root, 'home'),
    extensionPath: path.join(root, 'ext-empty'),
    workspaceFolder: path.join(root, 'ws'),
    isExecutableFile,
    ...over,
  };
}

const onPath = file('usr/bin/ahpls');
const bundled = file('ext/bin/ahpls');
const bundledArch = file('ext-arch/bin/linux-x64/ahpls');
file('ext-arch/bin/ahpls');
const inWorkspace = file('ws/tools/ahpls');
const inHome = file('home/go/bin/ahpls');
const notExec = file('noexec/ahpls', false);
file('cwd/ahpls');
const winExe = file('win/bin/ahpls.exe');

describe('resolveBinary', () => {
  const cases: { name: string; setting?: string; env: Partial<BinaryEnv>; want: { path: string; source: string } }[] = [
    { name: 'absolute setting wins over bundled and PATH', setting: inWorkspace, env: { extensionPath: path.join(root, 'ext'), pathEnv: path.dirname(onPath) }, want: { path: inWorkspace, source: 'setting' } },
    { name: 'relative setting resolves against the workspace folder', setting: 'tools/ahpls', env: {}, want: { path: inWorkspace, source: 'setting' } },
    { name: '${workspaceFolder} is expanded', setting: '${workspaceFolder}/tools/ahpls', env: {}, want: { path: inWorkspace, source: 'setting' } },
    { name: '~ expands to the home directory', setting: '~/go/bin/ahpls', env: {}, want: { path: inHome, source: 'setting' } },
    { name: 'blank setting counts as unset', setting: '   ', env: { extensionPath: path.join(root, 'ext') }, want: { path: bundled, source: 'bundled' } },
    { name: 'bundled bin/ beats PATH', env: { extensionPath: path.join(root, 'ext'), pathEnv: path.dirname(onPath) }, want: { path: bundled, source: 'bundled' } },
    { name: 'bundled platform-arch folder beats plain bin/', env: { extensionPath: path.join(root, 'ext-arch') }, want: { path: bundledArch, source: 'bundled' } },
    { name: 'PATH is searched in order, skipping non-executable files', env: { pathEnv: [path.dirname(notExec), path.join(root, 'nothing-here'), path.dirname(onPath)].join(':') }, want: { path: onPath, source: 'path' } },
    { name: 'windows finds ahpls.exe on Path with ; separators', env: { platform: 'win32', pathEnv: `${path.join(root, 'nothing')};${path.dirname(winExe)}`, pathExt: '.COM;.EXE;.BAT' }, want: { path: winExe, source: 'path' } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(resolveBinary(c.setting, env(c.env)), c.want);
    });
  }

  it('a setting that points nowhere is an error, not a fallback to PATH', () => {
    assert.throws(
      () => resolveBinary(path.join(root, 'missing/ahpls'), env({ pathEnv: path.dirname(onPath) })),
      (e: unknown) => e instanceof BinaryNotFoundError && /ahpls\.path/.test(e.message) && e.tried.length === 1,
    );
  });

  it('a setting that names a non-executable file is an error', () => {
    assert.throws(() => resolveBinary(notExec, env()), BinaryNotFoundError);
  });

  it('never runs a binary from an empty or relative PATH entry (current directory)', () => {
    const cwd = process.cwd();
    process.chdir(path.join(root, 'cwd'));
    try {
      assert.throws(() => resolveBinary(undefined, env({ pathEnv: ':.:cwd' })), BinaryNotFoundError);
    } finally {
      process.chdir(cwd);
    }
  });

  it('reports every place it looked when nothing is found', () => {
    try {
      resolveBinary(undefined, env({ extensionPath: path.join(root, 'ext-empty'), pathEnv: path.join(root, 'a') }));
      assert.fail('expected BinaryNotFoundError');
    } catch (e) {
      assert.ok(e instanceof BinaryNotFoundError);
      assert.deepEqual(e.tried, [
        path.join(root, 'ext-empty/bin/linux-x64/ahpls'),
        path.join(root, 'ext-empty/bin/ahpls'),
        path.join(root, 'a/ahpls'),
      ]);
      assert.match(e.message, /set 'ahpls\.path'/);
    }
  });
});

describe('isExecutableFile', () => {
  it('accepts an executable file and rejects directories, missing and non-executable files', () => {
    assert.equal(isExecutableFile(onPath), true);
    assert.equal(isExecutableFile(path.dirname(onPath)), false);
    assert.equal(isExecutableFile(path.join(root, 'nope')), false);
    assert.equal(isExecutableFile(notExec), process.platform === 'win32');
  });
});

describe('repairBundledBinary', () => {
  it('restores the executable bit a zip extraction dropped, so the bundled binary is found', { skip: process.platform === 'win32' }, () => {
    const ext = path.join(root, 'repair-ext');
    const bin = file('repair-ext/bin/ahpls', false);
    const mcp = file('repair-ext/bin/ahpls-mcp', false);
    assert.equal(isExecutableFile(bin), false);
    repairBundledBinary(ext);
    assert.equal(isExecutableFile(bin), true);
    assert.equal(isExecutableFile(mcp), true, 'ahpls-mcp, which `ahpls mcp` runs');
  });
  it('does nothing without a bundled binary', () => {
    assert.doesNotThrow(() => repairBundledBinary(path.join(root, 'no-such-ext')));
  });
});

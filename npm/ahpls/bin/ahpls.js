#!/usr/bin/env node
// The `ahpls` command of the npm package: runs the native binary of the
// platform package npm installed next to this one (one of the
// optionalDependencies, chosen by their "os" and "cpu" fields; nothing is
// downloaded at install time). AHPLS_BINARY names another binary to run.
'use strict';
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const pkg = `@ahpls/${process.platform}-${process.arch}`;
const exe = process.platform === 'win32' ? 'ahpls.exe' : 'ahpls';

function binary() {
  if (process.env.AHPLS_BINARY) {
    return process.env.AHPLS_BINARY;
  }
  try {
    return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), 'bin', exe);
  } catch {
    process.stderr.write(
      `ahpls: the package ${pkg} is not installed, so there is no ahpls binary for ${process.platform}/${process.arch}.\n` +
        'Reinstall without --no-optional / --omit=optional, or install a release archive and set AHPLS_BINARY to it.\n',
    );
    process.exit(1);
  }
}

const r = spawnSync(binary(), process.argv.slice(2), { stdio: 'inherit', windowsHide: true });
if (r.error) {
  process.stderr.write(`ahpls: cannot run ${r.error.path || 'the binary'}: ${r.error.message}\n`);
  process.exit(1);
}
if (r.signal) {
  process.kill(process.pid, r.signal);
}
process.exit(r.status === null ? 1 : r.status);

#!/usr/bin/env node
// Starts an MCP server over stdio (`node scripts/mcp-handshake.js CMD ARG…`,
// e.g. `… path/to/ahpls mcp` or `… npx --no-install ahpls mcp`), sends
// initialize and tools/list as a client would, and prints one line:
// "<serverInfo.name> <serverInfo.version>, N tools". Exits non-zero when the
// server does not answer both within 30 s. Used by scripts/release.sh verify
// to show that `ahpls mcp` works from the binaries a release ships.
'use strict';
const { spawn } = require('node:child_process');

const [cmd, ...args] = process.argv.slice(2);
if (!cmd) {
  process.stderr.write('usage: mcp-handshake.js CMD [ARG…]\n');
  process.exit(2);
}
const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'] });
const timer = setTimeout(() => fail('no answer within 30 s'), 30000);
let buf = '';
let info;

function fail(msg) {
  process.stderr.write(`mcp-handshake: ${cmd} ${args.join(' ')}: ${msg}\n`);
  child.kill();
  process.exit(1);
}
function send(msg) {
  child.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...msg }) + '\n');
}

child.on('error', (err) => fail(err.message));
// A server that exits at once closes the pipe: reported by the exit handler.
child.stdin.on('error', () => {});
child.on('exit', (code) => {
  if (info === undefined || buf !== null) {
    fail(`exited (${code}) before answering`);
  }
});
child.stdout.setEncoding('utf8');
child.stdout.on('data', (chunk) => {
  buf += chunk;
  let nl;
  while (buf !== null && (nl = buf.indexOf('\n')) >= 0) {
    const line = buf.slice(0, nl);
    buf = buf.slice(nl + 1);
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      fail(`not JSON on stdout: ${line.slice(0, 200)}`);
    }
    if (msg.error) {
      fail(`error: ${JSON.stringify(msg.error)}`);
    }
    if (msg.id === 1) {
      info = msg.result.serverInfo;
      send({ method: 'notifications/initialized' });
      send({ id: 2, method: 'tools/list', params: {} });
    } else if (msg.id === 2) {
      buf = null;
      clearTimeout(timer);
      process.stdout.write(`${info.name} ${info.version}, ${msg.result.tools.length} tools\n`);
      child.stdin.end();
    }
  }
});
send({
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'ahpls-release-check', version: '0' } },
});

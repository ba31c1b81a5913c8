// The real VS Code test: code-server (VS Code 1.100.3) with the ahpls vsix
// installed, driven by headless Debian Chromium through playwright-core.
// editors/e2e.sh installs everything and passes the paths in the environment:
//   CODE_SERVER, PLAYWRIGHT_CORE, AHPLS_VSIX, AHPLS_E2E_FIXTURE,
//   AHPLS_E2E_ARTIFACTS, AHPLS_TESTHOST (optional: the AHP test host binary),
//   AHPLS_E2E_TIMEOUT (seconds, default 420), CHROMIUM (default /usr/bin/chromium).
//
// What a user does, in order: open a workspace with a broken SKILL.md and a
// second broken skill that the VS Code setting `ahpls.exclude` names; see the
// Problems entry of the first only; Go to Symbol lists each heading once; apply
// the quick fix and see "No problems" (the excluded skill stays silent); hover a
// frontmatter key; read the neutral status bar item (no agent host configured
// yet), its menu and the language status item with the server version; remove
// the exclude and set `ahpls.host` in settings.json: the excluded skill's
// problem appears and the status bar shows the host; see the skill in the
// Customizations view and toggle it off for the session. Before that (#41): a
// skill folder renamed with F2 (folder moved, marketplace entry updated, no
// finding left on the old path), a skill folder moved with mv in a shell,
// completion inside quotes under "hooks", and Go to Symbol (document and
// workspace) in a marketplace.json, each with a screenshot. Before the host,
// the Customizations view already lists what each consumer loads (#32): a
// command Claude Code shadows by a skill of the same name, opened by a click.
// Every step waits for a condition (never a fixed sleep) under one overall
// deadline. On failure a screenshot, the page text and code-server's log are
// kept in AHPLS_E2E_ARTIFACTS; on success the final screenshot is kept too.
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

const env = process.env;
for (const k of ['CODE_SERVER', 'PLAYWRIGHT_CORE', 'AHPLS_VSIX', 'AHPLS_E2E_FIXTURE', 'AHPLS_E2E_ARTIFACTS']) {
  if (!env[k]) {
    console.error(`e2e: ${k} is not set (run editors/e2e.sh)`);
    process.exit(2);
  }
}
const require = createRequire(import.meta.url);
const { chromium } = require(env.PLAYWRIGHT_CORE);
const artifacts = env.AHPLS_E2E_ARTIFACTS;
const deadline = Date.now() + Number(env.AHPLS_E2E_TIMEOUT || 420) * 1000;
const t0 = Date.now();
fs.mkdirSync(artifacts, { recursive: true });

const children = [];
let browser;
let page;
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ahpls-e2e-'));
const serverLog = path.join(artifacts, 'code-server.log');

function log(msg) {
  console.log(`[${((Date.now() - t0) / 1000).toFixed(1)}s] ${msg}`);
}

function remaining() {
  const ms = deadline - Date.now();
  if (ms <= 0) throw new Error('overall time limit reached');
  return ms;
}

/** Polls `cond` until it returns a truthy value; the message names what never happened. */
async function waitFor(what, cond, timeoutMs = 60000) {
  const end = Math.min(Date.now() + timeoutMs, deadline);
  let last;
  for (;;) {
    try {
      const v = await cond();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) {
      throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${last.message})` : ''}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

function walkFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? walkFiles(p) : e.isFile() ? [p] : [];
  });
}

async function cleanup() {
  if (env.AHPLS_E2E_WIRE) {
    try {
      fs.cpSync(path.join(work, 'user-data', 'logs'), path.join(artifacts, 'logs'), { recursive: true });
    } catch {}
  }
  try {
    await browser?.close();
  } catch {}
  for (const c of children) {
    try {
      process.kill(-c.pid, 'SIGTERM'); // each child leads its own process group
    } catch {}
  }
  fs.rmSync(work, { recursive: true, force: true });
}

// --- the palette -------------------------------------------------------------------
async function palette(text, { pick } = {}) {
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await page.keyboard.press('F1');
  await input.waitFor({ state: 'visible', timeout: remaining() });
  await input.fill(text);
  if (pick !== undefined) {
    const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: pick }).first();
    // File search runs ripgrep on the server: slow on a loaded machine.
    await row.waitFor({ state: 'visible', timeout: Math.min(remaining(), 120000) });
    await row.click();
  } else {
    // Wait until the list shows the command, then run the first match.
    await page
      .locator('.quick-input-widget .monaco-list-row')
      .first()
      .waitFor({ state: 'visible', timeout: Math.min(remaining(), 30000) });
    await page.keyboard.press('Enter');
  }
  await input.waitFor({ state: 'hidden', timeout: Math.min(remaining(), 30000) });
}

/**
 * Writes an executable that runs `server` and logs the LSP messages between
 * it and VS Code to `logFile` (one line each: time, direction, the JSON;
 * diagnostic answers shortened to uri, kind and count). Returns its path.
 */
function writeWireTap(server, logFile) {
  const js = path.join(work, 'wiretap.mjs');
  fs.writeFileSync(
    js,
    `import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
const [server, logFile, ...args] = process.argv.slice(2);
const out = fs.createWriteStream(logFile, { flags: 'a' });
const short = (body) => {
  try {
    const m = JSON.parse(body);
    // A workspace answer or partial result: uri, kind and count of each report.
    const r = m.result ?? (m.method === '$/progress' ? m.params.value : undefined);
    if (r && Array.isArray(r.items) && r.kind === undefined) {
      return JSON.stringify({ id: m.id, method: m.method, workspaceReport: r.items.map((i) => i.uri + ' ' + i.kind + ' ' + (i.items ? i.items.length : '-')) });
    }
  } catch {}
  return body.length > 1500 ? body.slice(0, 1500) + '...' : body;
};
const tap = (dir) => {
  let buf = Buffer.alloc(0);
  return (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    for (;;) {
      const h = buf.indexOf('\\r\\n\\r\\n');
      if (h < 0) return;
      const m = /Content-Length: *(\\d+)/i.exec(buf.subarray(0, h).toString());
      if (!m || buf.length < h + 4 + Number(m[1])) return;
      const body = buf.subarray(h + 4, h + 4 + Number(m[1])).toString();
      buf = buf.subarray(h + 4 + Number(m[1]));
      out.write(new Date().toISOString() + ' ' + dir + ' ' + short(body) + '\\n');
    }
  };
};
const child = spawn(server, args, { stdio: ['pipe', 'pipe', 'inherit'] });
const fromEditor = tap('>');
const fromServer = tap('<');
process.stdin.on('data', (d) => { fromEditor(d); child.stdin.write(d); });
process.stdin.on('end', () => child.stdin.end());
child.stdout.on('data', (d) => { fromServer(d); process.stdout.write(d); });
child.on('exit', (code) => out.end(() => process.exit(code ?? 1)));
`,
  );
  const sh = path.join(work, 'ahpls-wiretap');
  fs.writeFileSync(sh, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(js)} ${JSON.stringify(server)} ${JSON.stringify(logFile)} "$@"\n`, { mode: 0o755 });
  return sh;
}

async function runCommand(title) {
  await palette(`>${title}`, { pick: title });
}

async function main() {
  // --- workspace, settings, the AHP test host ----------------------------------------
  const ws = path.join(work, 'workspace');
  fs.cpSync(env.AHPLS_E2E_FIXTURE, ws, { recursive: true });
  const skill = path.join(ws, '.github/skills/my-skill/SKILL.md');
  // A second broken skill, silenced by ahpls.exclude until the setting changes.
  const draftDir = path.join(ws, '.github/skills/draft-skill');
  fs.mkdirSync(draftDir, { recursive: true });
  fs.writeFileSync(path.join(draftDir, 'SKILL.md'), '---\nname: Draft_Skill\ndescription: A draft that ahpls.exclude silences.\n---\n\n# Draft\n');
  // What each agent sees (#32): Claude Code prefers this skill over the command of the same name.
  fs.mkdirSync(path.join(ws, '.claude/skills/deploy'), { recursive: true });
  fs.writeFileSync(path.join(ws, '.claude/skills/deploy/SKILL.md'), '---\nname: deploy\ndescription: Deploy the site to staging.\n---\n\n# Deploy\n');
  fs.mkdirSync(path.join(ws, '.claude/commands'), { recursive: true });
  fs.writeFileSync(path.join(ws, '.claude/commands/deploy.md'), 'Deploy by hand.\n');
  // A clean hooks file for completion (#41), there from the start so that Quick Open finds it.
  fs.mkdirSync(path.join(ws, '.github/hooks'), { recursive: true });
  fs.writeFileSync(path.join(ws, '.github/hooks/hooks.json'), '{\n  "hooks": {\n    \n  }\n}\n');
  const exclude = ['.github/skills/draft-skill/**'];
  const userData = path.join(work, 'user-data');
  const extDir = path.join(work, 'extensions');
  fs.mkdirSync(path.join(userData, 'User'), { recursive: true });

  let hostURL = '';
  if (env.AHPLS_TESTHOST) {
    const h = spawn(env.AHPLS_TESTHOST, [ws], { stdio: ['pipe', 'pipe', 'inherit'], detached: true });
    children.push(h);
    hostURL = await waitFor(
      'the AHP test host URL',
      () =>
        new Promise((resolve) => {
          let buf = '';
          h.stdout.on('data', (d) => {
            buf += d;
            const line = buf.split('\n')[0];
            if (buf.includes('\n')) resolve(line.trim());
          });
          h.on('exit', () => resolve(''));
        }),
      30000,
    );
    log(`AHP test host at ${hostURL}`);
  }
  const settings = {
    'security.workspace.trust.enabled': false,
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.welcomePage.walkthroughs.openOnInstall': false,
    'extensions.autoUpdate': false,
    'extensions.autoCheckUpdates': false,
    'extensions.ignoreRecommendations': true,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'chat.commandCenter.enabled': false,
    'window.commandCenter': false,
    'files.autoSave': 'off',
  };
  // No agent host at first (as for most users): the status must be neutral.
  // The host is set later by rewriting settings.json, as a user would.
  settings['ahpls.exclude'] = exclude;
  const settingsFile = path.join(userData, 'User', 'settings.json');
  fs.writeFileSync(settingsFile, JSON.stringify(settings, null, 2));

  // --- install the vsix and start code-server -----------------------------------------
  const csArgs = ['--user-data-dir', userData, '--extensions-dir', extDir];
  log(`installing ${path.basename(env.AHPLS_VSIX)}`);
  const inst = spawnSync(env.CODE_SERVER, [...csArgs, '--install-extension', env.AHPLS_VSIX], {
    encoding: 'utf8',
    timeout: remaining(),
  });
  if (inst.status !== 0) {
    throw new Error(`code-server --install-extension failed (${inst.status}):\n${inst.stdout}\n${inst.stderr}`);
  }
  const installed = fs.readdirSync(extDir).find((d) => d.startsWith('ahpls-dev.ahpls-'));
  if (!installed) throw new Error(`the extension is not in ${extDir}: ${fs.readdirSync(extDir).join(', ')}`);
  const bundled = path.join(extDir, installed, 'bin', 'ahpls');
  fs.accessSync(bundled, fs.constants.X_OK); // the vsix's binary arrived executable
  log(`installed ${installed} (bundled server ${bundled})`);
  if (env.AHPLS_E2E_WIRE) {
    // Evidence for a failing step: the bundled server runs behind a tap that
    // writes every LSP message, both ways, with its time, to wire.log.
    settings['ahpls.path'] = writeWireTap(bundled, path.join(artifacts, 'wire.log'));
    fs.writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
    log(`AHPLS_E2E_WIRE: the server's messages go to ${path.join(artifacts, 'wire.log')}`);
  }

  const port = await freePort();
  const out = fs.openSync(serverLog, 'w');
  const cs = spawn(
    env.CODE_SERVER,
    // AHPLS_E2E_WIRE: code-server logs at trace level too (its file watcher's log among them), kept in artifacts/logs.
    [...csArgs, ...(env.AHPLS_E2E_WIRE ? ['--log', 'trace'] : []), '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check', '--disable-getting-started-override', ws],
    // ahpls keeps its state under XDG_STATE_HOME; keep it out of the real home.
    { stdio: ['ignore', out, out], detached: true, env: { ...env, XDG_STATE_HOME: path.join(work, 'state'), AHPLS_HOST: '' } },
  );
  children.push(cs);
  await waitFor('code-server to listen', async () => {
    if (cs.exitCode !== null) throw new Error(`code-server exited with ${cs.exitCode}`);
    const r = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
    return r?.ok;
  });
  log(`code-server on 127.0.0.1:${port}`);

  // --- the browser -------------------------------------------------------------------
  browser = await chromium.launch({
    executablePath: env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
    timeout: remaining(),
  });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.setDefaultTimeout(30000);
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`, { timeout: remaining() });
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: remaining() });
  await page.locator('.statusbar').waitFor({ state: 'visible', timeout: remaining() });
  log('workbench loaded');

  // --- the server starts from the workspace's files alone ---------------------------------
  // No editor is open yet, so the extension searches the workspace for a
  // customization file (workspace.findFiles, i.e. ripgrep) before it starts the
  // server. That search once failed on a nested {a,b} glob and left the
  // extension dead whenever it activated before a SKILL.md was open.
  {
    const item = page.locator('.statusbar-item:not(#status\\.languageStatus)', { hasText: /^\s*ahpls/ }).first();
    let aria = '';
    await waitFor('the server running before any file is open', async () => {
      aria = (await item.locator('[aria-label]').first().getAttribute('aria-label', { timeout: 2000 }).catch(() => '')) ?? '';
      return /: running/.test(aria);
    }, 60000).catch((e) => {
      throw new Error(`${e.message}; status bar item's label: "${aria}"`);
    });
    log('server running before any file is open (started from the workspace search)');
  }

  // --- open the broken skill -------------------------------------------------------------
  await palette('my-skill/SKILL.md', { pick: 'SKILL.md' });
  await page.locator('.tab.active', { hasText: 'SKILL.md' }).waitFor({ timeout: remaining() });
  await page.locator('.monaco-editor .view-lines', { hasText: 'My_Skill' }).waitFor({ timeout: remaining() });
  log('SKILL.md open');

  // --- Problems -------------------------------------------------------------------------
  await runCommand('View: Focus Problems (Errors, Warnings, Infos)').catch(() => page.keyboard.press('Control+Shift+M'));
  const problems = page.locator('.markers-panel');
  await problems.waitFor({ state: 'visible', timeout: remaining() });
  const entry = problems.locator('.monaco-list-row', { hasText: /My_Skill/ }).first();
  const findingSeen = await entry.waitFor({ state: 'visible', timeout: Math.min(remaining(), 30000) }).then(() => true, () => false);
  if (!findingSeen) {
    // Seen in about one run in five since the exclude setting is present at start: the
    // opened file's findings never arrive until it changes. Cause found (#30): the new
    // excludes in initializationOptions rescanned during initialize and published before
    // the initialize answer, which vscode-languageclient drops (it installs its
    // publishDiagnostics handler on the answer), and the server never resent the same set.
    // The server now holds notifications until `initialized` (server
    // TestNothingPublishedBeforeInitializeAnswer). Kept, and logged, until e2e runs confirm
    // it no longer fires; an edit and its undo re-check it. A second cause, the extension
    // failing to activate on a nested glob before any file was open (#41), has its own
    // step above now.
    log('KNOWN FLAKE: no finding 30 s after opening SKILL.md; typing a space and deleting it');
    await page.locator('.monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(' ');
    await page.keyboard.press('Backspace');
    await entry.waitFor({ state: 'visible', timeout: Math.min(remaining(), 60000) });
  }
  const problemText = (await entry.innerText()).replace(/\s+/g, ' ');
  log(`Problems entry: ${problemText}`);
  if (!/skill\/name/.test(await problems.innerText())) {
    throw new Error(`the Problems entry does not name an ahpls rule: ${problemText}`);
  }

  // --- Go to Symbol: each heading once (VS Code's Markdown provider only) --------------
  await page.locator('.monaco-editor .view-lines').first().click();
  // The palette with '@' lists the editor's symbols (read, not run: no Enter).
  const symbolInput = page.locator('.quick-input-widget .quick-input-box input');
  await page.keyboard.press('F1');
  await symbolInput.waitFor({ state: 'visible', timeout: remaining() });
  await symbolInput.fill('@');
  const symbolRows = page.locator('.quick-input-widget .monaco-list-row');
  const symbols = await waitFor('the symbols of SKILL.md', async () => {
    const t = await symbolRows.evaluateAll((rows) => rows.map((r) => r.getAttribute('aria-label') ?? r.textContent ?? ''));
    return t.some((x) => /Release notes/.test(x)) ? t : undefined;
  }, 30000);
  const headings = symbols.filter((x) => /Release notes/.test(x)).length;
  log(`Go to Symbol: ${symbols.map((x) => x.replace(/\s+/g, ' ').trim()).join(' | ')}`);
  await page.keyboard.press('Escape');
  if (headings !== 1) throw new Error(`Go to Symbol lists the heading "Release notes" ${headings} times`);
  await runCommand('Explorer: Focus on Outline View');
  const outline = page.locator('.pane:has(> .pane-header:has-text("Outline"))');
  await outline.locator('.monaco-list-row', { hasText: 'Release notes' }).first().waitFor({ timeout: Math.min(remaining(), 30000) });
  const outlineText = (await outline.innerText()).replace(/\s+/g, ' ');
  log(`Outline: ${outlineText.slice(0, 200)}`);
  if (/agent customization files/.test(outlineText)) throw new Error(`the Outline has a level per provider: ${outlineText}`);
  await runCommand('View: Focus Problems (Errors, Warnings, Infos)').catch(() => page.keyboard.press('Control+Shift+M'));

  // --- hover, on the flagged value ---------------------------------------------------------
  // The mouse rests on the value, as a user's would; VS Code shows the hover
  // (the diagnostic and ahpls's own text) after its delay.
  const value = page.locator('.monaco-editor .view-line span', { hasText: /^My_Skill$/ }).last();
  await value.hover({ timeout: remaining() });
  const hoverText = await waitFor(
    'a hover with ahpls text on the name value',
    async () => {
      const texts = await page.locator('.monaco-hover:not(.hidden) .monaco-hover-content').allInnerTexts();
      const t = texts.join('\n').trim();
      if (t === '') {
        await value.hover({ position: { x: 5 + Math.floor(Math.random() * 20), y: 5 }, timeout: 5000 });
      }
      return /name|skill/i.test(t) ? t : undefined;
    },
    90000,
  );
  log(`hover: ${hoverText.replace(/\s+/g, ' ').slice(0, 240)}`);
  await page.mouse.move(5, 5);
  await page.keyboard.press('Escape');

  // --- quick fix -> No problems ----------------------------------------------------------
  await entry.dblclick(); // puts the cursor on the diagnostic and focuses the editor
  await page.locator('.monaco-editor.focused').waitFor({ timeout: remaining() });
  await runCommand('Quick Fix...');
  const fix = page.locator('.action-widget .monaco-list-row.action', { hasText: /my-skill/ }).first();
  await fix.waitFor({ state: 'visible', timeout: remaining() });
  log(`quick fix: ${(await fix.innerText()).trim()}`);
  // The action widget applies its focused entry on Enter (a click can land
  // on its hover overlay); move the focus to the fix first.
  for (let i = 0; i < 10 && !/\bfocused\b/.test((await fix.getAttribute('class')) ?? ''); i++) {
    await page.keyboard.press('ArrowDown');
  }
  await page.keyboard.press('Enter');
  await page.locator('.monaco-editor .view-lines', { hasText: 'name: my-skill' }).waitFor({ timeout: remaining() });
  // Saved, so that what the agent host reads back is the fixed file too.
  await runCommand('File: Save');
  await waitFor('the fix on disk', () => fs.readFileSync(skill, 'utf8').includes('name: my-skill'), 30000);
  // The draft skill has a finding too: "No problems" means ahpls.exclude reached the server.
  await waitFor('"No problems" in the Problems view', async () => /No problems/i.test(await problems.innerText({ timeout: 5000 })), 90000);
  log('Problems: No problems (the excluded draft skill is silent)');

  // --- no host configured: a neutral status item, its menu, the version ------------------
  const status = page.locator('.statusbar-item:not(#status\\.languageStatus)', { hasText: /^\s*ahpls/ }).first();
  await status.waitFor({ state: 'visible', timeout: Math.min(remaining(), 60000) });
  let seen = '';
  await waitFor('a neutral status bar item (no host configured)', async () => {
    const text = (await status.innerText()).trim();
    const cls = (await status.getAttribute('class')) ?? '';
    const aria = (await status.locator('[aria-label]').first().getAttribute('aria-label').catch(() => '')) ?? '';
    seen = `text "${text}", class "${cls}", aria "${aria}"`;
    // A host state would read "ahpls: host", "disconnected", "refused" or "connecting".
    return text === 'ahpls' && !/error-kind|warning-kind/.test(cls) && !/ahpls: host|disconnected|refused|connecting/i.test(aria + text);
  }).catch((e) => {
    throw new Error(`${e.message}; last seen: ${seen}`);
  });
  log(`status bar item without a host: ${seen}`);
  await status.click();
  const menu = page.locator('.quick-input-widget');
  await menu.locator('.monaco-list-row', { hasText: 'Check Workspace' }).first().waitFor({ state: 'visible', timeout: remaining() });
  const menuText = (await menu.innerText()).replace(/\s+/g, ' ');
  log(`menu: ${menuText.slice(0, 300)}`);
  for (const item of ['Restart Server', 'Show Output', 'Show Version', 'Fix All in Workspace', 'Open Rules Documentation']) {
    if (!menuText.includes(item)) throw new Error(`the status bar menu lacks "${item}": ${menuText}`);
  }
  if (/Host Connection/.test(menuText)) throw new Error(`the menu offers host entries without a host: ${menuText}`);
  const version = /ahpls (\d+\.\d+\.\d+\S*) — running/.exec(menuText)?.[1];
  if (!version) throw new Error(`the menu title does not show the server version: ${menuText}`);
  log(`server version shown: ${version}`);
  await page.keyboard.press('Escape');
  await page.locator('.monaco-editor .view-lines').first().click();
  const langStatus0 = page.locator('#status\\.languageStatus');
  await langStatus0.waitFor({ state: 'visible', timeout: remaining() });
  await langStatus0.click();
  const langHover0 = page.locator('.monaco-hover:not(.hidden)', { hasText: 'ahpls' }).first();
  await langHover0.waitFor({ state: 'visible', timeout: remaining() });
  const langText0 = (await langHover0.innerText()).replace(/\s+/g, ' ');
  log(`language status without a host: ${langText0.slice(0, 200)}`);
  if (!langText0.includes(`ahpls ${version}`)) throw new Error(`the language status does not show ahpls ${version}: ${langText0}`);
  await page.keyboard.press('Escape');

  // --- what each agent sees, without a host (#32) -----------------------------------------
  // The Customizations view lists, per consumer, what it loads: Claude Code's
  // group shows the command shadowed by the skill, and a click opens it.
  await runCommand('Focus on Customizations View');
  const cpane = page.locator('.pane:has(> .pane-header:has-text("Customizations"))');
  await cpane.waitFor({ state: 'visible', timeout: remaining() });
  const ccGroup = cpane.locator('.monaco-list-row', { hasText: 'Claude Code' }).first();
  await ccGroup.waitFor({ state: 'visible', timeout: Math.min(remaining(), 90000) });
  await ccGroup.click(); // expands the group
  const shadowedRow = cpane.locator('.monaco-list-row', { hasText: 'shadowed by .claude/skills/deploy/SKILL.md' }).first();
  await shadowedRow.waitFor({ state: 'visible', timeout: Math.min(remaining(), 60000) });
  log(`Customizations without a host: ${(await shadowedRow.innerText()).replace(/\s+/g, ' ')}`);
  await shadowedRow.click(); // opens .claude/commands/deploy.md
  await page.locator('.tab.active', { hasText: 'deploy.md' }).waitFor({ timeout: remaining() });
  await runCommand('View: Close Editor');
  await page.locator('.tab.active', { hasText: 'SKILL.md' }).waitFor({ timeout: remaining() });
  await ccGroup.click(); // collapsed again: the host step below looks for the live my-skill row
  log('Customizations: the shadowed command opened from the view');

  // --- settings.json changes: the exclude goes, the host comes ------------------------------
  // Edited in VS Code as a user would (code-server does not see a write from
  // outside): the JSON goes in as one inserted line (no auto-closed quotes).
  delete settings['ahpls.exclude'];
  if (hostURL) settings['ahpls.host'] = hostURL;
  await runCommand('Preferences: Open User Settings (JSON)');
  await page.locator('.tab.active', { hasText: 'settings.json' }).waitFor({ timeout: remaining() });
  await page.locator('.monaco-editor .view-lines', { hasText: 'workbench.startupEditor' }).first().click();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(JSON.stringify(settings));
  await runCommand('File: Save');
  await waitFor('settings.json saved without ahpls.exclude', () => !fs.readFileSync(settingsFile, 'utf8').includes('ahpls.exclude'), 30000);
  await runCommand('View: Close Editor');
  await page.locator('.tab.active', { hasText: 'SKILL.md' }).waitFor({ timeout: remaining() });
  log(`settings.json edited: ahpls.exclude removed${hostURL ? `, ahpls.host = ${hostURL}` : ''}`);
  await problems.locator('.monaco-list-row', { hasText: /Draft_Skill/ }).first().waitFor({ state: 'visible', timeout: Math.min(remaining(), 90000) });
  log('Problems: the draft skill is reported once ahpls.exclude is removed');

  // --- status bar item and language status item -----------------------------------------
  if (hostURL) {
    // Connected shows the plug icon and no error/warning background.
    await waitFor('the status bar item to say the host is connected', async () => {
      const aria = (await status.getAttribute('aria-label')) ?? '';
      const cls = (await status.getAttribute('class')) ?? '';
      return !/error|warning/.test(cls) && /ahpls: host/.test(aria + (await status.innerText())) ? true : undefined;
    });
  }
  log(`status bar item: ${(await status.innerText()).trim()}`);

  await page.locator('.monaco-editor .view-lines').first().click();
  const langStatus = page.locator('#status\\.languageStatus');
  await langStatus.waitFor({ state: 'visible', timeout: remaining() });
  await langStatus.click();
  const langHover = page.locator('.monaco-hover:not(.hidden)', { hasText: 'ahpls' }).first();
  await langHover.waitFor({ state: 'visible', timeout: remaining() });
  const langText = (await langHover.innerText()).replace(/\s+/g, ' ');
  log(`language status: ${langText.slice(0, 200)}`);
  if (hostURL && !/ahpls: host connected/.test(langText)) {
    throw new Error(`language status does not say the host is connected: ${langText}`);
  }
  await page.keyboard.press('Escape');

  // --- the Customizations view -------------------------------------------------------------
  await runCommand('Focus on Customizations View');
  // The innermost pane whose own header says Customizations (not the Explorer around it).
  const pane = page.locator('.pane:has(> .pane-header:has-text("Customizations"))');
  await pane.waitFor({ state: 'visible', timeout: remaining() });
  if (hostURL) {
    // The live rows come first; an earlier step scrolled the view down to a consumer group,
    // and the list renders only the rows in sight: scroll it back to the top before each look.
    const list = pane.locator('.monaco-list').first();
    const row = pane.locator('.monaco-list-row', { hasText: 'my-skill' }).first();
    // The row's description is the effective state ("on", or "off — why").
    const state = async () => {
      await list.hover();
      await page.mouse.wheel(0, -10000);
      return (await row.locator('.label-description').innerText({ timeout: 5000 })).trim();
    };
    await waitFor('my-skill to be on in the Customizations view', async () => (await state()) === 'on', 90000);
    log(`Customizations: my-skill ${await state()}`);
    await row.click({ button: 'right' });
    const item = page.locator('.context-view .action-label', { hasText: 'Toggle for This Session' }).first();
    await item.waitFor({ state: 'visible', timeout: remaining() });
    await item.click();
    // A menu opened while the view is still settling can swallow the click: it stays open with
    // the item highlighted (seen in most CI runs). Enter then runs the focused item; the menu must be
    // gone before anything else is typed, so the editor never receives the key.
    const menu = page.locator('.context-view .monaco-menu').first();
    const closed = await menu.waitFor({ state: 'hidden', timeout: 3000 }).then(() => true, () => false);
    if (!closed) {
      log('the context menu kept the click; pressing Enter on the highlighted item');
      await item.hover();
      await page.keyboard.press('Enter');
      await menu.waitFor({ state: 'hidden', timeout: remaining() });
    }
    const off = await waitFor('my-skill to be off after the session toggle', async () => {
      const d = await state();
      return d.startsWith('off') ? d : undefined;
    }, 60000);
    log(`Customizations after toggle: my-skill ${off}`);
  } else {
    await pane.locator('.monaco-list-row', { hasText: /agent host/ }).first().waitFor({ timeout: remaining() });
    log(`Customizations: ${(await pane.innerText()).replace(/\s+/g, ' ').slice(0, 200)}`);
  }

  // --- folders that move, renames that carry their references (#41) -----------------------
  // Run last: it leaves a renamed skill open (dirty) and two skills with findings.
  // A Claude marketplace below the workspace root lists two skills with a
  // finding each (upper-case names). Written from outside while VS Code runs:
  // the server hears of the new folder through its folder watcher. The tree
  // is written next to the workspace and moved in whole: written in place,
  // its folders appear faster than code-server's file watcher (parcel,
  // inotify) adds watches for them, and it then reports nothing below
  // `office` for the rest of the session (its trace log showed `[ADDED]
  // office` and no event for the F2 rename, the marketplace's save or the
  // mv below; VS Code's own Explorer never showed the mv).
  const office = path.join(ws, 'office');
  const staged = path.join(work, 'office');
  fs.mkdirSync(path.join(staged, 'skills/pptx'), { recursive: true });
  fs.mkdirSync(path.join(staged, 'skills/xlsx'), { recursive: true });
  fs.mkdirSync(path.join(staged, '.claude-plugin'), { recursive: true });
  fs.writeFileSync(path.join(staged, 'skills/pptx/SKILL.md'), '---\nname: PPTX\ndescription: Builds slide decks.\n---\n\n# Slides\n');
  fs.writeFileSync(path.join(staged, 'skills/xlsx/SKILL.md'), '---\nname: XLSX\ndescription: Builds spreadsheets.\n---\n\n# Sheets\n');
  const market = path.join(office, '.claude-plugin/marketplace.json');
  fs.writeFileSync(
    path.join(staged, '.claude-plugin/marketplace.json'),
    JSON.stringify(
      { name: 'office', owner: { name: 'Office team' }, plugins: [{ name: 'office-docs', source: './', description: 'Slides and sheets.', skills: ['./skills/pptx', './skills/xlsx'] }] },
      null,
      2,
    ) + '\n',
  );
  fs.renameSync(staged, office);
  const problemsText = async () => (await problems.innerText({ timeout: 5000 })).replace(/\s+/g, ' ');
  await runCommand('View: Focus Problems (Errors, Warnings, Infos)').catch(() => page.keyboard.press('Control+Shift+M'));
  await waitFor('the new skills reported (PPTX and XLSX)', async () => {
    const t = await problemsText();
    return /'PPTX'/.test(t) && /'XLSX'/.test(t);
  }, 90000);
  log('Problems: the skills of a folder created outside VS Code are reported');

  // F2 on the name: the folder moves, the marketplace entry follows, the old path's finding goes.
  // Quick Open's file index does not know files created outside VS Code yet: open the skill
  // from its Problems entry, which also puts the cursor on the name.
  await problems.locator('.monaco-list-row', { hasText: /'PPTX'/ }).first().dblclick();
  await page.locator('.monaco-editor .view-lines', { hasText: 'Builds slide decks' }).waitFor({ timeout: remaining() });
  await page.locator('.monaco-editor.focused').waitFor({ timeout: remaining() });
  // Keys go to the rename box only once it has the focus (its input's markup changed across
  // VS Code versions; the box did not): typed earlier they replace the file's text.
  await waitFor('the rename box with the focus', async () => {
    if (await page.evaluate(() => !!document.activeElement?.closest('.rename-box'))) return true;
    await page.locator('.monaco-editor .view-line span', { hasText: /^PPTX$/ }).last().click();
    await page.keyboard.press('F2');
    await page.waitForTimeout(1500);
    return page.evaluate(() => !!document.activeElement?.closest('.rename-box'));
  }, 60000);
  await page.keyboard.press('Control+A');
  await page.keyboard.type('slides');
  const renamedAt = Date.now();
  await page.keyboard.press('Enter');
  // With no edit needing confirmation VS Code applies at once; a preview, if shown, is applied.
  const apply = page.locator('.monaco-button', { hasText: /^Apply$/ }).first();
  const slidesSkill = path.join(office, 'skills/slides/SKILL.md');
  const renamed = await waitFor('the folder moved and the marketplace entry updated on disk', async () => {
    if (await apply.isVisible().catch(() => false)) {
      log('a refactor preview opened: Apply');
      await apply.click();
    }
    return fs.existsSync(slidesSkill) && !fs.existsSync(path.join(office, 'skills/pptx')) && fs.readFileSync(market, 'utf8').includes('"./skills/slides"') ? Date.now() - renamedAt : undefined;
  }, 30000);
  // The old path's findings go within 2 s of the move (#41). VS Code pulls
  // diagnostics: the old document's last pull is dropped once its tab moved,
  // and only the server's next workspace answer, which lists closed
  // documents in full, clears them (server/pull.go, oweLocked).
  const movedOnDisk = Date.now();
  let renameProblems = '';
  const pptxGone = await waitFor('no finding left for the old path within 2 s', async () => {
    const t = (renameProblems = await problemsText());
    return /'PPTX'|skills\/pptx/.test(t) ? undefined : Date.now() - movedOnDisk;
  }, 2000).catch(async (e) => {
    await page.screenshot({ path: path.join(artifacts, 'rename.png') });
    throw new Error(`${e.message}; Problems: ${renameProblems}`);
  });
  log(`F2 rename: folder moved and marketplace updated ${renamed} ms after Enter; no finding left on the old path ${pptxGone} ms later`);
  await page.screenshot({ path: path.join(artifacts, 'rename.png') });
  if (fs.readFileSync(market, 'utf8').includes('./skills/pptx')) throw new Error('the marketplace still lists ./skills/pptx');

  // mv in a shell: within 2 s the old path's findings go, the new path's come,
  // and the marketplace reports the path it lists as missing (#41). Extensions
  // hear of a change on disk from the workbench's file service (microsoft/vscode,
  // mainThreadFileSystemEventService.ts: fileService.onDidFilesChange ->
  // $onFileEvent), the events that also update the Explorer; code-server's
  // watcher (parcel) often reports nothing below office/ after the F2 rename,
  // so ahpls watches the workspace itself too (ahpls.fileWatcher, server/fswatch.go)
  // and is held to 2 s whatever VS Code saw. The time the Explorer shows
  // `sheets` is logged as VS Code's own share.
  const movedAt = Date.now();
  const mv = spawnSync('mv', [path.join(office, 'skills/xlsx'), path.join(office, 'skills/sheets')], { encoding: 'utf8' });
  if (mv.status !== 0) throw new Error(`mv failed: ${mv.stderr}`);
  log(`mv skills/xlsx skills/sheets at ${new Date(movedAt).toISOString()}`);
  const explorerNames = () =>
    page.evaluate(() => Array.from(document.querySelectorAll('.explorer-folders-view .monaco-list-row .label-name')).map((e) => (e.textContent ?? '').trim()));
  let lastProblems = '';
  let explorerMs;
  const moved = await waitFor('old findings gone, new shown, the marketplace reporting the missing path within 2 s', async () => {
    if (explorerMs === undefined) {
      const names = await explorerNames().catch(() => []);
      if (names.includes('sheets') && !names.includes('xlsx')) explorerMs = Date.now() - movedAt;
    }
    const t = (lastProblems = await problemsText());
    return !/office\/skills\/xlsx/.test(t) && /office\/skills\/sheets/.test(t) && /'\.\/skills\/xlsx' does not exist/.test(t) ? Date.now() - movedAt : undefined;
  }, 2000).catch(async (e) => {
    await page.screenshot({ path: path.join(artifacts, 'mv.png') });
    throw new Error(`${e.message}; VS Code's Explorer: ${explorerMs ?? 'not seen'} ms; Problems: ${lastProblems}`);
  });
  log(`mv skills/xlsx skills/sheets: old findings gone and new shown after ${moved} ms (VS Code's Explorer: ${explorerMs ?? 'not seen'} ms)`);
  if (moved > 2000) {
    // The last look at Problems began within 2 s but ended past it.
    await page.screenshot({ path: path.join(artifacts, 'mv.png') });
    throw new Error(`Problems showed the move ${moved} ms after mv, not within 2 s`);
  }
  await page.screenshot({ path: path.join(artifacts, 'mv.png') });

  // Completion inside quotes under "hooks": event names, not handler keys.
  await palette('hooks/hooks.json', { pick: 'hooks.json' });
  await page.locator('.tab.active', { hasText: 'hooks.json' }).waitFor({ timeout: remaining() });
  await page.locator('.monaco-editor .view-line').nth(2).click();
  await page.keyboard.press('End');
  await page.keyboard.type('"');
  const suggestRows = page.locator('.suggest-widget.visible .monaco-list-row');
  const labels = await waitFor('completion inside the quotes', async () => {
    if (!(await suggestRows.first().isVisible().catch(() => false))) {
      await page.keyboard.press('Control+Space');
      return undefined;
    }
    const t = await suggestRows.evaluateAll((rows) => rows.map((r) => r.querySelector('.label-name')?.textContent ?? r.textContent ?? ''));
    return t.length > 0 ? t : undefined;
  }, 30000);
  log(`completion inside "" under "hooks": ${labels.slice(0, 12).join(', ')}`);
  await page.screenshot({ path: path.join(artifacts, 'completion.png') });
  if (!labels.some((l) => /ToolUse/.test(l))) throw new Error(`no hook event offered inside the quotes: ${labels.join(', ')}`);
  for (const k of ['command', 'type', 'matcher']) {
    if (labels.includes(k)) throw new Error(`handler key '${k}' offered where an event name goes: ${labels.join(', ')}`);
  }
  await page.keyboard.press('Escape');
  await runCommand('File: Revert File');
  await runCommand('View: Close Editor');

  // Go to Symbol in marketplace.json: each key once (VS Code's JSON provider only).
  await palette('office/.claude-plugin/marketplace.json', { pick: 'marketplace.json' });
  await page.locator('.tab.active', { hasText: 'marketplace.json' }).waitFor({ timeout: remaining() });
  await page.locator('.monaco-editor .view-lines').first().click();
  const quick = page.locator('.quick-input-widget .quick-input-box input');
  const quickRows = page.locator('.quick-input-widget .monaco-list-row');
  const rowLabels = () => quickRows.evaluateAll((rows) => rows.map((r) => (r.querySelector('.label-name')?.textContent ?? '').trim()));
  await page.keyboard.press('F1');
  await quick.waitFor({ state: 'visible', timeout: remaining() });
  await quick.fill('@');
  const docSyms = await waitFor('the symbols of marketplace.json', async () => {
    const t = await rowLabels();
    return t.includes('plugins') ? t : undefined;
  }, 30000);
  log(`Go to Symbol in marketplace.json (${docSyms.length}): ${docSyms.join(' | ')}`);
  await page.screenshot({ path: path.join(artifacts, 'symbols.png') });
  await page.keyboard.press('Escape');
  for (const k of ['owner', 'plugins', 'skills', 'source']) {
    const n = docSyms.filter((x) => x === k).length;
    if (n !== 1) throw new Error(`Go to Symbol lists '${k}' ${n} times: ${docSyms.join(' | ')}`);
  }
  await page.keyboard.press('F1');
  await quick.waitFor({ state: 'visible', timeout: remaining() });
  await quick.fill('#office-docs');
  const wsSyms = await waitFor('workspace symbols for office-docs', async () => {
    const t = await rowLabels();
    return t.some((x) => x === 'office-docs') ? t : undefined;
  }, 30000);
  log(`workspace symbols for "office-docs": ${wsSyms.join(' | ')}`);
  await page.screenshot({ path: path.join(artifacts, 'workspace-symbols.png') });
  await page.keyboard.press('Escape');
  const wsCount = wsSyms.filter((x) => x === 'office-docs').length;
  if (wsCount !== 1) throw new Error(`workspace symbols list office-docs ${wsCount} times: ${wsSyms.join(' | ')}`);
  // Last of the run: the editors it opened stay open.

  await page.screenshot({ path: path.join(artifacts, 'pass.png') });
  log(`passed; screenshot ${path.join(artifacts, 'pass.png')}`);
}

const timer = setTimeout(
  () => {
    console.error('e2e: overall time limit reached');
    void fail(new Error('overall time limit reached'));
  },
  deadline - Date.now() + 5000,
);

async function fail(e) {
  console.error(`e2e FAILED after ${((Date.now() - t0) / 1000).toFixed(1)}s: ${e?.stack ?? e}`);
  try {
    if (page) {
      await page.screenshot({ path: path.join(artifacts, 'failure.png'), timeout: 10000 });
      fs.writeFileSync(path.join(artifacts, 'failure-page.txt'), await page.locator('body').innerText({ timeout: 10000 }));
      console.error(`screenshot: ${path.join(artifacts, 'failure.png')}`);
    }
  } catch (se) {
    console.error(`no screenshot: ${se.message}`);
  }
  try {
    console.error('--- tail of code-server.log');
    console.error(fs.readFileSync(serverLog, 'utf8').split('\n').slice(-30).join('\n'));
  } catch {}
  // The extension's output channel carries the language client's trace and
  // the server's stderr: the evidence when the server stops or stays silent.
  try {
    const logs = path.join(work, 'user-data', 'logs');
    fs.cpSync(logs, path.join(artifacts, 'logs'), { recursive: true });
    for (const f of walkFiles(logs).filter((f) => /ahpls/i.test(path.basename(f)))) {
      console.error(`--- tail of ${path.relative(logs, f)}`);
      console.error(fs.readFileSync(f, 'utf8').split('\n').slice(-60).join('\n'));
    }
  } catch (le) {
    console.error(`no extension logs: ${le.message}`);
  }
  await cleanup();
  process.exit(1);
}

main().then(
  async () => {
    clearTimeout(timer);
    await cleanup();
    log('ok');
    process.exit(0);
  },
  (e) => fail(e),
);

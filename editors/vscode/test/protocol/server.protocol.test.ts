// Drives the real `ahpls` binary over stdio with the same protocol library VS
// Code's client is built on, announcing VS Code-like client capabilities.
// Binary: $AHPLS_BIN, else <repo>/bin/ahpls (`go build -o bin/ahpls ./cmd/ahpls`).
import assert from 'node:assert/strict';
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import {
  ClientCapabilities,
  CodeAction,
  CodeActionRequest,
  CodeActionResolveRequest,
  Command,
  createProtocolConnection,
  Diagnostic,
  DiagnosticSeverity,
  DidChangeTextDocumentNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExecuteCommandRequest,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  InitializeResult,
  ProtocolConnection,
  PublishDiagnosticsNotification,
  PublishDiagnosticsParams,
  ResponseError,
  ShutdownRequest,
  TextDocumentSyncKind,
  TextEdit,
  WorkspaceEdit,
} from 'vscode-languageserver-protocol/node';

const vscodeDir = path.resolve(__dirname, '../../..');
const repo = path.resolve(vscodeDir, '../..');
const bin = process.env.AHPLS_BIN ?? path.join(repo, 'bin', 'ahpls');
const fixture = path.join(repo, 'editors', 'testdata', 'workspace');
const WAIT_MS = 30_000;

const capabilities: ClientCapabilities = {
  general: { positionEncodings: ['utf-16'], staleRequestSupport: { cancel: true, retryOnContentModified: [] } },
  workspace: {
    applyEdit: true,
    workspaceEdit: { documentChanges: true, resourceOperations: ['create', 'rename', 'delete'] },
    didChangeConfiguration: { dynamicRegistration: true },
    didChangeWatchedFiles: { dynamicRegistration: true, relativePatternSupport: true },
    executeCommand: { dynamicRegistration: true },
    configuration: true,
    workspaceFolders: true,
  },
  textDocument: {
    synchronization: { dynamicRegistration: true, willSave: true, willSaveWaitUntil: true, didSave: true },
    publishDiagnostics: {
      relatedInformation: true,
      versionSupport: true,
      tagSupport: { valueSet: [1, 2] },
      codeDescriptionSupport: true,
      dataSupport: true,
    },
    codeAction: {
      dynamicRegistration: true,
      isPreferredSupport: true,
      disabledSupport: true,
      dataSupport: true,
      resolveSupport: { properties: ['edit'] },
      codeActionLiteralSupport: {
        codeActionKind: {
          valueSet: ['', 'quickfix', 'refactor', 'refactor.extract', 'refactor.inline', 'refactor.rewrite', 'source', 'source.organizeImports'],
        },
      },
      honorsChangeAnnotations: true,
    },
    hover: { contentFormat: ['markdown', 'plaintext'] },
  },
  window: { workDoneProgress: true, showMessage: { messageActionItem: { additionalPropertiesSupport: true } } },
};

const settings = { targets: [], sessions: 'auto', trustWorkspaceTools: false, rules: {} };

/** Every publishDiagnostics the server sent, in order. */
const published: PublishDiagnosticsParams[] = [];
const notified: { method: string; params: unknown }[] = [];
const serverRequests: string[] = [];
const protocolErrors: string[] = [];
let stderr = '';
let proc: ChildProcess;
let conn: ProtocolConnection;
let workspace: string;
let skillPath: string;
let skillUri: string;
let text: string;
let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

/** Waits for a condition on what the server sent; fails with context after WAIT_MS. */
async function waitFor<T>(what: string, probe: () => T | undefined): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const v = probe();
    if (v !== undefined) {
      return v;
    }
    if (proc.exitCode !== null || proc.signalCode !== null) {
      assert.fail(`server exited (${proc.exitCode ?? proc.signalCode}) while waiting for ${what}\nstderr:\n${stderr.slice(-4000)}`);
    }
    if (Date.now() > deadline) {
      assert.fail(`gave up waiting for ${what}; last diagnostics: ${JSON.stringify(published.slice(-3))}\nstderr:\n${stderr.slice(-4000)}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Like waitFor, but probe is async (each call may send a request): for state
 * the server offers only once it has checked the newest text.
 */
async function waitForAsync<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const v = await probe();
    if (v !== undefined) {
      return v;
    }
    if (Date.now() > deadline) {
      assert.fail(`gave up waiting for ${what}\nstderr:\n${stderr.slice(-4000)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Diagnostics of the freshly opened skill. The server publishes only when the
 * set changes, so when its workspace scan already published the same set for
 * the file on disk (no version) there is no second, versioned publication.
 */
function openDiagnostics(): Promise<Diagnostic[]> {
  return waitFor(`diagnostics for ${skillUri} (version 1 or from the scan)`, () => {
    const last = [...published].reverse().find((p) => p.uri === skillUri);
    return last !== undefined && (last.version === 1 || last.version === undefined || last.version === null) && last.diagnostics.length > 0
      ? last.diagnostics
      : undefined;
  });
}

/** The newest diagnostics for the skill published for exactly this document version. */
function diagnosticsAt(version: number): Promise<Diagnostic[]> {
  return waitFor(`diagnostics for ${skillUri} at version ${version}`, () => {
    const last = [...published].reverse().find((p) => p.uri === skillUri);
    return last !== undefined && last.version === version ? last.diagnostics : undefined;
  });
}

/** Offset of an LSP (UTF-16) position in a JS string (also UTF-16). */
function offsetAt(s: string, line: number, character: number): number {
  let o = 0;
  for (let l = 0; l < line; l++) {
    const nl = s.indexOf('\n', o);
    assert.ok(nl >= 0, `line ${line} out of range`);
    o = nl + 1;
  }
  return o + character;
}

function applyEdits(s: string, edits: TextEdit[]): string {
  const sorted = [...edits].sort((a, b) => offsetAt(s, b.range.start.line, b.range.start.character) - offsetAt(s, a.range.start.line, a.range.start.character));
  for (const e of sorted) {
    s = s.slice(0, offsetAt(s, e.range.start.line, e.range.start.character)) + e.newText + s.slice(offsetAt(s, e.range.end.line, e.range.end.character));
  }
  return s;
}

function editsFor(edit: WorkspaceEdit, uri: string): TextEdit[] {
  const out: TextEdit[] = [...(edit.changes?.[uri] ?? [])];
  for (const dc of edit.documentChanges ?? []) {
    if ('textDocument' in dc && dc.textDocument.uri === uri) {
      out.push(...dc.edits.filter((e): e is TextEdit => 'range' in e));
    }
  }
  return out;
}

const messageOf = (d: Diagnostic) => (typeof d.message === 'string' ? d.message : d.message.value);
const nameValue = (d: Diagnostic[]) => d.filter((x) => x.code === 'skill/name-charset');

const shownBin = path.relative(repo, bin).startsWith('..') ? bin : path.relative(repo, bin);

describe(`ahpls over stdio (${shownBin})`, { timeout: 120_000 }, () => {
  before(() => {
    assert.ok(fs.existsSync(bin), `no server binary at ${bin}: run 'go build -o bin/ahpls ./cmd/ahpls' in ${repo} or set AHPLS_BIN`);
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ahpls-protocol-'));
    fs.cpSync(fixture, workspace, { recursive: true });
    skillPath = path.join(workspace, '.github', 'skills', 'my-skill', 'SKILL.md');
    skillUri = pathToFileURL(skillPath).toString();
    text = fs.readFileSync(skillPath, 'utf8');

    proc = spawn(bin, ['serve'], { cwd: workspace, stdio: ['pipe', 'pipe', 'pipe'] });
    exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
    proc.stderr!.setEncoding('utf8');
    proc.stderr!.on('data', (d: string) => {
      stderr += d;
    });
    conn = createProtocolConnection(new StreamMessageReader(proc.stdout!), new StreamMessageWriter(proc.stdin!));
    conn.onError(([err]) => protocolErrors.push(String(err)));
    conn.onNotification(PublishDiagnosticsNotification.type, (p) => {
      published.push(p);
    });
    for (const method of ['ahpls/hostStatus', 'window/logMessage', 'window/showMessage', '$/progress', 'telemetry/event']) {
      conn.onNotification(method, (params: unknown) => {
        notified.push({ method, params });
      });
    }
    const answers: Record<string, (params: unknown) => unknown> = {
      'workspace/configuration': (params) =>
        (params as { items: { section?: string }[] }).items.map((i) => (i.section === 'ahpls' ? settings : null)),
      'workspace/workspaceFolders': () => [{ uri: pathToFileURL(workspace).toString(), name: 'workspace' }],
      'workspace/applyEdit': () => ({ applied: false, failureReason: 'the protocol test applies edits itself' }),
    };
    for (const method of [
      ...Object.keys(answers),
      'client/registerCapability',
      'client/unregisterCapability',
      'window/workDoneProgress/create',
      'window/showMessageRequest',
      'workspace/codeLens/refresh',
      'workspace/diagnostic/refresh',
      'workspace/inlayHint/refresh',
      'workspace/semanticTokens/refresh',
    ]) {
      conn.onRequest(method, (params: unknown) => {
        serverRequests.push(method);
        return answers[method]?.(params) ?? null;
      });
    }
    conn.listen();
  });

  after(async () => {
    conn?.dispose();
    if (proc !== undefined && proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGKILL');
    }
    if (workspace !== undefined) {
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  });

  let init: InitializeResult;

  it('initializes with VS Code-like capabilities and offers incremental sync', async () => {
    init = await conn.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      clientInfo: { name: 'ahpls-protocol-test', version: '1' },
      locale: 'en',
      rootPath: workspace,
      rootUri: pathToFileURL(workspace).toString(),
      workspaceFolders: [{ uri: pathToFileURL(workspace).toString(), name: 'workspace' }],
      capabilities,
      initializationOptions: settings,
      trace: 'off',
    });
    const sync = init.capabilities.textDocumentSync;
    const change = typeof sync === 'number' ? sync : sync?.change;
    assert.equal(change, TextDocumentSyncKind.Incremental, `textDocumentSync: ${JSON.stringify(sync)}`);
    assert.ok(init.capabilities.positionEncoding === undefined || init.capabilities.positionEncoding === 'utf-16', `positionEncoding ${init.capabilities.positionEncoding}`);
    assert.ok(init.capabilities.codeActionProvider, 'codeActionProvider');
    await conn.sendNotification(InitializedNotification.type, {});
  });

  it('names its version in serverInfo (the extension shows it)', () => {
    assert.equal(init.serverInfo?.name, 'ahpls');
    assert.match(init.serverInfo?.version ?? '', /\S/, `serverInfo: ${JSON.stringify(init.serverInfo)}`);
  });

  it('reports the first scan of the workspace with $/progress, begin to end', async () => {
    const progress = () => notified.filter((n) => n.method === '$/progress').map((n) => (n.params as { value?: { kind?: string; title?: string } }).value);
    await waitFor('$/progress end of the first scan', () => (progress().some((v) => v?.kind === 'end') ? true : undefined));
    const kinds = progress().map((v) => v?.kind);
    assert.equal(kinds[0], 'begin', JSON.stringify(progress()));
    assert.equal(kinds.at(-1), 'end', JSON.stringify(progress()));
    assert.match(progress()[0]?.title ?? '', /ahpls/);
    assert.ok(serverRequests.includes('window/workDoneProgress/create'), `server requests: ${serverRequests.join(', ')}`);
  });

  it('reports skill/name-charset on the name value of a broken SKILL.md', async () => {
    await conn.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri: skillUri, languageId: 'markdown', version: 1, text },
    });
    const diags = await openDiagnostics();
    assert.equal(diags.length, 1, JSON.stringify(diags, null, 2));
    const d = diags[0];
    assert.equal(d.code, 'skill/name-charset');
    assert.equal(d.source, 'ahpls');
    // A Warning with the default targets: the agent host takes the name as
    // written; the Agent Skills spec warns (issue #13 repro 6; precision's
    // verdicts).
    assert.equal(d.severity, DiagnosticSeverity.Warning);
    assert.match(messageOf(d), /My_Skill/);
    assert.deepEqual(d.range, { start: { line: 1, character: 6 }, end: { line: 1, character: 14 } });
  });

  it('offers a quick fix that rewrites the name, and the diagnostics clear after an incremental change', async () => {
    const [diag] = nameValue(await openDiagnostics());
    // Until its check of the opened text has run, the server may answer [];
    // ask again (as an editor does on the next cursor move) until it offers fixes.
    const fix = await waitForAsync('the name quick fix', async () => {
      const actions = await conn.sendRequest(CodeActionRequest.type, {
        textDocument: { uri: skillUri },
        range: diag.range,
        context: { diagnostics: [diag], triggerKind: 1 },
      });
      assert.ok(actions === null || Array.isArray(actions), 'codeAction result');
      const literal = (actions ?? []).filter((a): a is CodeAction => !Command.is(a));
      if (literal.length > 0) {
        const f = literal.find((a) => /kebab-case|folder name/i.test(a.title));
        assert.ok(f, `no name quick fix among ${JSON.stringify(literal.map((a) => a.title))}`);
        return f;
      }
      return undefined;
    });
    assert.equal(fix.kind, 'quickfix');
    const resolved = fix.edit === undefined ? await conn.sendRequest(CodeActionResolveRequest.type, fix) : fix;
    assert.ok(resolved.edit, 'quick fix has no edit after resolve');
    const edits = editsFor(resolved.edit, skillUri);
    assert.ok(edits.length > 0, `no edits for ${skillUri}: ${JSON.stringify(resolved.edit)}`);
    const fixed = applyEdits(text, edits);
    assert.match(fixed, /^name: my-skill$/m);

    // Send the edits as VS Code does: incremental changes, last position first
    // so every range still refers to the text it was computed on.
    const changes = [...edits]
      .sort((a, b) => offsetAt(text, b.range.start.line, b.range.start.character) - offsetAt(text, a.range.start.line, a.range.start.character))
      .map((e) => ({ range: e.range, text: e.newText }));
    await conn.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri: skillUri, version: 2 }, contentChanges: changes });
    text = fixed;
    assert.deepEqual(await diagnosticsAt(2), []);
  });

  it('measures ranges in UTF-16 code units after another incremental change', async () => {
    // "ÀÉ_ÎÔ" is 5 UTF-16 units but 9 UTF-8 bytes; every character is outside
    // [a-z0-9-], so the offending span is the whole value however it is measured.
    const start = { line: 1, character: 6 };
    await conn.sendNotification(DidChangeTextDocumentNotification.type, {
      textDocument: { uri: skillUri, version: 3 },
      contentChanges: [{ range: { start, end: { line: 1, character: 14 } }, text: 'ÀÉ_ÎÔ' }],
    });
    text = applyEdits(text, [{ range: { start, end: { line: 1, character: 14 } }, newText: 'ÀÉ_ÎÔ' }]);
    const diags = nameValue(await diagnosticsAt(3));
    assert.equal(diags.length, 1);
    assert.match(messageOf(diags[0]), /ÀÉ_ÎÔ/);
    assert.deepEqual(diags[0].range, { start, end: { line: 1, character: 11 } });
  });

  it('answers ahpls.showHostConnection with a result or a clean error, and keeps running', async () => {
    let outcome: string;
    try {
      const result = await conn.sendRequest(ExecuteCommandRequest.type, { command: 'ahpls.showHostConnection', arguments: [] });
      outcome = `result ${JSON.stringify(result)}`;
    } catch (e) {
      assert.ok(e instanceof ResponseError, `not a JSON-RPC error: ${String(e)}`);
      outcome = `error ${e.code} ${e.message}`;
    }
    assert.ok(outcome.length > 0);
    // Still alive and still answering on the same document.
    const actions = await conn.sendRequest(CodeActionRequest.type, {
      textDocument: { uri: skillUri },
      range: { start: { line: 1, character: 6 }, end: { line: 1, character: 6 } },
      context: { diagnostics: [] },
    });
    assert.ok(actions === null || Array.isArray(actions));
    assert.equal(proc.exitCode, null);
  });

  it('shuts down and exits with code 0, having written only LSP to stdout', async () => {
    await conn.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri: skillUri } });
    const r = await conn.sendRequest(ShutdownRequest.type);
    assert.equal(r ?? null, null);
    await conn.sendNotification(ExitNotification.type);
    // The exit notification alone must end the process (Neovim, unlike VS
    // Code, keeps stdin open until the server is gone).
    const outcome = await Promise.race([exited, new Promise<undefined>((r) => setTimeout(() => r(undefined), WAIT_MS).unref())]);
    if (outcome === undefined) {
      proc.stdin!.end();
      const afterEof = await Promise.race([exited, new Promise<undefined>((r) => setTimeout(() => r(undefined), 5000).unref())]);
      assert.fail(
        `server did not exit within ${WAIT_MS} ms of the exit notification; ` +
          (afterEof === undefined ? 'nor after stdin was closed' : `it exited (${afterEof.code}) only once stdin was closed`),
      );
    }
    const { code, signal } = outcome;
    assert.equal(signal, null, `killed by ${signal}`);
    assert.equal(code, 0, `exit code ${code}\nstderr:\n${stderr.slice(-4000)}`);
    assert.deepEqual(protocolErrors, []);
    const hostStatus = notified.filter((n) => n.method === 'ahpls/hostStatus');
    for (const n of hostStatus) {
      assert.match(String((n.params as { state?: unknown }).state), /^(disconnected|connecting|connected|refused)$/);
    }
  });
});

// VS Code client for ahpls. The logic that does not need VS Code lives in plain
// modules (binary, settings, trust, status, commands, filekinds) with node tests;
// this file only wires them to the editor: it starts `ahpls serve` over stdio,
// keeps the server's `ahpls` settings section in sync (gated by workspace trust),
// shows the agent-host connection in the status bar and adds palette commands.
import { execFile } from 'node:child_process';
import * as vscode from 'vscode';
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  State,
} from 'vscode-languageclient/node';
import { BinaryNotFoundError, nodeBinaryEnv, repairBundledBinary, resolveBinary } from './binary';
import {
  buildToggleArgs,
  CMD_CHECK_WORKSPACE,
  CMD_FIX_ALL_WORKSPACE,
  CMD_MENU,
  CMD_OPEN_RULES_DOCS,
  CMD_REFRESH_CUSTOMIZATIONS,
  CMD_RESTART,
  CMD_SHOW_OUTPUT,
  CMD_SHOW_VERSION,
  CMD_SET_HOST_TOKEN,
  CMD_SHOW_HOST_CONNECTION,
  CMD_TOGGLE_CUSTOMIZATION,
  CMD_TOGGLE_GLOBAL,
  CMD_TOGGLE_SESSION,
  CMD_TOGGLE_WORKSPACE,
  FIX_ALL_KIND,
  formatCommandResult,
  LSP_SHOW_HOST_CONNECTION,
  menuItems,
  RULES_DOCS,
  summarizeCheck,
  LSP_TOGGLE_CUSTOMIZATION,
  toggleChoices,
  unadvertisedLspCommands,
} from './commands';
import { buildConsumerTree, ConsumerNode, LSP_LIST_VIEW } from './consumers';
import { CHOOSE_CONSUMER, chooseConsumer, chosenConsumer, consumerTreeItem } from './consumersView';
import { buildTree, CustomizationNode, LSP_LIST_CUSTOMIZATIONS, toggleFor, ViewNode } from './customizations';
import { ACTIVATION_PATTERNS, DOCUMENT_PATTERNS } from './filekinds';
import { unionGlob } from './globs';
import { answerConfigurationItem, MappedSettings, sameSettings, SECTION, ServerSettings, toServerSettings } from './settings';
import {
  formatHostConnection,
  HOST_STATUS_NOTIFICATION,
  hostConfigured,
  HostStatus,
  parseHostStatus,
  presentLanguageStatus,
  presentStatus,
  serverLabel,
  ServerState,
} from './status';
import { leaveSymbolsToVSCode } from './symbols';
import { describeToolTrust } from './trust';

let client: LanguageClient | undefined;
let output: vscode.LogOutputChannel;
let statusItem: vscode.StatusBarItem;
let languageStatus: vscode.LanguageStatusItem;
let secrets: vscode.SecretStorage;
/** The secret holding the value of the Authorization header for the agent host. */
const SECRET_HOST_AUTHORIZATION = 'ahpls.hostAuthorization';
let serverState: ServerState = 'stopped';
let hostStatus: HostStatus | undefined;
let pushedSettings: ServerSettings | undefined;
let lastWarnings = '';
/** serverInfo.version of the running server (undefined before it answered initialize). */
let serverVersion: string | undefined;
/** The binary the running server was started from. */
let serverPath: string | undefined;
/** Forwarders for LSP commands the running server did not advertise; rebuilt per start. */
let forwarders: vscode.Disposable[] = [];

function currentSettings(): MappedSettings {
  const mapped = toServerSettings(vscode.workspace.getConfiguration(SECTION), vscode.workspace.isTrusted);
  const w = mapped.warnings.join('\n');
  if (w !== '' && w !== lastWarnings) {
    for (const line of mapped.warnings) {
      output.warn(line);
    }
  }
  lastWarnings = w;
  return mapped;
}

function firstFolder(): string | undefined {
  return vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath;
}

function isHostConfigured(): boolean {
  return hostConfigured(vscode.workspace.getConfiguration(SECTION).get<string>('host')?.trim(), hostStatus);
}

function updateStatus(): void {
  const configured = isHostConfigured();
  const p = presentStatus(serverState, hostStatus, configured, serverVersion);
  statusItem.text = p.text;
  const requested = vscode.workspace.getConfiguration(SECTION).get<boolean>('trustWorkspaceTools') === true;
  statusItem.tooltip = `${p.tooltip}\n${describeToolTrust(requested, vscode.workspace.isTrusted)}\nClick for the ahpls menu.`;
  statusItem.backgroundColor =
    p.level === 'error'
      ? new vscode.ThemeColor('statusBarItem.errorBackground')
      : p.level === 'warning'
        ? new vscode.ThemeColor('statusBarItem.warningBackground')
        : undefined;
  statusItem.show();
  const l = presentLanguageStatus(serverState, hostStatus, describeToolTrust(requested, vscode.workspace.isTrusted), serverVersion);
  languageStatus.text = l.text;
  languageStatus.detail = l.detail;
  languageStatus.command = { title: 'Menu', command: CMD_MENU, tooltip: l.tooltip };
  languageStatus.severity =
    l.level === 'error'
      ? vscode.LanguageStatusSeverity.Error
      : l.level === 'warning'
        ? vscode.LanguageStatusSeverity.Warning
        : vscode.LanguageStatusSeverity.Information;
  languageStatus.busy = serverState === 'starting' || hostStatus?.state === 'connecting';
  customizations.refresh();
}

/** The "Customizations" view: ahpls.listCustomizations, re-read on every status change. */
class CustomizationsProvider implements vscode.TreeDataProvider<ViewNode | ConsumerNode> {
  private readonly changed = new vscode.EventEmitter<ViewNode | ConsumerNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private timer: NodeJS.Timeout | undefined;

  /** Coalesces bursts of status notifications into one re-read. */
  refresh(): void {
    if (this.timer !== undefined) {
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.changed.fire(undefined);
    }, 100);
  }

  getTreeItem(n: ViewNode | ConsumerNode): vscode.TreeItem {
    if (n.kind === 'consumer' || n.kind === 'consumerItem') {
      return consumerTreeItem(n);
    }
    if (n.kind === 'message') {
      return new vscode.TreeItem(n.label, vscode.TreeItemCollapsibleState.None);
    }
    if (n.kind === 'session') {
      const t = new vscode.TreeItem(n.label, vscode.TreeItemCollapsibleState.Expanded);
      t.tooltip = n.session;
      t.contextValue = 'ahpls.session';
      return t;
    }
    const t = new vscode.TreeItem(
      n.label,
      n.children.length > 0 ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None,
    );
    // VS Code keeps a tree item's collapsible state by id: a row first shown
    // without children (its skills not listed yet) stayed collapsed once they
    // came, hiding them. A row that gains children is a new item, shown expanded.
    t.id = `${n.session}\u0000${n.row.id}\u0000${n.children.length > 0 ? 'group' : 'leaf'}`;
    t.description = n.description;
    t.tooltip = n.tooltip;
    t.contextValue = n.contextValue;
    t.iconPath = new vscode.ThemeIcon(n.row.on ? 'pass-filled' : 'circle-slash');
    return t;
  }

  async getChildren(n?: ViewNode | ConsumerNode): Promise<(ViewNode | ConsumerNode)[]> {
    if (n !== undefined) {
      if (n.kind === 'consumer' || n.kind === 'consumerItem') return n.children;
      return n.kind === 'session' ? n.rows : n.kind === 'customization' ? n.children : [];
    }
    if (client === undefined || !client.isRunning()) {
      return [{ kind: 'message', label: 'The ahpls language server is not running.' }];
    }
    try {
      const titles: Record<string, string> = {};
      for (const d of hostStatus?.sessionDetails ?? []) {
        if (d.title !== undefined) titles[d.uri] = d.title;
      }
      const host = buildTree(await executeLsp(LSP_LIST_CUSTOMIZATIONS, []), titles);
      return withConsumers(await consumerNodes(), host);
    } catch (e) {
      return [{ kind: 'message', label: `Cannot list customizations: ${e instanceof Error ? e.message : String(e)}` }];
    }
  }
}
const customizations = new CustomizationsProvider();

/** What each consumer loads (#32), from ahpls.listView: needs no agent host. */
async function consumerNodes(): Promise<ConsumerNode[]> {
  try {
    return buildConsumerTree(await executeLsp(LSP_LIST_VIEW, []), chosenConsumer());
  } catch (e) {
    output.warn(`${LSP_LIST_VIEW}: ${e instanceof Error ? e.message : String(e)}`);
    return [];
  }
}

/**
 * The view's top level: with a host, the live load state and toggles of
 * today's session tree first, as they were before the consumer groups (what
 * the agent has now, and the rows a user toggles), then the consumer groups
 * (what each consumer would load). Without a host, the consumer groups alone.
 */
function withConsumers(consumers: ConsumerNode[], host: ViewNode[]): (ViewNode | ConsumerNode)[] {
  if (consumers.length === 0) return host;
  if (host.length === 1 && host[0].kind === 'message') return consumers;
  return [...host, ...consumers];
}

async function toggleFromTree(node: unknown, scope: 'session' | 'workspace' | 'global'): Promise<void> {
  const n = node as CustomizationNode | undefined;
  if (n === undefined || n.kind !== 'customization') {
    return;
  }
  const a = toggleFor(n.row, scope);
  try {
    await executeLsp(LSP_TOGGLE_CUSTOMIZATION, [{ id: a.id, scope: a.scope, enabled: a.enabled, session: n.session }]);
    output.info(`${a.enabled ? 'Enabled' : 'Disabled'} ${n.row.name} (${scope}).`);
  } catch (e) {
    void vscode.window.showErrorMessage(`ahpls: toggling ${n.row.name} (${scope}) failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  customizations.refresh();
}

async function setHostToken(): Promise<void> {
  const value = await vscode.window.showInputBox({
    title: 'ahpls: agent host token',
    prompt: 'Sent as the Authorization header of the WebSocket upgrade. A bare token is sent as "Bearer <token>". Empty clears it.',
    password: true,
    ignoreFocusOut: true,
  });
  if (value === undefined) {
    return;
  }
  const v = value.trim();
  if (v === '') {
    await secrets.delete(SECRET_HOST_AUTHORIZATION);
  } else {
    await secrets.store(SECRET_HOST_AUTHORIZATION, /^(Bearer|Basic|Token)\s/i.test(v) ? v : `Bearer ${v}`);
  }
  output.info(v === '' ? 'Agent host token cleared.' : 'Agent host token saved in the secret storage.');
  await restart();
}

function disposeForwarders(): void {
  for (const d of forwarders) {
    d.dispose();
  }
  forwarders = [];
}

async function executeLsp(command: string, args: unknown[]): Promise<unknown> {
  if (client === undefined || !client.isRunning()) {
    throw new Error('the ahpls language server is not running');
  }
  return client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
}

async function startClient(): Promise<void> {
  let bin;
  repairBundledBinary(extensionPath);
  try {
    bin = resolveBinary(vscode.workspace.getConfiguration(SECTION).get<string>('path'), nodeBinaryEnv(extensionPath, firstFolder()));
  } catch (e) {
    serverState = 'stopped';
    updateStatus();
    const msg = e instanceof Error ? e.message : String(e);
    if (e instanceof BinaryNotFoundError) {
      output.error(`${msg}\nLooked at:\n  ${e.tried.join('\n  ')}`);
    }
    const pick = await vscode.window.showErrorMessage(msg, 'Open Settings');
    if (pick === 'Open Settings') {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'ahpls.path');
    }
    return;
  }
  output.info(`Starting ${bin.path} serve (found via ${bin.source}).`);
  serverPath = bin.path;

  // The token lives in SecretStorage and reaches the server as an environment
  // variable, never in settings (which traces and the settings UI would show).
  const env: NodeJS.ProcessEnv = { ...process.env };
  const auth = await secrets.get(SECRET_HOST_AUTHORIZATION);
  if (auth !== undefined && auth !== '') {
    env.AHPLS_HOST_AUTHORIZATION = auth;
  }
  const serverOptions: ServerOptions = { command: bin.path, args: ['serve'], options: { env } };
  const clientOptions: LanguageClientOptions = {
    documentSelector: selector(),
    outputChannel: output,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    initializationOptions: () => {
      pushedSettings = currentSettings().settings;
      return pushedSettings;
    },
    middleware: {
      // VS Code's own Markdown provider already lists the headings, and the
      // Outline adds a level per provider: leave Markdown files to it.
      provideDocumentSymbols: (document, token, next) => (leaveSymbolsToVSCode(document.languageId) ? [] : next(document, token)),
      workspace: {
        configuration: async (params, token, next) => {
          const settings = currentSettings().settings;
          const answers = params.items.map((item) => answerConfigurationItem(item.section, settings));
          if (answers.every((a) => a.handled)) {
            return answers.map((a) => a.value);
          }
          const rest = await next(params, token);
          if (!Array.isArray(rest)) {
            return rest;
          }
          return answers.map((a, i) => (a.handled ? a.value : rest[i]));
        },
      },
    },
  };

  const c = new LanguageClient('ahpls', 'ahpls', serverOptions, clientOptions);
  client = c;
  c.onDidChangeState((e) => {
    serverState = e.newState === State.Running ? 'running' : e.newState === State.Starting ? 'starting' : 'stopped';
    if (serverState !== 'running') {
      hostStatus = undefined;
    }
    updateStatus();
  });
  c.onNotification(HOST_STATUS_NOTIFICATION, (params: unknown) => {
    const s = parseHostStatus(params);
    if (s === undefined) {
      output.warn(`Ignoring malformed ${HOST_STATUS_NOTIFICATION}: ${JSON.stringify(params)}`);
      return;
    }
    hostStatus = { ...s, sessionDetails: hostStatus?.sessionDetails };
    updateStatus();
    void refreshSessionTitles();
  });
  try {
    await c.start();
  } catch (e) {
    output.error(`ahpls failed to start: ${e instanceof Error ? e.message : String(e)}`);
    return;
  }
  const info = c.initializeResult?.serverInfo;
  serverVersion = info?.version;
  output.info(`Server: ${info?.name ?? 'ahpls'} ${info?.version ?? '(no version reported)'} (${bin.path})`);
  updateStatus();
  const advertised = c.initializeResult?.capabilities.executeCommandProvider?.commands;
  for (const command of unadvertisedLspCommands(advertised)) {
    forwarders.push(vscode.commands.registerCommand(command, (...args: unknown[]) => executeLsp(command, args)));
  }
}

/** Session titles for the view, from ahpls.showHostConnection (best effort). */
async function refreshSessionTitles(): Promise<void> {
  try {
    const r = (await executeLsp(LSP_SHOW_HOST_CONNECTION, [])) as { sessionDetails?: { uri: string; title?: string }[] } | null;
    if (hostStatus !== undefined && r !== null && Array.isArray(r?.sessionDetails)) {
      hostStatus.sessionDetails = r.sessionDetails.filter((d) => typeof d?.uri === 'string');
      customizations.refresh();
    }
  } catch {
    // The view shows session URIs instead.
  }
}

async function stopClient(): Promise<void> {
  const c = client;
  client = undefined;
  disposeForwarders();
  if (c !== undefined) {
    try {
      await c.stop();
    } catch (e) {
      output.warn(`Stopping ahpls: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  serverState = 'stopped';
  hostStatus = undefined;
  serverVersion = undefined;
  updateStatus();
}

async function restart(): Promise<void> {
  await stopClient();
  await startClient();
}

function pushSettings(): void {
  const next = currentSettings().settings;
  if (client === undefined || !client.isRunning() || sameSettings(pushedSettings, next)) {
    return;
  }
  pushedSettings = next;
  void client.sendNotification(DidChangeConfigurationNotification.type, { settings: { [SECTION]: next } });
}

async function toggleCustomization(arg?: unknown): Promise<void> {
  let target: { uri?: string; id?: string } = {};
  if (arg instanceof vscode.Uri) {
    target = { uri: arg.toString() };
  } else if (arg !== null && typeof arg === 'object') {
    const a = arg as { uri?: unknown; id?: unknown };
    target = { uri: typeof a.uri === 'string' ? a.uri : undefined, id: typeof a.id === 'string' ? a.id : undefined };
  }
  if (target.uri === undefined && target.id === undefined) {
    const doc = vscode.window.activeTextEditor?.document;
    if (doc === undefined) {
      void vscode.window.showWarningMessage('ahpls: open a customization file (SKILL.md, *.agent.md, .mcp.json, …) to toggle it.');
      return;
    }
    target = { uri: doc.uri.toString() };
  }
  const choice = await vscode.window.showQuickPick(toggleChoices(), { placeHolder: 'Enable or disable this customization' });
  if (choice === undefined) {
    return;
  }
  try {
    const result = await executeLsp(LSP_TOGGLE_CUSTOMIZATION, [buildToggleArgs(target, choice.scope, choice.enabled)]);
    const text = formatCommandResult(result);
    if (text !== '') {
      output.info(`toggleCustomization: ${text}`);
    }
  } catch (e) {
    void vscode.window.showErrorMessage(`ahpls: ${choice.label} failed: ${e instanceof Error ? e.message : String(e)}`);
  }
}

async function showHostConnection(): Promise<void> {
  const configured = isHostConfigured();
  const p = presentStatus(serverState, hostStatus, configured, serverVersion);
  const requested = vscode.workspace.getConfiguration(SECTION).get<boolean>('trustWorkspaceTools') === true;
  output.info(p.tooltip);
  let result: unknown;
  try {
    result = await executeLsp(LSP_SHOW_HOST_CONNECTION, []);
  } catch (e) {
    output.warn(`${LSP_SHOW_HOST_CONNECTION}: ${e instanceof Error ? e.message : String(e)}`);
  }
  // One fact a line in the Output channel, never the command's raw JSON.
  for (const line of formatHostConnection(hostStatus, result, configured)) {
    output.info(line);
  }
  output.info(describeToolTrust(requested, vscode.workspace.isTrusted));
  const pick = await vscode.window.showInformationMessage(p.tooltip, 'Show Output', 'Restart');
  if (pick === 'Show Output') {
    output.show(true);
  } else if (pick === 'Restart') {
    await restart();
  }
}

async function showMenu(): Promise<void> {
  const items = menuItems(isHostConfigured());
  const pick = await vscode.window.showQuickPick(items, { title: `${serverLabel(serverVersion)} — ${serverState}`, placeHolder: 'ahpls' });
  if (pick !== undefined) {
    await vscode.commands.executeCommand(pick.command);
  }
}

function extensionVersion(): string {
  return (vscode.extensions.getExtension('ahpls-dev.ahpls')?.packageJSON as { version?: string } | undefined)?.version ?? '?';
}

async function showVersion(): Promise<void> {
  const text =
    serverVersion !== undefined
      ? `ahpls server ${serverVersion} (${serverPath ?? '?'}), extension ${extensionVersion()}`
      : `ahpls server not running; extension ${extensionVersion()}`;
  output.info(text);
  await vscode.window.showInformationMessage(text);
}

/** `ahpls check` over every workspace folder (the CI view), listed in the Output channel. */
async function checkWorkspace(): Promise<void> {
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  if (folders.length === 0) {
    void vscode.window.showWarningMessage('ahpls: open a folder to check it.');
    return;
  }
  let bin;
  try {
    bin = resolveBinary(vscode.workspace.getConfiguration(SECTION).get<string>('path'), nodeBinaryEnv(extensionPath, firstFolder()));
  } catch (e) {
    void vscode.window.showErrorMessage(e instanceof Error ? e.message : String(e));
    return;
  }
  const args = ['check', '--format', 'json'];
  for (const g of currentSettings().settings.exclude) {
    args.push('--exclude', g);
  }
  args.push(...folders);
  output.info(`Check Workspace: ${bin.path} ${args.join(' ')}`);
  const json = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'ahpls: checking the workspace' },
    () =>
      new Promise<string>((resolve) => {
        execFile(bin.path, args, { cwd: folders[0], maxBuffer: 256 << 20, timeout: 10 * 60 * 1000 }, (err, stdout, stderr) => {
          if (stderr.trim() !== '') {
            output.warn(stderr.trim());
          }
          if (err !== null && stdout.trim() === '') {
            output.error(`ahpls check failed: ${err.message}`);
          }
          resolve(stdout);
        });
      }),
  );
  const sum = summarizeCheck(json);
  if (sum === undefined) {
    void vscode.window.showErrorMessage('ahpls: the check gave no result; see the Output channel.');
    output.show(true);
    return;
  }
  for (const line of sum.lines) {
    output.info(line);
  }
  const counts = Object.entries(sum.bySeverity)
    .map(([k, v]) => `${v} ${k}`)
    .join(', ');
  const text = sum.findings === 0 ? 'ahpls: no findings in the workspace.' : `ahpls: ${sum.findings} findings in ${sum.files} files (${counts}).`;
  output.info(text);
  await vscode.commands.executeCommand('workbench.actions.view.problems');
  const pick = await vscode.window.showInformationMessage(text, 'Show Output');
  if (pick === 'Show Output') {
    output.show(true);
  }
}

/** Applies the server's fix-all action to every file with ahpls findings and saves them. */
async function fixAllInWorkspace(): Promise<void> {
  const uris = vscode.languages
    .getDiagnostics()
    .filter(([u, ds]) => u.scheme === 'file' && ds.some((d) => d.source === 'ahpls'))
    .map(([u]) => u);
  let fixed = 0;
  for (const u of uris) {
    const actions =
      (await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', u, new vscode.Range(0, 0, 0, 0), FIX_ALL_KIND)) ?? [];
    const fix = actions.find((a) => a.kind?.value === FIX_ALL_KIND && a.edit !== undefined);
    if (fix?.edit !== undefined && (await vscode.workspace.applyEdit(fix.edit))) {
      for (const [changed] of fix.edit.entries()) {
        const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === changed.toString());
        if (doc?.isDirty) {
          await doc.save();
        }
      }
      fixed++;
    }
  }
  const text = fixed === 0 ? `ahpls: nothing to fix (${uris.length} files with findings).` : `ahpls: fixed ${fixed} of ${uris.length} files with findings.`;
  output.info(text);
  void vscode.window.showInformationMessage(text);
}

let extensionPath = '';

/** Whether the server should start now: a customization file is open, or the workspace has one. */
async function shouldStart(): Promise<boolean> {
  if (vscode.workspace.textDocuments.some(isOurs)) {
    return true;
  }
  if ((vscode.workspace.workspaceFolders ?? []).length === 0) {
    return false;
  }
  try {
    const found = await vscode.workspace.findFiles(unionGlob(ACTIVATION_PATTERNS), '**/node_modules/**', 1);
    return found.length > 0;
  } catch (e) {
    // A failed search must not leave the workspace unchecked: start the
    // server, which decides for itself which files are ours.
    output.warn(`ahpls: searching the workspace for customization files failed, starting the server anyway: ${e instanceof Error ? e.message : String(e)}`);
    return true;
  }
}

function isOurs(doc: vscode.TextDocument): boolean {
  return vscode.languages.match(selector(), doc) > 0;
}

function selector(): { scheme: string; pattern: string }[] {
  return DOCUMENT_PATTERNS.map((pattern) => ({ scheme: 'file', pattern }));
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  extensionPath = context.extensionPath;
  output = vscode.window.createOutputChannel('ahpls', { log: true });
  statusItem = vscode.window.createStatusBarItem('ahpls.hostStatus', vscode.StatusBarAlignment.Right, 100);
  statusItem.name = 'ahpls';
  statusItem.command = CMD_MENU;
  secrets = context.secrets;
  languageStatus = vscode.languages.createLanguageStatusItem('ahpls.status', selector());
  languageStatus.name = 'ahpls';
  languageStatus.command = { title: 'Menu', command: CMD_MENU };
  const tree = vscode.window.createTreeView('ahpls.customizations', { treeDataProvider: customizations, showCollapseAll: true });
  context.subscriptions.push(
    output,
    statusItem,
    languageStatus,
    tree,
    vscode.commands.registerCommand(CMD_REFRESH_CUSTOMIZATIONS, () => customizations.refresh()),
    vscode.commands.registerCommand(CHOOSE_CONSUMER, async () => {
      if (await chooseConsumer()) customizations.refresh();
    }),
    vscode.workspace.onDidSaveTextDocument(() => customizations.refresh()),
    vscode.workspace.onDidCreateFiles(() => customizations.refresh()),
    vscode.workspace.onDidDeleteFiles(() => customizations.refresh()),
    vscode.commands.registerCommand(CMD_TOGGLE_SESSION, (n: unknown) => toggleFromTree(n, 'session')),
    vscode.commands.registerCommand(CMD_TOGGLE_WORKSPACE, (n: unknown) => toggleFromTree(n, 'workspace')),
    vscode.commands.registerCommand(CMD_TOGGLE_GLOBAL, (n: unknown) => toggleFromTree(n, 'global')),
    vscode.commands.registerCommand(CMD_SET_HOST_TOKEN, setHostToken),
    context.secrets.onDidChange((e) => {
      if (e.key === SECRET_HOST_AUTHORIZATION) {
        output.info('The agent host token changed; restart ahpls to use it.');
      }
    }),
    vscode.commands.registerCommand(CMD_RESTART, restart),
    vscode.commands.registerCommand(CMD_MENU, showMenu),
    vscode.commands.registerCommand(CMD_SHOW_OUTPUT, () => output.show(true)),
    vscode.commands.registerCommand(CMD_SHOW_VERSION, showVersion),
    vscode.commands.registerCommand(CMD_CHECK_WORKSPACE, checkWorkspace),
    vscode.commands.registerCommand(CMD_FIX_ALL_WORKSPACE, fixAllInWorkspace),
    vscode.commands.registerCommand(CMD_OPEN_RULES_DOCS, () => vscode.env.openExternal(vscode.Uri.parse(RULES_DOCS))),
    vscode.commands.registerCommand(CMD_TOGGLE_CUSTOMIZATION, toggleCustomization),
    vscode.commands.registerCommand(CMD_SHOW_HOST_CONNECTION, showHostConnection),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration(`${SECTION}.path`)) {
        const pick = await vscode.window.showInformationMessage('ahpls.path changed.', 'Restart ahpls');
        if (pick !== undefined) {
          await restart();
        }
        return;
      }
      if (e.affectsConfiguration(SECTION)) {
        pushSettings();
        updateStatus();
      }
    }),
    // Trust can only be granted while running, never revoked (VS Code reloads
    // the window for that), so this is the one moment tools may switch on.
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      pushSettings();
      updateStatus();
    }),
    { dispose: () => void stopClient() },
  );
  updateStatus();
  // Activation also happens on any Markdown/JSON file (onLanguage), so that a
  // SKILL.md opened on its own works; the server only starts once a
  // customization file is open or the workspace holds one.
  if (await shouldStart()) {
    await startClient();
    return;
  }
  const waiting = vscode.workspace.onDidOpenTextDocument((doc) => {
    if (isOurs(doc) && client === undefined) {
      waiting.dispose();
      void startClient();
    }
  });
  context.subscriptions.push(waiting);
}

export async function deactivate(): Promise<void> {
  await stopClient();
}

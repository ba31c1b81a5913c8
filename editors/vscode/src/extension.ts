// VS Code client for ahpls. The logic that does not need VS Code lives in plain
// modules (binary, settings, trust, status, commands, filekinds) with node tests;
// this file only wires them to the editor: it starts `ahpls serve` over stdio,
// keeps the server's `ahpls` settings section in sync (gated by workspace trust),
// shows the agent-host connection in the status bar and adds palette commands.
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
import { BinaryNotFoundError, nodeBinaryEnv, resolveBinary } from './binary';
import {
  buildToggleArgs,
  CMD_RESTART,
  CMD_SHOW_HOST_CONNECTION,
  CMD_TOGGLE_CUSTOMIZATION,
  formatCommandResult,
  LSP_SHOW_HOST_CONNECTION,
  LSP_TOGGLE_CUSTOMIZATION,
  toggleChoices,
  unadvertisedLspCommands,
} from './commands';
import { DOCUMENT_PATTERNS } from './filekinds';
import { answerConfigurationItem, MappedSettings, sameSettings, SECTION, ServerSettings, toServerSettings } from './settings';
import { HOST_STATUS_NOTIFICATION, HostStatus, parseHostStatus, presentStatus, ServerState } from './status';
import { describeToolTrust } from './trust';

let client: LanguageClient | undefined;
let output: vscode.LogOutputChannel;
let statusItem: vscode.StatusBarItem;
let serverState: ServerState = 'stopped';
let hostStatus: HostStatus | undefined;
let pushedSettings: ServerSettings | undefined;
let lastWarnings = '';
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

function updateStatus(): void {
  const p = presentStatus(serverState, hostStatus);
  statusItem.text = p.text;
  const requested = vscode.workspace.getConfiguration(SECTION).get<boolean>('trustWorkspaceTools') === true;
  statusItem.tooltip = `${p.tooltip}\n${describeToolTrust(requested, vscode.workspace.isTrusted)}`;
  statusItem.backgroundColor =
    p.level === 'error'
      ? new vscode.ThemeColor('statusBarItem.errorBackground')
      : p.level === 'warning'
        ? new vscode.ThemeColor('statusBarItem.warningBackground')
        : undefined;
  statusItem.show();
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

  const serverOptions: ServerOptions = { command: bin.path, args: ['serve'] };
  const clientOptions: LanguageClientOptions = {
    documentSelector: DOCUMENT_PATTERNS.map((pattern) => ({ scheme: 'file', pattern })),
    outputChannel: output,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    initializationOptions: () => {
      pushedSettings = currentSettings().settings;
      return pushedSettings;
    },
    middleware: {
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
    hostStatus = s;
    updateStatus();
  });
  try {
    await c.start();
  } catch (e) {
    output.error(`ahpls failed to start: ${e instanceof Error ? e.message : String(e)}`);
    return;
  }
  const advertised = c.initializeResult?.capabilities.executeCommandProvider?.commands;
  for (const command of unadvertisedLspCommands(advertised)) {
    forwarders.push(vscode.commands.registerCommand(command, (...args: unknown[]) => executeLsp(command, args)));
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
  const p = presentStatus(serverState, hostStatus);
  const requested = vscode.workspace.getConfiguration(SECTION).get<boolean>('trustWorkspaceTools') === true;
  output.info(p.tooltip);
  output.info(describeToolTrust(requested, vscode.workspace.isTrusted));
  try {
    const text = formatCommandResult(await executeLsp(LSP_SHOW_HOST_CONNECTION, []));
    if (text !== '') {
      output.info(text);
    }
  } catch (e) {
    output.warn(`${LSP_SHOW_HOST_CONNECTION}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const pick = await vscode.window.showInformationMessage(p.tooltip, 'Show Output', 'Restart');
  if (pick === 'Show Output') {
    output.show(true);
  } else if (pick === 'Restart') {
    await restart();
  }
}

let extensionPath = '';

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  extensionPath = context.extensionPath;
  output = vscode.window.createOutputChannel('ahpls', { log: true });
  statusItem = vscode.window.createStatusBarItem('ahpls.hostStatus', vscode.StatusBarAlignment.Right, 100);
  statusItem.name = 'ahpls agent host';
  statusItem.command = CMD_SHOW_HOST_CONNECTION;
  context.subscriptions.push(
    output,
    statusItem,
    vscode.commands.registerCommand(CMD_RESTART, restart),
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
  await startClient();
}

export async function deactivate(): Promise<void> {
  await stopClient();
}

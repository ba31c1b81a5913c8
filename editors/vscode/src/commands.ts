// Command ids. The LSP commands are executed by the server
// (workspace/executeCommand); the client commands are what the palette shows.
// They differ on purpose: vscode-languageclient registers a VS Code command for
// every id in the server's executeCommandProvider, and registering the same id
// twice fails, so the palette entries wrap the LSP commands under their own ids.

export const LSP_TOGGLE_CUSTOMIZATION = 'ahpls.toggleCustomization';
export const LSP_SHOW_HOST_CONNECTION = 'ahpls.showHostConnection';
export const LSP_COMMANDS = [LSP_TOGGLE_CUSTOMIZATION, LSP_SHOW_HOST_CONNECTION] as const;

export const CMD_RESTART = 'ahpls.restart';
export const CMD_TOGGLE_CUSTOMIZATION = 'ahpls.client.toggleCustomization';
export const CMD_SHOW_HOST_CONNECTION = 'ahpls.client.showHostConnection';
export const CMD_SET_HOST_TOKEN = 'ahpls.client.setHostToken';
export const CMD_REFRESH_CUSTOMIZATIONS = 'ahpls.customizations.refresh';
export const CMD_TOGGLE_SESSION = 'ahpls.customizations.toggleSession';
export const CMD_TOGGLE_WORKSPACE = 'ahpls.customizations.toggleWorkspace';
export const CMD_TOGGLE_GLOBAL = 'ahpls.customizations.toggleGlobal';

export const CMD_MENU = 'ahpls.client.menu';
export const CMD_SHOW_OUTPUT = 'ahpls.client.showOutput';
export const CMD_SHOW_VERSION = 'ahpls.client.showVersion';
export const CMD_CHECK_WORKSPACE = 'ahpls.client.checkWorkspace';
export const CMD_FIX_ALL_WORKSPACE = 'ahpls.client.fixAllInWorkspace';
export const CMD_OPEN_RULES_DOCS = 'ahpls.client.openRulesDocs';

/** The rule reference; a rule's own entry is RULES_DOCS + '#' + anchor. */
export const RULES_DOCS = 'https://github.com/ahpls-dev/ahpls/blob/main/docs/rules.md';

/** The code action kind of the server's fix-all (server/fixall.go). */
export const FIX_ALL_KIND = 'source.fixAll.ahpls';

export interface MenuItem {
  label: string;
  description?: string;
  command: string;
}

/**
 * What the status bar item's menu offers. Host entries only when a host is
 * configured: the menu of a user who only lints says nothing about hosts.
 */
export function menuItems(hostConfigured: boolean): MenuItem[] {
  const items: MenuItem[] = [
    { label: '$(refresh) Restart Server', command: CMD_RESTART },
    { label: '$(output) Show Output', command: CMD_SHOW_OUTPUT },
    { label: '$(info) Show Version', command: CMD_SHOW_VERSION },
    { label: '$(checklist) Check Workspace', description: 'ahpls check on every workspace folder', command: CMD_CHECK_WORKSPACE },
    { label: '$(wand) Fix All in Workspace', description: 'every preferred quick fix, in every file', command: CMD_FIX_ALL_WORKSPACE },
    { label: '$(book) Open Rules Documentation', command: CMD_OPEN_RULES_DOCS },
  ];
  if (hostConfigured) {
    items.push({ label: '$(plug) Show Host Connection', command: CMD_SHOW_HOST_CONNECTION });
    items.push({ label: '$(key) Set Agent Host Token…', command: CMD_SET_HOST_TOKEN });
  }
  return items;
}

export interface CheckSummary {
  files: number;
  findings: number;
  bySeverity: Record<string, number>;
  /** One line a finding, as `ahpls check` prints them: rel:line:col: severity: message [rule]. */
  lines: string[];
}

/**
 * Sums up the JSON of `ahpls check --format json` for the message after
 * Check Workspace; undefined when the text is not that JSON.
 */
export function summarizeCheck(json: string): CheckSummary | undefined {
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch {
    return undefined;
  }
  const list = Array.isArray(v) ? v : v !== null && typeof v === 'object' ? ((v as Record<string, unknown>).diagnostics ?? (v as Record<string, unknown>).findings) : undefined;
  if (!Array.isArray(list)) {
    return undefined;
  }
  const files = new Set<string>();
  const bySeverity: Record<string, number> = {};
  const lines: string[] = [];
  for (const d of list) {
    if (d === null || typeof d !== 'object') continue;
    const r = d as Record<string, unknown>;
    const file = r.rel ?? r.path ?? r.file ?? r.uri;
    if (typeof file === 'string') files.add(file);
    const sev = typeof r.severity === 'string' ? r.severity : 'unknown';
    bySeverity[sev] = (bySeverity[sev] ?? 0) + 1;
    lines.push(`${String(file)}:${String(r.line ?? '?')}:${String(r.column ?? '?')}: ${sev}: ${String(r.message ?? '')}${typeof r.rule === 'string' ? ` [${r.rule}]` : ''}`);
  }
  return { files: files.size, findings: list.length, bySeverity, lines };
}

export const SCOPES = ['session', 'workspace', 'global'] as const;
export type Scope = (typeof SCOPES)[number];

/** Arguments of `ahpls.toggleCustomization`: a file (uri) or a customization id. */
export type ToggleArgs =
  | { uri: string; scope: Scope; enabled: boolean }
  | { id: string; scope: Scope; enabled: boolean };

export interface ToggleChoice {
  label: string;
  scope: Scope;
  enabled: boolean;
}

export function toggleChoices(): ToggleChoice[] {
  const where: Record<Scope, string> = {
    session: 'for this session',
    workspace: 'in this workspace',
    global: 'globally',
  };
  const out: ToggleChoice[] = [];
  for (const enabled of [false, true]) {
    for (const scope of SCOPES) {
      out.push({ label: `${enabled ? 'Enable' : 'Disable'} ${where[scope]}`, scope, enabled });
    }
  }
  return out;
}

export function buildToggleArgs(target: { uri?: string; id?: string }, scope: string, enabled: boolean): ToggleArgs {
  if (!(SCOPES as readonly string[]).includes(scope)) {
    throw new Error(`unknown scope '${scope}' (expected ${SCOPES.join(', ')})`);
  }
  const s = scope as Scope;
  if (target.id !== undefined && target.id !== '') {
    return { id: target.id, scope: s, enabled };
  }
  if (target.uri !== undefined && target.uri !== '') {
    return { uri: target.uri, scope: s, enabled };
  }
  throw new Error('toggle needs the uri of a customization file or a customization id');
}

/**
 * LSP commands the server did not advertise in executeCommandProvider. The
 * extension registers forwarders for these so code lenses naming them still work.
 */
export function unadvertisedLspCommands(advertised: readonly string[] | undefined): string[] {
  const have = new Set(advertised ?? []);
  return LSP_COMMANDS.filter((c) => !have.has(c));
}

/** Renders a workspace/executeCommand result for a message or the output channel. */
export function formatCommandResult(result: unknown): string {
  if (result === null || result === undefined) {
    return '';
  }
  if (typeof result === 'string') {
    return result;
  }
  return JSON.stringify(result, null, 2);
}

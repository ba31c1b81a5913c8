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

// The agent-host connection state that the server reports with the
// `ahpls/hostStatus` notification, and how the status bar shows it.

export const HOST_STATUS_NOTIFICATION = 'ahpls/hostStatus';

export const HOST_STATES = ['disconnected', 'connecting', 'connected', 'refused'] as const;
export type HostState = (typeof HOST_STATES)[number];

export interface HostStatus {
  state: HostState;
  message?: string;
  host?: string;
  /** Joined sessions with titles, from ahpls.showHostConnection (not part of the notification). */
  sessionDetails?: { uri: string; title?: string }[];
}

/** Validates notification params; undefined for anything malformed (never throws). */
export function parseHostStatus(params: unknown): HostStatus | undefined {
  if (params === null || typeof params !== 'object') {
    return undefined;
  }
  const p = params as Record<string, unknown>;
  if (typeof p.state !== 'string' || !(HOST_STATES as readonly string[]).includes(p.state)) {
    return undefined;
  }
  const out: HostStatus = { state: p.state as HostState };
  if (typeof p.message === 'string' && p.message !== '') {
    out.message = p.message;
  }
  if (typeof p.host === 'string' && p.host !== '') {
    out.host = p.host;
  }
  return out;
}

/** State of the language server process itself, from the client library. */
export type ServerState = 'starting' | 'running' | 'stopped';

export interface StatusPresentation {
  text: string;
  tooltip: string;
  /** 'error' and 'warning' map to the status bar's error/warning backgrounds. */
  level: 'normal' | 'warning' | 'error';
}

/** Whether a host status message says that no agent host is configured. */
export function saysUnconfigured(message: string | undefined): boolean {
  return message !== undefined && /not configured|no agent host configured/i.test(message);
}

/**
 * Whether an agent host is configured: the `ahpls.host` setting, or (an
 * `AHPLS_HOST` in the server's environment) a host status that names one.
 * Without one the status bar says nothing about hosts: most users only lint.
 */
export function hostConfigured(settingHost: string | undefined, host: HostStatus | undefined): boolean {
  if (settingHost !== undefined && settingHost !== '') {
    return true;
  }
  return host !== undefined && (host.host !== undefined || (host.state !== 'disconnected' && !saysUnconfigured(host.message)));
}

/** "ahpls 0.1.0" when the server said its version, else "ahpls". */
export function serverLabel(version: string | undefined): string {
  return version !== undefined && version !== '' ? `ahpls ${version}` : 'ahpls';
}

/**
 * The status bar item. `configured` is hostConfigured(): without a host the
 * item is neutral (the server's state only) and never shows a host state.
 */
export function presentStatus(server: ServerState, host: HostStatus | undefined, configured = true, version?: string): StatusPresentation {
  if (server === 'stopped') {
    return { text: '$(circle-slash) ahpls', tooltip: 'ahpls: language server is not running', level: 'error' };
  }
  if (server === 'starting') {
    return { text: '$(loading~spin) ahpls', tooltip: 'ahpls: starting the language server', level: 'normal' };
  }
  if (!configured) {
    return { text: '$(check) ahpls', tooltip: `${serverLabel(version)}: running (no agent host configured)`, level: 'normal' };
  }
  if (host === undefined) {
    return { text: '$(plug) ahpls', tooltip: 'ahpls: running; no agent host status reported yet', level: 'normal' };
  }
  const where = host.host !== undefined ? ` ${host.host}` : '';
  const detail = host.message !== undefined ? ` — ${host.message}` : '';
  switch (host.state) {
    case 'connected':
      return { text: '$(plug) ahpls: host', tooltip: `Agent host connected:${where}${detail}`, level: 'normal' };
    case 'connecting':
      return { text: '$(sync~spin) ahpls: host', tooltip: `Connecting to agent host${where}${detail}`, level: 'normal' };
    case 'refused':
      return { text: '$(error) ahpls: host', tooltip: `Agent host refused the connection${where}${detail}`, level: 'error' };
    case 'disconnected':
    default:
      return { text: '$(debug-disconnect) ahpls', tooltip: `Agent host disconnected${where}${detail}`, level: 'warning' };
  }
}

export interface LanguageStatusPresentation {
  text: string;
  /** What fits beside the text in the language status hover: the version and the host's address, no more. */
  detail: string;
  /** Everything: the host's last message and tool trust (the hover of the item's command). */
  tooltip: string;
  level: 'normal' | 'warning' | 'error';
}

/**
 * The language status item (the `{}` entry next to the language mode): the
 * server state, the host connection with its last error, and tool trust.
 * The detail stays short (a long one ran past the window's edge); the rest
 * is in the tooltip.
 */
export function presentLanguageStatus(server: ServerState, host: HostStatus | undefined, trustLine: string, version?: string): LanguageStatusPresentation {
  const v = version !== undefined && version !== '' ? serverLabel(version) : '';
  const trust = trustLine.replace(/\.$/, '');
  const join = (...xs: (string | undefined)[]): string => xs.filter((x) => x !== undefined && x !== '').join(' · ');
  if (server === 'stopped') {
    return { text: 'ahpls: stopped', detail: v, tooltip: join('language server not running', trust), level: 'error' };
  }
  if (server === 'starting') {
    return { text: 'ahpls: starting', detail: v, tooltip: trust, level: 'normal' };
  }
  if (host === undefined) {
    return { text: 'ahpls: running', detail: v, tooltip: join(v, 'no agent host status yet', trust), level: 'normal' };
  }
  const conn = [host.host, host.message].filter((x) => x !== undefined && x !== '').join(' — ');
  const tooltip = join(v, conn, trust);
  const short = join(v, host.host);
  const unconfigured = saysUnconfigured(host.message);
  switch (host.state) {
    case 'connected':
      return { text: 'ahpls: host connected', detail: short, tooltip, level: 'normal' };
    case 'connecting':
      return { text: 'ahpls: connecting', detail: short, tooltip, level: 'normal' };
    case 'refused':
      return { text: 'ahpls: host refused', detail: short, tooltip, level: 'error' };
    case 'disconnected':
    default:
      return unconfigured
        ? { text: 'ahpls: running', detail: v, tooltip, level: 'normal' }
        : { text: 'ahpls: host disconnected', detail: short, tooltip, level: 'warning' };
  }
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/**
 * The host connection as lines a person reads (not the raw JSON of
 * ahpls.showHostConnection): state and address, last message, protocol,
 * sessions, published plugins, tool collisions.
 */
export function formatHostConnection(status: HostStatus | undefined, result: unknown, configured: boolean): string[] {
  const r = result !== null && typeof result === 'object' && !Array.isArray(result) ? (result as Record<string, unknown>) : {};
  if (!configured && str(r.url) === undefined) {
    return ['Agent host: none configured (set ahpls.host to a ws:// or wss:// URL to publish customizations to one).'];
  }
  const lines: string[] = [];
  const state = str(r.state) ?? status?.state ?? 'not reported yet';
  const url = str(r.url) ?? status?.host;
  lines.push(`Agent host: ${state}${url !== undefined ? ` (${url})` : ''}`);
  const msg = str(r.message) ?? status?.message;
  if (msg !== undefined) lines.push(`  Last message: ${msg}`);
  if (str(r.protocolVersion) !== undefined || str(r.dialect) !== undefined) {
    lines.push(`  Protocol: ${str(r.protocolVersion) ?? '?'}${str(r.dialect) !== undefined ? ` (dialect ${str(r.dialect)})` : ''}`);
  }
  if (str(r.clientId) !== undefined) lines.push(`  Client id: ${str(r.clientId)}`);
  const details = list(r.sessionDetails) as Record<string, unknown>[];
  const sessions = list(r.sessions);
  if (details.length > 0) {
    lines.push('  Sessions:');
    for (const d of details) {
      const dirs = list(d?.workingDirectories).map(String).join(', ');
      lines.push(`    ${String(d?.uri)}${str(d?.title) !== undefined ? ` "${str(d?.title)}"` : ''}${dirs !== '' ? ` in ${dirs}` : ''}`);
    }
  } else if (sessions.length > 0) {
    lines.push('  Sessions:');
    for (const u of sessions) lines.push(`    ${String(u)}`);
  } else if (state === 'connected') {
    lines.push('  Sessions: none joined');
  }
  const plugins = list(r.plugins) as Record<string, unknown>[];
  if (plugins.length > 0) {
    lines.push('  Published plugins:');
    for (const p of plugins) {
      const omitted = list(p?.omitted).map(String);
      lines.push(`    ${String(p?.name ?? p?.id)}  ${String(p?.uri ?? '')}${omitted.length > 0 ? `  (left out: ${omitted.join(', ')})` : ''}`);
    }
  }
  for (const c of list(r.toolCollisions)) lines.push(`  Tool collision: ${String(c)}`);
  if (typeof result === 'string' && result !== '') lines.push(result);
  return lines;
}

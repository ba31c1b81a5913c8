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

export function presentStatus(server: ServerState, host: HostStatus | undefined): StatusPresentation {
  if (server === 'stopped') {
    return { text: '$(circle-slash) ahpls', tooltip: 'ahpls: language server is not running', level: 'error' };
  }
  if (server === 'starting') {
    return { text: '$(loading~spin) ahpls', tooltip: 'ahpls: starting the language server', level: 'normal' };
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
  detail: string;
  level: 'normal' | 'warning' | 'error';
}

/**
 * The language status item (the `{}` entry next to the language mode): the
 * server state, the host connection with its last error, and tool trust.
 */
export function presentLanguageStatus(server: ServerState, host: HostStatus | undefined, trustLine: string): LanguageStatusPresentation {
  const trust = trustLine.replace(/\.$/, '');
  if (server === 'stopped') {
    return { text: 'ahpls: stopped', detail: `language server not running · ${trust}`, level: 'error' };
  }
  if (server === 'starting') {
    return { text: 'ahpls: starting', detail: trust, level: 'normal' };
  }
  if (host === undefined) {
    return { text: 'ahpls: running', detail: `no agent host status yet · ${trust}`, level: 'normal' };
  }
  const conn = [host.host, host.message].filter((x) => x !== undefined && x !== '').join(' — ');
  const detail = (lead: string): string => [lead, trust].filter((x) => x !== '').join(' · ');
  const unconfigured = host.message !== undefined && /not configured|no agent host configured/i.test(host.message);
  switch (host.state) {
    case 'connected':
      return { text: 'ahpls: host connected', detail: detail(conn), level: 'normal' };
    case 'connecting':
      return { text: 'ahpls: connecting', detail: detail(conn), level: 'normal' };
    case 'refused':
      return { text: 'ahpls: host refused', detail: detail(conn), level: 'error' };
    case 'disconnected':
    default:
      return unconfigured
        ? { text: 'ahpls: running', detail: detail(conn), level: 'normal' }
        : { text: 'ahpls: host disconnected', detail: detail(conn), level: 'warning' };
  }
}

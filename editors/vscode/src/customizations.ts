// The "Customizations" view's model, built from the server's
// `ahpls.listCustomizations` answer ({ "<session uri>": Row[] }, enablement.Row
// in Go). No `vscode` import, so the shaping is tested under plain node; the
// extension turns these nodes into TreeItems.
import { SCOPES, Scope } from './commands';

export const LSP_LIST_CUSTOMIZATIONS = 'ahpls.listCustomizations';

export interface RowAction {
  title: string;
  id: string;
  scope: Scope;
  enabled: boolean;
}

export interface CustomizationRow {
  id: string;
  name: string;
  type: string;
  owner?: string;
  on: boolean;
  scopes: { session: boolean; workspace: boolean; global: boolean };
  reason?: string;
  pending?: boolean;
  overridden?: boolean;
  actions: RowAction[];
}

export interface SessionNode {
  kind: 'session';
  session: string;
  label: string;
  rows: CustomizationNode[];
}

export interface CustomizationNode {
  kind: 'customization';
  session: string;
  row: CustomizationRow;
  label: string;
  /** Short text after the label: the effective state and, when off, why. */
  description: string;
  tooltip: string;
  /** contextValue for the view's inline/context menus, e.g. "ahpls.customization.on". */
  contextValue: string;
  children: CustomizationNode[];
}

/** A single line shown instead of a tree (no server, no host, nothing published). */
export interface MessageNode {
  kind: 'message';
  label: string;
}

export type ViewNode = SessionNode | CustomizationNode | MessageNode;

function bool(v: unknown): boolean {
  return v === true;
}

/** Validates one row; undefined for anything malformed. */
export function parseRow(v: unknown): CustomizationRow | undefined {
  if (v === null || typeof v !== 'object') {
    return undefined;
  }
  const r = v as Record<string, unknown>;
  if (typeof r.id !== 'string' || r.id === '' || typeof r.name !== 'string') {
    return undefined;
  }
  const s = (r.scopes ?? {}) as Record<string, unknown>;
  const actions: RowAction[] = [];
  if (Array.isArray(r.actions)) {
    for (const a of r.actions as Record<string, unknown>[]) {
      if (a !== null && typeof a === 'object' && typeof a.id === 'string' && (SCOPES as readonly unknown[]).includes(a.scope)) {
        actions.push({ title: typeof a.title === 'string' ? a.title : '', id: a.id, scope: a.scope as Scope, enabled: bool(a.enabled) });
      }
    }
  }
  const row: CustomizationRow = {
    id: r.id,
    name: r.name,
    type: typeof r.type === 'string' ? r.type : '',
    on: bool(r.on),
    scopes: { session: bool(s.session), workspace: bool(s.workspace), global: bool(s.global) },
    actions,
  };
  if (typeof r.owner === 'string' && r.owner !== '') row.owner = r.owner;
  if (typeof r.reason === 'string' && r.reason !== '') row.reason = r.reason;
  if (r.pending === true) row.pending = true;
  if (r.overridden === true) row.overridden = true;
  return row;
}

function describe(row: CustomizationRow): string {
  const parts = [row.on ? 'on' : 'off'];
  if (!row.on && row.reason !== undefined) {
    parts[0] = `off — ${row.reason}`;
  }
  if (row.pending) parts.push('not confirmed by host');
  if (row.overridden) parts.push('overridden by host');
  return parts.join(' · ');
}

function customizationNode(session: string, row: CustomizationRow): CustomizationNode {
  const scopes = SCOPES.map((s) => `${s}: ${row.scopes[s] ? 'on' : 'off'}`).join(', ');
  const lines = [`${row.name} (${row.type || 'customization'})`, `Effective: ${row.on ? 'on' : 'off'}`];
  if (!row.on && row.reason !== undefined) lines.push(`Why off: ${row.reason}`);
  lines.push(`Scopes — ${scopes}`);
  return {
    kind: 'customization',
    session,
    row,
    label: row.name,
    description: describe(row),
    tooltip: lines.join('\n'),
    contextValue: `ahpls.customization.${row.on ? 'on' : 'off'}`,
    children: [],
  };
}

/**
 * Builds the view. Rows whose owner is another row of the same session
 * become its children (plugins hold their skills and MCP servers); a single
 * session is shown without a session level.
 */
export function buildTree(result: unknown, sessionTitles: Record<string, string> = {}): ViewNode[] {
  if (result === null || typeof result !== 'object' || Array.isArray(result)) {
    return [{ kind: 'message', label: 'The server sent no customization list.' }];
  }
  const sessions: SessionNode[] = [];
  for (const [session, rawRows] of Object.entries(result as Record<string, unknown>)) {
    if (!Array.isArray(rawRows)) continue;
    const nodes = new Map<string, CustomizationNode>();
    const order: CustomizationNode[] = [];
    for (const raw of rawRows) {
      const row = parseRow(raw);
      if (row === undefined || nodes.has(row.id)) continue;
      const n = customizationNode(session, row);
      nodes.set(row.id, n);
      order.push(n);
    }
    const top: CustomizationNode[] = [];
    for (const n of order) {
      const parent = n.row.owner !== undefined ? nodes.get(n.row.owner) : undefined;
      if (parent !== undefined && parent !== n) {
        parent.children.push(n);
      } else {
        top.push(n);
      }
    }
    sessions.push({ kind: 'session', session, label: sessionTitles[session] || session, rows: top });
  }
  if (sessions.length === 0) {
    return [{ kind: 'message', label: 'No agent host session: set ahpls.host to see and toggle customizations.' }];
  }
  if (sessions.length === 1) {
    const rows = sessions[0].rows;
    return rows.length > 0 ? rows : [{ kind: 'message', label: `Nothing published to ${sessions[0].label} yet.` }];
  }
  return sessions;
}

/** The row's toggle for `scope`: the server's own action when it sent one, else the opposite of the scope's value. */
export function toggleFor(row: CustomizationRow, scope: Scope): RowAction {
  const a = row.actions.find((x) => x.scope === scope);
  if (a !== undefined) {
    return a;
  }
  const enabled = !row.scopes[scope];
  return { title: `${enabled ? 'Enable' : 'Disable'} (${scope})`, id: row.id, scope, enabled };
}

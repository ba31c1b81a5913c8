// "What each agent sees" (issue #32) in the Customizations view: the
// server's `ahpls.listView` answer ([{ folder, uri, consumers }], view.View
// in Go) shaped into tree nodes, grouped by consumer, one consumer or all.
// It needs no agent host. No `vscode` import, so the shaping is tested under
// plain node; consumersView.ts turns the nodes into TreeItems.

export const LSP_LIST_VIEW = 'ahpls.listView';

/** The view's title-bar switch between one consumer and all. */
export const CHOOSE_CONSUMER = 'ahpls.customizations.chooseConsumer';

/** Every consumer the view knows, in the server's order. */
export const CONSUMERS: readonly { target: string; label: string }[] = [
  { target: 'vscode', label: 'VS Code' },
  { target: 'vscode-agent-host', label: 'VS Code agent host' },
  { target: 'claude-code', label: 'Claude Code' },
  { target: 'copilot-cli', label: 'Copilot CLI' },
  { target: 'agent-skills', label: 'Agent Skills spec' },
];

export interface ViewDescription {
  text: string;
  length: number;
  budget?: number;
  truncated?: boolean;
  budgetSource?: string;
}

export interface ViewItem {
  category: string;
  name: string;
  source: string;
  status: string;
  reason?: string;
  shadowedBy?: string;
  rule?: string;
  scope?: string;
  hostState?: string;
  /** "once plugin X from marketplace Y is installed" */
  install?: string;
  notes?: string[];
  description?: ViewDescription;
  components?: ViewItem[];
}

export interface ConsumerGroupNode {
  kind: 'consumer';
  target: string;
  label: string;
  /** "12 load · 1 shadowed · …" */
  description: string;
  children: ConsumerItemNode[];
}

export interface ConsumerItemNode {
  kind: 'consumerItem';
  /** Unique in the tree (one hooks file holds several "Stop" handlers). */
  key: string;
  target: string;
  label: string;
  description: string;
  tooltip: string;
  /** Absolute path of the source file: a click opens it. */
  path: string;
  status: string;
  contextValue: string;
  children: ConsumerItemNode[];
}

export type ConsumerNode = ConsumerGroupNode | ConsumerItemNode;

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** Validates one item (components too); undefined for anything malformed. */
export function parseItem(v: unknown): ViewItem | undefined {
  if (v === null || typeof v !== 'object') return undefined;
  const r = v as Record<string, unknown>;
  const name = str(r.name);
  const source = str(r.source);
  const status = str(r.status);
  if (name === undefined || source === undefined || status === undefined) return undefined;
  const it: ViewItem = { category: str(r.category) ?? '', name, source, status };
  for (const k of ['reason', 'shadowedBy', 'rule', 'scope', 'hostState', 'install'] as const) {
    const s = str(r[k]);
    if (s !== undefined && s !== '') it[k] = s;
  }
  if (Array.isArray(r.notes)) it.notes = r.notes.filter((n): n is string => typeof n === 'string');
  const d = r.description as Record<string, unknown> | undefined;
  if (d !== null && typeof d === 'object' && typeof d.text === 'string') {
    it.description = {
      text: d.text,
      length: typeof d.length === 'number' ? d.length : d.text.length,
      budget: typeof d.budget === 'number' ? d.budget : undefined,
      truncated: d.truncated === true,
      budgetSource: str(d.budgetSource),
    };
  }
  if (Array.isArray(r.components)) {
    it.components = r.components.map(parseItem).filter((c): c is ViewItem => c !== undefined);
  }
  return it;
}

/** What the row says after its name: the status and why. */
export function statusText(it: ViewItem): string {
  switch (it.status) {
    case 'loads': {
      const parts = [it.install ? `loads ${it.install}` : 'loads'];
      if (it.description?.truncated) parts.push(`description cut at ${it.description.budget}`);
      if (it.hostState) parts.push(`host: ${it.hostState}`);
      return parts.join(' · ');
    }
    case 'shadowed':
      return `shadowed by ${it.shadowedBy ?? '?'}`;
    case 'fails':
      return `fails: ${it.rule ?? ''}${it.reason ? ` — ${it.reason}` : ''}`;
    case 'disabled':
      return `disabled (${it.scope ?? '?'})`;
    case 'not-scanned':
      return `not scanned: ${it.reason ?? ''}`;
  }
  return it.status;
}

function join(folder: string, rel: string): string {
  const sep = folder.includes('\\') && !folder.includes('/') ? '\\' : '/';
  return folder.replace(/[\\/]+$/, '') + sep + rel.split('/').join(sep);
}

function itemNode(target: string, folder: string, it: ViewItem, key: string): ConsumerItemNode {
  const lines = [`${it.name} (${it.category})`, `Source: ${it.source}`, `Status: ${statusText(it)}`];
  if (it.description !== undefined) {
    lines.push(`Description as the model sees it (${it.description.length} characters${it.description.budget ? `, budget ${it.description.budget}` : ''}):`);
    lines.push(it.description.text.length > 300 ? `${it.description.text.slice(0, 300)}…` : it.description.text);
    if (it.description.budgetSource) lines.push(`Budget source: ${it.description.budgetSource}`);
  }
  for (const n of it.notes ?? []) lines.push(`Note: ${n}`);
  return {
    kind: 'consumerItem',
    key,
    target,
    label: it.name,
    description: statusText(it),
    tooltip: lines.join('\n'),
    path: join(folder, it.source),
    status: it.status,
    contextValue: `ahpls.view.${it.status}`,
    children: (it.components ?? []).map((c, i) => itemNode(target, folder, c, `${key}/${i}`)),
  };
}

function counts(items: ViewItem[]): string {
  const n = new Map<string, number>();
  for (const it of items) n.set(it.status, (n.get(it.status) ?? 0) + 1);
  return [...n.entries()].map(([s, k]) => `${k} ${s}`).join(' · ');
}

/**
 * Builds the consumer groups of the view. `consumer` keeps one target ("" or
 * undefined: all). With several folders, items keep their own folder's path.
 */
export function buildConsumerTree(result: unknown, consumer?: string): ConsumerNode[] {
  if (!Array.isArray(result)) return [];
  const groups = new Map<string, ConsumerGroupNode>();
  for (const fv of result as Record<string, unknown>[]) {
    if (fv === null || typeof fv !== 'object' || !Array.isArray(fv.consumers)) continue;
    const folder = str(fv.folder) ?? '';
    for (const c of fv.consumers as Record<string, unknown>[]) {
      const target = str(c?.target);
      if (target === undefined || (consumer && consumer !== target)) continue;
      const items = Array.isArray(c.items) ? c.items.map(parseItem).filter((i): i is ViewItem => i !== undefined) : [];
      let g = groups.get(target);
      if (g === undefined) {
        g = { kind: 'consumer', target, label: str(c.name) ?? target, description: '', children: [] };
        groups.set(target, g);
      }
      const base = g.children.length;
      g.children.push(...items.map((it, i) => itemNode(target, folder, it, `${target}/${folder}/${base + i}`)));
      g.description = counts(items);
    }
  }
  const out = [...groups.values()];
  if (consumer) {
    // One consumer: its items at the top level.
    return out.length === 1 ? out[0].children : [];
  }
  return out;
}

// The Customizations view's consumer groups (#32) as TreeItems, and the
// switch between one consumer and all. The shaping is in consumers.ts.
import * as vscode from 'vscode';
import { CONSUMERS, ConsumerNode } from './consumers';

export { CHOOSE_CONSUMER } from './consumers';

const ICONS: Record<string, string> = {
  loads: 'pass-filled',
  shadowed: 'layers',
  'not-scanned': 'eye-closed',
  fails: 'error',
  disabled: 'circle-slash',
};

/** "" = every consumer; else one target id. */
let chosen = '';

export function chosenConsumer(): string {
  return chosen;
}

export function consumerTreeItem(n: ConsumerNode): vscode.TreeItem {
  if (n.kind === 'consumer') {
    const t = new vscode.TreeItem(n.label, vscode.TreeItemCollapsibleState.Collapsed);
    t.id = `consumer\u0000${n.target}`;
    t.description = n.description;
    t.contextValue = 'ahpls.consumer';
    return t;
  }
  const t = new vscode.TreeItem(n.label, n.children.length > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
  t.id = `consumer\u0000${n.key}`;
  t.description = n.description;
  t.tooltip = n.tooltip;
  t.contextValue = n.contextValue;
  t.iconPath = new vscode.ThemeIcon(ICONS[n.status] ?? 'circle-outline');
  t.resourceUri = vscode.Uri.file(n.path);
  t.command = { command: 'vscode.open', title: 'Open', arguments: [vscode.Uri.file(n.path)] };
  return t;
}

/** Asks which consumer to show; returns true when the choice changed. */
export async function chooseConsumer(): Promise<boolean> {
  const items = [{ label: 'All consumers', target: '' }, ...CONSUMERS.map((c) => ({ label: c.label, target: c.target }))].map((c) => ({
    ...c,
    description: c.target === chosen ? 'shown' : undefined,
  }));
  const pick = await vscode.window.showQuickPick(items, { placeHolder: 'Show what which consumer loads' });
  if (pick === undefined || pick.target === chosen) {
    return false;
  }
  chosen = pick.target;
  return true;
}

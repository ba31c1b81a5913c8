// A recording stand-in for the `vscode` module, just large enough to run the
// extension's activate() under plain node (VS Code itself cannot run here).
// Unknown properties resolve to inert classes so vscode-languageclient loads.
import Module = require('node:module');

export interface Recorder {
  settings: Record<string, unknown>;
  trusted: boolean;
  commands: Map<string, (...args: unknown[]) => unknown>;
  errors: string[];
  infos: string[];
  warnings: string[];
  log: string[];
  statusItems: { text: string; tooltip: unknown; command: unknown; visible: boolean; backgroundColor: unknown }[];
  languageStatus: { text: string; detail: string; severity: number; busy: boolean } | undefined;
  grantTrust: () => void;
}

export const rec: Recorder = {
  settings: {},
  trusted: true,
  commands: new Map(),
  errors: [],
  infos: [],
  warnings: [],
  log: [],
  statusItems: [],
  languageStatus: undefined,
  grantTrust: () => undefined,
};

const disposable = { dispose: () => undefined };

class Inert {
  constructor(..._args: unknown[]) {}
}

function inertNamespace(): unknown {
  return new Proxy(
    {},
    {
      get: (_t, p) => (p === 'then' ? undefined : typeof p === 'string' && /^on[A-Z]/.test(p) ? () => disposable : Inert),
    },
  );
}

class Uri {
  constructor(readonly scheme: string, readonly fsPath: string) {}
  toString(): string {
    return `${this.scheme}://${this.fsPath}`;
  }
  static file(p: string): Uri {
    return new Uri('file', p);
  }
}

const trustListeners: (() => void)[] = [];
rec.grantTrust = () => {
  rec.trusted = true;
  trustListeners.forEach((l) => l());
};

const fake: Record<string, unknown> = {
  Uri,
  ThemeColor: class {
    constructor(readonly id: string) {}
  },
  StatusBarAlignment: { Left: 1, Right: 2 },
  LanguageStatusSeverity: { Information: 0, Warning: 1, Error: 2 },
  TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
  EventEmitter: class {
    event = () => disposable;
    fire(): void {}
    dispose(): void {}
  },
  languages: {
    createLanguageStatusItem: (id: string) => {
      const item = { id, text: '', detail: '', severity: 0, busy: false, name: '', command: undefined, dispose() {} };
      rec.languageStatus = item;
      return item;
    },
    // The fake workspace has one SKILL.md open, so the server starts at activation.
    match: () => 1,
  },
  Disposable: class {
    static from(): unknown {
      return disposable;
    }
    dispose(): void {}
  },
  window: new Proxy(
    {
      createOutputChannel: () => ({
        info: (m: string) => rec.log.push(`info ${m}`),
        warn: (m: string) => rec.log.push(`warn ${m}`),
        error: (m: string) => rec.log.push(`error ${m}`),
        appendLine: (m: string) => rec.log.push(m),
        show: () => undefined,
        dispose: () => undefined,
      }),
      createTreeView: () => disposable,
      createStatusBarItem: () => {
        const item = { text: '', tooltip: undefined, command: undefined, visible: false, backgroundColor: undefined, name: '', show() { item.visible = true; }, hide() { item.visible = false; }, dispose() {} };
        rec.statusItems.push(item);
        return item;
      },
      showErrorMessage: async (m: string) => void rec.errors.push(m),
      showWarningMessage: async (m: string) => void rec.warnings.push(m),
      showInformationMessage: async (m: string) => void rec.infos.push(m),
      showQuickPick: async () => undefined,
      activeTextEditor: undefined,
    } as Record<string | symbol, unknown>,
    { get: (t, p) => (p in t ? t[p] : typeof p === 'string' && /^on[A-Z]/.test(p) ? () => disposable : Inert) },
  ),
  commands: {
    registerCommand: (id: string, fn: (...args: unknown[]) => unknown) => {
      if (rec.commands.has(id)) {
        throw new Error(`command '${id}' already exists`);
      }
      rec.commands.set(id, fn);
      return { dispose: () => rec.commands.delete(id) };
    },
    executeCommand: async () => undefined,
  },
  workspace: new Proxy(
    {
      getConfiguration: () => ({
        get: (k: string) => rec.settings[k],
      }),
      get isTrusted() {
        return rec.trusted;
      },
      workspaceFolders: undefined,
      textDocuments: [{ uri: Uri.file('/w/.github/skills/s/SKILL.md') }],
      findFiles: async () => [],
      onDidChangeConfiguration: () => disposable,
      onDidGrantWorkspaceTrust: (l: () => void) => {
        trustListeners.push(l);
        return disposable;
      },
    } as Record<string | symbol, unknown>,
    { get: (t, p) => (p in t ? t[p] : typeof p === 'string' && /^on[A-Z]/.test(p) ? () => disposable : Inert) },
  ),
};

const proxy = new Proxy(fake, {
  get: (t, p) => (typeof p === 'string' && p in t ? t[p] : typeof p === 'string' && /^[a-z]/.test(p) ? inertNamespace() : Inert),
});

/** Makes `require('vscode')` return the fake; call before loading the extension. */
export function installFakeVscode(): void {
  const m = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
  const load = m._load;
  m._load = function (request: string, ...rest: unknown[]) {
    if (request === 'vscode') {
      return proxy;
    }
    return load.call(this, request, ...rest);
  };
}

// Mapping of the `ahpls.*` VS Code settings to the server's `ahpls` settings
// section. No `vscode` import: the extension passes a reader over
// vscode.workspace.getConfiguration('ahpls'), tests pass a plain object.
import { gateToolTrust } from './trust';

export const SECTION = 'ahpls';

export const RULE_LEVELS = ['off', 'error', 'warning', 'info', 'hint'] as const;
export type RuleLevel = (typeof RULE_LEVELS)[number];

/** The server's `ahpls` section, as sent in initializationOptions and pushed on change. */
export interface ServerSettings {
  targets: string[];
  impliedTargets: boolean;
  /** Agent host WebSocket URL; absent when none is configured. */
  host?: string;
  sessions: 'auto' | string[];
  trustWorkspaceTools: boolean;
  rules: Record<string, RuleLevel>;
  /** Globs of files the server leaves alone (`ahpls.exclude`). */
  exclude: string[];
  /** Headers for the WebSocket upgrade; absent when none are set. */
  hostHeaders?: Record<string, string>;
  /** More command tools (`{ tools: [...] }`, as .ahpls/tools.json); absent when unset. */
  tools?: Record<string, unknown>;
}

/** The part of vscode.WorkspaceConfiguration we read (keys relative to `ahpls.`). */
export interface ConfigReader {
  get<T>(key: string): T | undefined;
}

export interface MappedSettings {
  settings: ServerSettings;
  /** Problems with the user's values, one sentence each, for the output channel. */
  warnings: string[];
}

function stringArray(v: unknown): string[] | undefined {
  if (!Array.isArray(v)) {
    return undefined;
  }
  return v.filter((x): x is string => typeof x === 'string').map((x) => x.trim()).filter((x) => x !== '');
}

/**
 * Builds the server section. `workspaceTrusted` is vscode.workspace.isTrusted:
 * the server runs client tools, so the opt-in only reaches it in a trusted workspace.
 */
export function toServerSettings(cfg: ConfigReader, workspaceTrusted: boolean): MappedSettings {
  const warnings: string[] = [];

  const rawTargets = cfg.get<unknown>('targets');
  const targets = stringArray(rawTargets) ?? [];
  if (rawTargets !== undefined && !Array.isArray(rawTargets)) {
    warnings.push("ahpls.targets must be a list of target ids; using the default targets.");
  }
  // Target ids are forwarded as written: the server knows the consumers
  // (model.Consumers) and warns about an unknown one.

  const impliedTargets = cfg.get<unknown>('impliedTargets') !== false;

  let host: string | undefined;
  const rawHost = cfg.get<unknown>('host');
  if (typeof rawHost === 'string' && rawHost.trim() !== '') {
    const h = rawHost.trim();
    if (/^wss?:\/\/[^\s/]+/i.test(h)) {
      host = h;
    } else {
      warnings.push(`ahpls.host '${h}' is not a ws:// or wss:// URL; not connecting to an agent host.`);
    }
  }

  let sessions: 'auto' | string[] = 'auto';
  const rawSessions = cfg.get<unknown>('sessions');
  if (Array.isArray(rawSessions)) {
    sessions = stringArray(rawSessions) ?? [];
  } else if (rawSessions !== undefined && rawSessions !== 'auto') {
    warnings.push("ahpls.sessions must be \"auto\" or a list of session URIs; using \"auto\".");
  }

  const rules: Record<string, RuleLevel> = {};
  const rawRules = cfg.get<unknown>('rules');
  if (rawRules !== undefined && rawRules !== null) {
    if (typeof rawRules !== 'object' || Array.isArray(rawRules)) {
      warnings.push('ahpls.rules must map rule ids to off|error|warning|info|hint.');
    } else {
      for (const [id, level] of Object.entries(rawRules as Record<string, unknown>)) {
        const l = typeof level === 'string' ? level.toLowerCase() : level;
        if ((RULE_LEVELS as readonly unknown[]).includes(l)) {
          rules[id] = l as RuleLevel;
        } else {
          warnings.push(`ahpls.rules: '${id}' has level '${String(level)}'; use off|error|warning|info|hint.`);
        }
      }
    }
  }

  const rawExclude = cfg.get<unknown>('exclude');
  const exclude = stringArray(rawExclude) ?? [];
  if (rawExclude !== undefined && rawExclude !== null && !Array.isArray(rawExclude)) {
    warnings.push('ahpls.exclude must be a list of globs; ignored.');
  }

  let hostHeaders: Record<string, string> | undefined;
  const rawHeaders = cfg.get<unknown>('hostHeaders');
  if (rawHeaders !== undefined && rawHeaders !== null) {
    if (typeof rawHeaders !== 'object' || Array.isArray(rawHeaders)) {
      warnings.push('ahpls.hostHeaders must map header names to strings; ignored.');
    } else {
      for (const [name, value] of Object.entries(rawHeaders as Record<string, unknown>)) {
        if (typeof value === 'string') {
          (hostHeaders ??= {})[name] = value;
        } else {
          warnings.push(`ahpls.hostHeaders: '${name}' is not a string; left out.`);
        }
      }
    }
  }

  let tools: Record<string, unknown> | undefined;
  const rawTools = cfg.get<unknown>('tools');
  if (rawTools !== undefined && rawTools !== null) {
    if (typeof rawTools !== 'object' || Array.isArray(rawTools)) {
      warnings.push('ahpls.tools must be an object like .ahpls/tools.json ({ "tools": [...] }); ignored.');
    } else if (Object.keys(rawTools).length > 0) {
      tools = rawTools as Record<string, unknown>;
    }
  }

  const requested = cfg.get<unknown>('trustWorkspaceTools') === true;
  const settings: ServerSettings = {
    targets,
    impliedTargets,
    sessions,
    trustWorkspaceTools: gateToolTrust(requested, workspaceTrusted),
    rules,
    exclude,
  };
  if (host !== undefined) {
    settings.host = host;
  }
  if (hostHeaders !== undefined) {
    settings.hostHeaders = hostHeaders;
  }
  if (tools !== undefined) {
    settings.tools = tools;
  }
  return { settings, warnings };
}

/** Deep equality for pushing only real changes to the server. */
export function sameSettings(a: ServerSettings | undefined, b: ServerSettings): boolean {
  return a !== undefined && canonical(a) === canonical(b);
}

function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, val: unknown) => {
    if (val !== null && typeof val === 'object' && !Array.isArray(val)) {
      const o = val as Record<string, unknown>;
      return Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));
    }
    return val;
  });
}

/**
 * Answers a workspace/configuration item. The server asks for `ahpls` (the
 * whole section) or `ahpls.<key>`; other sections are not ours (undefined = let
 * the client library answer).
 */
export function answerConfigurationItem(section: string | undefined, settings: ServerSettings): { handled: boolean; value?: unknown } {
  if (section === SECTION) {
    return { handled: true, value: settings };
  }
  if (section !== undefined && section.startsWith(SECTION + '.')) {
    const key = section.slice(SECTION.length + 1) as keyof ServerSettings;
    return { handled: true, value: settings[key] ?? null };
  }
  return { handled: false };
}

// Finding the ahpls binary. Kept free of the `vscode` module so the lookup order
// can be tested under plain node: the setting wins, then a binary shipped inside
// the extension's bin/ folder, then PATH.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export type BinarySource = 'setting' | 'bundled' | 'path';

export interface ResolvedBinary {
  path: string;
  source: BinarySource;
}

/** What the lookup needs from the machine; injected so tests can use real temp dirs. */
export interface BinaryEnv {
  platform: NodeJS.Platform;
  arch: string;
  /** The PATH variable (Path on Windows), undefined when unset. */
  pathEnv: string | undefined;
  /** PATHEXT on Windows, e.g. ".COM;.EXE;.BAT;.CMD". */
  pathExt?: string;
  homeDir: string;
  extensionPath: string;
  /** First workspace folder, used to resolve a relative `ahpls.path`. */
  workspaceFolder?: string;
  isExecutableFile(p: string): boolean;
}

export class BinaryNotFoundError extends Error {
  constructor(message: string, readonly tried: string[]) {
    super(message);
    this.name = 'BinaryNotFoundError';
  }
}

const BASE_NAME = 'ahpls';

function exeNames(env: BinaryEnv): string[] {
  if (env.platform !== 'win32') {
    return [BASE_NAME];
  }
  const exts = (env.pathExt ?? '.EXE;.CMD;.BAT;.COM')
    .split(';')
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== '');
  return [BASE_NAME + '.exe', ...exts.filter((e) => e !== '.exe').map((e) => BASE_NAME + e)];
}

function expandSetting(raw: string, env: BinaryEnv): string {
  let p = raw.trim();
  if (p === '~') {
    p = env.homeDir;
  } else if (p.startsWith('~/') || p.startsWith('~\\')) {
    p = path.join(env.homeDir, p.slice(2));
  }
  if (env.workspaceFolder !== undefined) {
    p = p.replace(/\$\{workspaceFolder\}/g, env.workspaceFolder);
  }
  if (!path.isAbsolute(p) && env.workspaceFolder !== undefined) {
    p = path.join(env.workspaceFolder, p);
  }
  return p;
}

/**
 * Resolves the server binary. A configured path that does not point at an
 * executable file is an error rather than a silent fallback: a user who set it
 * expects that binary, not another one from PATH.
 */
export function resolveBinary(setting: string | undefined, env: BinaryEnv): ResolvedBinary {
  const tried: string[] = [];
  if (setting !== undefined && setting.trim() !== '') {
    const p = expandSetting(setting, env);
    if (env.isExecutableFile(p)) {
      return { path: p, source: 'setting' };
    }
    throw new BinaryNotFoundError(`ahpls.path is set to '${setting}', but '${p}' is not an executable file.`, [p]);
  }
  const binDir = path.join(env.extensionPath, 'bin');
  for (const dir of [path.join(binDir, `${env.platform}-${env.arch}`), binDir]) {
    for (const name of exeNames(env)) {
      const p = path.join(dir, name);
      tried.push(p);
      if (env.isExecutableFile(p)) {
        return { path: p, source: 'bundled' };
      }
    }
  }
  const sep = env.platform === 'win32' ? ';' : ':';
  for (const rawDir of (env.pathEnv ?? '').split(sep)) {
    // An empty PATH entry means the current directory; never run a binary from
    // wherever the editor happened to start.
    const dir = rawDir.replace(/^"(.*)"$/, '$1');
    if (dir === '' || !path.isAbsolute(dir)) {
      continue;
    }
    for (const name of exeNames(env)) {
      const p = path.join(dir, name);
      tried.push(p);
      if (env.isExecutableFile(p)) {
        return { path: p, source: 'path' };
      }
    }
  }
  throw new BinaryNotFoundError(
    "Cannot find the ahpls binary: set 'ahpls.path', or put 'ahpls' on PATH (go install github.com/ahpls-dev/ahpls/cmd/ahpls@latest).",
    tried,
  );
}

export function isExecutableFile(p: string): boolean {
  try {
    if (!fs.statSync(p).isFile()) {
      return false;
    }
    if (process.platform !== 'win32') {
      fs.accessSync(p, fs.constants.X_OK);
    }
    return true;
  } catch {
    return false;
  }
}

/** The real machine, as the extension sees it. */
export function nodeBinaryEnv(extensionPath: string, workspaceFolder?: string): BinaryEnv {
  return {
    platform: process.platform,
    arch: process.arch,
    pathEnv: process.env.PATH ?? process.env.Path,
    pathExt: process.env.PATHEXT,
    homeDir: os.homedir(),
    extensionPath,
    workspaceFolder,
    isExecutableFile,
  };
}

/**
 * Zip extraction may drop the executable bit of the binaries a platform vsix
 * ships in bin/ (VS Code keeps it; other installers may not). Restores it so
 * the bundled server is found instead of failing over to PATH, and so
 * `ahpls mcp` can run the ahpls-mcp beside it. Best effort.
 */
export function repairBundledBinary(extensionPath: string, platform: NodeJS.Platform = process.platform): void {
  if (platform === 'win32') {
    return;
  }
  for (const name of [BASE_NAME, `${BASE_NAME}-mcp`]) {
    const p = path.join(extensionPath, 'bin', name);
    try {
      if (fs.statSync(p).isFile() && !isExecutableFile(p)) {
        fs.chmodSync(p, 0o755);
      }
    } catch {
      // No bundled binary (a development checkout) or a read-only install.
    }
  }
}

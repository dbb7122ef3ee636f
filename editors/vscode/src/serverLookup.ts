// Where the warplens server binary is: the `warplens.serverPath` setting,
// else the binary bundled in the extension (bin/warplens), else `warplens`
// on PATH, else where an install puts it (~/.local/bin, /usr/local/bin,
// /usr/bin). A missing binary is a ServerNotFoundError that names every
// place that was tried, instead of the language client's bare ENOENT.
//
// No `vscode` import: the settings, the extension's directory and the
// environment come in as a ServerLookup (serverBinary.ts fills it from the
// editor), so tests/editors/vscode/server_lookup_test.js runs this with
// fake directories, PATH and HOME under plain Node.
import * as fs from 'fs';
import * as path from 'path';

export class ServerNotFoundError extends Error {}

export interface ServerLookup {
  configured: string;                 // warplens.serverPath as set ('' when unset)
  extensionPath: string;              // the extension's directory (bin/warplens inside)
  workspaceFolder?: string;           // the first workspace folder, for a relative serverPath
  cwd: string;                        // when there is no workspace folder
  env: { PATH?: string; HOME?: string };
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function findOnPath(name: string, searchPath: string | undefined): string | undefined {
  for (const dir of (searchPath ?? '').split(path.delimiter)) {
    if (dir && isExecutable(path.join(dir, name))) return path.join(dir, name);
  }
  return undefined;
}

function expandHome(p: string, home: string | undefined): string {
  return p.startsWith('~/') ? path.join(home ?? '', p.slice(2)) : p;
}

export function installedLocations(home: string | undefined): string[] {
  return [
    ...(home ? [path.join(home, '.local', 'bin', 'warplens')] : []),
    '/usr/local/bin/warplens',
    '/usr/bin/warplens',
  ];
}

export function findServerBinary(lookup: ServerLookup): string {
  const configured = lookup.configured.trim();
  if (configured) {
    const candidate = expandHome(configured, lookup.env.HOME);
    if (candidate.includes(path.sep)) {
      const absolute = path.isAbsolute(candidate) ? candidate
        : path.join(lookup.workspaceFolder ?? lookup.cwd, candidate);
      if (isExecutable(absolute)) return absolute;
      throw new ServerNotFoundError(`warplens.serverPath is set to "${configured}", but ${absolute} is not an executable file.`);
    }
    const onPath = findOnPath(candidate, lookup.env.PATH);
    if (onPath) return onPath;
    throw new ServerNotFoundError(`warplens.serverPath is set to "${configured}", which is not on PATH.`);
  }
  // Then the binary bundled in the extension, then PATH, then the places
  // `cmake --install` and the .deb put it (VS Code started from a desktop
  // launcher often has a PATH without ~/.local/bin or /usr/local/bin).
  const tried: string[] = [];
  const bundled = path.join(lookup.extensionPath, 'bin', 'warplens');
  tried.push(bundled);
  if (isExecutable(bundled)) return bundled;
  const onPath = findOnPath('warplens', lookup.env.PATH);
  tried.push('"warplens" on PATH');
  if (onPath) return onPath;
  for (const installed of installedLocations(lookup.env.HOME)) {
    tried.push(installed);
    if (isExecutable(installed)) return installed;
  }
  throw new ServerNotFoundError(
    `The warplens server was not found. Looked at: ${tried.join(', ')}. ` +
    'Install it (the warplens .deb, or `cmake --install build --prefix ~/.local`) or set "warplens.serverPath".');
}

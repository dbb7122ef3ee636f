// Finds the warplens binary: the `warplens.serverPath` setting, else the
// binary bundled in the extension (bin/warplens), else `warplens` on PATH,
// else where an install puts it (~/.local/bin, /usr/local/bin, /usr/bin).
// A missing binary is reported with the places that were tried, instead of
// letting the language client fail with a bare ENOENT.
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';

export class ServerNotFoundError extends Error {}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function findOnPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && isExecutable(path.join(dir, name))) return path.join(dir, name);
  }
  return undefined;
}

function expandHome(p: string): string {
  return p.startsWith('~/') ? path.join(process.env.HOME ?? '', p.slice(2)) : p;
}

export function resolveServerBinary(context: vscode.ExtensionContext): string {
  const configured = vscode.workspace.getConfiguration('warplens').get<string>('serverPath', '').trim();
  if (configured) {
    const candidate = expandHome(configured);
    if (candidate.includes(path.sep)) {
      const absolute = path.isAbsolute(candidate) ? candidate
        : path.join(vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? process.cwd(), candidate);
      if (isExecutable(absolute)) return absolute;
      throw new ServerNotFoundError(`warplens.serverPath is set to "${configured}", but ${absolute} is not an executable file.`);
    }
    const onPath = findOnPath(candidate);
    if (onPath) return onPath;
    throw new ServerNotFoundError(`warplens.serverPath is set to "${configured}", which is not on PATH.`);
  }
  // Then the binary bundled in the extension, then PATH, then the places
  // `cmake --install` and the .deb put it (VS Code started from a desktop
  // launcher often has a PATH without ~/.local/bin or /usr/local/bin).
  const tried: string[] = [];
  const bundled = context.asAbsolutePath(path.join('bin', 'warplens'));
  tried.push(bundled);
  if (isExecutable(bundled)) return bundled;
  const onPath = findOnPath('warplens');
  tried.push('"warplens" on PATH');
  if (onPath) return onPath;
  for (const installed of installedLocations()) {
    tried.push(installed);
    if (isExecutable(installed)) return installed;
  }
  throw new ServerNotFoundError(
    `The warplens server was not found. Looked at: ${tried.join(', ')}. ` +
    'Install it (the warplens .deb, or `cmake --install build --prefix ~/.local`) or set "warplens.serverPath".');
}

export function installedLocations(): string[] {
  const home = process.env.HOME ?? '';
  return [
    ...(home ? [path.join(home, '.local', 'bin', 'warplens')] : []),
    '/usr/local/bin/warplens',
    '/usr/bin/warplens',
  ];
}

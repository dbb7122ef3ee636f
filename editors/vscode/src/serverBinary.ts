// Finds the warplens binary for the language client: serverLookup.ts
// decides (the setting, the bundled binary, PATH, the install locations);
// this file only reads the editor's side of it.
import * as vscode from 'vscode';
import { findServerBinary } from './serverLookup';

export { ServerNotFoundError } from './serverLookup';

export function resolveServerBinary(context: vscode.ExtensionContext): string {
  return findServerBinary({
    configured: vscode.workspace.getConfiguration('warplens').get<string>('serverPath', ''),
    extensionPath: context.extensionPath,
    workspaceFolder: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
    cwd: process.cwd(),
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
  });
}

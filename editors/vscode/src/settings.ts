// The `warplens.*` settings the server reads, built from the one schema
// (server/settings_schema.json, bundled by esbuild): every entry with side
// "server" is read from VS Code's configuration and sent, nested by its
// dots, as initializationOptions.warplens and in the workspace/configuration
// answers. Nothing is listed by hand here, so a new server setting reaches
// the server as soon as it is in the schema (and, generated from it, in
// package.json).
import * as vscode from 'vscode';
import schema from '../../../server/settings_schema.json';

export interface SettingEntry {
  key: string;
  side: 'server' | 'client';
  restricted?: boolean;
  default?: unknown;
  blockShape?: boolean;
}

export const settingEntries: SettingEntry[] = (schema as { settings: SettingEntry[] }).settings;

/** Resolved by the client before sending: what `clangDiagnostics: auto` means here. */
export type ClangDiagnostics = 'on' | 'off';

function setNested(target: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split('.');
  let at = target;
  for (const p of parts.slice(0, -1)) {
    if (typeof at[p] !== 'object' || at[p] === null) at[p] = {};
    at = at[p] as Record<string, unknown>;
  }
  at[parts[parts.length - 1]] = value;
}

/**
 * The server's settings object. `clangAuto` is what `auto` resolves to
 * (off while clangd or cpptools is active). An empty block shape ([]) is
 * sent as null: the server's default.
 */
export function readServerSettings(clangAuto: ClangDiagnostics): Record<string, unknown> {
  const c = vscode.workspace.getConfiguration('warplens');
  const out: Record<string, unknown> = {};
  for (const e of settingEntries) {
    if (e.side !== 'server') continue;
    let value = c.get<unknown>(e.key, e.default);
    if (e.blockShape && Array.isArray(value) && value.length === 0) value = null;
    if (e.key === 'clangDiagnostics' && value === 'auto') value = clangAuto;
    setNested(out, e.key, value === undefined ? null : value);
  }
  return out;
}

/** Settings whose change needs a new server process rather than didChangeConfiguration. */
export const restartSettings = ['warplens.serverPath', 'warplens.arguments'];

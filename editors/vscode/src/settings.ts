// Maps the `warplens.*` VS Code settings onto the object the server reads
// under `warplens` in initializationOptions and workspace/didChangeConfiguration.
// Client-only settings (server path, arguments, trace) are left out.
import * as vscode from 'vscode';

export interface ServerSettings {
  arch: string;
  cudaPath: string;
  compileCommandsDir: string;
  thresholds: { uncoalesced: number; bankConflict: number; occupancy: number };
  /** null: the server's default (an empty array is not a valid block shape). */
  defaultBlockSize: number[] | null;
  debounceMs: number;
  profileCommand: string;
  buildCommand: string;
  llm: { endpoint: string; model: string };
}

function blockSize(dims: number[]): number[] | null {
  return Array.isArray(dims) && dims.length > 0 ? dims : null;
}

export function readServerSettings(): ServerSettings {
  const c = vscode.workspace.getConfiguration('warplens');
  return {
    arch: c.get<string>('arch', 'sm_90'),
    cudaPath: c.get<string>('cudaPath', ''),
    compileCommandsDir: c.get<string>('compileCommandsDir', ''),
    thresholds: {
      uncoalesced: c.get<number>('thresholds.uncoalesced', 1.25),
      bankConflict: c.get<number>('thresholds.bankConflict', 2),
      occupancy: c.get<number>('thresholds.occupancy', 0.5),
    },
    defaultBlockSize: blockSize(c.get<number[]>('defaultBlockSize', [])),
    debounceMs: c.get<number>('debounceMs', 300),
    profileCommand: c.get<string>('profileCommand', ''),
    buildCommand: c.get<string>('buildCommand', ''),
    llm: {
      endpoint: c.get<string>('llm.endpoint', ''),
      model: c.get<string>('llm.model', ''),
    },
  };
}

/** Settings whose change needs a new server process rather than didChangeConfiguration. */
export const restartSettings = ['warplens.serverPath', 'warplens.arguments'];

// The warplens server's custom LSP surface, in one place: command names sent
// through workspace/executeCommand, the status notification, and the
// client-side command the server puts into code actions. Everything else the
// extension speaks is plain LSP handled by vscode-languageclient.
import { NotificationType } from 'vscode-languageclient/node';

/** Commands the server executes (listed in its executeCommandProvider). */
export const ServerCommand = {
  profile: 'warplens.profile',
  optimize: 'warplens.optimize',
  report: 'warplens.report',
  kernelView: 'warplens.kernelView',
  cancelJob: 'warplens.cancelJob',
  listJobs: 'warplens.listJobs',
  clearProfile: 'warplens.clearProfile',
  reanalyze: 'warplens.reanalyze',
} as const;

/**
 * Client-side command of the server's code lenses: opens the kernel's
 * report view. arguments: [{uri, kernel}]. Never listed by the server.
 */
export const ShowKernelReportCommand = 'warplens.showKernelReport';

/**
 * Client-side command the server attaches to verified-rewrite code actions.
 * The server must NOT list it in executeCommandProvider: VS Code runs it here.
 * arguments: [PreviewRewriteArgs]
 */
export const PreviewRewriteCommand = 'warplens.previewRewrite';

export interface PreviewRewriteArgs {
  /** Short title, e.g. "Pad tile to [32][33] (verified: 1.8x faster)". */
  title: string;
  /** The proposed change, as an LSP WorkspaceEdit (versioned documentChanges preferred). */
  edit: import('vscode-languageclient/node').WorkspaceEdit;
  /** Optional markdown evidence (timings, checks) shown beside the diff. */
  summary?: string;
}

/** Arguments of warplens.optimize / warplens.profile / warplens.report. */
export interface KernelTarget {
  uri: string;
  /** Cursor position (0-based, UTF-16); the server picks the kernel around it. */
  position?: { line: number; character: number };
  /** Kernel name, when the user named one instead of a position. */
  kernel?: string;
}

export type ServerState = 'starting' | 'parsing' | 'ready';

/** Payload of the `warplens/status` notification. */
export interface ServerStatus {
  state: ServerState;
  /** Whether this server build has the Clang front end. */
  frontend?: boolean;
  cudaFound?: boolean;
  cudaPath?: string;
  cudaVersion?: string;
  degraded?: boolean;
  /** The GPU found: its name, or an object with a `name`; null/absent when none. */
  gpu?: string | { name?: string } | null;
}

/** The GPU's display name, or '' when none was found. */
export function gpuName(status: ServerStatus): string {
  if (typeof status.gpu === 'string') return status.gpu;
  if (status.gpu && typeof status.gpu === 'object' && typeof status.gpu.name === 'string') return status.gpu.name;
  return '';
}

export const StatusNotification = new NotificationType<ServerStatus>('warplens/status');

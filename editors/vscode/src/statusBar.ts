// The status-bar item: what the server is doing (starting, parsing, ready),
// whether it found a CUDA toolkit (or runs degraded on its bundled prelude)
// and a GPU. Fed by the client's state changes and by `warplens/status`.
// The text always starts with "warplens: <state>", a stable hook for tests.
import * as vscode from 'vscode';
import { ServerStatus, gpuName } from './protocol';

export class StatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;

  constructor() {
    this.item = vscode.window.createStatusBarItem('warplens.status', vscode.StatusBarAlignment.Left, 10);
    this.item.name = 'warplens';
    this.item.command = 'warplens.showOutput';
    this.show('starting', 'Starting the warplens server…');
  }

  /** A client-side state: starting, running (before the first status), stopped, failed. */
  show(state: string, tooltip: string, problem = false): void {
    this.item.text = `warplens: ${state}`;
    this.item.tooltip = tooltip;
    this.item.backgroundColor = problem ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    this.item.show();
  }

  /** The server's own report. */
  update(status: ServerStatus): void {
    const parts = [`warplens: ${status.state}`];
    if (status.state !== 'starting') {
      if (status.degraded || !status.cudaFound) parts.push('degraded (no CUDA)');
      else parts.push(status.cudaVersion ? `CUDA ${status.cudaVersion}` : 'CUDA');
      parts.push(gpuName(status) ? `GPU ${gpuName(status)}` : 'no GPU');
    }
    this.item.text = parts.join(' · ');
    const lines = [
      `**warplens** — ${status.state}`,
      '',
      `- front end: ${status.frontend === false ? 'missing (this build has no Clang)' : 'Clang 19'}`,
      status.cudaFound
        ? `- CUDA toolkit: ${status.cudaVersion ?? '?'} at \`${status.cudaPath ?? '?'}\``
        : '- CUDA toolkit: not found',
      status.degraded ? '- degraded mode: parsing with the bundled CUDA prelude; results are approximate' : undefined,
      `- GPU: ${gpuName(status) || 'none found (profiling and verified rewrites are unavailable)'}`,
      '',
      'Click to show the server output.',
    ];
    this.item.tooltip = new vscode.MarkdownString(lines.filter((l) => l !== undefined).join('\n'));
    this.item.backgroundColor = status.degraded
      ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}

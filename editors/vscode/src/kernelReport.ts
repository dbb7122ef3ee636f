// "warplens: Show kernel report": a webview beside the source with the
// kernel's pictures (src/reportView.ts), from warplens.kernelView; also what
// a code lens opens (warplens.showKernelReport {uri, kernel}) and where an
// optimize result's before/after bars appear. One panel per kernel, reused
// and refreshed. "Show file report (JSON)" keeps the raw warplens.report.
import * as vscode from 'vscode';
import { ExecuteCommandRequest, LanguageClient } from 'vscode-languageclient/node';
import { KernelTarget, ServerCommand } from './protocol';
import { KernelView, OptimizeResult, reportHtml } from './reportView';
import { VirtualDocuments } from './virtualDocuments';

export const reportScheme = 'warplens-report';

const panels = new Map<string, vscode.WebviewPanel>();
const lastOptimize = new Map<string, OptimizeResult>();  // by uri + kernel

function panelKey(uri: string, kernel: string): string {
  return `${uri}#${kernel}`;
}

async function kernelView(client: LanguageClient, target: KernelTarget): Promise<KernelView> {
  return (await client.sendRequest(ExecuteCommandRequest.type, {
    command: ServerCommand.kernelView, arguments: [target],
  })) as KernelView;
}

export async function showKernelReport(
  client: LanguageClient, target: KernelTarget, optimize?: OptimizeResult,
): Promise<vscode.WebviewPanel> {
  const view = await kernelView(client, target);
  const key = panelKey(target.uri, view.kernel.name);
  if (optimize) lastOptimize.set(key, optimize);
  let panel = panels.get(key);
  if (!panel) {
    panel = vscode.window.createWebviewPanel('warplens.kernelReport', `warplens: ${view.kernel.name}`,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, { enableScripts: false });
    panels.set(key, panel);
    panel.onDidDispose(() => panels.delete(key));
  } else {
    panel.reveal(vscode.ViewColumn.Beside, true);
  }
  panel.webview.html = reportHtml(view, lastOptimize.get(key), panel.webview.cspSource);
  return panel;
}

/** Re-draws open report panels of a document (after new results arrive). */
export async function refreshKernelReports(client: LanguageClient, uri: string): Promise<void> {
  for (const [key, panel] of panels) {
    if (!key.startsWith(`${uri}#`)) continue;
    const kernel = key.slice(uri.length + 1);
    try {
      const view = await kernelView(client, { uri, kernel });
      panel.webview.html = reportHtml(view, lastOptimize.get(key), panel.webview.cspSource);
    } catch {
      // The kernel may be gone or the document changed again: the next refresh catches up.
    }
  }
}

export async function showFileReportJson(
  client: LanguageClient, provider: VirtualDocuments, target: KernelTarget,
): Promise<void> {
  const report = await client.sendRequest(ExecuteCommandRequest.type, {
    command: ServerCommand.report, arguments: [target],
  });
  const source = vscode.Uri.parse(target.uri);
  const uri = vscode.Uri.from({ scheme: provider.scheme, path: `${source.path}.report.json` });
  provider.set(uri, typeof report === 'string' ? report : JSON.stringify(report, null, 2));
  const document = await vscode.workspace.openTextDocument(uri);
  await vscode.languages.setTextDocumentLanguage(document, 'json');
  await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, preview: true });
}

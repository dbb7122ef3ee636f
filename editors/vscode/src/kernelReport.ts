// "warplens: Show kernel report": asks the server for the report of the
// current file (warplens.report returns JSON) and shows it in a read-only
// virtual document beside the source.
import * as vscode from 'vscode';
import { ExecuteCommandRequest, LanguageClient } from 'vscode-languageclient/node';
import { KernelTarget, ServerCommand } from './protocol';

export const reportScheme = 'warplens-report';

export class KernelReportProvider implements vscode.TextDocumentContentProvider {
  private readonly reports = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  set(uri: vscode.Uri, text: string): void {
    this.reports.set(uri.toString(), text);
    this.changed.fire(uri);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.reports.get(uri.toString()) ?? '';
  }
}

export async function showKernelReport(
  client: LanguageClient, provider: KernelReportProvider, target: KernelTarget,
): Promise<void> {
  const report = await client.sendRequest(ExecuteCommandRequest.type, {
    command: ServerCommand.report, arguments: [target],
  });
  const source = vscode.Uri.parse(target.uri);
  const uri = vscode.Uri.from({ scheme: reportScheme, path: `${source.path}.report.json` });
  provider.set(uri, typeof report === 'string' ? report : JSON.stringify(report, null, 2));
  const document = await vscode.workspace.openTextDocument(uri);
  await vscode.languages.setTextDocumentLanguage(document, 'json');
  await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, preview: true });
}

// "warplens: Show kernel report": asks the server for the report of the
// current file (warplens.report returns JSON) and shows it in a read-only
// virtual document beside the source.
import * as vscode from 'vscode';
import { ExecuteCommandRequest, LanguageClient } from 'vscode-languageclient/node';
import { KernelTarget, ServerCommand } from './protocol';
import { VirtualDocuments } from './virtualDocuments';

export const reportScheme = 'warplens-report';

export async function showKernelReport(
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

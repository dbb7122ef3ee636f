// warplens.previewRewrite: a verified rewrite is never applied straight from
// the code-action menu. The server's code action carries the proposed
// WorkspaceEdit as the command's argument; this shows it as a diff against
// the current text (a virtual read-only document) and applies it only when
// the user confirms. A document edited in the meantime makes a versioned edit
// fail to apply, which is reported instead of clobbering the user's text.
import * as vscode from 'vscode';
import { LanguageClient } from 'vscode-languageclient/node';
import { PreviewRewriteArgs } from './protocol';
import { VirtualDocuments } from './virtualDocuments';

export const previewScheme = 'warplens-preview';

/** The text `document` would have after `edits` (non-overlapping, as LSP requires). */
export function applyTextEdits(document: vscode.TextDocument, edits: readonly vscode.TextEdit[]): string {
  const text = document.getText();
  const sorted = [...edits].sort((a, b) => document.offsetAt(b.range.start) - document.offsetAt(a.range.start));
  let result = text;
  for (const edit of sorted) {
    const start = document.offsetAt(edit.range.start);
    const end = document.offsetAt(edit.range.end);
    result = result.slice(0, start) + edit.newText + result.slice(end);
  }
  return result;
}

export async function previewRewrite(
  client: LanguageClient, provider: VirtualDocuments, args: PreviewRewriteArgs,
): Promise<boolean> {
  if (!args || !args.edit) {
    void vscode.window.showErrorMessage('warplens: the rewrite to preview carries no edit.');
    return false;
  }
  const edit = await client.protocol2CodeConverter.asWorkspaceEdit(args.edit);
  const entries = edit.entries();
  if (entries.length === 0) {
    void vscode.window.showInformationMessage(`warplens: "${args.title}" changes nothing.`);
    return false;
  }
  // One diff per changed file; a rewrite normally touches one.
  for (const [uri, edits] of entries) {
    const document = await vscode.workspace.openTextDocument(uri);
    const previewUri = vscode.Uri.from({
      scheme: provider.scheme, path: uri.path, query: `rewrite=${Date.now()}`,
    });
    provider.set(previewUri, applyTextEdits(document, edits));
    await vscode.commands.executeCommand(
      'vscode.diff', uri, previewUri, `${vscode.workspace.asRelativePath(uri)} ↔ warplens: ${args.title}`,
      { preview: true });
  }
  const detail = args.summary ? `\n${args.summary}` : '';
  const choice = await vscode.window.showInformationMessage(
    `warplens: apply "${args.title}"?${detail}`, 'Apply', 'Discard');
  await closePreviews();
  if (choice !== 'Apply') return false;
  const applied = await vscode.workspace.applyEdit(edit);
  if (!applied) {
    void vscode.window.showErrorMessage(
      'warplens: the rewrite was not applied (the file changed since it was verified). Run the optimization again.');
  }
  return applied;
}

async function closePreviews(): Promise<void> {
  const previews = vscode.window.tabGroups.all.flatMap((group) => group.tabs).filter(
    (tab) => tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.scheme === previewScheme);
  if (previews.length > 0) await vscode.window.tabGroups.close(previews);
}

// Read-only virtual documents (the kernel report, rewrite proposals): text
// kept in memory under a URI of the extension's own scheme, so VS Code can
// show and diff it without a file on disk.
import * as vscode from 'vscode';

export class VirtualDocuments implements vscode.TextDocumentContentProvider {
  private readonly contents = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  constructor(readonly scheme: string) {}

  set(uri: vscode.Uri, text: string): void {
    this.contents.set(uri.toString(), text);
    this.changed.fire(uri);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? '';
  }

  register(): vscode.Disposable {
    return vscode.workspace.registerTextDocumentContentProvider(this.scheme, this);
  }
}

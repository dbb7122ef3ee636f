// Long server jobs (profile, optimize) as a notification with a working
// Cancel button. vscode-languageclient shows server progress only as a silent
// status-bar spinner, so the extension wraps the executeCommand request in
// window.withProgress itself. It passes a workDoneToken so the server's
// $/progress reports (message, percentage) appear in the notification.
// Cancel sends $/cancelRequest for the request and warplens.cancelJob, and
// closes the notification at once, even if the server is slow to answer.
import * as vscode from 'vscode';
import {
  ExecuteCommandRequest, LanguageClient, WorkDoneProgress, WorkDoneProgressBegin,
  WorkDoneProgressReport,
} from 'vscode-languageclient/node';
import { ServerCommand } from './protocol';

let nextToken = 1;

export class JobCancelled extends Error {
  constructor() { super('cancelled'); }
}

/** Runs one server command under a cancellable notification; resolves with its result. */
export async function runServerJob<T>(
  client: LanguageClient, title: string, command: string, args: unknown[],
): Promise<T> {
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title, cancellable: true },
    async (progress, token) => {
      const workDoneToken = `warplens-job-${process.pid}-${nextToken++}`;
      let lastPercentage = 0;
      const progressSubscription = client.onProgress(WorkDoneProgress.type, workDoneToken, (value) => {
        if (value.kind === 'end') return;
        const update = value as WorkDoneProgressBegin | WorkDoneProgressReport;
        const report: { message?: string; increment?: number } = { message: update.message };
        if (typeof update.percentage === 'number' && update.percentage > lastPercentage) {
          report.increment = update.percentage - lastPercentage;
          lastPercentage = update.percentage;
        }
        progress.report(report);
      });
      const requestCancellation = new vscode.CancellationTokenSource();
      const cancelled = new Promise<never>((_, reject) => {
        token.onCancellationRequested(() => {
          requestCancellation.cancel(); // $/cancelRequest for this request
          client.sendRequest(ExecuteCommandRequest.type, { command: ServerCommand.cancelJob, arguments: [] })
            .then(undefined, (e) => client.warn(`warplens.cancelJob failed: ${e}`));
          reject(new JobCancelled());
        });
      });
      const request = client.sendRequest(
        ExecuteCommandRequest.type, { command, arguments: args as any[], workDoneToken }, requestCancellation.token);
      request.then(undefined, () => undefined); // settles later when cancelled; never unhandled
      try {
        return (await Promise.race([request, cancelled])) as T;
      } finally {
        progressSubscription.dispose();
        requestCancellation.dispose();
      }
    });
}

/** Cancels whatever job the server is running (for the "Cancel running job" command). */
export async function cancelRunningJob(client: LanguageClient): Promise<void> {
  await client.sendRequest(ExecuteCommandRequest.type, { command: ServerCommand.cancelJob, arguments: [] });
}

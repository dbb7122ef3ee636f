// warplens for VS Code: starts the warplens language server for CUDA files
// (`cuda-cpp`), shows its state in the status bar, and adds the commands that
// the server's custom surface needs a UI for (long jobs with a Cancel button,
// the kernel report view, diff previews of verified rewrites, the LLM API
// key), plus a palette entry for every server command.
//
// Workspace trust (package.json capabilities.untrustedWorkspaces: limited):
// in an untrusted workspace the server still analyses (it parses and runs
// nvcc on the code, as clangd parses it), VS Code ignores the workspace's
// values of the settings that run programs or send code elsewhere
// (restrictedConfigurations, from the schema's `restricted`), and Profile
// and Optimize, which build and run the workspace's code, refuse to start.
import * as vscode from 'vscode';
import {
  CloseAction, CloseHandlerResult, DidChangeConfigurationNotification, ErrorAction, ErrorHandler,
  ErrorHandlerResult, ExecuteCommandRequest, LanguageClient, LanguageClientOptions, ServerOptions, State,
} from 'vscode-languageclient/node';
import { activeCppExtensions, clangAuto, watchCppExtensions } from './cppServers';
import { JobCancelled, cancelRunningJob, runServerJob } from './jobs';
import { refreshKernelReports, reportScheme, showFileReportJson, showKernelReport } from './kernelReport';
import {
  KernelTarget, PreviewRewriteArgs, PreviewRewriteCommand, ServerCommand, ShowKernelReportCommand, StatusNotification,
} from './protocol';
import { OptimizeResult } from './reportView';
import { previewRewrite, previewScheme } from './rewritePreview';
import { ServerNotFoundError, resolveServerBinary } from './serverBinary';
import { readServerSettings, restartSettings } from './settings';
import { StatusBar } from './statusBar';
import { VirtualDocuments } from './virtualDocuments';

const apiKeySecret = 'warplens.llmApiKey';

let client: LanguageClient | undefined;
let output: vscode.LogOutputChannel;
let statusBar: StatusBar;
let extensionContext: vscode.ExtensionContext;

/** Restarts a crashed server a few times, then gives up and says so. */
class CrashPolicy implements ErrorHandler {
  private crashes: number[] = [];

  error(): ErrorHandlerResult {
    return { action: ErrorAction.Continue };
  }

  closed(): CloseHandlerResult {
    const now = Date.now();
    this.crashes = this.crashes.filter((t) => now - t < 3 * 60_000);
    this.crashes.push(now);
    if (this.crashes.length <= 3) {
      statusBar.show('restarting', 'The warplens server exited unexpectedly; restarting it.', true);
      return { action: CloseAction.Restart, handled: true };
    }
    statusBar.show('crashed', 'The warplens server crashed repeatedly. Click to see its output.', true);
    return {
      action: CloseAction.DoNotRestart,
      message: 'The warplens server crashed 4 times in 3 minutes and will not be restarted. ' +
        'Run "warplens: Show output" for its log, then "warplens: Restart server".',
    };
  }
}

async function startClient(): Promise<void> {
  let command: string;
  try {
    command = resolveServerBinary(extensionContext);
  } catch (e) {
    if (!(e instanceof ServerNotFoundError)) throw e;
    statusBar.show('server not found', e.message, true);
    output.appendLine(e.message);
    void vscode.window.showErrorMessage(e.message, 'Open Settings').then((choice) => {
      if (choice) void vscode.commands.executeCommand('workbench.action.openSettings', 'warplens.serverPath');
    });
    return;
  }
  const args = vscode.workspace.getConfiguration('warplens').get<string[]>('arguments', []);
  const apiKey = await extensionContext.secrets.get(apiKeySecret);
  // The server inherits the editor's environment (PATH, HOME, CUDA_PATH: nvcc
  // needs them to find its host compiler, or resource usage is lost) and
  // gets the key on top. The key travels only there: never in settings,
  // arguments or logs.
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (apiKey) env.WARPLENS_LLM_API_KEY = apiKey;
  const serverOptions: ServerOptions = { command, args, options: { env } };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file', language: 'cuda-cpp' }],
    initializationOptions: { warplens: readServerSettings(clangAuto()) },
    outputChannel: output,
    errorHandler: new CrashPolicy(),
    middleware: {
      // New results (resource usage arrives seconds after the parse) redraw open report views.
      handleDiagnostics: (uri, diagnostics, next) => {
        next(uri, diagnostics);
        if (client?.isRunning()) void refreshKernelReports(client, uri.toString());
      },
      workspace: {
        // The server may pull the `warplens` section; answer with the server's
        // keys only (VS Code's section also holds client-only settings such as
        // serverPath, which the server would report as unknown).
        configuration: async (params, token, next) => {
          const results = await next(params, token);
          if (!Array.isArray(results)) return results;
          return params.items.map((item, i) => (item.section === 'warplens' ? readServerSettings(clangAuto()) : results[i]));
        },
      },
    },
  };
  output.appendLine(`Starting ${command} ${args.join(' ')}`);
  const newClient = new LanguageClient('warplens', 'warplens', serverOptions, clientOptions);
  newClient.onNotification(StatusNotification, (status) => statusBar.update(status));

  newClient.onDidChangeState(({ newState }) => {
    if (newState === State.Starting) statusBar.show('starting', `Starting ${command}`);
    else if (newState === State.Running) statusBar.show('running', `${command} is running`);
    else if (client === newClient) statusBar.show('stopped', 'The warplens server is not running. Click to see its output.', true);
  });
  client = newClient;
  try {
    await newClient.start();
  } catch (e) {
    statusBar.show('failed to start', `${command} failed to start: ${e}. Click to see its output.`, true);
    output.appendLine(`warplens failed to start: ${e}`);
  }
}

async function stopClient(): Promise<void> {
  const old = client;
  client = undefined;
  if (old) {
    try {
      await old.stop(5000);
    } catch (e) {
      output.appendLine(`warplens did not stop cleanly: ${e}`);
    }
  }
}

async function restartClient(): Promise<void> {
  await stopClient();
  await startClient();
}

function runningClient(): LanguageClient | undefined {
  if (client?.isRunning()) return client;
  void vscode.window.showErrorMessage('warplens: the server is not running. Run "warplens: Show output" to see why.');
  return undefined;
}

/** The CUDA editor the command applies to, or a message saying why there is none. */
function cudaEditorTarget(withPosition: boolean): KernelTarget | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== 'cuda-cpp') {
    void vscode.window.showErrorMessage('warplens: open a CUDA (.cu/.cuh) file first.');
    return undefined;
  }
  const target: KernelTarget = { uri: editor.document.uri.toString() };
  if (withPosition) {
    const p = editor.selection.active;
    target.position = { line: p.line, character: p.character };
  }
  return target;
}

/** Runs a long job and reports its outcome; cancellation is not an error. */
async function job(title: string, command: string, args: unknown[]): Promise<unknown> {
  const c = runningClient();
  if (!c) return undefined;
  try {
    return await runServerJob(c, title, command, args);
  } catch (e) {
    if (e instanceof JobCancelled) {
      void vscode.window.showInformationMessage(`${title}: cancelled.`);
    } else {
      void vscode.window.showErrorMessage(`${title} failed: ${e instanceof Error ? e.message : e}`);
    }
    return undefined;
  }
}

function summaryOf(result: unknown): string | undefined {
  if (typeof result === 'string') return result;
  if (result && typeof result === 'object' && typeof (result as { summary?: unknown }).summary === 'string') {
    return (result as { summary: string }).summary;
  }
  return undefined;
}

async function optimizeKernelAtCursor(previews: VirtualDocuments): Promise<void> {
  const target = cudaEditorTarget(true);
  if (!target) return;
  await optimizeKernel(previews, target);
}

/**
 * warplens.optimizeKernel {uri, kernel | position}: the server's "Optimize
 * kernel `name`" code action runs this client-side command, so the job gets
 * the same notification progress, Cancel button and diff preview as the
 * command palette's "Optimize kernel at cursor".
 */
async function optimizeKernel(previews: VirtualDocuments, target: KernelTarget): Promise<void> {
  if (!trusted('Optimize kernel')) return;
  const result = await job('warplens: optimizing kernel', ServerCommand.optimize, [target]);
  if (result === undefined) return;
  const optimize = result as (OptimizeResult & { rewrites?: PreviewRewriteArgs[]; report?: string }) | null;
  const rewrites = optimize?.rewrites ?? [];
  const summary = summaryOf(result) ?? `${rewrites.length} verified rewrite(s).`;
  const report = optimize?.report;
  // The before/after bars of every candidate, in the kernel's report view.
  if (optimize && client?.isRunning() && optimize.candidates?.length) {
    await showKernelReport(client, { uri: target.uri, kernel: optimize.kernel }, optimize)
      .catch((e) => output.appendLine(`warplens: could not show the optimize result: ${e}`));
  }
  const openReport = async () => {
    if (report) await vscode.window.showTextDocument(vscode.Uri.file(report), { preview: true });
  };
  if (rewrites.length === 0) {
    const choice = await vscode.window.showInformationMessage(`warplens: ${summary}`, ...(report ? ['Open report'] : []));
    if (choice === 'Open report') await openReport();
    return;
  }
  type Item = vscode.QuickPickItem & { rewrite?: PreviewRewriteArgs };
  const items: Item[] = rewrites.map((r) => ({ label: r.title, detail: r.summary, rewrite: r }));
  if (report) items.push({ label: '$(file) Open the full report', detail: report });
  const picked = await vscode.window.showQuickPick(items,
    { title: `warplens: ${summary}`, placeHolder: 'Preview a verified rewrite' });
  if (!picked) return;
  if (picked.rewrite) {
    if (client) await previewRewrite(client, previews, picked.rewrite);
  } else {
    await openReport();
  }
}

/** Profile and Optimize build and run the workspace's code: only in a trusted workspace. */
function trusted(what: string): boolean {
  if (vscode.workspace.isTrusted) return true;
  void vscode.window.showErrorMessage(
    `warplens: ${what} builds and runs this workspace's code; trust the workspace first (Workspaces: Manage Workspace Trust).`,
    'Manage Workspace Trust').then((choice) => {
    if (choice) void vscode.commands.executeCommand('workbench.trust.manage');
  });
  return false;
}

async function profileFile(): Promise<void> {
  const target = cudaEditorTarget(false);
  if (!target || !trusted('Profile')) return;
  const result = await job('warplens: profiling', ServerCommand.profile, [target]);
  if (result !== undefined) {
    void vscode.window.showInformationMessage(`warplens: ${summaryOf(result) ?? 'profile finished; measured findings are shown as diagnostics.'}`);
  }
}

/**
 * warplens.runJob {command, arguments?, title?}: any server command as a
 * cancellable job (for keybindings, e.g. warplens.reanalyze); the result is
 * shown as a message.
 */
async function runJobCommand(spec: { command?: string; arguments?: unknown[]; title?: string } | undefined): Promise<unknown> {
  if (!spec || typeof spec.command !== 'string' || !spec.command.startsWith('warplens.')) {
    void vscode.window.showErrorMessage('warplens.runJob needs {"command": "warplens.<name>", "arguments": [...]}.');
    return undefined;
  }
  const title = spec.title ?? `warplens: ${spec.command}`;
  const result = await job(title, spec.command, spec.arguments ?? []);
  if (result !== undefined) void vscode.window.showInformationMessage(`${title}: ${summaryOf(result) ?? 'done'}.`);
  return result;
}

async function setLlmApiKey(): Promise<void> {
  const key = await vscode.window.showInputBox({
    title: 'warplens: LLM API key',
    prompt: 'Kept in VS Code\'s secret storage and passed to the server as WARPLENS_LLM_API_KEY. Leave empty to remove it.',
    password: true,
    ignoreFocusOut: true,
  });
  if (key === undefined) return;
  if (key === '') await extensionContext.secrets.delete(apiKeySecret);
  else await extensionContext.secrets.store(apiKeySecret, key);
  await restartClient();
  void vscode.window.showInformationMessage(key ? 'warplens: API key saved; server restarted.' : 'warplens: API key removed.');
}

/** A quick request to the server (not a job): its error is shown, once. */
async function request(title: string, command: string, args: unknown[]): Promise<unknown> {
  const c = runningClient();
  if (!c) return undefined;
  try {
    return await c.sendRequest(ExecuteCommandRequest.type, { command, arguments: args as any[] });
  } catch (e) {
    void vscode.window.showErrorMessage(`${title} failed: ${e instanceof Error ? e.message : e}`);
    return undefined;
  }
}

async function reportCommand(target: KernelTarget | undefined): Promise<void> {
  const c = runningClient();
  if (!c || !target) return;
  try {
    await showKernelReport(c, target);
  } catch (e) {
    void vscode.window.showErrorMessage(`warplens: no kernel report: ${e instanceof Error ? e.message : e}`);
  }
}

async function listJobs(): Promise<void> {
  const jobs = (await request('warplens: list jobs', ServerCommand.listJobs, [])) as
    { id: number; title: string; running: boolean }[] | undefined;
  if (!jobs) return;
  if (jobs.length === 0) {
    void vscode.window.showInformationMessage('warplens: no job is running.');
    return;
  }
  const picked = await vscode.window.showQuickPick(
    jobs.map((j) => ({ label: j.title, description: j.running ? 'running' : 'queued', id: j.id })),
    { title: 'warplens: jobs', placeHolder: 'Pick a job to cancel it' });
  if (picked) await request('warplens: cancel job', ServerCommand.cancelJob, [{ id: picked.id }]);
}

function sendSettings(): void {
  if (client?.isRunning()) {
    void client.sendNotification(DidChangeConfigurationNotification.type, {
      settings: { warplens: readServerSettings(clangAuto()) },
    });
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  extensionContext = context;
  output = vscode.window.createOutputChannel('warplens', { log: true });
  statusBar = new StatusBar();
  const previews = new VirtualDocuments(previewScheme);
  const reports = new VirtualDocuments(reportScheme);
  const documentTarget = (all: boolean) => {
    if (all) return {};
    const editor = vscode.window.activeTextEditor;
    return editor?.document.languageId === 'cuda-cpp' ? { uri: editor.document.uri.toString() } : undefined;
  };
  context.subscriptions.push(
    output,
    statusBar,
    previews.register(),
    reports.register(),
    vscode.commands.registerCommand('warplens.optimizeKernelAtCursor', () => optimizeKernelAtCursor(previews)),
    vscode.commands.registerCommand('warplens.optimizeKernel', (target?: KernelTarget) =>
      target && typeof target.uri === 'string' ? optimizeKernel(previews, target) : optimizeKernelAtCursor(previews)),
    vscode.commands.registerCommand('warplens.profileFile', profileFile),
    vscode.commands.registerCommand('warplens.showKernelReportAtCursor', () => reportCommand(cudaEditorTarget(true))),
    // The code lenses' command: [{uri, kernel}].
    vscode.commands.registerCommand(ShowKernelReportCommand, (target?: KernelTarget) =>
      reportCommand(target && typeof target.uri === 'string' ? target : cudaEditorTarget(true))),
    // An optimize result to draw (e.g. a recorded one): {kernel, uri, candidates, summary?, gpu?}.
    vscode.commands.registerCommand('warplens.showOptimizeResult', async (result?: OptimizeResult & { uri?: string }) => {
      const c = runningClient();
      if (!c || !result?.uri || !result.kernel) return;
      await showKernelReport(c, { uri: result.uri, kernel: result.kernel }, result);
    }),
    vscode.commands.registerCommand('warplens.showFileReportJson', async () => {
      const c = runningClient();
      const target = c && cudaEditorTarget(true);
      if (!c || !target) return;
      try {
        await showFileReportJson(c, reports, target);
      } catch (e) {
        void vscode.window.showErrorMessage(`warplens: no report: ${e instanceof Error ? e.message : e}`);
      }
    }),
    vscode.commands.registerCommand('warplens.reanalyzeFile', () => {
      const t = documentTarget(false);
      if (!t) void vscode.window.showErrorMessage('warplens: open a CUDA (.cu/.cuh) file first.');
      else void request('warplens: re-analyse', ServerCommand.reanalyze, [t]);
    }),
    vscode.commands.registerCommand('warplens.reanalyzeAll', () =>
      request('warplens: re-analyse', ServerCommand.reanalyze, [documentTarget(true)])),
    vscode.commands.registerCommand('warplens.clearFileProfile', () => {
      const t = documentTarget(false);
      if (!t) void vscode.window.showErrorMessage('warplens: open a CUDA (.cu/.cuh) file first.');
      else void request('warplens: clear measured results', ServerCommand.clearProfile, [t]);
    }),
    vscode.commands.registerCommand('warplens.clearAllProfiles', () =>
      request('warplens: clear measured results', ServerCommand.clearProfile, [{}])),
    vscode.commands.registerCommand('warplens.showJobs', listJobs),
    vscode.commands.registerCommand('warplens.cancelRunningJob', async () => {
      const c = runningClient();
      if (c) await cancelRunningJob(c);
    }),
    vscode.commands.registerCommand('warplens.restartServer', restartClient),
    vscode.commands.registerCommand('warplens.showOutput', () => output.show(true)),
    vscode.commands.registerCommand('warplens.setLlmApiKey', setLlmApiKey),
    vscode.commands.registerCommand('warplens.runJob', runJobCommand),
    vscode.commands.registerCommand(PreviewRewriteCommand, (args: PreviewRewriteArgs) =>
      client ? previewRewrite(client, previews, args) : false),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (restartSettings.some((s) => event.affectsConfiguration(s))) void restartClient();
      else if (event.affectsConfiguration('warplens')) sendSettings();
    }),
    // Trust granted: the restricted settings' workspace values now count.
    vscode.workspace.onDidGrantWorkspaceTrust(() => void restartClient()),
    // clangDiagnostics auto: clangd or cpptools started (or stopped) serving C++.
    watchCppExtensions((value) => {
      output.appendLine(`warplens: clangDiagnostics auto is now ${value}` +
        (value === 'off' ? ` (${activeCppExtensions().join(', ')} active)` : ''));
      sendSettings();
    }),
  );
  await startClient();
}

export function deactivate(): Promise<void> {
  return stopClient();
}

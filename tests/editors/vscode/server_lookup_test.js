// The VS Code extension's search for the server binary
// (editors/vscode/src/serverLookup.ts), under plain Node with fake
// directories, PATH and HOME: the warplens.serverPath setting (absolute,
// relative to the workspace, ~/, a bare name on PATH), then the binary
// bundled in the extension, then PATH, then ~/.local/bin, /usr/local/bin and
// /usr/bin, and the exact message naming every place tried when none has it.
//
//   node tests/editors/vscode/server_lookup_test.js
//
// The TypeScript is bundled with the extension's own esbuild
// (editors/vscode/node_modules, from scripts/setup-editor-tests.sh).
'use strict';
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const test = require('node:test');

const root = path.resolve(__dirname, '..', '..', '..');
const extensionDir = path.join(root, 'editors', 'vscode');
const esbuild = path.join(extensionDir, 'node_modules', '.bin', 'esbuild');
if (!fs.existsSync(esbuild)) {
  console.error(`FAIL esbuild is not installed at ${esbuild} (run scripts/setup-editor-tests.sh first)`);
  process.exit(1);
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'warplens-server-lookup-'));
process.on('exit', () => fs.rmSync(scratch, { recursive: true, force: true }));
const bundle = path.join(scratch, 'serverLookup.js');
execFileSync(esbuild, [path.join(extensionDir, 'src', 'serverLookup.ts'), '--bundle', '--format=cjs',
  '--platform=node', '--target=node20', '--log-level=warning', `--outfile=${bundle}`], { stdio: 'inherit' });
const { findServerBinary, ServerNotFoundError } = require(bundle);

let cases = 0;
// A fresh directory tree for one case: an extension directory, a
// workspace, a HOME and some PATH directories, all empty.
function layout() {
  const dir = path.join(scratch, `case-${++cases}`);
  const d = {
    extension: path.join(dir, 'extension'),
    workspace: path.join(dir, 'workspace'),
    home: path.join(dir, 'home'),
    bin1: path.join(dir, 'bin1'),
    bin2: path.join(dir, 'bin2'),
    cwd: path.join(dir, 'cwd'),
  };
  for (const p of Object.values(d)) fs.mkdirSync(p, { recursive: true });
  return d;
}
function executable(file) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, '#!/bin/sh\n');
  fs.chmodSync(file, 0o755);
  return file;
}
function plainFile(file) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, 'not a program\n');
  fs.chmodSync(file, 0o644);
  return file;
}
function lookup(d, over = {}) {
  return {
    configured: '',
    extensionPath: d.extension,
    workspaceFolder: d.workspace,
    cwd: d.cwd,
    env: { PATH: [d.bin1, d.bin2].join(path.delimiter), HOME: d.home },
    ...over,
  };
}
function notFound(l) {
  try {
    const found = findServerBinary(l);
    assert.fail(`expected ServerNotFoundError, found ${found}`);
  } catch (e) {
    if (!(e instanceof ServerNotFoundError)) throw e;
    return e.message;
  }
}
// The system's own install locations, if this machine has a warplens there:
// the cases that expect "not found" then expect that binary instead.
const systemInstall = ['/usr/local/bin/warplens', '/usr/bin/warplens'].find((f) => {
  try {
    fs.accessSync(f, fs.constants.X_OK);
    return fs.statSync(f).isFile();
  } catch {
    return false;
  }
});

test('warplens.serverPath: an absolute executable is used as it is', () => {
  const d = layout();
  const server = executable(path.join(d.bin2, 'custom', 'warplens'));
  executable(path.join(d.extension, 'bin', 'warplens'));  // the setting wins over the bundled binary
  assert.equal(findServerBinary(lookup(d, { configured: server })), server);
  assert.equal(findServerBinary(lookup(d, { configured: `  ${server}\n` })), server);  // trimmed
});

test('warplens.serverPath: a path that is not an executable file says which path was checked', () => {
  const d = layout();
  const file = plainFile(path.join(d.bin1, 'warplens'));
  assert.equal(notFound(lookup(d, { configured: file })),
    `warplens.serverPath is set to "${file}", but ${file} is not an executable file.`);
  const dir = path.join(d.bin1, 'adir');
  fs.mkdirSync(dir);
  assert.equal(notFound(lookup(d, { configured: dir })),
    `warplens.serverPath is set to "${dir}", but ${dir} is not an executable file.`);
  const missing = path.join(d.bin1, 'nope', 'warplens');
  assert.equal(notFound(lookup(d, { configured: missing })),
    `warplens.serverPath is set to "${missing}", but ${missing} is not an executable file.`);
});

test('warplens.serverPath: relative to the workspace folder (else the current directory), ~/ in HOME', () => {
  const d = layout();
  const inWorkspace = executable(path.join(d.workspace, 'build', 'bin', 'warplens'));
  assert.equal(findServerBinary(lookup(d, { configured: 'build/bin/warplens' })), inWorkspace);
  const inCwd = executable(path.join(d.cwd, 'build', 'bin', 'warplens'));
  assert.equal(findServerBinary(lookup(d, { configured: 'build/bin/warplens', workspaceFolder: undefined })), inCwd);
  const inHome = executable(path.join(d.home, 'opt', 'warplens'));
  assert.equal(findServerBinary(lookup(d, { configured: '~/opt/warplens' })), inHome);
  assert.equal(notFound(lookup(d, { configured: '~/elsewhere/warplens' })),
    `warplens.serverPath is set to "~/elsewhere/warplens", but ${path.join(d.home, 'elsewhere', 'warplens')} ` +
    'is not an executable file.');
});

test('warplens.serverPath: a bare name is looked up on PATH, in order, executables only', () => {
  const d = layout();
  plainFile(path.join(d.bin1, 'warplens-dev'));              // not executable: skipped
  const second = executable(path.join(d.bin2, 'warplens-dev'));
  assert.equal(findServerBinary(lookup(d, { configured: 'warplens-dev' })), second);
  const first = executable(path.join(d.bin1, 'warplens-new'));
  executable(path.join(d.bin2, 'warplens-new'));
  assert.equal(findServerBinary(lookup(d, { configured: 'warplens-new' })), first);
  assert.equal(notFound(lookup(d, { configured: 'warplens-missing' })),
    'warplens.serverPath is set to "warplens-missing", which is not on PATH.');
  // A name that is not on PATH is not looked for anywhere else, even where an install would put it.
  executable(path.join(d.home, '.local', 'bin', 'warplens-missing'));
  assert.equal(notFound(lookup(d, { configured: 'warplens-missing' })),
    'warplens.serverPath is set to "warplens-missing", which is not on PATH.');
});

test('unset: the binary bundled in the extension comes first', () => {
  const d = layout();
  const bundled = executable(path.join(d.extension, 'bin', 'warplens'));
  executable(path.join(d.bin1, 'warplens'));
  executable(path.join(d.home, '.local', 'bin', 'warplens'));
  assert.equal(findServerBinary(lookup(d)), bundled);
  assert.equal(findServerBinary(lookup(d, { configured: '   ' })), bundled);  // blank is unset
});

test('unset: then warplens on PATH (empty entries, directories and plain files skipped)', () => {
  const d = layout();
  plainFile(path.join(d.extension, 'bin', 'warplens'));    // bundled but not executable
  fs.mkdirSync(path.join(d.bin1, 'warplens'));             // a directory named warplens
  const onPath = executable(path.join(d.bin2, 'warplens'));
  executable(path.join(d.home, '.local', 'bin', 'warplens'));
  const env = { PATH: ['', d.bin1, '', d.bin2].join(path.delimiter), HOME: d.home };
  assert.equal(findServerBinary(lookup(d, { env })), onPath);
});

test('unset: then ~/.local/bin/warplens (cmake --install --prefix ~/.local), when PATH lacks it', () => {
  const d = layout();
  const installed = executable(path.join(d.home, '.local', 'bin', 'warplens'));
  assert.equal(findServerBinary(lookup(d)), installed);
  assert.equal(findServerBinary(lookup(d, { env: { HOME: d.home } })), installed);  // no PATH at all
});

test('nothing found: the message names every place tried, in order', () => {
  const d = layout();
  const bundled = path.join(d.extension, 'bin', 'warplens');
  const tail = '. Install it (the warplens .deb, or `cmake --install build --prefix ~/.local`) or set "warplens.serverPath".';
  if (systemInstall) {
    // This machine has warplens installed system-wide: that is the answer.
    assert.equal(findServerBinary(lookup(d)), systemInstall);
    return;
  }
  assert.equal(notFound(lookup(d)),
    `The warplens server was not found. Looked at: ${bundled}, "warplens" on PATH, ` +
    `${path.join(d.home, '.local', 'bin', 'warplens')}, /usr/local/bin/warplens, /usr/bin/warplens${tail}`);
  // Without HOME there is no ~/.local/bin to try, and the message says so by leaving it out.
  assert.equal(notFound(lookup(d, { env: { PATH: d.bin1 } })),
    `The warplens server was not found. Looked at: ${bundled}, "warplens" on PATH, ` +
    `/usr/local/bin/warplens, /usr/bin/warplens${tail}`);
});

test('the extension resolves through serverLookup (no second copy of the search)', () => {
  // serverBinary.ts is the only caller and must hand the settings over as they are.
  const glue = fs.readFileSync(path.join(extensionDir, 'src', 'serverBinary.ts'), 'utf8');
  assert.match(glue, /findServerBinary\(\{/);
  assert.match(glue, /getConfiguration\('warplens'\)\.get<string>\('serverPath'/);
  assert.match(glue, /extensionPath: context\.extensionPath/);
  const extension = fs.readFileSync(path.join(extensionDir, 'src', 'extension.ts'), 'utf8');
  assert.match(extension, /resolveServerBinary\(extensionContext\)/);
  assert.doesNotMatch(extension, /process\.env\.PATH/);
});

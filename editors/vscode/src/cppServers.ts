// `warplens.clangDiagnostics: auto`: Clang's own errors are shown by clangd
// or the C/C++ extension (cpptools) when one of them serves CUDA files, and
// warplens republishing them would show each error twice. This watches for
// either extension being active and says what `auto` means right now.
import * as vscode from 'vscode';
import { ClangDiagnostics } from './settings';

/** Extensions that publish Clang-style errors for .cu files. */
export const cppExtensions = ['llvm-vs-code-extensions.vscode-clangd', 'ms-vscode.cpptools'];

export function activeCppExtensions(): string[] {
  return cppExtensions.filter((id) => vscode.extensions.getExtension(id)?.isActive);
}

export function clangAuto(): ClangDiagnostics {
  return activeCppExtensions().length > 0 ? 'off' : 'on';
}

/**
 * Calls `changed` when what `auto` resolves to changes. Extensions activate
 * lazily (clangd on the first C/C++/CUDA file), and VS Code has no event for
 * another extension's activation, so this re-checks when extensions change,
 * when a CUDA editor becomes active, and a few times after start.
 */
export function watchCppExtensions(changed: (value: ClangDiagnostics) => void): vscode.Disposable {
  let last = clangAuto();
  const check = () => {
    const now = clangAuto();
    if (now !== last) {
      last = now;
      changed(now);
    }
  };
  const timers = [2000, 5000, 15000, 30000].map((ms) => setTimeout(check, ms));
  const subscriptions = [
    vscode.extensions.onDidChange(check),
    vscode.window.onDidChangeActiveTextEditor((e) => {
      if (e?.document.languageId === 'cuda-cpp') check();
    }),
  ];
  return new vscode.Disposable(() => {
    timers.forEach(clearTimeout);
    subscriptions.forEach((s) => s.dispose());
  });
}

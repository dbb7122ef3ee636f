#!/usr/bin/env bash
# README command 2: the whole test suite (installs and builds first if needed).
# Extra arguments go to ctest, e.g. -L unit or -R lsp.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/bootstrap.sh"
# Real editors for the `editors` tests: Chromium, code-server, playwright-core
# (Debian packages and npm only; cached under ~/.cache/warplens).
"$root/scripts/setup-editor-tests.sh" >/dev/null
"$root/scripts/build.sh"
ctest --test-dir "${WARPLENS_BUILD_DIR:-$root/build}" --output-on-failure -j "$(nproc)" "$@"

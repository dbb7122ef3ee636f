#!/usr/bin/env bash
# README command 2: the whole test suite (installs and builds first if needed).
# Extra arguments go to ctest, e.g. -L unit or -R lsp. At the end it prints
# what was skipped and why (tests that exited 77, and doctest cases skipped
# for a missing requirement inside tests that ran) and the slowest tests.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${WARPLENS_BUILD_DIR:-$root/build}
"$root/scripts/bootstrap.sh"
# Real editors for the `editors` tests: Chromium, code-server, playwright-core
# (Debian packages and npm only; cached under ~/.cache/warplens).
"$root/scripts/setup-editor-tests.sh" >/dev/null
"$root/scripts/build.sh"
rm -rf "$build/Testing/skipped" "$build/Testing/junit.xml"
status=0
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" --output-junit "$build/Testing/junit.xml" "$@" || status=$?
if command -v python3 >/dev/null; then
  python3 "$root/scripts/test-summary.py" "$build" || true
else
  echo "(python3 not found: no skip summary; see $build/Testing/skipped and $build/Testing/junit.xml)"
fi
exit "$status"

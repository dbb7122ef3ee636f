#!/usr/bin/env bash
# ctest driver of the scripted MCP sessions through the real binary:
#
#   run_session.sh sdk|python WARPLENS MAKE_WORKSPACE FAKE_CUDA_DIR
#
# Makes a fresh workspace, puts the fake CUDA driver first on
# LD_LIBRARY_PATH (the verifier's replay children load it, as in
# verifier_fake_gpu_tests) and runs session.mjs (the TypeScript SDK) or
# session.py (the stdlib client). Exit 77 (skipped) when what the session
# needs is missing: node or the SDK (scripts/setup-editor-tests.sh installs it
# into tests/mcp/node_modules), python3, or nvcc.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mode=$1 warplens=$2 make_workspace=$3 fake_cuda=$4
skip() { echo "skipped: $*"; exit 77; }
nvcc_bin=$(command -v nvcc || true)
[ -z "$nvcc_bin" ] && [ -x "${CUDA_PATH:-/usr/local/cuda}/bin/nvcc" ] && nvcc_bin=${CUDA_PATH:-/usr/local/cuda}/bin/nvcc
[ -n "$nvcc_bin" ] || skip "nvcc not found (the verifier compiles candidates)"
case $mode in
  sdk)
    command -v node >/dev/null || skip "node not found"
    [ -f "$here/node_modules/@modelcontextprotocol/sdk/package.json" ] ||
      skip "@modelcontextprotocol/sdk not installed (scripts/setup-editor-tests.sh runs npm ci in tests/mcp)" ;;
  python) command -v python3 >/dev/null || skip "python3 not found" ;;
  *) echo "usage: run_session.sh sdk|python WARPLENS MAKE_WORKSPACE FAKE_CUDA_DIR" >&2; exit 2 ;;
esac
work=$(mktemp -d "${TMPDIR:-/tmp}/warplens-mcp-e2e.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$make_workspace" "$work" >/dev/null
export LD_LIBRARY_PATH="$fake_cuda${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
unset CUDA_VISIBLE_DEVICES
root=$(cd "$here/../.." && pwd)
if [ "$mode" = sdk ]; then
  node "$here/session.mjs" --warplens "$warplens" --workspace "$work" --cases "$root/tests/gpu/verifier_cases"
else
  python3 "$here/session.py" --warplens "$warplens" --workspace "$work" --cases "$root/tests/gpu/verifier_cases" \
    --transcript "$work/transcript.json"
fi

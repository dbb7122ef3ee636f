#!/usr/bin/env bash
# Runs the headless Neovim end-to-end test for one scenario:
#   run.sh SERVER_BINARY SCENARIO_JSON
# Works on a throwaway copy of tests/editors/workspace with its own XDG
# directories (no user config, no shared LSP log), under a hard time limit.
# On failure it prints the tail of Neovim's LSP log (the server's stderr).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
server=${WARPLENS_BIN:-${1:?usage: run.sh SERVER_BINARY SCENARIO_JSON}}  # WARPLENS_BIN overrides the build's binary
scenario=${2:?usage: run.sh SERVER_BINARY SCENARIO_JSON [ARTIFACT_DIR]}
artifacts=${3:-}  # where the report buffers' text is kept (optional)

scenario=$(realpath "$scenario")
if [ ! -x "$server" ]; then
  echo "FAIL the warplens server binary $server does not exist or is not executable" \
       "(build it: ninja -C build, or point WARPLENS_BIN at it)" >&2
  exit 1
fi
command -v nvim >/dev/null || { echo "FAIL nvim is not installed (scripts/setup-editor-tests.sh installs it)" >&2; exit 1; }

run=$(mktemp -d "${TMPDIR:-/tmp}/warplens-nvim-e2e.XXXXXX")
trap 'rm -rf "$run"' EXIT
cp -r "$here/../workspace" "$run/workspace"
export HOME="$run/home" XDG_CONFIG_HOME="$run/config" XDG_DATA_HOME="$run/data" \
       XDG_STATE_HOME="$run/state" XDG_CACHE_HOME="$run/cache"
mkdir -p "$HOME"
# No GPU, whatever the machine has: "Optimize kernel" then fails the same way everywhere.
export WARPLENS_PROFILE_ASSUME_NO_GPU=1
export E2E_SERVER="$server" E2E_SCENARIO="$scenario" E2E_WORKSPACE="$run/workspace"
if [ -n "$artifacts" ]; then
  mkdir -p "$artifacts"
  export E2E_ARTIFACTS="$artifacts"
fi

status=0
# -u NONE: no user config; the plugin comes from this checkout.
timeout --kill-after=10 "${E2E_LIMIT_S:-240}" \
  nvim --headless -u NONE -i NONE --cmd "set rtp^=$root/editors/nvim" -c "luafile $here/e2e.lua" \
  </dev/null || status=$?
if [ "$status" -ne 0 ]; then
  [ "$status" -eq 124 ] && echo "FAIL Neovim did not finish within ${E2E_LIMIT_S:-240} s" >&2
  for logfile in "$XDG_CACHE_HOME/nvim/lsp.log" "$XDG_STATE_HOME/nvim/lsp.log"; do
    if [ -s "$logfile" ]; then
      echo "--- last lines of Neovim's LSP log ($logfile) ---" >&2
      tail -n 40 "$logfile" >&2
    fi
  done
  exit 1
fi

#!/usr/bin/env bash
# Screenshots of warplens in a real terminal Neovim, for docs/editors.md:
#   screenshot.sh SERVER_BINARY OUT_DIR
# Runs Neovim (with the plugin from this checkout, on a throwaway copy of
# tests/editors/workspace) in a tmux window of a fixed size, captures the
# terminal with its colours at each step of screenshot.lua, and renders the
# captures to PNG with Debian's Chromium (playwright-core, as the code-server
# test). Writes OUT_DIR/nvim-{diagnostics,hover,report}.png. Not run by ctest.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
server=$(realpath "${1:?usage: screenshot.sh SERVER_BINARY OUT_DIR}")
out=$(mkdir -p "${2:?usage: screenshot.sh SERVER_BINARY OUT_DIR}" && cd "$2" && pwd)
tools=${WARPLENS_EDITOR_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/warplens/editor-tools}
command -v tmux >/dev/null || { echo "FAIL tmux is not installed" >&2; exit 1; }
run=$(mktemp -d "${TMPDIR:-/tmp}/warplens-nvim-shot.XXXXXX")
session="warplens-shot-$$"
trap 'tmux kill-session -t "$session" 2>/dev/null || true; rm -rf "$run"' EXIT
cp -r "$here/../workspace" "$run/workspace"
mkdir -p "$run/home"
cols=${SHOT_COLS:-200} rows=${SHOT_ROWS:-52}
tmux new-session -d -s "$session" -x "$cols" -y "$rows" \
  "env HOME=$run/home XDG_CONFIG_HOME=$run/config XDG_DATA_HOME=$run/data XDG_STATE_HOME=$run/state \
   XDG_CACHE_HOME=$run/cache TERM=xterm-256color COLORTERM=truecolor SHOT_SERVER=$server \
   SHOT_FILE=$run/workspace/heavy.cu SHOT_CODE=cannot-launch SHOT_HOVER='void heavy(' SHOT_MARKER=$run/marker \
   nvim -u NONE -i NONE --cmd 'set rtp^=$root/editors/nvim' --cmd 'set termguicolors' --cmd 'syntax on' \
   -c 'luafile $here/screenshot.lua'; sleep 1"
for step in diagnostics hover report; do
  for _ in $(seq 1 1200); do
    [ -f "$run/marker" ] && [ "$(cat "$run/marker")" = "$step" ] && break
    sleep 0.1
  done
  [ "$(cat "$run/marker" 2>/dev/null)" = "$step" ] || { echo "FAIL Neovim never reached step $step" >&2; exit 1; }
  sleep 0.3
  tmux capture-pane -t "$session" -e -p >"$run/$step.ansi"
  rm -f "$run/marker"
  touch "$run/marker.done"
done
NODE_PATH="$tools/playwright/node_modules" node "$here/ansi_to_png.js" "$cols" "$rows" "$out" \
  "$run/diagnostics.ansi" "$run/hover.ansi" "$run/report.ansi"
ls -1 "$out"/nvim-*.png

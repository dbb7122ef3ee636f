#!/usr/bin/env bash
# Installs what the real-editor tests (ctest -L editors) need on Debian 12,
# using only Debian's packages and the npm registry (no other downloads):
#   - Debian: neovim, chromium, ripgrep, and the compilers code-server's
#     native modules build with;
#   - npm: code-server (pinned to the newest release that runs on Debian's
#     Node 20), playwright-core (drives the system Chromium, no browser
#     download), the VS Code extension's build tools (esbuild, tsc, vsce), and
#     the MCP TypeScript SDK that drives `warplens mcp` in tests/mcp.
# Idempotent and cached: the npm installs land in $WARPLENS_EDITOR_TOOLS
# (default ~/.cache/warplens/editor-tools) and are redone only when a pin
# changes, so a second run takes seconds. Prints the tools directory last.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tools=${WARPLENS_EDITOR_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/warplens/editor-tools}
code_server_version=4.100.3   # 4.101+ needs Node 22; Debian 12 ships Node 20
ripgrep_cache=vscode-ripgrep-cache-1.15.11
ripgrep_tarball=ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz

log() { echo "setup-editor-tests: $*" >&2; }

# --- Debian packages --------------------------------------------------------
packages=(neovim chromium ripgrep build-essential python3 pkg-config libkrb5-dev git)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node may come from elsewhere than Debian (the machine image has its own npm).
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
if ((${#missing[@]})); then
  log "installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" != 20 ]; then
  log "warning: code-server $code_server_version needs Node 20, found $(node --version)"
fi

mkdir -p "$tools"
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false

# --- code-server ------------------------------------------------------------
cs_dir="$tools/code-server-$code_server_version"
if [ ! -f "$cs_dir/.complete" ]; then
  log "installing code-server $code_server_version into $cs_dir (about a minute)"
  rm -rf "$cs_dir"
  mkdir -p "$cs_dir/tmp/$ripgrep_cache"
  # @vscode/ripgrep's postinstall downloads rg from GitHub; hand it Debian's
  # rg in the tarball it looks for in its cache instead.
  rg_stage=$(mktemp -d)
  cp "$(command -v rg)" "$rg_stage/rg"
  tar -C "$rg_stage" -czf "$cs_dir/tmp/$ripgrep_cache/$ripgrep_tarball" rg
  rm -rf "$rg_stage"
  echo '{"private": true}' >"$cs_dir/package.json"
  # nodedir=/usr: node-gyp uses Debian's Node headers instead of downloading them.
  (cd "$cs_dir" && TMPDIR="$cs_dir/tmp" npm_config_yes=true npm_config_nodedir=/usr \
    npm install --unsafe-perm --no-save "code-server@$code_server_version" >"$cs_dir/install.log" 2>&1) || {
    tail -30 "$cs_dir/install.log" >&2
    log "code-server install failed; full log: $cs_dir/install.log"
    exit 1
  }
  node "$cs_dir/node_modules/code-server/out/node/entry.js" --version \
    --config /dev/null --user-data-dir "$cs_dir/tmp/ud" >/dev/null
  touch "$cs_dir/.complete"
fi

# --- playwright-core (pinned by tests/editors/vscode/package-lock.json) -----
pw_dir="$tools/playwright"
pw_lock="$root/tests/editors/vscode/package-lock.json"
pw_stamp="$pw_dir/.lock-$(sha256sum "$pw_lock" | cut -c1-16)"
if [ ! -f "$pw_stamp" ]; then
  log "installing playwright-core into $pw_dir"
  rm -rf "$pw_dir"
  mkdir -p "$pw_dir"
  cp "$root/tests/editors/vscode/package.json" "$pw_lock" "$pw_dir/"
  (cd "$pw_dir" && npm ci --ignore-scripts >/dev/null)
  touch "$pw_stamp"
fi

# --- the extension's build tools (editors/vscode/node_modules) --------------
ext_dir="$root/editors/vscode"
ext_stamp="$ext_dir/node_modules/.warplens-lock-$(sha256sum "$ext_dir/package-lock.json" | cut -c1-16)"
if [ ! -f "$ext_stamp" ]; then
  log "installing the extension's build dependencies (npm ci in editors/vscode)"
  (cd "$ext_dir" && npm ci >/dev/null)
  touch "$ext_stamp"
fi

# --- the MCP SDK for tests/mcp (the official TypeScript client) -------------
mcp_dir="$root/tests/mcp"
mcp_stamp="$mcp_dir/node_modules/.warplens-lock-$(sha256sum "$mcp_dir/package-lock.json" | cut -c1-16)"
if [ ! -f "$mcp_stamp" ]; then
  log "installing @modelcontextprotocol/sdk (npm ci in tests/mcp)"
  (cd "$mcp_dir" && npm ci --ignore-scripts >/dev/null)
  touch "$mcp_stamp"
fi

echo "$tools"

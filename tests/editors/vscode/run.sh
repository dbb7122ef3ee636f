#!/usr/bin/env bash
# Runs the code-server end-to-end test for one scenario:
#   run.sh SERVER_BINARY SCENARIO_JSON ARTIFACT_DIR
# Packages the extension (.vsix) from this checkout, installs it into a fresh
# code-server (own user-data, extensions, HOME and XDG dirs; auto-save off;
# a throwaway copy of the workspace), starts code-server on a free loopback
# port and runs e2e.js in headless Chromium. Screenshots land in
# ARTIFACT_DIR/vscode-<scenario>-{hover,preview,final}.png. The tools come from
# scripts/setup-editor-tests.sh ($WARPLENS_EDITOR_TOOLS).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
server=${WARPLENS_BIN:-${1:?usage: run.sh SERVER_BINARY SCENARIO_JSON ARTIFACT_DIR}}  # WARPLENS_BIN overrides the build's binary
scenario=${2:?usage: run.sh SERVER_BINARY SCENARIO_JSON ARTIFACT_DIR}
artifacts=${3:?usage: run.sh SERVER_BINARY SCENARIO_JSON ARTIFACT_DIR}
tools=${WARPLENS_EDITOR_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/warplens/editor-tools}
code_server="$tools/code-server-4.100.3/node_modules/code-server/out/node/entry.js"
scenario=$(realpath "$scenario")
name=$(basename "$scenario" .json)
limit=${E2E_LIMIT_S:-240}

fail() { echo "FAIL $*" >&2; exit 1; }
[ -x "$server" ] || fail "the warplens server binary $server does not exist or is not executable" \
  "(build it: ninja -C build, or point WARPLENS_BIN at it)"
setup_hint="run scripts/setup-editor-tests.sh first"
[ -f "$code_server" ] || fail "code-server is not installed at $code_server ($setup_hint)"
[ -d "$tools/playwright/node_modules/playwright-core" ] || fail "playwright-core is not installed in $tools/playwright ($setup_hint)"
[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || fail "chromium is not installed ($setup_hint)"
[ -d "$root/editors/vscode/node_modules" ] || fail "editors/vscode/node_modules is missing ($setup_hint)"

run=$(mktemp -d "${TMPDIR:-/tmp}/warplens-vscode-e2e.XXXXXX")
code_server_pid=""
cleanup() {
  if [ -n "$code_server_pid" ]; then
    kill -- "-$code_server_pid" 2>/dev/null || true   # its own process group (setsid)
    wait "$code_server_pid" 2>/dev/null || true
  fi
  rm -rf "$run"
}
trap cleanup EXIT
mkdir -p "$artifacts" "$run/home" "$run/ud/User" "$run/ext"
cp -r "$here/../workspace" "$run/workspace"
# No GPU, whatever the machine has: "Optimize kernel" then fails the same way everywhere.
export WARPLENS_PROFILE_ASSUME_NO_GPU=1
export HOME="$run/home" XDG_CONFIG_HOME="$run/home/.config" XDG_DATA_HOME="$run/home/.local/share" \
       XDG_CACHE_HOME="$run/home/.cache" XDG_STATE_HOME="$run/home/.local/state"

# 1. The extension, packaged from this checkout.
(cd "$root/editors/vscode" && npx --no-install vsce package --no-dependencies --allow-missing-repository \
  --skip-license --out "$run/warplens.vsix" >"$run/vsce.log" 2>&1) || { cat "$run/vsce.log" >&2; fail "packaging the extension failed"; }

# 2. A fresh code-server: no auth, loopback only, auto-save off, the server from this build.
cat >"$run/config.yaml" <<EOF
bind-addr: 127.0.0.1:0
auth: none
cert: false
EOF
node -e '
  const [file, server] = process.argv.slice(1);
  require("fs").writeFileSync(file, JSON.stringify({
    "files.autoSave": "off",
    "warplens.serverPath": server,
    "warplens.arguments": ["--test-commands"],
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": false,
    "workbench.enableExperiments": false,
    "telemetry.telemetryLevel": "off",
    "chat.commandCenter.enabled": false,
    "security.workspace.trust.enabled": false,
    "extensions.ignoreRecommendations": true,
    "editor.hover.delay": 100,
    "update.mode": "none",
  }, null, 2));' "$run/ud/User/settings.json" "$server"
# Keys for e2e.js: warplens.previewRewrite with a fixed edit (the diff preview), and
# warplens.runJob with the server's warplens.debug.sleep (progress + Cancel; --test-commands).
export E2E_PREVIEW_KEY='Control+Alt+Shift+F9' E2E_PREVIEW_TEXT='// rewrite previewed by the editor test'
export E2E_JOB_KEY='Control+Alt+Shift+F10' E2E_OPTIMIZE_KEY='Control+Alt+Shift+F11'
scenario_file=$(node -p 'require(process.argv[1]).file' "$scenario")
# warplens.showOptimizeResult with a recorded optimize result (scenario optimize_result.fixture).
optimize_fixture=$(node -p 'const s = require(process.argv[1]); s.optimize_result ? s.optimize_result.fixture : ""' "$scenario")
node -e '
  const [file, uri, text, fixture] = process.argv.slice(1);
  const optimize = fixture ? [{
    key: "ctrl+alt+shift+f11",
    command: "warplens.showOptimizeResult",
    args: Object.assign(JSON.parse(require("fs").readFileSync(fixture, "utf8")), { uri }),
  }] : [];
  require("fs").writeFileSync(file, JSON.stringify([...optimize, {
    key: "ctrl+alt+shift+f10",
    command: "warplens.runJob",
    args: { command: "warplens.debug.sleep", arguments: [{ ms: 60000, steps: 60 }], title: "warplens: test job" },
  }, {
    key: "ctrl+alt+shift+f9",
    command: "warplens.previewRewrite",
    args: {
      title: "editor-test rewrite",
      summary: "inserts one comment line",
      edit: { changes: { [uri]: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
                                   newText: text + "\n" }] } },
    },
  }], null, 2));' "$run/ud/User/keybindings.json" "file://$run/workspace/$scenario_file" "$E2E_PREVIEW_TEXT" \
  "${optimize_fixture:+$here/../fixtures/$optimize_fixture}"
cs_args=(--config "$run/config.yaml" --user-data-dir "$run/ud" --extensions-dir "$run/ext")
node "$code_server" "${cs_args[@]}" --install-extension "$run/warplens.vsix" >"$run/install.log" 2>&1 \
  || { cat "$run/install.log" >&2; fail "code-server could not install the extension"; }

setsid node "$code_server" "${cs_args[@]}" --disable-telemetry --disable-update-check \
  --disable-workspace-trust --disable-getting-started-override "$run/workspace" >"$run/code-server.log" 2>&1 &
code_server_pid=$!
port=""
for _ in $(seq 1 300); do
  port=$(sed -n 's|.*HTTP server listening on http://127\.0\.0\.1:\([0-9]*\).*|\1|p' "$run/code-server.log" | head -1)
  [ -n "$port" ] && break
  kill -0 "$code_server_pid" 2>/dev/null || { cat "$run/code-server.log" >&2; fail "code-server exited at start"; }
  sleep 0.1
done
[ -n "$port" ] || { cat "$run/code-server.log" >&2; fail "code-server did not start listening within 30 s"; }

# 3. The browser test. localhost, not 127.0.0.1: code-server's cookies need a host name.
status=0
NODE_PATH="$tools/playwright/node_modules" timeout --kill-after=10 "$limit" \
  node "$here/e2e.js" "http://localhost:$port" "$scenario" "$run/workspace" "$artifacts/vscode-$name" || status=$?
if [ "$status" -ne 0 ]; then
  [ "$status" -eq 124 ] && echo "FAIL the browser test did not finish within $limit s" >&2
  echo "--- screenshots: $artifacts/vscode-$name-*.png" >&2
  for f in $(find "$run/ud/logs" -name '*warplens*.log' 2>/dev/null); do
    echo "--- $f (the extension's output channel, with the server's stderr) ---" >&2
    tail -n 40 "$f" >&2
  done
  echo "--- code-server log (last lines) ---" >&2
  tail -n 15 "$run/code-server.log" >&2
  exit 1
fi

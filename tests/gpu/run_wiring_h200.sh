#!/usr/bin/env bash
# The language server's GPU checks in one go, for the H200 machine (CUDA 13,
# CUPTI, no Clang). From a fresh copy of the repository:
#
#   OUT=/some/dir tests/gpu/run_wiring_h200.sh
#
# 1. configures with -DWARPLENS_WITH_CLANG=OFF and builds the server, the
#    injection library, the in-process server tests and the GPU test
# 2. runs the server tests (CPU; they include the recorded-profile tests)
# 3. runs tests/gpu/wiring_gpu_test.cpp: warplens/status names the GPU;
#    warplens.profile in single-file mode and with buildCommand +
#    profileCommand puts measured diagnostics on the transpose's lines;
#    an edit marks them stale; clearProfile clears; the simulated no-GPU
#    path shows its message
# 4. prints a short summary last (the measured diagnostics as the editor
#    received them, one per line)
#
# Everything lands under $OUT: logs, $OUT/wiring/*.json (replies,
# diagnostics, lenses). Takes about 3-5 minutes.
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
: "${OUT:?set OUT to a directory for the results}"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
build=${WARPLENS_BUILD_DIR:-$root/build-h200-wiring}
jobs=$(nproc)
declare -a summary
add() { summary+=("$(printf '%-36s %s' "$1" "$2")"); }
finish() { printf '\n== summary ==\n'; printf '%s\n' "${summary[@]}"; exit "${1:-0}"; }
export PATH=$PATH:/usr/local/cuda/bin

{
  echo "date: $(date -u +%FT%TZ)"
  echo "commit: $(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)"
  nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv 2>&1
  nvcc --version 2>&1 | tail -2
} >"$OUT/environment.txt" 2>&1

echo "== configure and build" >&2
if timeout 150 cmake -S "$root" -B "$build" -G Ninja -DWARPLENS_WITH_CLANG=OFF -DCMAKE_BUILD_TYPE=Release \
     >"$OUT/configure.log" 2>&1 &&
   timeout 600 cmake --build "$build" -j "$jobs" --target warplens warplens_inject server_tests wiring_gpu_tests \
     >"$OUT/build.log" 2>&1; then
  add "build (-DWARPLENS_WITH_CLANG=OFF)" "yes"
else
  add "build (-DWARPLENS_WITH_CLANG=OFF)" "FAILED (see build.log)"
  tail -40 "$OUT/build.log" >&2
  finish 1
fi
bin=$build/bin

doctest_result() {  # log rc -> "P/N passed"
  local log=$1 rc=$2 line
  if [ "$rc" = 77 ]; then echo "skipped: $(grep -m1 skipped "$log")"; return; fi
  line=$(grep -a '^\[doctest\] test cases:' "$log" | tail -1)
  if [ -z "$line" ]; then echo "no result (exit $rc, see $(basename "$log"))"; return; fi
  echo "$line" | awk -F'|' '{gsub(/[^0-9]/,"",$1); gsub(/[^0-9]/,"",$2); gsub(/[^0-9]/,"",$3);
    printf "%s/%s passed%s", $2, $1, ($3 > 0 ? ", " $3 " FAILED" : "")}'
  [ "$rc" = 0 ] || echo " (exit $rc)"
}

echo "== server tests (CPU)" >&2
timeout 300 "$bin/server_tests" >"$OUT/server_tests.log" 2>&1; rc=$?
add "server tests (CPU, recorded profiles)" "$(doctest_result "$OUT/server_tests.log" $rc)"

echo "== GPU test" >&2
rm -rf "$OUT/wiring"
WARPLENS_GPU_OUT=$OUT timeout 600 "$bin/wiring_gpu_tests" >"$OUT/wiring_gpu_tests.log" 2>&1; rc=$?
add "wiring GPU tests (LSP profile path)" "$(doctest_result "$OUT/wiring_gpu_tests.log" $rc)"
if [ "$rc" != 0 ]; then grep -a -B2 -A12 'ERROR\|FAILED' "$OUT/wiring_gpu_tests.log" | head -60 >&2; fi

if [ -s "$OUT/wiring/status.json" ]; then
  add "warplens/status gpu" "$(python3 -c 'import json,sys; g=json.load(open(sys.argv[1]))["params"]["gpu"]; print(g.get("name"), g.get("arch"))' "$OUT/wiring/status.json")"
fi
for mode in single_file workspace; do
  f=$OUT/wiring/${mode}_reply.json
  [ -s "$f" ] && add "$mode reply" "$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r.get("result", {}).get("summary") or r.get("error"))' "$f" | cut -c1-160)"
done
if [ -s "$OUT/wiring/single_file_diagnostics.json" ]; then
  python3 - "$OUT/wiring/single_file_diagnostics.json" <<'PY' >"$OUT/measured_diagnostics.txt"
import json, sys
p = json.load(open(sys.argv[1]))
for d in p["diagnostics"]:
    if d.get("source") == "warplens-profile":
        r = d["range"]["start"]
        print(f'line {r["line"] + 1}:{r["character"] + 1} [{d["code"]}] {d["message"][:140]}')
PY
  add "measured diagnostics (single file)" "$(wc -l <"$OUT/measured_diagnostics.txt") (measured_diagnostics.txt)"
fi
[ -s "$OUT/wiring/no_gpu_reply.json" ] && add "simulated no-GPU reply" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["error"]["message"])' "$OUT/wiring/no_gpu_reply.json" | cut -c1-120)"

[ -s "$OUT/measured_diagnostics.txt" ] && { printf '\n== measured diagnostics ==\n'; cat "$OUT/measured_diagnostics.txt"; }
finish 0

#!/usr/bin/env bash
# The editor optimize job's capture path on the H200 (CUDA 13, no Clang), in
# one go, from a fresh copy of the repository:
#
#   OUT=/some/dir tests/gpu/run_optimize_capture_h200.sh
#
# 1. configures with -DWARPLENS_WITH_CLANG=OFF and builds the injection
#    library, warplens-replay, the server tests and the GPU test
# 2. runs the server tests (CPU; they include the optimize backend's choices
#    with fakes)
# 3. runs tests/gpu/optimize_capture_gpu_test.cpp: buildCommand (nvcc) +
#    profileCommand (./app) on examples/optimize/strided_copy.cu capture the
#    first 3 launches of scale_copy_chunked through the anchored kernel
#    regex; `scale_copy` (a prefix) captures nothing; the unchanged original
#    replayed by the capture verifier is correct
# 4. prints a short summary last
#
# Everything lands under $OUT: logs and optimize_capture.json. About 3-5 min.
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
: "${OUT:?set OUT to a directory for the results}"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
build=${WARPLENS_BUILD_DIR:-$root/build-h200-optimize-capture}
jobs=$(nproc)
declare -a summary
add() { summary+=("$(printf '%-40s %s' "$1" "$2")"); }
finish() { printf '\n== summary ==\n'; printf '%s\n' "${summary[@]}"; exit "${1:-0}"; }
export PATH=$PATH:/usr/local/cuda/bin

echo "== configure and build" >&2
if timeout 150 cmake -S "$root" -B "$build" -G Ninja -DWARPLENS_WITH_CLANG=OFF -DCMAKE_BUILD_TYPE=Release \
     >"$OUT/configure.log" 2>&1 &&
   timeout 600 cmake --build "$build" -j "$jobs" --target warplens_inject warplens-replay server_tests \
     optimize_capture_gpu_tests >"$OUT/build.log" 2>&1; then
  add "build (-DWARPLENS_WITH_CLANG=OFF)" "yes"
else
  add "build (-DWARPLENS_WITH_CLANG=OFF)" "FAILED (see build.log)"
  tail -40 "$OUT/build.log" >&2
  finish 1
fi
bin=$build/bin
inject=$(find "$build" -name 'libwarplens_inject.so' | head -1)
[ -n "$inject" ] && export WARPLENS_INJECT_LIB=$inject
[ -x "$bin/warplens-replay" ] && export WARPLENS_REPLAY=$bin/warplens-replay

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
add "server tests (CPU)" "$(doctest_result "$OUT/server_tests.log" $rc)"

echo "== GPU test" >&2
WARPLENS_GPU_OUT=$OUT timeout 800 "$bin/optimize_capture_gpu_tests" >"$OUT/optimize_capture_gpu_tests.log" 2>&1
rc=$?
add "optimize capture GPU tests" "$(doctest_result "$OUT/optimize_capture_gpu_tests.log" $rc)"
if [ "$rc" != 0 ]; then grep -a -B2 -A12 'ERROR\|FAILED' "$OUT/optimize_capture_gpu_tests.log" | head -60 >&2; fi
if [ -s "$OUT/optimize_capture.json" ]; then
  python3 - "$OUT/optimize_capture.json" <<'PY' >"$OUT/summary_lines.txt"
import json, sys
s = json.load(open(sys.argv[1]))
o = s.get("original_as_candidate", {})
print("captured launches", s.get("captured_launches"), s.get("manifest_kernels"))
print("original replayed", "compiled" if o.get("compiled") else "NOT compiled",
      "correct" if o.get("correct") else "NOT correct", "on", o.get("input_sets"), "sets", o.get("reason", ""))
print("prefix name error", (s.get("prefix_error") or "")[:160].replace("\n", " | "))
PY
  while IFS= read -r l; do add "" "$l"; done <"$OUT/summary_lines.txt"
fi
finish 0

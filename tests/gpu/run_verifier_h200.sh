#!/usr/bin/env bash
# The verifier's proof on a GPU machine (run by the lead on the H200).
#
#   OUT=/some/dir tests/gpu/run_verifier_h200.sh
#
# 1. builds warplens without Clang (-DWARPLENS_WITH_CLANG=OFF): warplens-replay,
#    libwarplens_inject.so, the verifier tests and a CLI front end;
# 2. runs the verifier unit tests and the nvcc tool tests;
# 3. runs the GPU suite: builds the case programs for this GPU, captures them
#    through the injection library (runtime and driver launches, K launches,
#    managed / host memory, the size cap), runs the adversarial suite (every
#    exploit must be rejected) and the honest candidates (must pass), the
#    PyTorch level-3 path and the timer self-check;
# 4. reproduces one verdict with one CLI command, and checks the no-GPU path;
# 5. writes verdicts, fixtures (capture manifests, replay results), per-
#    candidate verification times and logs under $OUT, and prints a summary
#    table last.
# Expected wall time: 3 to 5 minutes (the cap is 8). The PyTorch level-3 case
# uses python3 (or $WARPLENS_PYTHON) with torch; without torch it records why.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-$root/build-verifier-gpu/out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
build=${WARPLENS_BUILD_DIR:-$root/build-verifier-gpu}
start=$(date +%s)
log() { echo "[run_verifier_h200 $(($(date +%s) - start))s] $*" >&2; }

log "configure and build in $build (log: $OUT/build.log)"
if ! { cmake -S "$root" -B "$build" -G Ninja -DWARPLENS_WITH_CLANG=OFF -DWARPLENS_BUILD_BENCH=OFF \
         -DCMAKE_BUILD_TYPE=Release &&
       cmake --build "$build" -j "$(nproc)" --target warplens-replay warplens_inject verifier_gpu_tests \
         verifier_unit_tests verifier_tool_tests warplens-verify-cli; } >"$OUT/build.log" 2>&1; then
  tail -40 "$OUT/build.log"
  echo "BUILD FAILED (full log: $OUT/build.log)"
  exit 1
fi
bin="$build/bin"
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"; } >"$OUT/gpu.txt"

log "unit and tool tests (no GPU needed)"
"$bin/verifier_unit_tests" >"$OUT/unit_tests.log" 2>&1
unit_rc=$?
"$bin/verifier_tool_tests" >"$OUT/tool_tests.log" 2>&1
tool_rc=$?

log "GPU suite (log: $OUT/gpu_tests.log)"
rm -f "$OUT/summary.tsv" "$OUT/bench.tsv"
WARPLENS_VERIFIER_OUT="$OUT" timeout 480 "$bin/verifier_gpu_tests" >"$OUT/gpu_tests.log" 2>&1
gpu_rc=$?

cases="$root/tests/gpu/verifier_cases"
cli="$bin/warplens-verify-cli"
transpose_capture="$OUT/work/captures/transpose"
[ -f "$transpose_capture/manifest.json" ] || transpose_capture="$OUT/work/captures-synthetic/transpose"
log "one-command reproduction through the CLI"
"$cli" verify --capture "$transpose_capture" --original "$cases/transpose.cu" \
  --candidate "$cases/candidates/honest_transpose_padded.cu" --kernel transpose_naive --json \
  >"$OUT/cli_verdict.json" 2>"$OUT/cli_verdict.err"
cli_rc=$?
"$cli" capture --kernel scale_add --launches 1 --out "$OUT/work/cli_capture" -- "$OUT/work/programs/scale_add" \
  >"$OUT/cli_capture.txt" 2>&1
cli_capture_rc=$?
log "the no-GPU path (CUDA_VISIBLE_DEVICES empty)"
CUDA_VISIBLE_DEVICES= "$cli" verify --capture "$transpose_capture" --original "$cases/transpose.cu" \
  --candidate "$cases/candidates/honest_transpose_padded.cu" --kernel transpose_naive >"$OUT/no_gpu.txt" 2>&1
no_gpu_rc=$?

elapsed=$(($(date +%s) - start))
{
  echo
  echo "== verifier GPU suite on $(head -1 "$OUT/gpu.txt" 2>/dev/null) =="
  echo "-- last lines of the GPU test log --"
  tail -8 "$OUT/gpu_tests.log"
  echo
  echo "-- verification wall time per candidate (compile + 5 input sets + timing; goal <= 3 s) --"
  if [ -f "$OUT/bench.tsv" ]; then
    tail -n +2 "$OUT/bench.tsv" | cut -f2 | sort -n >"$OUT/bench_sorted.txt"
    n=$(wc -l <"$OUT/bench_sorted.txt")
    if [ "$n" -gt 0 ]; then
      median=$(sed -n "$(((n + 1) / 2))p" "$OUT/bench_sorted.txt")
      max=$(tail -1 "$OUT/bench_sorted.txt")
      awk -F'\t' -v n="$n" -v median="$median" -v max="$max" 'NR > 1 { s += $2; cc += $4; r += $5; c += $6 }
        END { printf "candidates %d: median %.2f s, mean %.2f s, max %.2f s; mean stages: compile %.2f s, reference %.2f s, candidate %.2f s\n",
              n, median / 1000, s / n / 1000, max / 1000, cc / n / 1000, r / n / 1000, c / n / 1000 }' "$OUT/bench.tsv"
    fi
  fi
  echo
  echo "-- CLI --"
  echo "verify --json exit $cli_rc (expected 0): $(grep -o '"level": [-0-9]*' "$OUT/cli_verdict.json" | head -1)"
  echo "capture exit $cli_capture_rc (expected 0): $(head -1 "$OUT/cli_capture.txt")"
  echo "no GPU exit $no_gpu_rc (expected 2): $(head -1 "$OUT/no_gpu.txt")"
  echo
  echo "-- summary (verdicts in $OUT/verdicts, fixtures in $OUT/fixtures) --"
  if [ -f "$OUT/summary.tsv" ]; then
    if command -v column >/dev/null; then column -t -s $'\t' "$OUT/summary.tsv"; else cat "$OUT/summary.tsv"; fi
    wrong=$(awk -F'\t' 'NR > 1 && $4 != "ok"' "$OUT/summary.tsv" | wc -l)
    rows=$(($(wc -l <"$OUT/summary.tsv") - 1))
  else
    wrong=1
    rows=0
    echo "no summary.tsv: the GPU suite did not run (see $OUT/gpu_tests.log)"
  fi
  echo
  echo "unit tests rc=$unit_rc, tool tests rc=$tool_rc, GPU suite rc=$gpu_rc (77 = skipped: no GPU), rows $rows, wrong $wrong, ${elapsed}s"
} | tee "$OUT/summary.txt"
[ "$unit_rc" -eq 0 ] && [ "$tool_rc" -eq 0 ] && [ "$gpu_rc" -eq 0 ] && [ "$wrong" -eq 0 ] && [ "$cli_rc" -eq 0 ] &&
  [ "$no_gpu_rc" -eq 2 ]

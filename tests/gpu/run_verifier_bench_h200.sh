#!/usr/bin/env bash
# Verification seconds per candidate against capture size, on the H200 (issue
# 13, item 2; bench/verify_seconds.cpp):
#
#   OUT=/some/dir tests/gpu/run_verifier_bench_h200.sh
#
# Builds bench_verify_seconds in the shared build directory (the other GPU
# scripts' configuration: Ninja, Release, -DWARPLENS_WITH_CLANG=OFF), then
# times the in-place y = a * x + y at captures of 32, 128 and 512 MB:
#   device  4 candidates per size (the current path: GPU buffer kernels, the
#           reference computed once and reused)
#   host    2 candidates per size (the pre-change method: host loops, the
#           reference recomputed per candidate), in the same run
# Goal: median <= 3 s per candidate on the device path for every size.
# $OUT receives bench-summary.txt (also printed) and verify_seconds.tsv.
# Budget: WARPLENS_VERIFY_BENCH_BUDGET_S (default 300 s); each path gets at
# most what is left (the device path at most 60% of it, so the pre-change
# figure comes from the same run); a path cut short says so.
# BENCH_SIZES_MB (default 32,128,512), BENCH_DEVICE_CANDIDATES (4) and
# BENCH_HOST_CANDIDATES (2) make it smaller. The TSV installs as
# tests/fixtures/verifier/h200-bench/verify_seconds.tsv
# (tests/gpu/install_h200_results.sh), read by verifier_recorded_bench_test.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
: "${OUT:?set OUT to a directory for the results}"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
start=$(date +%s)
budget=${WARPLENS_VERIFY_BENCH_BUDGET_S:-300}
build=${WARPLENS_BUILD_DIR:-$root/build-h200}
work=$(mktemp -d "${TMPDIR:-/tmp}/warplens-verify-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT
left() { echo $((budget - ($(date +%s) - start))); }
export PATH=$PATH:/usr/local/cuda/bin
summary=$OUT/bench-summary.txt
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }

say "== verification seconds per candidate ($(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || echo 'no GPU'))"
if ! { timeout "$(left)" cmake -S "$root" -B "$build" -G Ninja -DWARPLENS_WITH_CLANG=OFF -DCMAKE_BUILD_TYPE=Release \
         >"$work/configure.log" 2>&1 &&
       timeout "$(left)" cmake --build "$build" -j "$(nproc)" --target bench_verify_seconds warplens-replay \
         >"$work/build.log" 2>&1; }; then
  say "BUILD FAILED:"
  tail -20 "$work/configure.log" "$work/build.log" | tee -a "$summary"
  exit 1
fi
tsv=$OUT/verify_seconds.tsv
rm -f "$tsv"
rc=0
sizes=${BENCH_SIZES_MB:-32,128,512}
for path in device host; do
  n=${BENCH_DEVICE_CANDIDATES:-4}
  [ "$path" = host ] && n=${BENCH_HOST_CANDIDATES:-2}
  t=$(left)
  [ "$path" = device ] && t=$(( t * 6 / 10 ))
  if [ "$t" -lt 20 ]; then say "$path: SKIPPED (budget spent)"; rc=1; continue; fi
  timeout "$t" "$build/bin/bench_verify_seconds" --sizes-mb "$sizes" --candidates "$n" --paths "$path" \
    --out "$tsv" --work "$work/captures" >"$work/$path.out" 2>"$work/$path.err"
  r=$?
  [ "$r" = 124 ] && say "$path: TIMED OUT after $t s (the rows printed so far are complete)"
  [ "$r" != 0 ] && rc=1
  tail -3 "$work/$path.err" >>"$summary"
done
if [ -f "$tsv" ]; then
  column -t -s $'\t' "$tsv" 2>/dev/null | tee -a "$summary" || tee -a "$summary" <"$tsv"
  met=$(awk -F'\t' 'NR > 1 && $2 == "device" { n++; if ($4 <= 3) ok++ } END { printf "%d of %d sizes", ok, n }' "$tsv")
  say "goal (device path median <= 3 s per candidate): met for $met"
fi
say "total $(( $(date +%s) - start )) s"
exit $rc

#!/usr/bin/env bash
# Every GPU check in one call, for a session's single device call (the H200
# machine: CUDA 13, CUPTI, PyTorch, no Clang). From a fresh copy of the tree:
#
#   OUT=/some/dir tests/gpu/run_all_h200.sh [AREA...]
#
# AREAS (default: profiler verifier optimize wiring; also: styles, the style
# examples of examples/optimize_styles/ with their committed candidates in
# tests/gpu/optimize_candidates_styles/) run one after another,
# each with its own script and log, all sharing one build directory (the
# scripts configure it identically: Ninja, Release, -DWARPLENS_WITH_CLANG=OFF),
# so later areas build almost nothing. A time governor skips an area when the
# call's budget (WARPLENS_GPU_BUDGET_S, default 540 s) would be exceeded by its
# expected duration, and says so: a skipped area is never reported as passed.
#
# The device returns only a few small files, so $OUT receives exactly:
#   summary.txt       every area's printed summary (also printed last)
#   results.tgz       each area's result files below 2 MiB (logs, JSON, fixtures)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
: "${OUT:?set OUT to a directory for the results}"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
work=${WARPLENS_GPU_WORK:-/tmp/warplens-gpu-all}
rm -rf "$work"
mkdir -p "$work"
export WARPLENS_BUILD_DIR=${WARPLENS_BUILD_DIR:-$root/build-h200}
budget=${WARPLENS_GPU_BUDGET_S:-540}
t0=$(date +%s)
areas=("$@")
[ ${#areas[@]} -eq 0 ] && areas=(profiler verifier optimize wiring)

# Expected seconds per area on the 16-core H200 machine (measured 2026-11-29).
# styles: not measured yet (pending); estimated from optimize's per-candidate time.
declare -A expect=([profiler]=240 [verifier]=240 [optimize]=160 [wiring]=200 [styles]=240)
declare -A script=([profiler]=run_profiler_h200.sh [verifier]=run_verifier_h200.sh
                   [optimize]=run_optimize_h200.sh [wiring]=run_wiring_h200.sh [styles]=run_optimize_h200.sh)
# Per-area environment for the shared scripts.
declare -A area_env=([styles]="CANDIDATES=tests/gpu/optimize_candidates_styles EXAMPLES_DIR=examples/optimize_styles")

{
  echo "date: $(date -u +%FT%TZ)  commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader 2>&1 | head -2
} >"$work/summary.txt"

for area in "${areas[@]}"; do
  s=${script[$area]:-}
  if [ -z "$s" ]; then echo "unknown area $area" >>"$work/summary.txt"; continue; fi
  used=$(( $(date +%s) - t0 ))
  if [ $(( used + ${expect[$area]} )) -gt "$budget" ]; then
    echo "== $area: SKIPPED (used ${used} s of ${budget} s; it needs about ${expect[$area]} s)" >>"$work/summary.txt"
    continue
  fi
  mkdir -p "$work/$area"
  left=$(( budget - used ))
  a0=$(date +%s)
  env ${area_env[$area]:-} OUT="$work/$area" MAX_CANDIDATES=${MAX_CANDIDATES:-8} timeout --kill-after=10 "$left" \
    bash "$root/tests/gpu/$s" >"$work/$area/stdout.txt" 2>&1
  rc=$?
  {
    echo
    echo "== $area: exit $rc in $(( $(date +%s) - a0 )) s$([ $rc -eq 124 ] && echo ' (TIMED OUT)')"
    # Each script prints its summary last.
    tail -n 45 "$work/$area/stdout.txt"
  } >>"$work/summary.txt"
done

echo "total: $(( $(date +%s) - t0 )) s" >>"$work/summary.txt"
cp "$work/summary.txt" "$OUT/summary.txt"
# Small result files only (the device returns at most a few files of 16 MiB).
(cd "$work" && find . -type f -size -2048k ! -name '*.cubin' ! -name '*.o' ! -name '*.so' \
   ! -perm -u+x -print0 | tar czf "$OUT/results.tgz" --null -T -)
cat "$work/summary.txt"

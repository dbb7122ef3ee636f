#!/usr/bin/env bash
# Every GPU check in one call, for a session's single device call (the H200
# machine: CUDA 13, CUPTI, PyTorch, no Clang). From a fresh copy of the tree:
#
#   OUT=/some/dir tests/gpu/run_all_h200.sh [AREA...]
#
# AREAS (default: profiler verifier optimize wiring capture; also verifier-bench,
# the verification seconds per candidate against capture size, and
# public_corpus, the cuda-samples check, which needs build-public-corpus/
# carried along: see tests/gpu/public_corpus_profile.sh, and styles, the style
# examples of examples/optimize_styles/ with their committed candidates in
# tests/gpu/optimize_candidates_styles/, and mcp, the MCP server's scripted
# agent session with the real verifier: tests/gpu/run_mcp_h200.sh) run one
# after another,
# each with its own script and log, all sharing one build directory (the
# scripts configure it identically: Ninja, Release, -DWARPLENS_WITH_CLANG=OFF),
# so later areas build almost nothing. A time governor skips an area when the
# call's budget (WARPLENS_GPU_BUDGET_S, default 540 s) would be exceeded by its
# expected duration, and says so: a skipped area is never reported as passed.
# The proof of issues 13 and 14 is two calls of <= 420 s each (fresh machine,
# build included): docs/benchmarks.md, "Running the proof of issues 13 and 14".
#
# The device returns only a few small files, so $OUT receives exactly:
#   summary.txt       every area's printed summary (also printed last)
#   results.tgz       each area's result files below 2 MiB (logs, JSON, fixtures)
#                     and its result tarballs below 6 MiB; install what it holds
#                     as fixtures with tests/gpu/install_h200_results.sh
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
[ ${#areas[@]} -eq 0 ] && areas=(profiler verifier optimize wiring capture)

# Expected seconds per area on the 16-core H200 machine, each including a
# build from scratch of what it needs (profiler, optimize, wiring measured
# 2026-11-29; verifier, verifier-bench and capture are estimates after issues
# 13 and 14, not yet measured). WARPLENS_EXPECT_<area> (dashes as
# underscores, e.g. WARPLENS_EXPECT_verifier_bench=120) overrides one. An
# area that is not the call's last gets at most its expected seconds (its
# script's own budget, so it cuts itself short and still reports); the last
# area gets all that is left.
# public_corpus measured 2026-12-02: 115 s with its build.
declare -A expect=([profiler]=240 [verifier]=400 [verifier-bench]=110 [optimize]=160 [wiring]=200 [capture]=290
                   [public_corpus]=240 [styles]=150  # styles measured 2026-12-02: 134 s
                   [mcp]=150)  # mcp measured 2026-12-02: 97 s with its build
for a in "${!expect[@]}"; do
  v="WARPLENS_EXPECT_${a//-/_}"
  [ -n "${!v:-}" ] && expect[$a]=${!v}
done
declare -A script=([profiler]=run_profiler_h200.sh [verifier]=run_verifier_h200.sh
                   [verifier-bench]=run_verifier_bench_h200.sh
                   [optimize]=run_optimize_h200.sh [wiring]=run_wiring_h200.sh [capture]=run_capture_h200.sh
                   [public_corpus]=public_corpus_profile.sh [styles]=run_optimize_h200.sh
                   [mcp]=run_mcp_h200.sh)
# Per-area environment for the shared scripts.
declare -A area_env=([styles]="CANDIDATES=tests/gpu/optimize_candidates_styles EXAMPLES_DIR=examples/optimize_styles")

{
  echo "date: $(date -u +%FT%TZ)  commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader 2>&1 | head -2
} >"$work/summary.txt"

last=${areas[${#areas[@]}-1]}
for area in "${areas[@]}"; do
  s=${script[$area]:-}
  if [ -z "$s" ]; then echo "unknown area $area" >>"$work/summary.txt"; continue; fi
  used=$(( $(date +%s) - t0 ))
  left=$(( budget - used ))
  if [ "${expect[$area]}" -gt "$left" ]; then
    echo "== $area: SKIPPED (used ${used} s of ${budget} s; it needs about ${expect[$area]} s)" >>"$work/summary.txt"
    continue
  fi
  mkdir -p "$work/$area"
  mine=$left
  [ "$area" != "$last" ] && mine=${expect[$area]}
  a0=$(date +%s)
  # Each script governs itself within `mine` seconds (building included) and
  # writes its summary; the timeout only catches a script that does not.
  env ${area_env[$area]:-} OUT="$work/$area" MAX_CANDIDATES=${MAX_CANDIDATES:-8} WARPLENS_CAPTURE_BUDGET_S=$(( mine - 15 )) \
    WARPLENS_VERIFIER_BUDGET_S=$(( mine - 10 )) WARPLENS_VERIFY_BENCH_BUDGET_S=$(( mine - 5 )) WARPLENS_AREA_BUDGET_S=$mine \
    timeout --kill-after=5 "$mine" \
    bash "$root/tests/gpu/$s" >"$work/$area/stdout.txt" 2>&1
  rc=$?
  {
    echo
    echo "== $area: exit $rc in $(( $(date +%s) - a0 )) s of $mine$([ $rc -eq 124 ] && echo ' (TIMED OUT)')"
    # Each script prints its summary last.
    tail -n 45 "$work/$area/stdout.txt"
  } >>"$work/summary.txt"
done

echo "total: $(( $(date +%s) - t0 )) s" >>"$work/summary.txt"
cp "$work/summary.txt" "$OUT/summary.txt"
# Small result files only (the device returns at most a few files of 16 MiB):
# files below 2 MiB, and the areas' own result tarballs (they install as
# fixtures: tests/gpu/install_h200_results.sh results.tgz) below 6 MiB.
(cd "$work" && find . -type f \( -size -2048k -o \( -size -6144k \( -name '*.tgz' -o -name '*.tar.gz' \) \) \) \
   ! -name '*.cubin' ! -name '*.o' ! -name '*.so' ! -perm -u+x -print0 | tar czf "$OUT/results.tgz" --null -T -)
cat "$work/summary.txt"

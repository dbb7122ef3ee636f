#!/usr/bin/env bash
# All of the profiler's GPU checks in one go, for the H200 machine (CUDA 13,
# CUPTI, no Clang). From a fresh copy of the repository:
#
#   OUT=/some/dir tests/gpu/run_profiler_h200.sh
#
# 1. configures with -DWARPLENS_WITH_CLANG=OFF and builds the profiler targets
# 2. runs the profiler's unit tests (CPU) and GPU tests (label gpu)
# 3. records the fixtures: the profile of each example program, through the
#    CLI (`warplens profile FILE.cu`), as JSON plus TSV/text views, and checks
#    them against the CI tests that will consume them
# 4. runs the overhead benchmark (plain vs warplens vs ncu SourceCounters)
# 5. prints a short summary table last
#
# Everything lands under $OUT: logs, $OUT/fixtures/*.json (to commit as
# tests/fixtures/profile/<name>.json), $OUT/profiler/<case>/ (each GPU test
# case's profile, program output and injection log), $OUT/bench.tsv.
# Takes about 3-5 minutes; every step has its own time limit, and the
# canary step keeps a broken collection path from eating the budget.
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
: "${OUT:?set OUT to a directory for the results}"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
build=${WARPLENS_BUILD_DIR:-$root/build-h200}
jobs=$(nproc)
start=$(date +%s)
declare -a summary
add() { summary+=("$(printf '%-34s %s' "$1" "$2")"); }
step() { echo "== $* ($(( $(date +%s) - start )) s)" >&2; }

# --- environment ------------------------------------------------------------
step "environment"
{
  echo "date: $(date -u +%FT%TZ)"
  echo "commit: $(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)"
  nvidia-smi --query-gpu=name,compute_cap,driver_version,clocks.max.memory --format=csv 2>&1
  nvcc --version 2>&1 | tail -2 || /usr/local/cuda/bin/nvcc --version 2>&1 | tail -2
  (command -v ncu && ncu --version) 2>&1 | tail -2
  cmake --version | head -1
  echo "RestrictProfilingToAdminUsers: $(grep -s RmProfilingAdminOnly /proc/driver/nvidia/params || echo unknown)"
  id
} >"$OUT/environment.txt" 2>&1
export PATH=$PATH:/usr/local/cuda/bin

# --- build ------------------------------------------------------------------
step "configure and build"
build_ok=no
if timeout 120 cmake -S "$root" -B "$build" -G Ninja -DWARPLENS_WITH_CLANG=OFF \
     -DCMAKE_BUILD_TYPE=Release >"$OUT/configure.log" 2>&1 &&
   timeout 400 cmake --build "$build" -j "$jobs" --target warplens_inject warplens_profile_cli \
     profiler_unit_tests profiler_cubin_store_tests profiler_inject_smoke_tests profiler_gpu_tests \
     >"$OUT/build.log" 2>&1; then
  build_ok=yes
fi
add "build (-DWARPLENS_WITH_CLANG=OFF)" "$build_ok$( [ $build_ok = yes ] || echo " (see build.log)")"
if [ $build_ok != yes ]; then
  tail -30 "$OUT/build.log" >&2
  printf '\n== summary ==\n'; printf '%s\n' "${summary[@]}"
  exit 1
fi
bin=$build/bin
inject=$(find "$build" -name libwarplens_inject.so | head -1)
add "injection library exports" "$(nm -D --defined-only "$inject" | awk '{print $3}' | tr '\n' ' ')"

# doctest's summary line -> "P/N passed"
doctest_result() {
  local log=$1 rc=$2
  local line
  line=$(grep -a '^\[doctest\] test cases:' "$log" | tail -1)
  if [ "$rc" = 77 ]; then head -1 "$log"; return; fi
  if [ -z "$line" ]; then echo "no result (exit $rc, see $(basename "$log"))"; return; fi
  echo "$line" | awk -F'|' '{gsub(/[^0-9]/,"",$1); gsub(/[^0-9]/,"",$2); gsub(/[^0-9]/,"",$3);
    printf "%s/%s passed%s", $2, $1, ($3 > 0 ? ", " $3 " FAILED" : "")}'
  [ "$rc" = 0 ] || echo " (exit $rc)"
}

# --- unit tests on this machine ---------------------------------------------
step "unit tests"
timeout 120 "$bin/profiler_unit_tests" >"$OUT/unit_tests.log" 2>&1; rc=$?
add "profiler unit tests (CPU)" "$(doctest_result "$OUT/unit_tests.log" $rc)"
timeout 60 "$bin/profiler_cubin_store_tests" >"$OUT/cubin_tests.log" 2>&1; rc=$?
add "cubin line mapping tests" "$(doctest_result "$OUT/cubin_tests.log" $rc)"
timeout 60 "$bin/profiler_inject_smoke_tests" >"$OUT/inject_smoke.log" 2>&1; rc=$?
add "injection smoke test (no kernels)" "$(doctest_result "$OUT/inject_smoke.log" $rc)"

# --- canary: one profiled run per mode, with a short time limit ----------------
# If the default mode fails or hangs here, the later steps would only repeat
# it: the canaries say which collection path works (and their verbose logs,
# in canary-<mode>/, say where it stopped).
step "canary runs"
canary() {  # mode extra-args...
  local mode=$1; shift
  local dir=$OUT/canary-$mode
  mkdir -p "$dir"
  timeout 120 "$bin/warplens-profile" --verbose --timeout 40 --work-dir "$dir" --out "$dir/profile.json" \
    "$@" "$root/tests/gpu/profiler_transpose.cu" -- 2 >"$dir/cli.log" 2>&1
  local rc=$?
  local lines=0
  [ -s "$dir/profile.json" ] && lines=$(grep -c '"kind": "global_store"' "$dir/profile.json")
  echo "exit $rc, $lines global-store line records"
  [ "$rc" = 0 ] && [ "$lines" -gt 0 ]
}
canary_ok=no
fixture_mode=()
if r=$(canary per-launch); then canary_ok=yes; fi
add "canary per-launch (default)" "$r"
if r=$(canary whole-run --sass-mode whole-run) && [ $canary_ok = no ]; then
  fixture_mode=(--sass-mode whole-run)  # record with what works
fi
add "canary whole-run" "$r"
r=$(canary activity-only --no-metrics) || true
add "canary activity only" "$r"

# --- GPU tests ----------------------------------------------------------------
step "GPU tests"
rm -rf "$OUT/profiler"
if [ $canary_ok = yes ]; then
  WARPLENS_GPU_OUT=$OUT timeout 300 "$bin/profiler_gpu_tests" >"$OUT/gpu_tests.log" 2>&1; rc=$?
  add "profiler GPU tests" "$(doctest_result "$OUT/gpu_tests.log" $rc)"
else
  # Only the cases that do not depend on the default mode.
  WARPLENS_GPU_OUT=$OUT timeout 200 "$bin/profiler_gpu_tests" \
    --test-case='*whole-run*,*kernel filter*' >"$OUT/gpu_tests.log" 2>&1; rc=$?
  add "profiler GPU tests (reduced)" "$(doctest_result "$OUT/gpu_tests.log" $rc)"
fi

# --- fixtures -------------------------------------------------------------------
step "record fixtures"
mkdir -p "$OUT/fixtures"
recorded=0
declare -A fixture_args=([transpose]="" [strided_copy]="2" [bank_reduction]="")
for name in transpose strided_copy bank_reduction; do
  src=$root/tests/gpu/profiler_$name.cu
  # shellcheck disable=SC2086
  if timeout 120 "$bin/warplens-profile" --verbose --timeout 40 --work-dir "$OUT/fixture-runs/$name" \
       --out "$OUT/fixtures/$name.json" "${fixture_mode[@]}" "$src" -- ${fixture_args[$name]} \
       >"$OUT/fixtures/$name.cli.log" 2>&1; then
    recorded=$((recorded + 1))
    "$bin/warplens-profile" --show "$OUT/fixtures/$name.json" --format tsv >"$OUT/fixtures/$name.tsv"
    "$bin/warplens-profile" --show "$OUT/fixtures/$name.json" --format text >"$OUT/fixtures/$name.txt"
  else
    echo "recording $name failed:" >&2
    tail -20 "$OUT/fixtures/$name.cli.log" >&2
  fi
done
add "fixtures recorded" "$recorded/3 (in fixtures/) ${fixture_mode[*]}"
if [ $recorded = 3 ]; then
  WARPLENS_PROFILE_FIXTURE_DIR=$OUT/fixtures timeout 120 "$bin/profiler_unit_tests" \
    >"$OUT/fixture_check.log" 2>&1; rc=$?
  add "CI tests on the new fixtures" "$(doctest_result "$OUT/fixture_check.log" $rc)"
fi

# Key numbers straight from the recordings (TSV columns: 4 kind, 8 per_request, 10 ratio).
tsv_value() {  # file kernel-substring kind column [line]
  awk -F'\t' -v k="$2" -v kind="$3" -v col="$4" -v line="${5:-}" \
    'index($3, k) && $4 == kind && (line == "" || $2 == line) {print $col; exit}' "$1" 2>/dev/null
}
line_of() { grep -n "$2" "$root/tests/gpu/$1" | head -1 | cut -d: -f1; }
if [ -s "$OUT/fixtures/transpose.tsv" ]; then
  t=$OUT/fixtures/transpose.tsv
  nl=$(line_of profiler_transpose.cu "LINE naive")
  add "naive store sectors/request" "$(tsv_value "$t" transpose_naive global_store 8 "$nl") (ideal $(tsv_value "$t" transpose_naive global_store 9 "$nl"); H200 ref 32 vs 4)"
  add "naive load sectors/request" "$(tsv_value "$t" transpose_naive global_load 8 "$nl") (ref 4)"
  add "tiled read n-way" "$(tsv_value "$t" transpose_tiled shared_load 10) (ref 32)"
  add "padded worst ratio" "$(awk -F'\t' 'index($3,"transpose_padded") && $4 != "all" && $4 != "branch" && $10 != "" {if ($10 > m) m = $10} END {print m + 0}' "$t") (ref 1)"
fi
if [ -s "$OUT/fixtures/strided_copy.tsv" ]; then
  s=$OUT/fixtures/strided_copy.tsv
  add "strided load sectors/request 1/2/8" "$(tsv_value "$s" 'copy_strided<1>' global_load 8)/$(tsv_value "$s" 'copy_strided<2>' global_load 8)/$(tsv_value "$s" 'copy_strided<8>' global_load 8) (expect 4/8/32)"
fi
if [ -s "$OUT/fixtures/bank_reduction.tsv" ]; then
  r=$OUT/fixtures/bank_reduction.tsv
  add "reduction shared-load n-way i/m/s" "$(tsv_value "$r" reduce_interleaved shared_load 10)/$(tsv_value "$r" reduce_modulo shared_load 10)/$(tsv_value "$r" reduce_sequential shared_load 10) (interleaved > 2)"
  add "modulo branch divergent fraction" "$(tsv_value "$r" reduce_modulo branch 10 "$(line_of profiler_bank_reduction.cu 'LINE modulo')")"
fi
if [ -f "$OUT/profiler/notes.txt" ]; then
  slow=$(grep -m1 'transpose_naive.*instrumented launch' "$OUT/profiler/notes.txt" | sed 's/.*instrumented launch //; s/x the mean.*//')
  add "instrumented/clean launch (naive)" "${slow:-n/a}x"
  clean=$(grep 'uninstrumented launches of the metrics pass' "$OUT/profiler/notes.txt" | sed 's/.*pass //; s/x activity.*//' | tr '\n' ' ')
  add "clean launches vs no-metrics run" "${clean:-n/a}(want ~1)"
fi

# --- overhead benchmark ---------------------------------------------------------------
step "overhead benchmark"
rm -f "$OUT/bench.tsv"
bench_exe=$OUT/bench-bin
mkdir -p "$bench_exe"
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')
if nvcc -lineinfo -O3 -arch=sm_"$arch" -o "$bench_exe/transpose" "$root/tests/gpu/profiler_transpose.cu" \
     >"$OUT/bench_build.log" 2>&1; then
  timeout 240 "$root/bench/profiler_overhead.sh" --runs 3 --cli "$bin/warplens-profile" \
    --label "transpose x1" --out "$OUT/bench.tsv" -- "$bench_exe/transpose" 1 >"$OUT/bench.log" 2>&1
  timeout 150 "$root/bench/profiler_overhead.sh" --runs 1 --cli "$bin/warplens-profile" \
    --label "transpose x20" --out "$OUT/bench.tsv" -- "$bench_exe/transpose" 20 >>"$OUT/bench.log" 2>&1
fi
if [ -s "$OUT/bench.tsv" ]; then
  while IFS=$'\t' read -r label config secs xplain ncu_over ncu_first_over; do
    [ "$label" = label ] && continue
    case $config in
      plain) add "bench $label plain" "${secs} s" ;;
      warplens-1pass|warplens) add "bench $label $config" "${secs} s = ${xplain}x plain; ncu ${ncu_over}x slower, ncu-first ${ncu_first_over}x" ;;
      ncu|ncu-first) add "bench $label $config" "${secs} s = ${xplain}x plain" ;;
    esac
  done <"$OUT/bench.tsv"
else
  add "overhead benchmark" "no result (see bench.log)"
fi

# --- summary --------------------------------------------------------------------
printf '\n== warplens profiler on %s: summary (%d s, results in %s) ==\n' \
  "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" "$(( $(date +%s) - start ))" "$OUT"
printf '%s\n' "${summary[@]}"

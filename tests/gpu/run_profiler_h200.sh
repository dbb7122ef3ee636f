#!/usr/bin/env bash
# All of the profiler's GPU checks in one go, for the H200 machine (CUDA 13,
# CUPTI, no Clang). From a fresh copy of the repository:
#
#   OUT=/some/dir tests/gpu/run_profiler_h200.sh
#
# It writes exactly two small files to $OUT: profiler-results.tar.gz (a
# folder profiler-results/: profiles, trimmed logs, summaries; no binaries,
# kept well under 10 MB) and summary.txt; the summary is printed last on
# stdout. The whole run keeps to a time budget (default 225 s,
# WARPLENS_H200_BUDGET_S): every step gets at most what is left, and the
# steps are ordered by how much their result is worth:
#
#  1. build (-DWARPLENS_WITH_CLANG=OFF, profiler targets only); in parallel
#     nvcc builds the benchmark's program
#  2. CPU unit tests, in the background
#  3. canaries: the transpose through the CLI in the default two passes
#     (metrics pass without the Activity API, timing pass without SASS
#     metrics) and as one metrics-only pass; and, as a diagnostic, SASS
#     metrics with the Activity API in one process (the second run's zeros)
#  4. fixtures: transpose, strided copy, reductions (CLI, default), as JSON +
#     views; then, in the background, the CI unit tests against them
#  5. GPU tests (label gpu), each case's profile, log and dump kept
#  6. the overhead benchmark: plain vs warplens (two passes) vs warplens
#     metrics-only vs ncu SourceCounters (all launches / first launch)
#
# In the tarball: summary.txt, steps.log, environment.txt, build/test logs,
# canary-<name>/ (cli.log, metrics.stderr and timing.stderr = the library's
# verbose logs, profile.json, sass-dump-*.tsv, digest.txt), fixtures/*.json
# (commit as tests/fixtures/profile/<name>.json), fixture-runs/,
# profiler/<case>/ (GPU tests), bench.tsv.
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
: "${OUT:?set OUT to a directory for the results}"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
start=$(date +%s)
budget=${WARPLENS_H200_BUDGET_S:-225}
work=$(mktemp -d "${TMPDIR:-/tmp}/warplens-h200-XXXXXX")
R=$work/profiler-results
mkdir -p "$R" "$work/bin"
build=${WARPLENS_BUILD_DIR:-$root/build-h200}
jobs=$(nproc)
declare -a summary
add() { summary+=("$(printf '%-38s %s' "$1" "$2")"); }
elapsed() { echo $(( $(date +%s) - start )); }
step() { echo "== $* ($(elapsed) s)" | tee -a "$R/steps.log" >&2; }
# cap WANT [KEEP]: seconds a step may take: WANT at most, and never so long
# that less than KEEP seconds remain for the steps after it that matter more
# than it (the steps run roughly in order of importance; packing needs ~5 s).
cap() {
  local want=$1 keep=${2:-10} left
  left=$(( budget - $(elapsed) - keep ))
  (( left < want )) && want=$left
  (( want < 0 )) && want=0
  echo "$want"
}
skip() { add "$1" "skipped: time budget ($(elapsed) of ${budget} s used)"; }
# wait_bounded PID SECONDS: waits for a background job at most SECONDS, then
# ends it and its children.
wait_bounded() {
  local pid=$1 n=$2
  while kill -0 "$pid" 2>/dev/null && (( n > 0 )); do sleep 1; n=$((n - 1)); done
  if kill -0 "$pid" 2>/dev/null; then
    pkill -P "$pid" 2>/dev/null
    kill "$pid" 2>/dev/null
  fi
  wait "$pid" 2>/dev/null
}
script_rc=0

# Only small text goes into the tarball: no executables or cubins, every
# file over 256 KiB cut to its first 32 KiB and last 192 KiB. Should the
# archive still exceed 9 MB, the raw SASS dumps go, then everything but the
# summaries, fixtures and benchmark.
pack() {
  local f size
  find "$R" -type f | while IFS= read -r f; do
    if [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] ||
       case $f in *.cubin|*.fatbin|*.o|*.so|*.a|*.ncu-rep) true ;; *) false ;; esac; then
      rm -f "$f"
      continue
    fi
    size=$(stat -c %s "$f")
    if [ "$size" -gt 262144 ]; then
      { head -c 32768 "$f"; printf '\n[... %d bytes cut by run_profiler_h200.sh ...]\n' "$size"; tail -c 196608 "$f"; } >"$f.cut"
      mv "$f.cut" "$f"
    fi
  done
  tar -czf "$OUT/profiler-results.tar.gz" -C "$work" profiler-results 2>"$work/tar.log" || return 1
  size=$(stat -c %s "$OUT/profiler-results.tar.gz")
  if [ "$size" -gt 9000000 ]; then
    find "$R" -name 'sass-dump-*' -delete
    tar -czf "$OUT/profiler-results.tar.gz" -C "$work" profiler-results 2>"$work/tar.log" || return 1
    size=$(stat -c %s "$OUT/profiler-results.tar.gz")
  fi
  if [ "$size" -gt 9000000 ]; then
    tar -czf "$OUT/profiler-results.tar.gz" -C "$work" profiler-results/summary.txt \
      profiler-results/fixtures profiler-results/bench.tsv 2>"$work/tar.log" || return 1
    size=$(stat -c %s "$OUT/profiler-results.tar.gz")
  fi
  echo "$size"
}

finish() {
  trap - EXIT
  # Never leave a background job (or its children) running past the script.
  for pid in ${unit_pid:-} ${bench_build_pid:-} ${fixture_check_pid:-}; do
    pkill -P "$pid" 2>/dev/null
    kill "$pid" 2>/dev/null
  done
  {
    printf '== warplens profiler on %s: summary (%d s of %d, results in %s) ==\n' \
      "$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)" "$(elapsed)" "$budget" \
      "$OUT/profiler-results.tar.gz"
    printf '%s\n' "${summary[@]}"
  } >"$R/summary.txt"
  local size
  if size=$(pack); then
    echo "results archive: $size bytes" >>"$R/summary.txt"
  else
    echo "packing the results failed: $(cat "$work/tar.log")" >>"$R/summary.txt"
  fi
  cp "$R/summary.txt" "$OUT/summary.txt"
  echo
  cat "$R/summary.txt"
  rm -rf "$work"
  exit "$script_rc"
}
trap finish EXIT

# --- environment ------------------------------------------------------------
step "environment"
export PATH=$PATH:/usr/local/cuda/bin
{
  echo "date: $(date -u +%FT%TZ)"
  echo "commit: $(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)"
  git -C "$root" status --short 2>/dev/null | head -20
  nvidia-smi --query-gpu=name,compute_cap,driver_version,clocks.max.memory --format=csv 2>&1
  nvcc --version 2>&1 | tail -2
  (command -v ncu && ncu --version) 2>&1 | tail -2
  cmake --version | head -1
  echo "RestrictProfilingToAdminUsers: $(grep -s RmProfilingAdminOnly /proc/driver/nvidia/params || echo unknown)"
  echo "CUDA_MODULE_LOADING=${CUDA_MODULE_LOADING:-unset}"
  command -v python3 || echo "no python3: digests fall back to grep"
  id
} >"$R/environment.txt" 2>&1
cuda_root=$(dirname "$(dirname "$(command -v nvcc)")")
export LD_LIBRARY_PATH=$cuda_root/lib64:$cuda_root/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
arch=sm_${arch:-90}
# Diagnostic settings from the caller's environment would change what is measured.
unset WARPLENS_PROFILE_ACTIVITY WARPLENS_PROFILE_SASS_SETUP

# --- build --------------------------------------------------------------------
step "build (and, in parallel, nvcc for the benchmark program)"
(timeout 150 nvcc -lineinfo -O3 -arch="$arch" -o "$work/bin/transpose" "$root/tests/gpu/profiler_transpose.cu" \
   >"$R/bench_build.log" 2>&1) >/dev/null 2>&1 &
bench_build_pid=$!
build_ok=no
if timeout "$(cap 40 150)" cmake -S "$root" -B "$build" -G Ninja -DWARPLENS_WITH_CLANG=OFF \
     -DCMAKE_BUILD_TYPE=Release >"$R/configure.log" 2>&1 &&
   timeout "$(cap 150 95)" cmake --build "$build" -j "$jobs" --target warplens_inject warplens_profile_cli \
     profiler_unit_tests profiler_cubin_store_tests profiler_inject_smoke_tests profiler_sass_flush_tests \
     profiler_inject_pipeline_tests profiler_gpu_tests >"$R/build.log" 2>&1; then
  build_ok=yes
fi
add "build (-DWARPLENS_WITH_CLANG=OFF)" "$build_ok in $(elapsed) s$( [ $build_ok = yes ] || echo " (see build.log)")"
if [ $build_ok != yes ]; then
  tail -30 "$R/build.log" >&2
  script_rc=1
  exit 1
fi
bin=$build/bin
# WARPLENS_H200_CLI: another `warplens profile` (to rehearse this script
# without a GPU, with a stand-in that writes recorded profiles).
cli=${WARPLENS_H200_CLI:-$bin/warplens-profile}
inject=$(find "$build" -name libwarplens_inject.so | head -1)
add "injection library exports" "$(nm -D --defined-only "$inject" 2>/dev/null | awk '{print $3}' | tr '\n' ' ')"

# doctest's summary line -> "P/N passed"
doctest_result() {
  local log=$1 rc=$2 line
  if [ "$rc" = 77 ]; then head -1 "$log"; return; fi
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then echo "timed out (see $(basename "$log"))"; return; fi
  line=$(grep -a '^\[doctest\] test cases:' "$log" | tail -1)
  if [ -z "$line" ]; then echo "no result (exit $rc, see $(basename "$log"))"; return; fi
  echo "$line" | awk -F'|' '{gsub(/[^0-9]/,"",$1); gsub(/[^0-9]/,"",$2); gsub(/[^0-9]/,"",$3);
    printf "%s/%s passed%s", $2, $1, ($3 > 0 ? ", " $3 " FAILED" : "")}'
  [ "$rc" = 0 ] || echo " (exit $rc)"
}
# The first failed checks of a doctest log, one summary line each.
doctest_failures() {  # log label
  while IFS= read -r l; do add "  $2" "$l"; done < <(
    grep -a 'ERROR\|FATAL' "$1" | sed "s|$root/||" | cut -c1-200 | head -6)
}

# --- CPU unit tests, in the background -------------------------------------------
step "CPU unit tests (background)"
(
  timeout 100 "$bin/profiler_unit_tests" >"$R/unit_tests.log" 2>&1; echo $? >"$R/unit_tests.rc"
  for t in cubin_store sass_flush inject_pipeline inject_smoke; do
    timeout 30 "$bin/profiler_${t}_tests" >"$R/${t}_tests.log" 2>&1; echo $? >"$R/${t}_tests.rc"
  done
) >/dev/null 2>&1 &
unit_pid=$!

# --- canaries ---------------------------------------------------------------------
digest() {  # profile.json -> one line; exit 0 when it has per-line data
  if command -v python3 >/dev/null; then
    python3 "$root/tests/gpu/profile_digest.py" "$1"
  else
    local n
    n=$(grep -c '"kind": "global_store"' "$1" 2>/dev/null)
    echo "${n:-0} global_store records (no python3 for details)"
    [ "${n:-0}" -gt 0 ]
  fi
}
# canary NAME CLI-ARGS...: the transpose (2 launches per kernel) through the CLI.
canary() {
  local name=$1 dir=$R/canary-$1 t rc; shift
  mkdir -p "$dir"
  # A second or two per pass, plus nvcc; a hang must not eat the budget
  # of the fixtures and GPU tests after it.
  t=$(cap 25 70)
  if [ "$t" -lt 10 ]; then echo "skipped: time budget"; return 1; fi
  timeout "$t" "$cli" --verbose --timeout 20 --work-dir "$dir" --out "$dir/profile.json" \
    --sass-dump "$dir/sass-dump-%p.tsv" "$@" "$root/tests/gpu/profiler_transpose.cu" -- 2 >"$dir/cli.log" 2>&1
  rc=$?
  if [ ! -s "$dir/profile.json" ]; then
    echo "exit $rc, no profile: $(tail -1 "$dir/cli.log" | cut -c1-160)"
    return 1
  fi
  digest "$dir/profile.json" >"$dir/digest.txt"
  local ok=$?
  echo "exit $rc; $(cat "$dir/digest.txt")"
  [ "$rc" = 0 ] && [ "$ok" = 0 ]
}

step "canaries"
r=$(canary two-passes) || true
add "canary default (two passes)" "$r"
r=$(canary metrics-only --passes 1) || true
add "canary metrics only (--passes 1)" "$r"

# Diagnostic: SASS metrics and the Activity API in one process, set by hand
# (the runner never does): the second run returned every value as 0.
wait_bounded "$bench_build_pid" "$(cap 30 70)"
bench_build_pid=
t=$(cap 15 70)
if [ -x "$work/bin/transpose" ] && [ "$t" -ge 8 ]; then
  d=$R/canary-sass-with-activity
  mkdir -p "$d"
  CUDA_INJECTION64_PATH=$inject WARPLENS_PROFILE_OUT=$d/profile.json WARPLENS_PROFILE_METRICS=1 \
    WARPLENS_PROFILE_ACTIVITY=1 WARPLENS_PROFILE_VERBOSE=1 timeout "$t" "$work/bin/transpose" 2 \
    >"$d/program.log" 2>&1
  if [ -s "$d/profile.json" ]; then
    digest "$d/profile.json" >"$d/digest.txt"
    add "diagnostic: SASS + activity, 1 process" "$(cat "$d/digest.txt") (run 2: all zero)"
  else
    add "diagnostic: SASS + activity, 1 process" "no profile: $(tail -1 "$d/program.log" | cut -c1-160)"
  fi
else
  skip "diagnostic: SASS + activity, 1 process"
fi

# --- fixtures ---------------------------------------------------------------------
step "record fixtures"
mkdir -p "$R/fixtures"
recorded=0
declare -A fixture_args=([transpose]="" [strided_copy]="2" [bank_reduction]="")
for name in transpose strided_copy bank_reduction; do
  t=$(cap 30 50)
  if [ "$t" -lt 10 ]; then skip "fixture $name"; continue; fi
  src=$root/tests/gpu/profiler_$name.cu
  # shellcheck disable=SC2086
  if timeout "$t" "$cli" --verbose --timeout 20 --work-dir "$R/fixture-runs/$name" \
       --sass-dump "$R/fixture-runs/$name/sass-dump-%p.tsv" --out "$R/fixtures/$name.json" \
       "$src" -- ${fixture_args[$name]} >"$R/fixtures/$name.cli.log" 2>&1; then
    recorded=$((recorded + 1))
    "$cli" --show "$R/fixtures/$name.json" --format tsv >"$R/fixtures/$name.tsv"
    "$cli" --show "$R/fixtures/$name.json" --format text >"$R/fixtures/$name.txt"
    add "fixture $name" "$(digest "$R/fixtures/$name.json")"
  else
    add "fixture $name" "failed: $(tail -1 "$R/fixtures/$name.cli.log" | cut -c1-160)"
  fi
done

# The CI tests against what was just recorded, in the background (CPU only).
if [ "$recorded" = 3 ]; then
  (WARPLENS_PROFILE_FIXTURE_DIR=$R/fixtures timeout 90 "$bin/profiler_unit_tests" >"$R/fixture_check.log" 2>&1
   echo $? >"$R/fixture_check.rc") >/dev/null 2>&1 &
  fixture_check_pid=$!
fi

# Key numbers straight from the recordings (TSV columns: 4 kind, 8 per_request, 9 ideal, 10 ratio).
tsv_value() {  # file kernel-substring kind column [line]
  awk -F'\t' -v k="$2" -v kind="$3" -v col="$4" -v line="${5:-}" \
    'index($3, k) && $4 == kind && (line == "" || $2 == line) {print $col; exit}' "$1" 2>/dev/null
}
line_of() { grep -n "$2" "$root/tests/gpu/$1" | head -1 | cut -d: -f1; }
if [ -s "$R/fixtures/transpose.tsv" ]; then
  t=$R/fixtures/transpose.tsv
  nl=$(line_of profiler_transpose.cu "LINE naive")
  add "naive store sectors/request" "$(tsv_value "$t" transpose_naive global_store 8 "$nl") (ideal $(tsv_value "$t" transpose_naive global_store 9 "$nl"); run 2: 32 vs 4)"
  add "naive load sectors/request" "$(tsv_value "$t" transpose_naive global_load 8 "$nl") (run 2: 4)"
  add "tiled read n-way" "$(tsv_value "$t" transpose_tiled shared_load 10) (run 2: 32)"
  add "padded worst ratio" "$(awk -F'\t' 'index($3,"transpose_padded") && $4 != "all" && $4 != "branch" && $10 != "" {if ($10 > m) m = $10} END {print m + 0}' "$t") (run 2: 1)"
fi
if [ -s "$R/fixtures/strided_copy.tsv" ]; then
  s=$R/fixtures/strided_copy.tsv
  add "strided load sectors/request 1/2/8" "$(tsv_value "$s" 'copy_strided<1>' global_load 8)/$(tsv_value "$s" 'copy_strided<2>' global_load 8)/$(tsv_value "$s" 'copy_strided<8>' global_load 8) (run 2: 4/8/32)"
fi
if [ -s "$R/fixtures/bank_reduction.tsv" ]; then
  r=$R/fixtures/bank_reduction.tsv
  add "reduction shared-load n-way i/m/s" "$(tsv_value "$r" reduce_interleaved shared_load 10)/$(tsv_value "$r" reduce_modulo shared_load 10)/$(tsv_value "$r" reduce_sequential shared_load 10) (run 2: 3.583/1/1)"
  add "modulo branch divergent fraction" "$(tsv_value "$r" reduce_modulo branch 10 "$(line_of profiler_bank_reduction.cu 'LINE modulo')")"
fi

# --- GPU tests --------------------------------------------------------------------
step "GPU tests"
t=$(cap 75 8)
if [ "$t" -lt 30 ]; then
  skip "profiler GPU tests"
else
  WARPLENS_GPU_OUT=$R timeout "$t" "$bin/profiler_gpu_tests" >"$R/gpu_tests.log" 2>&1
  rc=$?
  add "profiler GPU tests" "$(doctest_result "$R/gpu_tests.log" $rc)"
  doctest_failures "$R/gpu_tests.log" "gpu test"
fi

# --- unit tests and the CI tests on the new fixtures (waited for) --------------------
step "unit test results; CI tests on the new fixtures"
wait_bounded "$unit_pid" "$(cap 20 8)"
unit_pid=
for t in unit_tests:"profiler unit tests (CPU)" cubin_store_tests:"cubin line mapping tests" \
         sass_flush_tests:"SASS flush buffer tests" inject_pipeline_tests:"injection pipeline, fake CUPTI" \
         inject_smoke_tests:"injection smoke test (no kernels)"; do
  log=${t%%:*}
  add "${t#*:}" "$(doctest_result "$R/$log.log" "$(cat "$R/$log.rc" 2>/dev/null || echo '?')")"
done
if [ -n "${fixture_check_pid:-}" ]; then
  wait_bounded "$fixture_check_pid" "$(cap 20 8)"
  fixture_check_pid=
  add "CI tests on the new fixtures" "$(doctest_result "$R/fixture_check.log" "$(cat "$R/fixture_check.rc" 2>/dev/null || echo 124)")"
  doctest_failures "$R/fixture_check.log" "CI test"
else
  add "CI tests on the new fixtures" "not run: $recorded of 3 fixtures recorded"
fi

# --- overhead benchmark -------------------------------------------------------------
step "overhead benchmark"
if [ ! -x "$work/bin/transpose" ]; then
  add "overhead benchmark" "program not built (see bench_build.log)"
else
  t=$(cap 45 12)
  if [ "$t" -lt 35 ]; then
    skip "bench transpose x1"
  else
    timeout "$t" "$root/bench/profiler_overhead.sh" --runs 3 --cli "$cli" \
      --label "transpose x1" --out "$R/bench.tsv" -- "$work/bin/transpose" 1 >"$R/bench.log" 2>&1
  fi
  t=$(cap 40 5)
  if [ "$t" -lt 30 ]; then
    skip "bench transpose x20"
  else
    timeout "$t" "$root/bench/profiler_overhead.sh" --runs 1 --cli "$cli" \
      --label "transpose x20" --out "$R/bench.tsv" -- "$work/bin/transpose" 20 >>"$R/bench.log" 2>&1
  fi
fi
if [ -s "$R/bench.tsv" ]; then
  met() { awk -v r="$1" 'BEGIN{print (r+0 >= 10 ? "met" : "NOT met")}'; }
  while IFS=$'\t' read -r label config secs xplain ncu_over ncu_first_over lines; do
    [ "$label" = label ] && continue
    case $config in
      plain) add "bench $label plain" "$([ "$secs" = failed ] && echo "failed (see bench.log)" || echo "$secs s")" ;;
      warplens|warplens-metrics-only)
        verdict="goal 10x: vs ncu $(met "$ncu_over"), vs ncu-first $(met "$ncu_first_over")"
        [ "${lines:-0}" = 0 ] && verdict="no per-line data in its profile: not a like-for-like comparison"
        add "bench $label $config" "${secs} s = ${xplain}x plain; ncu ${ncu_over}x slower, ncu-first ${ncu_first_over}x slower; ${lines} line records; $verdict" ;;
      ncu|ncu-first) add "bench $label $config" "${secs} s = ${xplain}x plain" ;;
    esac
  done <"$R/bench.tsv"
elif [ -x "$work/bin/transpose" ]; then
  add "overhead benchmark" "no result (see bench.log)"
fi

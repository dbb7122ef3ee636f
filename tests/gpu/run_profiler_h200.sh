#!/usr/bin/env bash
# All of the profiler's GPU checks in one go, for the H200 machine (CUDA 13,
# CUPTI, no Clang). From a fresh copy of the repository:
#
#   OUT=/some/dir tests/gpu/run_profiler_h200.sh
#
# Everything it produces is packed into ONE file, $OUT/profiler-results.tar.gz
# (a folder profiler-results/), plus $OUT/summary.txt; the short summary is
# printed last on stdout. The whole run keeps to a time budget (default 285 s,
# WARPLENS_H200_BUDGET_S): every step gets at most what is left, and the
# steps are ordered by how much their result is worth:
#
#  1. build (-DWARPLENS_WITH_CLANG=OFF, profiler targets only); in parallel
#     nvcc builds the CUPTI matrix probe and the benchmark's program
#  2. CPU unit tests, in the background (done before the benchmark)
#  3. matrix: the reference SASS probe with one difference at a time towards
#     what the injection library does (tests/gpu/cupti_sass_matrix.cu):
#     says which difference, if any, turns CUPTI's values to 0
#  4. canaries: the transpose profiled through the CLI in each collection
#     configuration, each with its raw SASS record dump; the first that
#     yields per-line data is used for everything after
#  5. fixtures: transpose, strided copy, reductions (CLI), as JSON + views
#  6. GPU tests (label gpu), each case's profile, log and dump kept
#  7. the CI unit tests run against the new fixtures
#  8. the overhead benchmark (plain vs warplens vs ncu SourceCounters)
#
# In the tarball: summary.txt, steps.log, environment.txt, build/test logs,
# matrix/<variant>.log, canary-<name>/ (cli.log, metrics.stderr = the
# library's verbose log, profile.json, sass-dump-*.tsv, digest.txt),
# fixtures/*.json (commit as tests/fixtures/profile/<name>.json), fixture-runs/,
# profiler/<case>/ (GPU tests), bench.tsv.
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
: "${OUT:?set OUT to a directory for the results}"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
start=$(date +%s)
budget=${WARPLENS_H200_BUDGET_S:-285}
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

finish() {
  trap - EXIT
  # Never leave a background job (or its children) running past the script.
  for pid in ${unit_pid:-} ${matrix_build_pid:-} ${bench_build_pid:-}; do
    pkill -P "$pid" 2>/dev/null
    kill "$pid" 2>/dev/null
  done
  {
    printf '== warplens profiler on %s: summary (%d s of %d, results in %s) ==\n' \
      "$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)" "$(elapsed)" "$budget" \
      "$OUT/profiler-results.tar.gz"
    printf '%s\n' "${summary[@]}"
  } >"$R/summary.txt"
  tar -czf "$OUT/profiler-results.tar.gz" -C "$work" profiler-results 2>"$work/tar.log" ||
    echo "packing the results failed: $(cat "$work/tar.log")" >>"$R/summary.txt"
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
cuda_libs="-L$cuda_root/lib64 -L$cuda_root/extras/CUPTI/lib64 -L$cuda_root/targets/x86_64-linux/lib"
export LD_LIBRARY_PATH=$cuda_root/lib64:$cuda_root/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
arch=sm_${arch:-90}

# --- build --------------------------------------------------------------------
step "build (and, in parallel, nvcc for the matrix probe and the benchmark program)"
# shellcheck disable=SC2086
(timeout 150 nvcc -O3 -lineinfo -arch="$arch" -o "$work/bin/cupti_sass_matrix" "$root/tests/gpu/cupti_sass_matrix.cu" \
   $cuda_libs -lcupti -lcuda >"$R/matrix_build.log" 2>&1) >/dev/null 2>&1 &
matrix_build_pid=$!
(timeout 150 nvcc -lineinfo -O3 -arch="$arch" -o "$work/bin/transpose" "$root/tests/gpu/profiler_transpose.cu" \
   >"$R/bench_build.log" 2>&1) >/dev/null 2>&1 &
bench_build_pid=$!
build_ok=no
if timeout "$(cap 60 150)" cmake -S "$root" -B "$build" -G Ninja -DWARPLENS_WITH_CLANG=OFF \
     -DCMAKE_BUILD_TYPE=Release >"$R/configure.log" 2>&1 &&
   timeout "$(cap 170 110)" cmake --build "$build" -j "$jobs" --target warplens_inject warplens_profile_cli \
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
add "injection library exports" "$(nm -D --defined-only "$inject" | awk '{print $3}' | tr '\n' ' ')"

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

# --- CPU unit tests, in the background -------------------------------------------
step "CPU unit tests (background)"
(
  timeout 100 "$bin/profiler_unit_tests" >"$R/unit_tests.log" 2>&1; echo $? >"$R/unit_tests.rc"
  for t in cubin_store sass_flush inject_pipeline inject_smoke; do
    timeout 30 "$bin/profiler_${t}_tests" >"$R/${t}_tests.log" 2>&1; echo $? >"$R/${t}_tests.rc"
  done
) >/dev/null 2>&1 &
unit_pid=$!

# --- matrix probe -----------------------------------------------------------------
step "matrix probe"
wait_bounded "$matrix_build_pid" "$(cap 60 120)"
matrix_build_pid=
mkdir -p "$R/matrix"
# shellcheck disable=SC2054  # commas join the flags of one variant
# Most telling first (a slow build leaves time for only a few): does the
# probe work here, does the first run's setup reproduce the zeros, do the
# fixes (setup at context creation) work; then one difference at a time.
matrix_variants=(
  reference
  metrics15,activity,init_in_callback,enable_in_callback
  metrics15,activity,init_at_context,enable_in_callback
  metrics15,activity,enable_at_context
  preload init_in_callback,enable_in_callback enable_in_callback preload,enable_in_callback
  activity metrics15 callbacks preload_after_config brackets structsize
)
if [ ! -x "$work/bin/cupti_sass_matrix" ]; then
  add "matrix probe" "not built (see matrix_build.log)"
else
  for v in "${matrix_variants[@]}"; do
    t=$(cap 15 120)
    if [ "$t" -lt 5 ]; then skip "matrix $v"; continue; fi
    timeout "$t" "$work/bin/cupti_sass_matrix" "$v" >"$R/matrix/$v.log" 2>&1
    rc=$?
    line=$(grep -a '^matrix ' "$R/matrix/$v.log" | sed 's/^matrix [^:]*: //; s/records /rec /; s/ instances [0-9]*//;
      s/naive_sectors max\/min/naive/; s/tile_wavefronts_max/tile/')
    add "matrix $v" "${line:-no result (exit $rc: $(tail -1 "$R/matrix/$v.log" | cut -c1-100))}"
  done
fi

# --- canaries ---------------------------------------------------------------------
# canary NAME ENV-SETUP CLI-ARGS...: the transpose through the CLI; prints a digest.
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
canary() {
  local name=$1 setup=$2; shift 2
  local dir=$R/canary-$name t
  mkdir -p "$dir"
  # The program takes a second or two; a hang (CUPTI deadlocking in a
  # callback) must not eat the budget.
  t=$(cap 35 90)
  if [ "$t" -lt 10 ]; then echo "skipped: time budget"; return 1; fi
  WARPLENS_PROFILE_SASS_SETUP=$setup timeout "$t" "$cli" --verbose --timeout 20 --work-dir "$dir" \
    --out "$dir/profile.json" --sass-dump "$dir/sass-dump-%p.tsv" "$@" \
    "$root/tests/gpu/profiler_transpose.cu" -- 2 >"$dir/cli.log" 2>&1
  local rc=$?
  if [ ! -s "$dir/profile.json" ]; then
    echo "exit $rc, no profile: $(tail -1 "$dir/cli.log")"
    return 1
  fi
  digest "$dir/profile.json" >"$dir/digest.txt"
  local ok=$?
  echo "exit $rc; $(cat "$dir/digest.txt")"
  [ "$rc" = 0 ] && [ "$ok" = 0 ]
}

step "canaries"
# The configuration that yields per-line data is used for the fixtures, the
# GPU tests and the benchmark: SETUP (WARPLENS_PROFILE_SASS_SETUP) and MODE_ARGS.
chosen=""
mode_args=()
setup=context
try_canary() {  # label setup cli-args...
  local label=$1 s=$2; shift 2
  local r
  if r=$(canary "$label" "$s" "$@"); then
    if [ -z "$chosen" ]; then chosen=$label; setup=$s; mode_args=("$@"); fi
  fi
  add "canary $label" "$r"
}
try_canary per-launch context
try_canary whole-run context --sass-mode whole-run
# The first H200 run's configuration (setup at the first launch), kept as the
# comparison that tells whether the setup timing was the cause.
try_canary per-launch-setup-at-launch launch
if [ -z "$chosen" ]; then
  # Nothing worked: the diagnostic variants, for the report.
  try_canary whole-run-setup-at-launch launch --sass-mode whole-run
  WARPLENS_PROFILE_ACTIVITY=0 try_canary per-launch-no-activity context
  [ "$chosen" = per-launch-no-activity ] && export WARPLENS_PROFILE_ACTIVITY=0
fi
r=$(canary activity-only context --no-metrics) || true
add "canary activity only" "$r"
add "configuration used below" "${chosen:-none worked; default per-launch} (SASS setup at $setup${mode_args[*]:+, ${mode_args[*]}})"
export WARPLENS_PROFILE_SASS_SETUP=$setup

# --- fixtures ---------------------------------------------------------------------
step "record fixtures"
mkdir -p "$R/fixtures"
recorded=0
declare -A fixture_args=([transpose]="" [strided_copy]="2" [bank_reduction]="")
for name in transpose strided_copy bank_reduction; do
  t=$(cap 45 60)
  if [ "$t" -lt 10 ]; then skip "fixture $name"; continue; fi
  src=$root/tests/gpu/profiler_$name.cu
  # shellcheck disable=SC2086
  if timeout "$t" "$cli" --verbose --timeout 20 --work-dir "$R/fixture-runs/$name" \
       --sass-dump "$R/fixture-runs/$name/sass-dump-%p.tsv" --out "$R/fixtures/$name.json" \
       "${mode_args[@]}" "$src" -- ${fixture_args[$name]} >"$R/fixtures/$name.cli.log" 2>&1; then
    recorded=$((recorded + 1))
    "$cli" --show "$R/fixtures/$name.json" --format tsv >"$R/fixtures/$name.tsv"
    "$cli" --show "$R/fixtures/$name.json" --format text >"$R/fixtures/$name.txt"
    add "fixture $name" "$(digest "$R/fixtures/$name.json")"
  else
    add "fixture $name" "failed: $(tail -1 "$R/fixtures/$name.cli.log")"
  fi
done

# Key numbers straight from the recordings (TSV columns: 4 kind, 8 per_request, 9 ideal, 10 ratio).
tsv_value() {  # file kernel-substring kind column [line]
  awk -F'\t' -v k="$2" -v kind="$3" -v col="$4" -v line="${5:-}" \
    'index($3, k) && $4 == kind && (line == "" || $2 == line) {print $col; exit}' "$1" 2>/dev/null
}
line_of() { grep -n "$2" "$root/tests/gpu/$1" | head -1 | cut -d: -f1; }
if [ -s "$R/fixtures/transpose.tsv" ]; then
  t=$R/fixtures/transpose.tsv
  nl=$(line_of profiler_transpose.cu "LINE naive")
  add "naive store sectors/request" "$(tsv_value "$t" transpose_naive global_store 8 "$nl") (ideal $(tsv_value "$t" transpose_naive global_store 9 "$nl"); H200 ref 32 vs 4)"
  add "naive load sectors/request" "$(tsv_value "$t" transpose_naive global_load 8 "$nl") (ref 4)"
  add "tiled read n-way" "$(tsv_value "$t" transpose_tiled shared_load 10) (ref 32)"
  add "padded worst ratio" "$(awk -F'\t' 'index($3,"transpose_padded") && $4 != "all" && $4 != "branch" && $10 != "" {if ($10 > m) m = $10} END {print m + 0}' "$t") (ref 1)"
fi
if [ -s "$R/fixtures/strided_copy.tsv" ]; then
  s=$R/fixtures/strided_copy.tsv
  add "strided load sectors/request 1/2/8" "$(tsv_value "$s" 'copy_strided<1>' global_load 8)/$(tsv_value "$s" 'copy_strided<2>' global_load 8)/$(tsv_value "$s" 'copy_strided<8>' global_load 8) (expect 4/8/32)"
fi
if [ -s "$R/fixtures/bank_reduction.tsv" ]; then
  r=$R/fixtures/bank_reduction.tsv
  add "reduction shared-load n-way i/m/s" "$(tsv_value "$r" reduce_interleaved shared_load 10)/$(tsv_value "$r" reduce_modulo shared_load 10)/$(tsv_value "$r" reduce_sequential shared_load 10) (interleaved > 2)"
  add "modulo branch divergent fraction" "$(tsv_value "$r" reduce_modulo branch 10 "$(line_of profiler_bank_reduction.cu 'LINE modulo')")"
fi

# --- GPU tests --------------------------------------------------------------------
step "GPU tests"
t=$(cap 120 45)
if [ "$t" -lt 30 ]; then
  skip "profiler GPU tests"
else
  filter=()
  which="all cases"
  if [ "$chosen" = whole-run ]; then
    # Whole-run alone worked: the per-launch cases cannot pass, run the rest.
    filter=(--test-case='*whole-run*,*kernel filter*')
    which="whole-run cases"
  elif [ -z "$chosen" ]; then
    # Nothing worked: one case, for its logs and dumps; the time is better
    # spent on the benchmark.
    filter=(--test-case='transpose: the naive store*')
    which="first case only"
  fi
  WARPLENS_GPU_OUT=$R timeout "$t" "$bin/profiler_gpu_tests" "${filter[@]}" >"$R/gpu_tests.log" 2>&1
  rc=$?
  add "profiler GPU tests ($which)" "$(doctest_result "$R/gpu_tests.log" $rc)"
  while IFS= read -r l; do add "  gpu test" "$l"; done < <(
    grep -a -A3 'ERROR\|FATAL' "$R/gpu_tests.log" | grep -a 'TEST CASE\|ERROR\|FATAL' | head -6)
fi
if [ -f "$R/profiler/notes.txt" ]; then
  slow=$(grep -m1 'transpose_naive.*instrumented launch' "$R/profiler/notes.txt" | sed 's/.*instrumented launch //; s/x the mean.*//')
  add "instrumented/clean launch (naive)" "${slow:-n/a}x"
  clean=$(grep 'uninstrumented launches of the metrics pass' "$R/profiler/notes.txt" | sed 's/.*pass //; s/x activity.*//' | tr '\n' ' ')
  add "clean launches vs no-metrics run" "${clean:-n/a}(want ~1)"
fi

# --- unit tests (waited for) and the CI tests on the new fixtures -------------------
step "unit test results; CI tests on the new fixtures"
wait_bounded "$unit_pid" "$(cap 60 45)"
unit_pid=
for t in unit_tests:"profiler unit tests (CPU)" cubin_store_tests:"cubin line mapping tests" \
         sass_flush_tests:"SASS flush buffer tests" inject_pipeline_tests:"injection pipeline, fake CUPTI" \
         inject_smoke_tests:"injection smoke test (no kernels)"; do
  log=${t%%:*}
  add "${t#*:}" "$(doctest_result "$R/$log.log" "$(cat "$R/$log.rc" 2>/dev/null || echo '?')")"
done
if [ "$recorded" = 3 ]; then
  t=$(cap 60 30)
  WARPLENS_PROFILE_FIXTURE_DIR=$R/fixtures timeout "$t" "$bin/profiler_unit_tests" >"$R/fixture_check.log" 2>&1
  add "CI tests on the new fixtures" "$(doctest_result "$R/fixture_check.log" $?)"
fi

# --- overhead benchmark -------------------------------------------------------------
step "overhead benchmark"
wait_bounded "$bench_build_pid" "$(cap 30 10)"
bench_build_pid=
bench_cli_args=()
for a in "${mode_args[@]}"; do bench_cli_args+=(--cli-arg "$a"); done
if [ ! -x "$work/bin/transpose" ]; then
  add "overhead benchmark" "program not built (see bench_build.log)"
else
  t=$(cap 90 15)
  if [ "$t" -lt 35 ]; then
    skip "bench transpose x1"
  else
    timeout "$t" "$root/bench/profiler_overhead.sh" --runs 3 --cli "$cli" "${bench_cli_args[@]}" \
      --label "transpose x1" --out "$R/bench.tsv" -- "$work/bin/transpose" 1 >"$R/bench.log" 2>&1
  fi
  t=$(cap 60 5)
  if [ "$t" -lt 30 ]; then
    skip "bench transpose x20"
  else
    timeout "$t" "$root/bench/profiler_overhead.sh" --runs 1 --cli "$cli" "${bench_cli_args[@]}" \
      --label "transpose x20" --out "$R/bench.tsv" -- "$work/bin/transpose" 20 >>"$R/bench.log" 2>&1
  fi
fi
if [ -s "$R/bench.tsv" ]; then
  while IFS=$'\t' read -r label config secs xplain ncu_over ncu_first_over lines; do
    [ "$label" = label ] && continue
    case $config in
      plain) add "bench $label plain" "$([ "$secs" = failed ] && echo "failed (see bench.log)" || echo "$secs s")" ;;
      warplens-1pass|warplens)
        verdict="goal 10x: vs ncu $(awk -v r="$ncu_over" 'BEGIN{print (r+0 >= 10 ? "met" : "NOT met")}')"
        verdict+=", vs ncu-first $(awk -v r="$ncu_first_over" 'BEGIN{print (r+0 >= 10 ? "met" : "NOT met")}')"
        [ "${lines:-0}" = 0 ] && verdict="no per-line data in its profile: not a like-for-like comparison"
        add "bench $label $config" "${secs} s = ${xplain}x plain; ncu ${ncu_over}x slower, ncu-first ${ncu_first_over}x slower; ${lines} line records; $verdict" ;;
      ncu|ncu-first) add "bench $label $config" "${secs} s = ${xplain}x plain" ;;
    esac
  done <"$R/bench.tsv"
elif [ -x "$work/bin/transpose" ]; then
  add "overhead benchmark" "no result (see bench.log)"
fi

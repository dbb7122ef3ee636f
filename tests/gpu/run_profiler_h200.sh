#!/usr/bin/env bash
# The profiler's GPU checks in one go, for the H200 machine (CUDA 13, CUPTI,
# no Clang). From the repository root:
#
#   OUT=/some/dir tests/gpu/run_profiler_h200.sh
#
# Steps (each capped so the whole run stays under WARPLENS_H200_BUDGET_S,
# default 285 s, on a 16-core box):
#   1. build the profiler targets with -DWARPLENS_WITH_CLANG=OFF into
#      ${WARPLENS_BUILD_DIR:-build-h200} (shared with the other areas' scripts;
#      only profiler targets are built here); in parallel nvcc builds the
#      transpose for the benchmark
#   2. the profiler GPU tests (ctest label gpu; they exit 77 without a GPU)
#   3. `warplens profile` on tests/gpu/profiler_{transpose,strided_copy,
#      bank_reduction}.cu (default: two passes, metrics then timing)
#   4. the CPU unit tests against those fresh recordings
#      (WARPLENS_PROFILE_FIXTURE_DIR), i.e. the fixtures are what CI expects
#   5. bench/profiler_overhead.sh, one run per configuration
#
# $OUT receives four small files only (the device returns at most 8):
#   profiler-summary.txt     the summary, also printed last
#   profiler-profiles.tar.gz profiles/<name>.json (+ .tsv, .txt views) for
#                            tests/gpu/install_profiler_fixtures.sh
#   profiler-logs.tar.gz     build/test/CLI logs, each cut to its last 64 KiB
#   profiler-bench.tsv       the overhead benchmark's rows
# No cubin, SASS dump or build output is ever put there.
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
: "${OUT:?set OUT to a directory for the results}"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
start=$(date +%s)
budget=${WARPLENS_H200_BUDGET_S:-285}
build=${WARPLENS_BUILD_DIR:-build-h200}
case $build in /*) ;; *) build=$root/$build ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/warplens-profiler-h200-XXXXXX")
logs=$work/logs
profiles=$work/profiles
mkdir -p "$logs" "$profiles" "$work/bin"
jobs=$(nproc)
script_rc=0
declare -a summary
add() { summary+=("$(printf '%-40s %s' "$1" "$2")"); }
elapsed() { echo $(( $(date +%s) - start )); }
step() { echo "== $* ($(elapsed) s)" >&2; }
# cap WANT KEEP: seconds a step may take: at most WANT, leaving KEEP seconds
# for the steps after it.
cap() {
  local want=$1 keep=$2 left
  left=$(( budget - $(elapsed) - keep ))
  (( left < want )) && want=$left
  (( want < 0 )) && want=0
  echo "$want"
}

finish() {
  trap - EXIT
  [ -n "${bench_build_pid:-}" ] && kill "$bench_build_pid" 2>/dev/null
  {
    printf '== warplens profiler GPU checks on %s: %d s (budget %d s), build %s ==\n' \
      "$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)" "$(elapsed)" \
      "$budget" "$build"
    printf '%s\n' "${summary[@]}"
  } >"$OUT/profiler-summary.txt"
  # Logs cut to their last 64 KiB: the tarball stays small whatever happened.
  mkdir -p "$work/pack/logs"
  for f in "$logs"/*; do
    [ -f "$f" ] && tail -c 65536 "$f" >"$work/pack/logs/$(basename "$f")"
  done
  tar -czf "$OUT/profiler-logs.tar.gz" -C "$work/pack" logs 2>/dev/null
  if compgen -G "$profiles/*" >/dev/null; then
    tar -czf "$OUT/profiler-profiles.tar.gz" -C "$work" profiles 2>/dev/null
  fi
  echo
  cat "$OUT/profiler-summary.txt"
  rm -rf "$work"
  exit "$script_rc"
}
trap finish EXIT

# doctest's summary line -> "P/N passed"
doctest_result() {
  local log=$1 rc=$2 line
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then echo "timed out (see $(basename "$log"))"; return; fi
  # ctest -V prefixes each line with the test's number ("1: [doctest] ...").
  line=$(grep -a '\[doctest\] test cases:' "$log" | tail -1 | sed 's/.*\[doctest\] test cases://')
  if [ -z "$line" ]; then echo "no result (exit $rc, see $(basename "$log"))"; return; fi
  echo "$line" | awk -F'|' '{gsub(/[^0-9]/,"",$1); gsub(/[^0-9]/,"",$2); gsub(/[^0-9]/,"",$3);
    printf "%s/%s passed%s", $2, $1, ($3 > 0 ? ", " $3 " FAILED" : "")}'
  [ "$rc" = 0 ] || echo " (exit $rc)"
}

# --- environment and build -------------------------------------------------------
step "build"
export PATH=$PATH:/usr/local/cuda/bin
{
  echo "date: $(date -u +%FT%TZ)"
  echo "commit: $(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)"
  nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv 2>&1
  nvcc --version 2>&1 | tail -2
  (command -v ncu && ncu --version) 2>&1 | tail -2
  cmake --version | head -1
} >"$logs/environment.txt" 2>&1
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
arch=sm_${arch:-90}
(timeout 120 nvcc -lineinfo -O3 -arch="$arch" -o "$work/bin/transpose" \
   "$root/tests/gpu/profiler_transpose.cu" >"$logs/bench_build.log" 2>&1) &
bench_build_pid=$!
build_ok=no
if timeout "$(cap 60 200)" cmake -S "$root" -B "$build" -G Ninja -DWARPLENS_WITH_CLANG=OFF \
     -DCMAKE_BUILD_TYPE=Release >"$logs/configure.log" 2>&1 &&
   timeout "$(cap 170 100)" cmake --build "$build" -j "$jobs" --target warplens_inject \
     warplens_profile_cli profiler_unit_tests profiler_gpu_tests >"$logs/build.log" 2>&1; then
  build_ok=yes
fi
add "build (-DWARPLENS_WITH_CLANG=OFF)" "$build_ok at $(elapsed) s$([ $build_ok = yes ] || echo ' (see build.log)')"
if [ $build_ok != yes ]; then
  tail -20 "$logs/build.log" >&2
  script_rc=1
  exit 1
fi
bin=$build/bin
cli=$bin/warplens-profile

# --- GPU tests ------------------------------------------------------------------------
step "profiler GPU tests (ctest -L gpu -R ^profiler_)"
t=$(cap 120 70)
WARPLENS_GPU_OUT=$work/gpu timeout -k 5 "$t" ctest --test-dir "$build" -L gpu -R '^profiler_' \
  --output-on-failure -V >"$logs/gpu_tests.log" 2>&1
rc=$?
if grep -aq 'Skipped\|\*\*\*Skipped' "$logs/gpu_tests.log" && ! grep -aq '\[doctest\] test cases:' "$logs/gpu_tests.log"; then
  # Nothing below can run either: say so, and exit as the tests do.
  add "profiler GPU tests" "skipped: no GPU (exit 77); nothing profiled"
  script_rc=77
  exit 77
else
  add "profiler GPU tests" "$(doctest_result "$logs/gpu_tests.log" $rc)"
  while IFS= read -r l; do add "  failed" "$l"; done < <(
    grep -a 'TEST CASE:' "$logs/gpu_tests.log" | sed 's/.*TEST CASE: *//' | sort -u | head -6)
  [ $rc = 0 ] || script_rc=1
fi
[ -f "$work/gpu/profiler/notes.txt" ] && cp "$work/gpu/profiler/notes.txt" "$logs/gpu_notes.txt"

# --- the three example programs, profiled -----------------------------------------------
step "profile the example programs"
declare -A program_args=([transpose]="" [strided_copy]="2" [bank_reduction]="")  # as the provisional fixtures
recorded=0
for name in transpose strided_copy bank_reduction; do
  t=$(cap 40 45)
  if [ "$t" -lt 10 ]; then add "profile $name" "skipped: time budget"; continue; fi
  # shellcheck disable=SC2086  # the program's arguments, word-split on purpose
  if timeout -k 5 "$t" "$cli" --timeout 30 --work-dir "$work/runs/$name" --out "$profiles/$name.json" \
       "$root/tests/gpu/profiler_$name.cu" -- ${program_args[$name]} >"$logs/profile_$name.log" 2>&1; then
    recorded=$((recorded + 1))
    "$cli" --show "$profiles/$name.json" --format tsv >"$profiles/$name.tsv" 2>>"$logs/profile_$name.log"
    "$cli" --show "$profiles/$name.json" --format text >"$profiles/$name.txt" 2>>"$logs/profile_$name.log"
    add "profile $name" "$(python3 "$root/tests/gpu/profile_digest.py" "$profiles/$name.json" 2>&1 | cut -c1-300)"
  else
    add "profile $name" "FAILED: $(tail -1 "$logs/profile_$name.log" | cut -c1-200)"
    rm -f "$profiles/$name.json"
    script_rc=1
  fi
  cp "$work/runs/$name/"*.stderr "$logs/" 2>/dev/null &&
    for f in "$work/runs/$name/"*.stderr; do mv "$logs/$(basename "$f")" "$logs/${name}_$(basename "$f")"; done
done

# Key numbers from the recordings (TSV: 3 kernel, 4 kind, 8 per_request, 10 ratio).
tsv_value() {  # file kernel-substring kind column
  awk -F'\t' -v k="$2" -v kind="$3" -v col="$4" 'index($3, k) && $4 == kind {print $col; exit}' "$1" 2>/dev/null
}
if [ -s "$profiles/transpose.tsv" ]; then
  f=$profiles/transpose.tsv
  add "naive store / load sectors per request" "$(tsv_value "$f" transpose_naive global_store 8) / $(tsv_value "$f" transpose_naive global_load 8) (H200 before: 32 / 4)"
  add "tiled shared read n-way" "$(tsv_value "$f" transpose_tiled shared_load 10) (H200 before: 32)"
  add "padded shared read n-way" "$(tsv_value "$f" transpose_padded shared_load 10) (H200 before: 1)"
fi
if [ -s "$profiles/strided_copy.tsv" ]; then
  f=$profiles/strided_copy.tsv
  add "strided load sectors/request 1/2/8" "$(tsv_value "$f" 'copy_strided<1>' global_load 8)/$(tsv_value "$f" 'copy_strided<2>' global_load 8)/$(tsv_value "$f" 'copy_strided<8>' global_load 8) (H200 before: 4/8/32)"
fi
if [ -s "$profiles/bank_reduction.tsv" ]; then
  add "interleaved reduction shared n-way" "$(tsv_value "$profiles/bank_reduction.tsv" reduce_interleaved shared_load 10) (H200 before: 3.58)"
fi

# --- CPU tests on the fresh recordings ----------------------------------------------------
step "CPU unit tests on the fresh recordings"
if [ "$recorded" = 3 ]; then
  t=$(cap 40 35)
  # The nvcc build tests have nothing to do with the recordings (and take the longest).
  WARPLENS_PROFILE_FIXTURE_DIR=$profiles timeout -k 5 "$t" "$bin/profiler_unit_tests" \
    --test-case-exclude='single-file build*,a self-contained .cu builds*' \
    >"$logs/unit_on_recordings.log" 2>&1
  rc=$?
  add "CPU tests on these recordings" "$(doctest_result "$logs/unit_on_recordings.log" $rc)"
  [ $rc = 0 ] || script_rc=1
else
  add "CPU tests on these recordings" "not run: $recorded of 3 programs profiled"
fi

# --- overhead benchmark (short) -------------------------------------------------------------
step "overhead benchmark"
wait "$bench_build_pid" 2>/dev/null
bench_build_pid=
t=$(cap 75 5)
if [ ! -x "$work/bin/transpose" ]; then
  add "overhead benchmark" "program not built (see bench_build.log)"
elif [ "$t" -lt 30 ]; then
  add "overhead benchmark" "skipped: time budget"
else
  timeout -k 5 "$t" "$root/bench/profiler_overhead.sh" --runs 1 --cli "$cli" --label "transpose x1" \
    --out "$OUT/profiler-bench.tsv" -- "$work/bin/transpose" 1 >"$logs/bench.log" 2>&1
  if [ -s "$OUT/profiler-bench.tsv" ]; then
    while IFS=$'\t' read -r label config secs xplain ncu_over ncu_first_over lines; do
      [ "$label" = label ] && continue
      if [ "$secs" = failed ]; then add "bench $config" "failed (see bench.log)"; continue; fi
      add "bench $config" "$secs s = ${xplain}x plain; ncu/this ${ncu_over}, ncu-first/this ${ncu_first_over}; ${lines} line records"
    done <"$OUT/profiler-bench.tsv"
  else
    add "overhead benchmark" "no result (see bench.log)"
  fi
fi

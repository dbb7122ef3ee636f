#!/usr/bin/env bash
# The verifier's proof on a GPU machine (run by the lead on the H200):
#
#   OUT=/some/dir tests/gpu/run_verifier_h200.sh
#
# 1. builds without Clang (-G Ninja -DCMAKE_BUILD_TYPE=Release
#    -DWARPLENS_WITH_CLANG=OFF, in $WARPLENS_BUILD_DIR, default build-h200,
#    the profiler script's: same options, so after it only the verifier's
#    targets compile): warplens-replay, libwarplens_inject.so,
#    the verifier tests and a CLI front end;
# 2. runs the GPU suite (verifier_gpu_tests): builds the case programs for
#    this GPU, captures them through the injection library (runtime and
#    driver launches, K launches, managed / host memory, the size cap, a
#    small capture kept whole as a CI fixture, the 128 MB in-place axpy),
#    runs the adversarial suite (every exploit rejected, hangs killed at the
#    run deadline; issue 14's rows: memoisation, writes and reads outside an
#    allocation, kernels right only at the captured sizes, fp64 in float)
#    and the honest candidates (must pass), the self-consistency rows (every
#    captured kernel against itself: level 1), the PyTorch level-3 path and
#    the timer self-check; meanwhile the CPU unit tests (verifier, capture
#    launch parameters) and the nvcc tool tests;
# 3. reproduces one verdict with one CLI command, captures through the CLI,
#    checks the no-GPU path;
# 4. runs the CI tests that read recorded fixtures on what this run recorded
#    (they fail on any row not as expected, an exploit accepted, a hang
#    passed, a missing verdict);
# 5. prints the summary last: the steps, then the GPU suite's rows as a
#    table, then one line "rows N, wrong W; ...; all as expected: yes|no".
#
# $OUT receives exactly two small files:
#   verifier-summary.txt     the summary (also printed last)
#   verifier-results.tar.gz  verifier-results/: summary.txt, summary.tsv,
#                            bench.tsv, environment.txt, logs/ (trimmed),
#                            cli/, and fixtures/ = what
#                            tests/fixtures/verifier/h200/ holds (install it
#                            with tests/gpu/install_verifier_fixtures.sh)
# Programs, captures and work directories (hundreds of MB) stay in a
# temporary directory outside $OUT, removed at the end.
#
# Time budget: 480 s in all (WARPLENS_VERIFIER_BUDGET_S; issue 14's rows and
# the compute-sanitizer runs of the winners added about 200 s to the 240 s of
# run 4, an estimate until measured); each step gets at most what is left,
# and the summary is always written. The seconds-per-candidate benchmark is
# its own area (run_verifier_bench_h200.sh). The PyTorch level-3
# case uses python3 (or $WARPLENS_PYTHON) with torch; without torch it says
# why.
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
: "${OUT:?set OUT to a directory for the results}"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
start=$(date +%s)
budget=${WARPLENS_VERIFIER_BUDGET_S:-480}
build=${WARPLENS_BUILD_DIR:-$root/build-h200}
jobs=$(nproc)
work=$(mktemp -d "${TMPDIR:-/tmp}/warplens-verifier-XXXXXX")
R=$work/verifier-results           # packed into the tarball
G=$work/gpu                         # large: programs, captures, verify dirs
mkdir -p "$R/logs" "$R/cli" "$R/fixtures" "$G"
elapsed() { echo $(($(date +%s) - start)); }
log() { echo "[run_verifier_h200 $(elapsed)s] $*" | tee -a "$R/logs/steps.log" >&2; }
# cap WANT KEEP: seconds a step may take: WANT at most, leaving KEEP for
# what follows it.
cap() {
  local want=$1 keep=$2 left
  left=$((budget - $(elapsed) - keep))
  ((left < want)) && want=$left
  ((want < 1)) && want=1
  echo "$want"
}
declare -a lines
add() { lines+=("$(printf '%-40s %s' "$1" "$2")"); }
# doctest's verdict from a log: "P/N test cases passed" or why there is none.
doctest_result() {
  local log=$1 rc=$2 line
  if [ "$rc" = 77 ]; then echo "skipped: $(grep -m1 -a skipped "$log")"; return; fi
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then echo "TIMED OUT (budget)"; return; fi
  line=$(grep -a '^\[doctest\] test cases:' "$log" | tail -1)
  if [ -z "$line" ]; then echo "no result (exit $rc; see logs/$(basename "$log"))"; return; fi
  echo "$line" | awk -F'|' '{gsub(/[^0-9]/,"",$1); gsub(/[^0-9]/,"",$2); gsub(/[^0-9]/,"",$3);
    printf "%s/%s test cases passed%s", $2, $1, ($3 > 0 ? ", " $3 " FAILED" : "")}'
  [ "$rc" = 0 ] || echo " (exit $rc)"
}
# The failed checks of a doctest log, one line each: "file:line: CHECK(...)".
doctest_failures() {
  grep -a -E ': (ERROR|FATAL ERROR): ' "$1" | sed -E 's#^.*/##; s/ is NOT correct!//' | head -"${2:-8}"
}

script_rc=1
unit_pid=""
finish() {
  trap - EXIT
  [ -n "$unit_pid" ] && kill "$unit_pid" 2>/dev/null
  {
    echo
    printf '== warplens verifier on %s: %d s of %d ==\n' "$(head -1 "$R/environment.txt" 2>/dev/null)" "$(elapsed)" \
      "$budget"
    printf '%s\n' "${lines[@]}"
    if [ -f "$R/summary.tsv" ]; then
      echo "-- GPU suite rows (verdicts and fixtures in verifier-results.tar.gz) --"
      if command -v column >/dev/null; then column -t -s $'\t' "$R/summary.tsv"; else cat "$R/summary.tsv"; fi
    fi
    echo "$final_line"
  } >"$R/summary.txt"
  # Trimmed logs: a log's end says most; failures are kept whole above.
  for f in "$R"/logs/*.log; do
    [ -f "$f" ] || continue
    if [ "$(wc -c <"$f")" -gt 400000 ]; then
      { echo "[trimmed to the last 3000 lines]"; tail -n 3000 "$f"; } >"$f.tmp" && mv "$f.tmp" "$f"
    fi
  done
  cp "$R/summary.txt" "$OUT/verifier-summary.txt"
  if tar -czf "$OUT/verifier-results.tar.gz" -C "$work" verifier-results 2>"$work/tar.err"; then
    size=$(wc -c <"$OUT/verifier-results.tar.gz")
    if [ "$size" -gt $((12 * 1024 * 1024)) ]; then  # the device tool returns files up to 16 MiB
      rm -rf "$R/logs"
      tar -czf "$OUT/verifier-results.tar.gz" -C "$work" verifier-results
      echo "(tarball was $size bytes: logs dropped)" >>"$OUT/verifier-summary.txt"
    fi
  else
    echo "packing the results failed: $(cat "$work/tar.err")" >>"$OUT/verifier-summary.txt"
  fi
  cat "$OUT/verifier-summary.txt"
  rm -rf "$work"
  exit "$script_rc"
}
final_line="(the script stopped early: see the lines above)"
trap finish EXIT

# --- environment ----------------------------------------------------------------
export PATH=$PATH:/usr/local/cuda/bin
{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1 ||
    echo "no nvidia-smi"
  echo "date: $(date -u +%FT%TZ)"
  echo "commit: $(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)"
  git -C "$root" status --short 2>/dev/null | head -20
  nvcc --version 2>&1 | tail -2
  echo "compute-sanitizer: $(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || echo 'not found')"
  "${WARPLENS_PYTHON:-python3}" -c 'import torch; print("torch", torch.__version__)' 2>&1 | tail -1
} >"$R/environment.txt" 2>&1

# --- build ------------------------------------------------------------------------
# WARPLENS_VERIFIER_NO_BUILD=1 uses $build/bin as it is: to rehearse the
# script on a machine without a GPU, on the fake driver
# (LD_LIBRARY_PATH=<build>/fake_cuda; most GPU rows then fail, by design).
log "configure and build in $build"
targets="warplens-replay warplens_inject verifier_gpu_tests verifier_unit_tests verifier_tool_tests
  capture_launch_params_tests warplens-verify-cli warplens_fake_cuda verifier_fake_gpu_tests"
# shellcheck disable=SC2086
if [ -n "${WARPLENS_VERIFIER_NO_BUILD:-}" ] ||
   { timeout "$(cap 60 170)" cmake -S "$root" -B "$build" -G Ninja -DWARPLENS_WITH_CLANG=OFF \
       -DCMAKE_BUILD_TYPE=Release >"$R/logs/configure.log" 2>&1 &&
     timeout "$(cap 150 150)" cmake --build "$build" -j "$jobs" --target $targets >"$R/logs/build.log" 2>&1; }; then
  add "build (-DWARPLENS_WITH_CLANG=OFF)" "ok, $(elapsed) s"
else
  add "build (-DWARPLENS_WITH_CLANG=OFF)" "FAILED after $(elapsed) s; the log's end:"
  while IFS= read -r l; do lines+=("  | $l"); done < <(cat "$R/logs/configure.log" "$R/logs/build.log" 2>/dev/null |
    grep -a -v '^\[[0-9]*/[0-9]*\] ' | tail -30)
  final_line="BUILD FAILED: nothing ran"
  exit 1
fi
bin=$build/bin
cases=$root/tests/gpu/verifier_cases

# --- CPU tests, alongside the GPU suite (16 cores: they do not disturb it) ---------
("$bin/verifier_unit_tests" >"$R/logs/unit_tests.log" 2>&1; echo $? >"$work/unit.rc"
 "$bin/capture_launch_params_tests" >"$R/logs/capture_params_tests.log" 2>&1; echo $? >"$work/params.rc"
 "$bin/verifier_tool_tests" >"$R/logs/tool_tests.log" 2>&1; echo $? >"$work/tool.rc") &
unit_pid=$!

# --- the GPU suite ------------------------------------------------------------------
log "GPU suite (log: logs/gpu_tests.log)"
gpu_start=$(elapsed)
WARPLENS_VERIFIER_OUT="$R" WARPLENS_VERIFIER_WORK="$G" timeout "$(cap 380 40)" "$bin/verifier_gpu_tests" \
  >"$R/logs/gpu_tests.log" 2>&1
gpu_rc=$?
add "GPU suite (verifier_gpu_tests)" "$(doctest_result "$R/logs/gpu_tests.log" $gpu_rc), $(($(elapsed) - gpu_start)) s"
while IFS= read -r l; do add "  failed check" "$l"; done < <(doctest_failures "$R/logs/gpu_tests.log" 10)

# --- verification time per candidate --------------------------------------------------
if [ -f "$R/bench.tsv" ]; then
  # Nearest-rank percentiles over all candidates, and without the PyTorch
  # level-3 case (dominated by torch.compile, not by the verifier).
  bench_line() {
    awk -F'\t' -v skip="$1" 'NR > 1 && (skip == "" || $1 !~ skip) {
        n++; w[n] = $2 / 1000; s += $2; cc += ($3 > $4 ? $3 : $4); r += $5; c += $6 }
      END {
        if (n == 0) { print "no candidates"; exit }
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (w[j] < w[i]) { t = w[i]; w[i] = w[j]; w[j] = t }
        med = w[int((n + 1) / 2)]; p90 = w[int(0.9 * n + 0.999)];
        printf "%d candidates: median %.2f s, p90 %.2f s, max %.2f s, mean %.2f s (compile %.2f, reference %.2f, candidate %.2f); goal <= 3 s: median %s, p90 %s",
          n, med, p90, w[n], s / n / 1000, cc / n / 1000, r / n / 1000, c / n / 1000,
          (med <= 3 ? "met" : "NOT met"), (p90 <= 3 ? "met" : "NOT met") }' "$R/bench.tsv"
  }
  add "verify wall time, all" "$(bench_line "")"
  add "verify wall time, without PyTorch" "$(bench_line "pytorch")"
  cp "$R/bench.tsv" "$R/fixtures/bench.tsv"
else
  add "verify wall time" "no bench.tsv (the GPU suite did not verify anything)"
fi

# --- the CLI -----------------------------------------------------------------------
cli=$bin/warplens-verify-cli
transpose_capture=$G/captures/transpose
[ -f "$transpose_capture/manifest.json" ] || transpose_capture=$G/captures-synthetic/transpose
if [ -f "$transpose_capture/manifest.json" ]; then
  log "one-command reproduction through the CLI"
  timeout "$(cap 30 25)" "$cli" verify --capture "$transpose_capture" --original "$cases/transpose.cu" \
    --candidate "$cases/candidates/honest_transpose_padded.cu" --kernel transpose_naive --json \
    >"$R/cli/verify.json" 2>"$R/cli/verify.err"
  rc=$?
  add "CLI verify --json (expect exit 0)" "exit $rc: $(grep -o '"level": [-0-9]*' "$R/cli/verify.json" | head -1)"
  [ "$rc" = 0 ] || script_cli_failed=1
  CUDA_VISIBLE_DEVICES= timeout 30 "$cli" verify --capture "$transpose_capture" --original "$cases/transpose.cu" \
    --candidate "$cases/candidates/honest_transpose_padded.cu" --kernel transpose_naive >"$R/cli/no_gpu.txt" 2>&1
  rc=$?
  add "CLI with no GPU (expect exit 2)" "exit $rc: $(head -1 "$R/cli/no_gpu.txt" | cut -c1-110)"
  [ "$rc" = 2 ] || script_cli_failed=1
else
  add "CLI verify" "not run: no transpose capture"
  script_cli_failed=1
fi
if [ -x "$G/programs/scale_add" ]; then
  timeout "$(cap 30 20)" "$cli" capture --kernel scale_add --launches 1 --out "$G/cli_capture" -- \
    "$G/programs/scale_add" 2048 >"$R/cli/capture.txt" 2>&1
  rc=$?
  add "CLI capture (expect exit 0)" "exit $rc: $(head -1 "$R/cli/capture.txt" | cut -c1-110)"
  [ "$rc" = 0 ] || script_cli_failed=1
  cp "$G/cli_capture/manifest.json" "$R/cli/capture.manifest.json" 2>/dev/null
fi

# --- CPU tests and the CI tests on this run's fixtures ---------------------------------
log "waiting for the CPU tests"
for _ in $(seq "$(cap 60 15)"); do kill -0 "$unit_pid" 2>/dev/null || break; sleep 1; done
kill "$unit_pid" 2>/dev/null
wait "$unit_pid" 2>/dev/null
unit_pid=""
unit_rc=$(cat "$work/unit.rc" 2>/dev/null || echo 124)
tool_rc=$(cat "$work/tool.rc" 2>/dev/null || echo 124)
params_rc=$(cat "$work/params.rc" 2>/dev/null || echo 124)
add "verifier unit tests (CPU)" "$(doctest_result "$R/logs/unit_tests.log" "$unit_rc")"
add "capture launch-parameter tests (CPU)" "$(doctest_result "$R/logs/capture_params_tests.log" "$params_rc")"
add "nvcc tool tests" "$(doctest_result "$R/logs/tool_tests.log" "$tool_rc")"
log "CI tests on the new fixtures"
# The recorded tests read the suite's rows too (every row must be ok).
[ -f "$R/summary.tsv" ] && cp "$R/summary.tsv" "$R/fixtures/summary.tsv"
WARPLENS_VERIFIER_FIXTURES="$R/fixtures" timeout "$(cap 30 10)" "$bin/verifier_unit_tests" -tc='recorded*' \
  >"$R/logs/ci_on_fixtures.log" 2>&1
ci_rc=$?
add "CI recorded-fixture tests, new fixtures" "$(doctest_result "$R/logs/ci_on_fixtures.log" $ci_rc)"
WARPLENS_VERIFIER_FIXTURES="$R/fixtures" timeout "$(cap 40 5)" "$bin/verifier_fake_gpu_tests" \
  -tc='*recorded H200 capture*' >"$R/logs/fake_on_fixtures.log" 2>&1
fake_rc=$?
add "fake driver on the recorded capture" "$(doctest_result "$R/logs/fake_on_fixtures.log" $fake_rc)"
while IFS= read -r l; do add "  failed check" "$l"; done < <(cat "$R/logs/ci_on_fixtures.log" \
  "$R/logs/fake_on_fixtures.log" | doctest_failures /dev/stdin 6)

# --- verdict ------------------------------------------------------------------------
if [ -f "$R/summary.tsv" ]; then
  wrong=$(awk -F'\t' 'NR > 1 && $4 != "ok"' "$R/summary.tsv" | wc -l)
  rows=$(($(wc -l <"$R/summary.tsv") - 1))
else
  wrong=1
  rows=0
fi
ok=yes
for rc in "$unit_rc" "$params_rc" "$tool_rc" "$gpu_rc" "$ci_rc" "$fake_rc"; do [ "$rc" = 0 ] || ok=no; done
[ "$wrong" = 0 ] && [ -z "${script_cli_failed:-}" ] || ok=no
final_line="rows $rows, wrong $wrong; unit rc=$unit_rc/$params_rc, tool rc=$tool_rc, GPU suite rc=$gpu_rc (77 = no GPU), CI on fixtures rc=$ci_rc/$fake_rc; all as expected: $ok; $(elapsed) s"
[ "$ok" = yes ] && script_rc=0
exit "$script_rc"

#!/usr/bin/env bash
# Builds the fuzz targets (clang-19, ASan + UBSan, libFuzzer: the `fuzz`
# preset, in build-fuzz/) and runs each for a bounded time on its seed
# corpus. Exit status 1 when any target crashes, hangs (-timeout), leaks
# or trips a sanitizer; the input is kept under build-fuzz/fuzz-artifacts/.
# docs/fuzzing.md says how to run longer campaigns and reproduce a finding.
#
#   scripts/fuzz.sh                 every target for 60 s
#   scripts/fuzz.sh --ci            what CI runs: every target for $WARPLENS_FUZZ_SECONDS
#                                   (default 150; fuzz_mcp for at most
#                                   $WARPLENS_FUZZ_MCP_SECONDS, default 45; fuzz_analysis
#                                   from $WARPLENS_FUZZ_ANALYSIS_SEEDS seeds, default 240)
#                                   and the sanitized unit tests
#   scripts/fuzz.sh --time 3600 fuzz_analysis      one target for an hour
#   scripts/fuzz.sh --runs 1000000 fuzz_protocol   a fixed number of executions
#   scripts/fuzz.sh --build-only
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${WARPLENS_FUZZ_BUILD_DIR:-$root/build-fuzz}
jobs=${WARPLENS_JOBS:-$(nproc)}
seconds=60
runs=""
ci=0
build_only=0
targets=()
while (($#)); do
  case "$1" in
    --ci) ci=1; seconds=${WARPLENS_FUZZ_SECONDS:-150} ;;
    --time) seconds=$2; shift ;;
    --runs) runs=$2; shift ;;
    --build-only) build_only=1 ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    fuzz_*) targets+=("$1") ;;
    *) echo "fuzz.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
((${#targets[@]})) || targets=(fuzz_protocol fuzz_server fuzz_analysis fuzz_mcp)

if ! command -v clang++-19 >/dev/null || ! ls /usr/lib/llvm-19/lib/clang/19/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  echo "fuzz.sh: needs clang-19 and its sanitizer runtimes (Debian: clang-19 libclang-rt-19-dev; scripts/bootstrap.sh installs them)" >&2
  exit 2
fi

cmake --preset fuzz -S "$root" -B "$build" >/dev/null
build_targets=("${targets[@]}")
# The unit tests run under the sanitizers with --ci (WARPLENS_FUZZ_UNIT_TESTS
# overrides the list; the Clang-linked analysis_frontend_tests costs a
# sanitized build of the front end, so CI names its own list in .ci/run).
read -r -a sanitized_tests <<<"${WARPLENS_FUZZ_UNIT_TESTS:-common_tests protocol_tests analysis_core_tests analysis_frontend_tests}"
((ci)) && build_targets+=("${sanitized_tests[@]}")
start=$(date +%s)
cmake --build "$build" -j "$jobs" --target "${build_targets[@]}"
echo "fuzz.sh: built ${build_targets[*]} in $(( $(date +%s) - start )) s"
((build_only)) && exit 0

# ASan: leaks are bugs too; UBSan already aborts (-fno-sanitize-recover).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

failed=0
if ((ci)); then
  start=$(date +%s)
  if ! ctest --test-dir "$build" --output-on-failure -j "$jobs" -R "^($(IFS='|'; echo "${sanitized_tests[*]}"))$"; then
    echo "fuzz.sh: the unit tests failed under ASan/UBSan" >&2
    failed=1
  fi
  echo "fuzz.sh: sanitized unit tests took $(( $(date +%s) - start )) s"
fi

seeds=$build/fuzz-seeds
rm -rf "$seeds"
# With --ci fuzz_analysis starts from $WARPLENS_FUZZ_ANALYSIS_SEEDS of its
# ~900 seeds (default 240): libFuzzer runs every seed before -max_total_time
# counts, ~0.3 s each for the analysis, so the whole set alone took 306 s.
seed_args=()
((ci)) && seed_args=(--analysis-seeds "${WARPLENS_FUZZ_ANALYSIS_SEEDS:-240}")
python3 "$root/tests/fuzz/make_seeds.py" "${seed_args[@]}" "$seeds"
for t in "${targets[@]}"; do
  corpus=$build/fuzz-corpus/$t            # grows across runs; start from the seeds
  artifacts=$build/fuzz-artifacts/$t/
  mkdir -p "$corpus" "$artifacts"
  dict=$root/tests/fuzz/lsp.dict
  [ "$t" = fuzz_analysis ] && dict=$root/tests/fuzz/cuda.dict
  limit=(-max_total_time="$seconds")
  # The MCP target's budget in CI is short: it shares most of its code with
  # fuzz_server and fuzz_protocol, which get the full time.
  if ((ci)) && [ "$t" = fuzz_mcp ]; then
    mcp_seconds=${WARPLENS_FUZZ_MCP_SECONDS:-45}
    ((mcp_seconds < seconds)) && limit=(-max_total_time="$mcp_seconds")
  fi
  [ -n "$runs" ] && limit=(-runs="$runs")
  echo "fuzz.sh: $t (${limit[*]})"
  start=$(date +%s)
  if ! "$build/bin/$t" "$corpus" "$seeds/$t" -dict="$dict" "${limit[@]}" -timeout=60 -rss_limit_mb=6144 \
       -max_len=262144 -artifact_prefix="$artifacts" -print_final_stats=1 -close_fd_mask=1 \
       >"$build/fuzz-$t.log" 2>&1; then
    echo "fuzz.sh: $t FAILED: see $build/fuzz-$t.log; inputs in $artifacts" >&2
    tail -n 60 "$build/fuzz-$t.log" >&2
    failed=1
  fi
  grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+.*DONE)" "$build/fuzz-$t.log" || true
  echo "fuzz.sh: $t took $(( $(date +%s) - start )) s"
done
exit $failed

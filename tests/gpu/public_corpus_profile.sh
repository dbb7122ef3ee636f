#!/usr/bin/env bash
# GPU check of the static analyses on code the team did not write: NVIDIA's
# cuda-samples (the programs of bench/public_corpus/gpu_samples.tsv, which
# run without data files), built with nvcc and profiled with
# `warplens profile --passes 1 --format tsv`: per-line shared wavefronts and
# global sectors against their ideal, recorded as fixtures for the CPU test
# public_corpus_vs_h200 (bench/public_corpus/compare.py).
#
# The samples are not in the tree and ../ does not travel to the GPU machine:
# stage a copy into the ignored build-public-corpus/ first, on the machine
# that has the checkout, and carry that folder along:
#
#   bench/public_corpus/stage_samples.sh /path/to/cuda-samples   # CPU machine
#   OUT=/some/dir tests/gpu/public_corpus_profile.sh              # GPU machine
#   (or OUT=... tests/gpu/run_all_h200.sh public_corpus)
#
# Uses $WARPLENS_BIN when set, else builds warplens with
# -DWARPLENS_WITH_CLANG=OFF into $WARPLENS_BUILD_DIR (default build-gpu/);
# the samples are compiled by nvcc while warplens builds. Rows are profiled in
# the list's order (the issue's seven samples first) until the time budget
# (WARPLENS_PUBLIC_CORPUS_BUDGET_S, default 270 s from the start, or the
# caller's WARPLENS_AREA_BUDGET_S less 20 s when smaller) would be passed; the
# rows left are reported as skipped, never as profiled.
# Writes under $OUT/public_corpus: profiles/<name>.tsv, logs/, compare.txt,
# summary.txt. Exit 77 when there is no GPU or no staged samples (nothing was
# checked), 1 when a program failed to build or profile.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$root/build-gpu/out}/public_corpus
mkdir -p "$out/profiles" "$out/logs" "$out/bin"
samples=${WARPLENS_PUBLIC_CORPUS:-$root/build-public-corpus/cuda-samples}
list=$root/bench/public_corpus/gpu_samples.tsv
arch=${WARPLENS_GPU_ARCH:-sm_90}
nvcc=${CUDACXX:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
jobs=${WARPLENS_GPU_JOBS:-$(( ($(nproc 2>/dev/null || echo 8) + 1) / 2 ))}
per_run=${WARPLENS_PUBLIC_CORPUS_TIMEOUT_S:-40}
t_start=$(date +%s)
budget=${WARPLENS_PUBLIC_CORPUS_BUDGET_S:-270}
if [ -n "${WARPLENS_AREA_BUDGET_S:-}" ] && [ $((WARPLENS_AREA_BUDGET_S - 20)) -lt "$budget" ]; then
  budget=$((WARPLENS_AREA_BUDGET_S - 20))
fi

summary() { echo "$*" | tee -a "$out/summary.txt"; }
: > "$out/summary.txt"
if [ ! -d "$samples/Samples" ] || [ ! -d "$samples/Common" ]; then
  summary "== public corpus: SKIPPED (no staged cuda-samples at $samples; run bench/public_corpus/stage_samples.sh)"
  exit 77
fi
if ! ls /dev/nvidia* > /dev/null 2>&1; then
  summary "== public corpus: SKIPPED (no GPU device files)"
  exit 77
fi

# 1. Build every program once (rows sharing a program share the binary), in
#    parallel (half the cores: warplens builds meanwhile) with the samples'
#    own CMake flags (-rdc=true, --extended-lambda, -I Common) plus -O3
#    -lineinfo for per-line counters.
t0=$(date +%s)
programs=$(grep -v '^#' "$list" | awk -F'\t' 'NF >= 3 { print $2 "\t" $3 }' | sort -u)
build_one() {
  local dir=$1 sources=$2
  local key; key=$(echo "$dir" | tr '/' '_')
  local src=()
  for s in $sources; do src+=("$samples/Samples/$dir/$s"); done
  "$nvcc" -std=c++17 -O3 -lineinfo -arch="$arch" --extended-lambda -rdc=true -Wno-deprecated-gpu-targets \
    -I "$samples/Common" -I "$samples/Samples/$dir" "${src[@]}" -o "$out/bin/$key" \
    > "$out/logs/$key.build.log" 2>&1 && echo "built $key" || echo "BUILD FAILED $key"
}
build_all() {
  local running=0
  while IFS=$'\t' read -r dir sources; do
    [ -z "$dir" ] && continue
    build_one "$dir" "$sources" >> "$out/logs/builds.txt" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
  done <<< "$programs"
  wait
}
build_all &
builds_pid=$!

warplens=${WARPLENS_BIN:-}
if [ -z "$warplens" ]; then
  build=${WARPLENS_BUILD_DIR:-$root/build-gpu}
  if [ ! -x "$build/bin/warplens" ] ||
     { [ ! -e "$build/bin/libwarplens_inject.so" ] && [ ! -e "$build/lib/libwarplens_inject.so" ]; }; then
    echo "building warplens (WARPLENS_WITH_CLANG=OFF) in $build"
    { cmake -S "$root" -B "$build" -G Ninja -DWARPLENS_WITH_CLANG=OFF -DCMAKE_BUILD_TYPE=Release &&
      ninja -C "$build" warplens warplens_inject; } > "$out/logs/warplens-build.log" 2>&1 ||
      { summary "== public corpus: FAILED (warplens build, see logs/warplens-build.log)"; exit 1; }
  fi
  warplens=$build/bin/warplens
fi

wait "$builds_pid"
t_build=$(( $(date +%s) - t0 ))

# 2. Profile each row, one at a time (the GPU otherwise idle).
ran=0 failed=0
failures=() skipped=()
while IFS=$'\t' read -r name dir sources args; do
  [ -z "$name" ] || [ "${name:0:1}" = "#" ] && continue
  key=$(echo "$dir" | tr '/' '_')
  bin=$out/bin/$key
  if [ $(( $(date +%s) - t_start + per_run / 2 )) -gt "$budget" ]; then
    skipped+=("$name"); continue
  fi
  if [ ! -x "$bin" ]; then
    failed=$((failed + 1)); failures+=("$name (build, see logs/$key.build.log)"); continue
  fi
  # Samples look for nothing outside their directory, but run from it as their CMake does.
  if (cd "$samples/Samples/$dir" &&
      timeout --kill-after=5 "$per_run" "$warplens" profile --passes 1 --format tsv --timeout "$per_run" \
        --out "$out/profiles/$name.tsv" --work-dir "$out/logs/$name.work" -- "$bin" $args) \
      > "$out/logs/$name.profile.log" 2>&1; then
    ran=$((ran + 1))
  else
    failed=$((failed + 1)); failures+=("$name (profile exit $?, see logs/$name.profile.log)")
  fi
done < "$list"
t_profile=$(( $(date +%s) - t0 - t_build ))

# 3. Compare with the committed static findings (the CPU test does the same
#    from the installed fixtures).
compare="not run (no profiles)"
static=$root/tests/fixtures/public-corpus/static_findings.tsv
if [ "$ran" -gt 0 ] && [ ! -f "$static" ]; then
  compare="not run (no committed static findings: bench/public_corpus/check_corpus.py --findings-tsv writes them)"
elif [ "$ran" -gt 0 ]; then
  # The goal of issue 20: precision >= 0.95 and recall >= 0.90 per code.
  # compare.py exits 3 when the counts are computed but below it, anything
  # else non-zero is a failure of the comparison itself.
  crc=0
  python3 "$root/bench/public_corpus/compare.py" \
       --static "$static" \
       --measured "$out/profiles" --require 0.95 0.90 > "$out/compare.txt" 2>&1 || crc=$?
  case $crc in
    0) compare="static findings meet the goal (precision >= 0.95, recall >= 0.90) on the measured lines" ;;
    3) compare="static findings below the goal: $(grep '^goal' "$out/compare.txt" | head -1)" ;;
    *) compare="comparison failed (compare.py exit $crc, see compare.txt)" ;;
  esac
  cat "$out/compare.txt"
fi

echo
summary "== public corpus GPU check summary"
summary "runs: $ran profiled, $failed failed, ${#skipped[@]} skipped (time budget ${budget} s); builds ${t_build} s (samples and warplens together), profiles ${t_profile} s"
[ ${#skipped[@]} -gt 0 ] && summary "  skipped (not profiled, time): ${skipped[*]}"
for f in "${failures[@]+"${failures[@]}"}"; do summary "  failed: $f"; done
summary "compare: $compare"
summary "results: $out (install with tests/gpu/install_public_corpus_fixtures.sh $out)"
[ "$failed" -eq 0 ]

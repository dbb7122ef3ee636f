#!/usr/bin/env bash
# Resource usage and occupancy checks on a GPU machine (issue 4), in one go.
# From the repository root:   OUT=/path/to/results tests/gpu/occupancy/run.sh
# Builds only what it needs with -DWARPLENS_WITH_CLANG=OFF, runs the GPU
# check (driver limits vs the table, the CUDA runtime's occupancy vs ours,
# nvcc resource usage vs cudaFuncGetAttributes) and the CPU-side unit tests
# of this area, writes logs and the recordings for tests/fixtures/occupancy/
# under $OUT, and prints a short summary last.
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
out=${OUT:-$root/test-artifacts/gpu-occupancy}
build=${WARPLENS_GPU_BUILD_DIR:-$root/build-gpu}
mkdir -p "$out"
start=$(date +%s)
if ! cmake -S "$root" -B "$build" -G Ninja -DWARPLENS_WITH_CLANG=OFF -DWARPLENS_BUILD_BENCH=OFF \
    >"$out/cmake.log" 2>&1; then
  tail -40 "$out/cmake.log"; echo "SUMMARY occupancy-gpu: cmake configure FAILED (see $out/cmake.log)"; exit 1
fi
if ! cmake --build "$build" --target gpu_occupancy_test analysis_core_tests -j "$(nproc)" \
    >"$out/build.log" 2>&1; then
  grep -E 'error|Error' "$out/build.log" | head -40; echo "SUMMARY occupancy-gpu: build FAILED (see $out/build.log)"; exit 1
fi
WARPLENS_GPU_OUT="$out" "$build/bin/gpu_occupancy_test" >"$out/gpu_occupancy_test.log" 2>&1
gpu_rc=$?
# This area's CPU tests on this machine's toolkit (nvcc runs, parser, calculator).
"$build/bin/analysis_core_tests" -tc='*nvcc*,*ptxas*,*occupancy*,*resource*,*block*,*symbol*,*lever*,*catalog*,*measure*' \
  >"$out/core_tests.log" 2>&1
core_rc=$?
grep -E '^(FAIL|device|nvcc resource|wrote)' "$out/gpu_occupancy_test.log" | head -40
sed -n '/== occupancy GPU summary/,$p' "$out/gpu_occupancy_test.log"
tail -3 "$out/core_tests.log"
echo "SUMMARY occupancy-gpu: gpu_occupancy_test rc=$gpu_rc (0 pass, 77 no GPU), core tests rc=$core_rc, $(( $(date +%s) - start )) s; files in $out"

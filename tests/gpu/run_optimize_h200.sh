#!/usr/bin/env bash
# The optimize engine on an H200, in one go (about 7 minutes):
#   1. build warplens-optimize without Clang (the GPU machine has no LLVM),
#      while PyTorch loads and compiles the examples' references;
#   2. time eager PyTorch and torch.compile (GPU otherwise idle);
#   3. measure device-to-device copy bandwidth (the roofline);
#   4. verify the committed candidates of every example
#      (tests/gpu/optimize_candidates/*: generated on a machine with Clang by
#      tests/gpu/generate_optimize_candidates.sh): all builds in parallel, all
#      correctness checks (5 input sets each) a few at a time, then every
#      timing one at a time, each original re-timed around its candidates;
#   5. print the summary: per example the best verified speedup, reward level,
#      speedup over eager and torch.compile, % of memory bandwidth, candidates
#      tried, time; and the geometric mean.
# Results and logs go to $OUT (default build-optimize-gpu/out); the summary is printed last.
# MAX_CANDIDATES=N verifies only the N best-predicted candidates per example (default 16, all).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-$root/build-optimize-gpu/out}
mkdir -p "$OUT"
build=${WARPLENS_BUILD_DIR:-$root/build-optimize-gpu}
cores=$(nproc)
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - t0 )) s] $*"; }

if command -v nvidia-smi >/dev/null; then
  nvidia-smi -L | tee "$OUT/gpu.txt"
  nvidia-smi -L | grep -q GPU || { echo "no GPU"; exit 77; }
else
  echo "nvidia-smi not found: continuing (the bandwidth probe will tell)" | tee "$OUT/gpu.txt"
fi

# 1. PyTorch phase 1 (load + torch.compile) in the background; build meanwhile.
go="$OUT/.torch-go"; rm -f "$go"
python3 "$root/tests/gpu/optimize_torch_baselines.py" "$root/examples/optimize" --out "$OUT/torch.json" \
  --wait-for "$go" > "$OUT/torch.log" 2>&1 &
torch_pid=$!
stamp "building warplens-optimize (WARPLENS_WITH_CLANG=OFF)"
jobs=$(( cores > 4 ? cores - 2 : cores ))
if ! { cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DWARPLENS_WITH_CLANG=OFF \
         -DWARPLENS_BUILD_BENCH=OFF > "$OUT/cmake.log" 2>&1 &&
       ninja -C "$build" -j "$jobs" warplens-optimize > "$OUT/build.log" 2>&1; }; then
  tail -n 40 "$OUT/cmake.log" "$OUT/build.log"; kill "$torch_pid" 2>/dev/null; exit 1
fi
nvcc -O3 -arch=native -o "$OUT/optimize_bandwidth" "$root/tests/gpu/optimize_bandwidth.cu" > "$OUT/bandwidth_build.log" 2>&1
stamp "build done; timing PyTorch references"

# 2. PyTorch timing (the build is over: the machine is quiet).
touch "$go"
wait $torch_pid
cat "$OUT/torch.log" | tail -15

# 3. Bandwidth.
if ! "$OUT/optimize_bandwidth" | tee "$OUT/bandwidth.txt"; then
  cat "$OUT/bandwidth_build.log"; echo "the bandwidth probe failed: is there a GPU?"; exit 77
fi
bw=$(awk '/^bandwidth_gbs/ {print $2}' "$OUT/bandwidth.txt")
stamp "bandwidth ${bw:-?} GB/s; verifying candidates"

# 4. Verify every example's candidates.
dirs=()
for d in "$root"/tests/gpu/optimize_candidates/*/; do dirs+=(--verify-dir "$d"); done
"$build/bin/warplens-optimize" "${dirs[@]}" --pytorch-times "$OUT/torch.json" ${bw:+--bandwidth-gbs "$bw"} \
  --max-candidates "${MAX_CANDIDATES:-16}" --report "$OUT/reports" --jobs "$cores" --gpu-jobs 6 --max-timing-s 1.5 --timeout 90 > "$OUT/summary.stdout" 2> "$OUT/verify.log"
rc=$?
stamp "verification done (exit $rc)"
tail -5 "$OUT/verify.log"

# 5. Summary.
echo
echo "=== optimize examples on $(head -1 "$OUT/gpu.txt") ==="
echo "device-to-device bandwidth: ${bw:-?} GB/s"
cat "$OUT/summary.stdout"
stamp "total"
exit $(( rc == 1 ? 0 : rc ))

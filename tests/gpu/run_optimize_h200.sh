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
# EXAMPLES="name ..." verifies only those examples' candidates.
# MAX_CANDIDATES=N verifies only the N best-predicted candidates per example (default 16, all).
# CANDIDATES=DIR verifies the candidate sets under DIR (default tests/gpu/optimize_candidates);
# EXAMPLES_DIR=DIR holds their programs' PyTorch references (default examples/optimize). The
# style examples: CANDIDATES=tests/gpu/optimize_candidates_styles EXAMPLES_DIR=examples/optimize_styles.
# Matrix products (sets named *matmul* or *gemm*) are also compared with cuBLAS FP32 SGEMM at 2048^3.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-$root/build-optimize-gpu/out}
mkdir -p "$OUT"
build=${WARPLENS_BUILD_DIR:-$root/build-optimize-gpu}
candidates=${CANDIDATES:-$root/tests/gpu/optimize_candidates}
case "$candidates" in /*) ;; *) candidates=$root/$candidates ;; esac
examples_dir=${EXAMPLES_DIR:-$root/examples/optimize}
case "$examples_dir" in /*) ;; *) examples_dir=$root/$examples_dir ;; esac
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
python3 "$root/tests/gpu/optimize_torch_baselines.py" "$examples_dir" --out "$OUT/torch.json" \
  --wait-for "$go" > "$OUT/torch.log" 2>&1 &
torch_pid=$!
stamp "building warplens-optimize (WARPLENS_WITH_CLANG=OFF, WARPLENS_WITH_LLM=OFF: no endpoint to talk to there)"
jobs=$(( cores > 4 ? cores - 2 : cores ))
if ! { cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DWARPLENS_WITH_CLANG=OFF \
         -DWARPLENS_BUILD_BENCH=OFF -DWARPLENS_WITH_LLM=OFF > "$OUT/cmake.log" 2>&1 &&
       ninja -C "$build" -j "$jobs" warplens-optimize > "$OUT/build.log" 2>&1; }; then
  tail -n 40 "$OUT/cmake.log" "$OUT/build.log"; kill "$torch_pid" 2>/dev/null; exit 1
fi
nvcc -O3 -arch=native -o "$OUT/optimize_bandwidth" "$root/tests/gpu/optimize_bandwidth.cu" > "$OUT/bandwidth_build.log" 2>&1
nvcc -O3 -arch=native -o "$OUT/optimize_cublas" "$root/tests/gpu/optimize_cublas.cu" -lcublas > "$OUT/cublas_build.log" 2>&1 ||
  echo "cuBLAS yardstick did not build (see cublas_build.log)"
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
if [ -x "$OUT/optimize_cublas" ]; then "$OUT/optimize_cublas" 2048 | tee "$OUT/cublas.txt"; fi
cublas_ms=$(awk '/^cublas_sgemm_ms/ {print $2}' "$OUT/cublas.txt" 2>/dev/null)
stamp "bandwidth ${bw:-?} GB/s; verifying candidates"

# 4. Verify every example's candidates.
dirs=()
# EXAMPLES="a b" limits the run to those examples (default: all).
for d in "$candidates"/*/; do
  name=$(basename "$d")
  if [ -n "${EXAMPLES:-}" ] && [[ " $EXAMPLES " != *" $name "* ]]; then continue; fi
  dirs+=(--verify-dir "$d")
done
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
# Matrix products against cuBLAS (the goal: at least 50% of cuBLAS FP32).
if [ -n "${cublas_ms:-}" ] && [ -f "$OUT/reports/summary.json" ]; then
  python3 - "$OUT/reports/summary.json" "$cublas_ms" <<'PY' | tee "$OUT/cublas_ratio.txt"
import json, sys
summary = json.load(open(sys.argv[1]))
cublas = float(sys.argv[2])
for p in summary.get("programs", []):
    name = p.get("name", "")
    if "matmul" not in name and "gemm" not in name:
        continue
    best = p.get("best_ms") or p.get("original_ms")
    if best:
        print(f"{name}: best {best:.4f} ms, cuBLAS FP32 {cublas:.4f} ms: {100.0 * cublas / best:.1f}% of cuBLAS")
PY
fi
stamp "total"
exit $(( rc == 1 ? 0 : rc ))

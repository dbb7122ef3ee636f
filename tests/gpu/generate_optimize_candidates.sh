#!/usr/bin/env bash
# Regenerates tests/gpu/optimize_candidates/: the built-in engine's candidates
# for every example in examples/optimize/ (needs the Clang build; no GPU).
# The GPU machine has no LLVM, so the candidates travel with the tree and
# run_optimize_h200.sh verifies them there.
#   usage: tests/gpu/generate_optimize_candidates.sh [BUILD_DIR] [MAX_CANDIDATES]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
max=${2:-16}
bin=$build/bin/warplens-optimize
out=$root/tests/gpu/optimize_candidates
# example -> the kernel to optimise
examples=(
  "transpose_naive transpose_naive"
  "strided_copy scale_copy_chunked"
  "bank_conflict_tile transpose_tiled"
  "interleaved_reduction reduce_interleaved"
  "matmul_naive_rowx matmul_naive_rowx"
  "matmul_naive_colx matmul_naive_colx"
  "elementwise_chain bias_relu"
  "aos_update update_particles"
  "register_heavy invert4x4"
  "matvec_row_per_thread matvec_rows"
)
for entry in "${examples[@]}"; do
  read -r name kernel <<< "$entry"
  rm -rf "${out:?}/$name"
  "$bin" "$root/examples/optimize/$name.cu" --kernel "$kernel" --candidates-only --out "$out/$name" \
    --name "$name" --max-candidates "$max"
done
# The style examples (examples/optimize_styles/kernels.txt), which include the
# optimize examples' harness.
styles=$root/tests/gpu/optimize_candidates_styles
while read -r name kernel; do
  case "$name" in ''|'#'*) continue ;; esac
  rm -rf "${styles:?}/$name"
  "$bin" "$root/examples/optimize_styles/$name.cu" --kernel "$kernel" --candidates-only --out "$styles/$name" \
    --name "$name" --max-candidates "$max" -I "$root/examples/optimize"
done < "$root/examples/optimize_styles/kernels.txt"

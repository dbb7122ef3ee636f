#!/usr/bin/env bash
# Regenerates tests/gpu/capture_candidates/: the built-in engine's candidates
# for every plain program in examples/programs/ (needs the Clang build; no
# GPU). The GPU machine has no LLVM, so the candidates travel with the tree
# and run_capture_h200.sh verifies them there against each program's
# captured launches (`warplens optimize --verify-dir DIR --capture CAPTURE`).
#   usage: tests/gpu/generate_capture_candidates.sh [BUILD_DIR] [MAX_CANDIDATES]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
max=${2:-12}
bin=$build/bin/warplens-optimize
[ -x "$bin" ] || bin=$build/bin/warplens
sub=()
[ "$(basename "$bin")" = warplens ] && sub=(optimize)
out=$root/tests/gpu/capture_candidates
# program -> the kernel to optimise (the same as the self-checking examples')
programs=(
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
for entry in "${programs[@]}"; do
  read -r name kernel <<< "$entry"
  rm -rf "${out:?}/$name"
  "$bin" "${sub[@]}" "$root/examples/programs/$name.cu" --kernel "$kernel" --candidates-only --out "$out/$name" \
    --name "$name" --max-candidates "$max"
done

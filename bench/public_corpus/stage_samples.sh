#!/usr/bin/env bash
# Copies what the GPU run needs from a cuda-samples checkout into the tree's
# ignored build-public-corpus/ (the GPU machine gets the working tree plus
# carried ignored folders, never ../): Common/'s headers and the source files
# of the samples in bench/public_corpus/gpu_samples.tsv. Nothing is
# committed; run it again after updating the checkout.
#
# usage: bench/public_corpus/stage_samples.sh CHECKOUT [DEST]
#   DEST defaults to <repo>/build-public-corpus/cuda-samples
# Then, on the GPU machine (carry build-public-corpus):
#   OUT=... tests/gpu/run_all_h200.sh public_corpus
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
src=${1:?usage: stage_samples.sh CHECKOUT [DEST]}
src=$(cd "$src" && pwd)
dest=${2:-$root/build-public-corpus/cuda-samples}
[ -d "$src/Samples" ] && [ -d "$src/Common" ] || { echo "$src: not a cuda-samples checkout" >&2; exit 2; }
rm -rf "$dest"
mkdir -p "$dest/Common" "$dest/Samples"
find "$src/Common" -maxdepth 1 -type f \( -name '*.h' -o -name '*.hpp' -o -name '*.cuh' \) \
  -exec cp {} "$dest/Common/" \;
grep -v '^#' "$root/bench/public_corpus/gpu_samples.tsv" | awk -F'\t' 'NF >= 3 { print $2 }' | sort -u |
  while read -r dir; do
    mkdir -p "$dest/Samples/$dir"
    find "$src/Samples/$dir" -maxdepth 1 -type f \
      \( -name '*.cu' -o -name '*.cuh' -o -name '*.cpp' -o -name '*.c' -o -name '*.h' -o -name '*.hpp' \) \
      -exec cp {} "$dest/Samples/$dir/" \;
  done
commit=$(git -C "$src" rev-parse HEAD 2>/dev/null || echo "not a git work tree")
echo "staged from $src (commit: $commit) on $(date -u +%FT%TZ)" > "$dest/STAGED.txt"
size=$(du -sk "$dest" | cut -f1)
echo "staged $(find "$dest" -type f | wc -l) files, ${size} KiB, into $dest"
[ "$size" -lt 60000 ] || echo "warning: over the 64 MiB a device call carries" >&2

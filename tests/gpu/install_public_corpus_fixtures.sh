#!/usr/bin/env bash
# Installs the cuda-samples profiles recorded by tests/gpu/public_corpus_profile.sh
# as the fixtures tests/fixtures/public-corpus-h200/<name>.tsv, which the CPU
# test public_corpus_vs_h200 compares with the static findings.
#
#   tests/gpu/install_public_corpus_fixtures.sh RESULTS
#
# RESULTS: the script's $OUT/public_corpus directory, the $OUT of
# run_all_h200.sh (its results.tgz holds public_corpus/), or that tarball.
# Each profile must be a `warplens profile --format tsv` table with per-line
# memory rows; if any is not, nothing is installed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -eq 1 ] || { echo "usage: $0 RESULTS" >&2; exit 2; }
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -f "$src" ]; then tar -xzf "$src" -C "$tmp"; src=$tmp; fi
if [ -f "$src/results.tgz" ]; then tar -xzf "$src/results.tgz" -C "$tmp"; src=$tmp; fi
dir=$(find "$src" -type d -path '*public_corpus/profiles' | head -1)
[ -n "$dir" ] || { echo "install_public_corpus_fixtures: no public_corpus/profiles under $1" >&2; exit 1; }
shopt -s nullglob
profiles=("$dir"/*.tsv)
[ ${#profiles[@]} -gt 0 ] || { echo "install_public_corpus_fixtures: no profiles in $dir" >&2; exit 1; }
for p in "${profiles[@]}"; do
  head -1 "$p" | grep -q $'^file\tline\tkernel\tkind' ||
    { echo "install_public_corpus_fixtures: $p is not a warplens profile TSV" >&2; exit 1; }
  grep -qE $'\t(global|shared)_(load|store)\t' "$p" ||
    echo "warning: $(basename "$p") has no per-line memory rows" >&2
done
dest=$root/tests/fixtures/public-corpus-h200
mkdir -p "$dest"
rm -f "$dest"/*.tsv
cp "${profiles[@]}" "$dest/"
summary=$(find "$src" -path '*public_corpus/summary.txt' | head -1)
{
  echo "# cuda-samples profiles on the H200 (tests/gpu/public_corpus_profile.sh)"
  echo "installed $(date -u +%FT%TZ) from $1"
  [ -n "$summary" ] && cat "$summary"
} > "$dest/RECORDED.txt"
echo "installed ${#profiles[@]} profiles into $dest; now: ctest --test-dir build -R public_corpus"

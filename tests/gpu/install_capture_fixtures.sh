#!/usr/bin/env bash
# Installs what run_capture_h200.sh recorded as the CI fixtures of the
# capture path: tests/fixtures/optimize/h200-capture/programs/NAME/ (row.json,
# manifest.json, summary.json, report/NAME.json, verify.log, capture.log) and
# gpu.txt. Several tarballs (one per device call, when the programs were split
# over calls) merge; a program recorded twice keeps the later tarball's.
#   usage: tests/gpu/install_capture_fixtures.sh capture-results.tgz [more.tgz ...]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dest=$root/tests/fixtures/optimize/h200-capture
[ $# -ge 1 ] || { echo "usage: $0 capture-results.tgz [more.tgz ...]" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$dest/programs"
for t in "$@"; do
  rm -rf "$tmp/capture-results"
  tar xzf "$t" -C "$tmp"
  [ -d "$tmp/capture-results/programs" ] || { echo "$t: no capture-results/programs" >&2; exit 1; }
  for p in "$tmp"/capture-results/programs/*/; do
    [ -d "$p" ] || continue  # a call whose build failed recorded no program
    name=$(basename "$p")
    rm -rf "${dest:?}/programs/$name"
    mkdir -p "$dest/programs/$name"
    for f in row.json manifest.json summary.json verify.log capture.log; do
      [ -f "$p/$f" ] && cp "$p/$f" "$dest/programs/$name/"
    done
    [ -f "$p/report/$name.json" ] && mkdir -p "$dest/programs/$name/report" && cp "$p/report/$name.json" "$dest/programs/$name/report/"
  done
  [ -f "$tmp/capture-results/gpu.txt" ] && cp "$tmp/capture-results/gpu.txt" "$dest/gpu.txt"
done
echo "installed $(ls "$dest/programs" | wc -l) program(s) into $dest"

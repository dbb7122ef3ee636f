#!/usr/bin/env bash
# Installs one set's run from tests/gpu/run_heldout_sets_h200.sh (or
# run_heldout_h200.sh) as fixtures: STEM-results.tgz's summary, the card and
# its copy bandwidth, each program's verifier lines, and the candidate table
# the run used, under tests/fixtures/optimize/<DIR>/ with the prefix PREFIX
# ("first-seen" for the set's held-out figure, which docs/benchmarks.md must
# quote; a date and a version otherwise). job_recorded_h200_runs_test checks
# every summary installed so.
#
#   tests/gpu/install_heldout_run.sh RESULTS_TGZ DIR PREFIX CANDIDATES_MD
#   e.g. install_heldout_run.sh /work/.device/6/heldout8first-results.tgz \
#          h100-heldout8 first-seen tests/gpu/heldout8/candidates-first.md
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -eq 4 ] || { echo "usage: $0 RESULTS_TGZ DIR PREFIX CANDIDATES_MD" >&2; exit 2; }
tgz=$1 dir=$root/tests/fixtures/optimize/$2 prefix=$3 candidates=$4
[ -f "$tgz" ] || { echo "no such results: $tgz" >&2; exit 2; }
[ -f "$candidates" ] || { echo "no such candidate table: $candidates" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar xzf "$tgz" -C "$tmp"
run=$tmp/capture-results
[ -f "$run/summary.json" ] || { echo "$tgz has no capture-results/summary.json" >&2; exit 1; }
mkdir -p "$dir/verdicts-$prefix"
cp "$run/summary.json" "$dir/$prefix-summary.json"
cp "$run/summary.txt" "$dir/$prefix-summary.txt"
cp "$candidates" "$dir/$prefix-candidates.md"
for f in gpu.txt bandwidth.log; do [ -f "$run/$f" ] && cp "$run/$f" "$dir/$f"; done
for p in "$run"/programs/*/; do
  name=$(basename "$p")
  [ -f "$p/verify.log" ] && grep '^warplens optimize:' "$p/verify.log" > "$dir/verdicts-$prefix/$name.txt" || true
done
echo "installed $prefix into ${dir#"$root"/}: $(python3 -c "import json,sys; print('geomean %.2fx' % json.load(open(sys.argv[1]))['geomean_speedup'])" "$dir/$prefix-summary.json")"

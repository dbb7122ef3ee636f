#!/usr/bin/env bash
# Installs the optimize results of a `tests/gpu/run_all_h200.sh styles optimize`
# run (its results.tgz) as fixtures the CPU tests read
# (tests/unit/agent/job_recorded_h200_runs_test.cpp):
#
#   tests/gpu/install_optimize_fixtures.sh /path/to/results.tgz
#
#   styles/   -> tests/fixtures/optimize/h200-styles/  (examples/optimize_styles)
#   optimize/ -> tests/fixtures/optimize/h200-run6/    (examples/optimize, the
#                engine of issue 15; run 4 in tests/fixtures/optimize/h200/ stays)
#
# An area missing from the tarball (skipped by the time governor, or failed
# before its summary) is reported and left as it was. Each installed area is
# replaced whole: a run's files belong together.
set -euo pipefail
tarball=${1:?usage: install_optimize_fixtures.sh results.tgz}
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xzf "$tarball" -C "$tmp"
installed=0
for pair in "styles h200-styles" "optimize h200-run6"; do
  read -r area dir <<< "$pair"
  src=$tmp/$area
  [ -d "$src" ] || src=$tmp/./$area
  if [ ! -f "$src/reports/summary.json" ]; then
    echo "$area: no reports/summary.json in $tarball (skipped or failed: see its stdout.txt); not installed" >&2
    [ -f "$src/stdout.txt" ] && tail -n 20 "$src/stdout.txt" >&2
    continue
  fi
  dest=$root/tests/fixtures/optimize/$dir
  rm -rf "$dest"
  mkdir -p "$dest/reports"
  # The summary and the run's context at the top (as in h200/), every
  # program's report (markdown and JSON: each candidate's verdict) below.
  cp "$src/reports/summary.json" "$src/reports/summary.md" "$dest/"
  for f in stdout.txt torch.json bandwidth.txt cublas.txt cublas_ratio.txt gpu.txt verify.log; do
    [ -f "$src/$f" ] && cp "$src/$f" "$dest/"
  done
  find "$src/reports" -maxdepth 1 -type f \( -name '*.md' -o -name '*.json' \) ! -name 'summary.*' \
    -exec cp {} "$dest/reports/" \;
  installed=$((installed + 1))
  echo "installed $area into $dest ($(du -sh "$dest" | cut -f1)):"
  cat "$dest/summary.md"
  python3 - "$dest/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print(f"geomean speedup {s['geomean_speedup']:.2f}x over {len(s['programs'])} programs; "
      f"level 3: {sum(1 for p in s['programs'] if p['best_level'] == 3)}")
PY
  [ -f "$dest/cublas_ratio.txt" ] && cat "$dest/cublas_ratio.txt"
done
[ "$installed" -gt 0 ] || { echo "nothing installed" >&2; exit 1; }
echo
echo "next: record the numbers in docs/benchmarks.md (the test checks the style section's geomean),"
echo "then: cmake --build build --target agent_optimize_tests && ./build/bin/agent_optimize_tests -tc='recorded H200*'"

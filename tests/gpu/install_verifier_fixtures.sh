#!/usr/bin/env bash
# Installs the fixtures of a tests/gpu/run_verifier_h200.sh run into
# tests/fixtures/verifier/h200/, where the CI tests read them
# (tests/unit/agent/verifier_recorded_test.cpp, and the fake-driver test that
# replays the recorded capture):
#
#   tests/gpu/install_verifier_fixtures.sh /path/to/verifier-results.tar.gz
#
# Replaces what was there: a run's fixtures belong together.
set -euo pipefail
tarball=${1:?usage: install_verifier_fixtures.sh verifier-results.tar.gz}
root=$(cd "$(dirname "$0")/../.." && pwd)
dest=$root/tests/fixtures/verifier/h200
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xzf "$tarball" -C "$tmp"
src=$tmp/verifier-results/fixtures
if [ ! -d "$src/verdicts" ]; then
  echo "no fixtures/verdicts in $tarball: did the GPU suite run? (see verifier-results/summary.txt)" >&2
  exit 1
fi
rm -rf "$dest"
mkdir -p "$dest"
cp -r "$src/." "$dest/"
# Where the recording came from (GPU, driver, toolkit, the tree's commit as
# the run saw it), kept beside the fixtures.
[ -f "$tmp/verifier-results/environment.txt" ] && cp "$tmp/verifier-results/environment.txt" "$dest/"
echo "installed into $dest:"
(cd "$dest" && find . -type f | sort | sed 's/^/  /' | head -60)
du -sh "$dest"
if [ -f "$dest/summary.tsv" ]; then
  wrong=$(awk -F'\t' 'NR > 1 && $4 != "ok"' "$dest/summary.tsv")
  if [ -n "$wrong" ]; then
    echo "WARNING: rows not as expected on the GPU (verifier_recorded_test will fail on them):" >&2
    echo "$wrong" | cut -c1-160 >&2
  fi
fi

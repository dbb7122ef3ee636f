#!/usr/bin/env bash
# Installs what tests/gpu/run_all_h200.sh brought back (its results.tgz, one
# per device call) as the fixtures the CPU tests check:
#   verifier area        -> tests/fixtures/verifier/h200/          (install_verifier_fixtures.sh;
#                           verifier_unit_tests' recorded tests, the fake driver's recorded capture)
#   capture area         -> tests/fixtures/optimize/h200-capture/   (install_capture_fixtures.sh;
#                           agent_optimize_tests' job_recorded_capture_test)
#   verifier-bench area  -> tests/fixtures/verifier/h200-bench/     (verify_seconds.tsv, bench-summary.txt;
#                           verifier_unit_tests' verifier_recorded_bench_test)
# Each call's summary.txt is kept beside them as tests/fixtures/h200-runs/<date>-<n>.txt.
#
#   tests/gpu/install_h200_results.sh call1/results.tgz [call2/results.tgz ...]
#
# An area absent from every tarball leaves its fixtures as they were, and is said.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 1 ] || { echo "usage: $0 results.tgz [more results.tgz ...]" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
declare -a captures=()
verifier="" bench=""
n=0
for t in "$@"; do
  n=$((n + 1))
  d=$tmp/$n
  mkdir -p "$d"
  tar xzf "$t" -C "$d"
  [ -f "$d/verifier/verifier-results.tar.gz" ] && verifier=$d/verifier/verifier-results.tar.gz
  [ -f "$d/capture/capture-results.tgz" ] && captures+=("$d/capture/capture-results.tgz")
  [ -f "$d/verifier-bench/verify_seconds.tsv" ] && bench=$d/verifier-bench
  if [ -f "$d/summary.txt" ]; then
    mkdir -p "$root/tests/fixtures/h200-runs"
    stamp=$(sed -n 's/^date: \([0-9T:-]*\).*/\1/p' "$d/summary.txt" | head -1 | tr -d ':')
    cp "$d/summary.txt" "$root/tests/fixtures/h200-runs/${stamp:-unknown}-$n.txt"
  fi
done
if [ -n "$verifier" ]; then
  bash "$root/tests/gpu/install_verifier_fixtures.sh" "$verifier"
else
  echo "no verifier area in $*: tests/fixtures/verifier/h200/ left as it was"
fi
if [ ${#captures[@]} -gt 0 ]; then
  bash "$root/tests/gpu/install_capture_fixtures.sh" "${captures[@]}"
else
  echo "no capture area in $*: tests/fixtures/optimize/h200-capture/ left as it was"
fi
if [ -n "$bench" ]; then
  dest=$root/tests/fixtures/verifier/h200-bench
  rm -rf "$dest"
  mkdir -p "$dest"
  cp "$bench/verify_seconds.tsv" "$dest/"
  [ -f "$bench/bench-summary.txt" ] && cp "$bench/bench-summary.txt" "$dest/"
  echo "installed $(($(wc -l <"$dest/verify_seconds.tsv") - 1)) bench row(s) into $dest"
else
  echo "no verifier-bench area in $*: tests/fixtures/verifier/h200-bench/ left as it was"
fi
echo "then: ctest --test-dir build -R 'verifier_unit_tests|verifier_fake_gpu_tests|agent_optimize_tests'"

#!/usr/bin/env bash
# Profiler overhead: how much longer a program takes under `warplens profile`
# than on its own, and how much cheaper that is than Nsight Compute's
# SourceCounters section (which yields the same per-line numbers: sectors
# and wavefronts against their ideal per source line).
#
# Every configuration is timed end to end (wall clock of the whole command,
# as a user waits for it), median of --runs runs, all in the same session:
#   plain                  the program alone
#   warplens               warplens profile (default: two runs of the program,
#                          a metrics pass with SASS metrics and a timing pass
#                          with the Activity API, never both in one run)
#   warplens-metrics-only  warplens profile --passes 1 (the metrics pass
#                          alone: per-line metrics, no timings)
#   ncu                    ncu --section SourceCounters --clock-control none
#                          (every launch)
#   ncu-first              the same, first launch of each kernel only
#                          (--kernel-id ::regex:.*:1), i.e. the launches
#                          warplens measures
#
# usage: bench/profiler_overhead.sh [--runs N] [--cli PATH] [--cli-arg ARG]... [--ncu PATH]
#                                   [--label NAME] [--out FILE.tsv] -- PROGRAM [ARGS...]
# Prints one TSV row per configuration (label, config, median seconds, ratio to
# plain, ncu / this, ncu-first / this, line records) and appends them to --out.
# line_records: how many per-line records the warplens profile held; a
# warplens time is only comparable with ncu's when this is not 0 (ncu rows
# say n/a). Both ncu ratios are kept: ncu over every launch is what a user
# running `ncu --section SourceCounters` pays, ncu-first measures the same
# launches warplens does.
set -uo pipefail

runs=3
cli=""
cli_args=()
ncu=""
label=""
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --cli) cli=$2; shift 2 ;;
    --cli-arg) cli_args+=("$2"); shift 2 ;;
    --ncu) ncu=$2; shift 2 ;;
    --label) label=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "profiler_overhead: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ $# -gt 0 ] || { echo "usage: $0 [options] -- PROGRAM [ARGS...]" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
[ -n "$cli" ] || cli=$root/build/bin/warplens-profile
[ -n "$label" ] || label=$(basename "$1")
if [ -z "$ncu" ]; then
  ncu=$(command -v ncu || true)
  [ -n "$ncu" ] || for c in /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu; do
    [ -x "$c" ] && ncu=$c && break
  done
fi
tmp=$(mktemp -d /tmp/warplens-overhead-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# median_seconds CMD...: runs CMD $runs times (output to $tmp/log), prints the
# median wall time in seconds, or "failed".
median_seconds() {
  local times=()
  for ((i = 0; i < runs; i++)); do
    local t0 t1
    t0=$(date +%s%N)
    if ! "$@" >"$tmp/log" 2>&1; then
      echo "failed"
      cp "$tmp/log" "$tmp/failed.log"
      return
    fi
    t1=$(date +%s%N)
    times+=("$(( (t1 - t0) / 1000 ))")
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.3f\n", a[int((NR+1)/2)] / 1e6}'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "failed" || b == "failed" || b == 0) print "n/a"; else printf "%.1f\n", a / b }'; }

declare -A t
t[plain]=$(median_seconds "$@")
t[warplens]=$(median_seconds "$cli" "${cli_args[@]}" --format json --out "$tmp/p.json" -- "$@")
t[warplens-metrics-only]=$(median_seconds "$cli" "${cli_args[@]}" --passes 1 --format json --out "$tmp/p1.json" -- "$@")
# Per-line records in the last profile of each warplens configuration.
line_records() {
  local n
  n=$(grep -cE '"kind": "(all|global_|shared_|local_|branch)' "$1" 2>/dev/null)
  echo "${n:-0}"
}
declare -A lines=([plain]=n/a [ncu]=n/a [ncu-first]=n/a)
lines[warplens-metrics-only]=$(line_records "$tmp/p1.json")
lines[warplens]=$(line_records "$tmp/p.json")
if [ -n "$ncu" ]; then
  t[ncu]=$(median_seconds "$ncu" --section SourceCounters --clock-control none -f -o "$tmp/ncu" "$@")
  t[ncu-first]=$(median_seconds "$ncu" --section SourceCounters --clock-control none \
    --kernel-id '::regex:.*:1' -f -o "$tmp/ncu1" "$@")
else
  t[ncu]=failed
  t[ncu-first]=failed
  echo "profiler_overhead: ncu not found; its rows say n/a" >&2
fi

header=$'label\tconfig\tmedian_s\tx_plain\tncu_over_this\tncu_first_over_this\tline_records'
echo "$header"
for config in plain warplens warplens-metrics-only ncu ncu-first; do
  row="$label"$'\t'"$config"$'\t'"${t[$config]}"$'\t'"$(ratio "${t[$config]}" "${t[plain]}")"
  row+=$'\t'"$(ratio "${t[ncu]}" "${t[$config]}")"$'\t'"$(ratio "${t[ncu-first]}" "${t[$config]}")"
  row+=$'\t'"${lines[$config]}"
  echo "$row"
  if [ -n "$out" ]; then
    [ -s "$out" ] || echo "$header" >"$out"
    echo "$row" >>"$out"
  fi
done

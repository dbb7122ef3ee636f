#!/usr/bin/env bash
# Several held-out sets in one device call (issue 15): each SET is
# STEM=CANDIDATE_DIR=TABLE_DIR, run with run_heldout_h200.sh in turn. The
# first builds warplens in build-h200; the others reuse that build. Each set
# gets the seconds left of the call's budget, so run_capture_h200.sh starts a
# program only while its expected time still fits, and lists the ones left
# over.
#
#   OUT=$OUT TOTAL_BUDGET_S=560 bash tests/gpu/run_heldout_sets_h200.sh \
#     heldout10=.gpu/heldout10=tests/gpu/heldout10 \
#     heldout8first=.gpu/heldout8first=tests/gpu/heldout8
#   (carry the .gpu directories named)
#
# $OUT receives STEM-summary.txt and STEM-results.tgz per set (four sets at
# most: the device returns eight files).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
: "${OUT:?set OUT to a directory for the results}"
[ $# -ge 1 ] || { echo "usage: run_heldout_sets_h200.sh STEM=CANDIDATE_DIR=TABLE_DIR..." >&2; exit 2; }
[ $# -le 4 ] || { echo "at most four sets: the device returns eight files" >&2; exit 2; }
start=$(date +%s)
total=${TOTAL_BUDGET_S:-560}
status=0
for set in "$@"; do
  IFS='=' read -r stem cands table <<< "$set"
  if [ -z "$stem" ] || [ -z "$cands" ] || [ -z "$table" ]; then
    echo "bad set '$set': want STEM=CANDIDATE_DIR=TABLE_DIR" >&2; status=2; continue
  fi
  case "$cands" in /*) ;; *) cands=$root/$cands ;; esac
  case "$table" in /*) ;; *) table=$root/$table ;; esac
  left=$(( total - ($(date +%s) - start) ))
  if [ "$left" -lt 60 ]; then
    echo "NOT RUN (time budget of this call): set $stem" | tee "$OUT/$stem-summary.txt" >&2
    continue
  fi
  echo "[run_heldout_sets] $stem with ${left}s left" >&2
  HELDOUT_DIR=$cands PROGRAM_TABLE=$table/programs.tsv RESULTS_STEM=$stem \
    WARPLENS_CAPTURE_BUDGET_S=$left bash "$root/tests/gpu/run_heldout_h200.sh" || status=1
done
exit $status

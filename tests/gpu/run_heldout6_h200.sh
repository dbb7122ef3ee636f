#!/usr/bin/env bash
# Issue 15's sixth held-out set on the H200 (tests/gpu/heldout6/programs.tsv):
# run_heldout_h200.sh over .gpu/heldout6 (written on the Clang machine by
# tests/gpu/generate_heldout6_candidates.sh):
#   OUT=$OUT WARPLENS_CAPTURE_BUDGET_S=480 bash tests/gpu/run_heldout6_h200.sh
#   (carry [".gpu/heldout6"])
# $OUT receives heldout6-summary.txt and heldout6-results.tgz.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
export HELDOUT_DIR=${HELDOUT_DIR:-$root/.gpu/heldout6}
export PROGRAM_TABLE=${PROGRAM_TABLE:-$root/tests/gpu/heldout6/programs.tsv}
export RESULTS_STEM=${RESULTS_STEM:-heldout6}
export MAX_CANDIDATES=${MAX_CANDIDATES:-6}
exec bash "$root/tests/gpu/run_heldout_h200.sh"

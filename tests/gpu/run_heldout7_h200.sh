#!/usr/bin/env bash
# Issue 15's seventh held-out set on the H200 (tests/gpu/heldout7/programs.tsv):
# run_heldout_h200.sh over .gpu/heldout7 (written on the Clang machine by
# tests/gpu/generate_heldout7_candidates.sh):
#   OUT=$OUT WARPLENS_CAPTURE_BUDGET_S=480 bash tests/gpu/run_heldout7_h200.sh
#   (carry [".gpu/heldout7"])
# $OUT receives heldout7-summary.txt and heldout7-results.tgz.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
export HELDOUT_DIR=${HELDOUT_DIR:-$root/.gpu/heldout7}
export PROGRAM_TABLE=${PROGRAM_TABLE:-$root/tests/gpu/heldout7/programs.tsv}
export RESULTS_STEM=${RESULTS_STEM:-heldout7}
export MAX_CANDIDATES=${MAX_CANDIDATES:-6}
exec bash "$root/tests/gpu/run_heldout_h200.sh"

#!/usr/bin/env bash
# Issue 15's tenth held-out set on the H200 (tests/gpu/heldout10/programs.tsv):
# run_heldout_h200.sh over .gpu/heldout10 (written on the Clang machine by
# tests/gpu/generate_heldout10_candidates.sh):
#   OUT=$OUT WARPLENS_CAPTURE_BUDGET_S=480 bash tests/gpu/run_heldout10_h200.sh
#   (carry [".gpu/heldout10"])
# $OUT receives heldout10-summary.txt and heldout10-results.tgz.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
export HELDOUT_DIR=${HELDOUT_DIR:-$root/.gpu/heldout10}
export PROGRAM_TABLE=${PROGRAM_TABLE:-$root/tests/gpu/heldout10/programs.tsv}
export RESULTS_STEM=${RESULTS_STEM:-heldout10}
export MAX_CANDIDATES=${MAX_CANDIDATES:-6}
exec bash "$root/tests/gpu/run_heldout_h200.sh"

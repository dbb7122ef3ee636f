#!/usr/bin/env bash
# Issue 15's third held-out set on the H200 (tests/gpu/heldout3/programs.tsv):
# run_heldout_h200.sh over .gpu/heldout3 (written on the Clang machine by
# tests/gpu/generate_heldout3_candidates.sh):
#   OUT=$OUT WARPLENS_CAPTURE_BUDGET_S=480 bash tests/gpu/run_heldout3_h200.sh
#   (carry [".gpu/heldout3"])
# $OUT receives heldout3-summary.txt and heldout3-results.tgz.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
export HELDOUT_DIR=${HELDOUT_DIR:-$root/.gpu/heldout3}
export PROGRAM_TABLE=${PROGRAM_TABLE:-$root/tests/gpu/heldout3/programs.tsv}
export RESULTS_STEM=${RESULTS_STEM:-heldout3}
export MAX_CANDIDATES=${MAX_CANDIDATES:-6}
exec bash "$root/tests/gpu/run_heldout_h200.sh"

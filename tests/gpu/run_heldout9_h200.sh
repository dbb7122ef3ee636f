#!/usr/bin/env bash
# Issue 15's ninth held-out set on the H200 (tests/gpu/heldout9/programs.tsv):
# run_heldout_h200.sh over .gpu/heldout9 (written on the Clang machine by
# tests/gpu/generate_heldout9_candidates.sh):
#   OUT=$OUT WARPLENS_CAPTURE_BUDGET_S=480 bash tests/gpu/run_heldout9_h200.sh
#   (carry [".gpu/heldout9"])
# $OUT receives heldout9-summary.txt and heldout9-results.tgz.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
export HELDOUT_DIR=${HELDOUT_DIR:-$root/.gpu/heldout9}
export PROGRAM_TABLE=${PROGRAM_TABLE:-$root/tests/gpu/heldout9/programs.tsv}
export RESULTS_STEM=${RESULTS_STEM:-heldout9}
export MAX_CANDIDATES=${MAX_CANDIDATES:-6}
exec bash "$root/tests/gpu/run_heldout_h200.sh"

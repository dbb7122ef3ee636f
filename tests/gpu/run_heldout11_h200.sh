#!/usr/bin/env bash
# Issue 15's eleventh held-out set on the H200 (tests/gpu/heldout11/programs.tsv):
# run_heldout_h200.sh over .gpu/heldout11 (written on the Clang machine by
# tests/gpu/generate_heldout11_candidates.sh):
#   OUT=$OUT WARPLENS_CAPTURE_BUDGET_S=480 bash tests/gpu/run_heldout11_h200.sh
#   (carry [".gpu/heldout11"])
# $OUT receives heldout11-summary.txt and heldout11-results.tgz.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
export HELDOUT_DIR=${HELDOUT_DIR:-$root/.gpu/heldout11}
export PROGRAM_TABLE=${PROGRAM_TABLE:-$root/tests/gpu/heldout11/programs.tsv}
export RESULTS_STEM=${RESULTS_STEM:-heldout11}
export MAX_CANDIDATES=${MAX_CANDIDATES:-6}
exec bash "$root/tests/gpu/run_heldout_h200.sh"

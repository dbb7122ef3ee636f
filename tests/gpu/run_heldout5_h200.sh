#!/usr/bin/env bash
# Issue 15's fifth held-out set on the H200 (tests/gpu/heldout5/programs.tsv):
# run_heldout_h200.sh over .gpu/heldout5 (written on the Clang machine by
# tests/gpu/generate_heldout5_candidates.sh):
#   OUT=$OUT WARPLENS_CAPTURE_BUDGET_S=480 bash tests/gpu/run_heldout5_h200.sh
#   (carry [".gpu/heldout5"])
# $OUT receives heldout5-summary.txt and heldout5-results.tgz.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
export HELDOUT_DIR=${HELDOUT_DIR:-$root/.gpu/heldout5}
export PROGRAM_TABLE=${PROGRAM_TABLE:-$root/tests/gpu/heldout5/programs.tsv}
export RESULTS_STEM=${RESULTS_STEM:-heldout5}
export MAX_CANDIDATES=${MAX_CANDIDATES:-6}
exec bash "$root/tests/gpu/run_heldout_h200.sh"

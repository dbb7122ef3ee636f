#!/usr/bin/env bash
# Issue 15's eighth held-out set on the H200 (tests/gpu/heldout8/programs.tsv):
# run_heldout_h200.sh over .gpu/heldout8 (written on the Clang machine by
# tests/gpu/generate_heldout8_candidates.sh):
#   OUT=$OUT WARPLENS_CAPTURE_BUDGET_S=480 bash tests/gpu/run_heldout8_h200.sh
#   (carry [".gpu/heldout8"])
# $OUT receives heldout8-summary.txt and heldout8-results.tgz.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
export HELDOUT_DIR=${HELDOUT_DIR:-$root/.gpu/heldout8}
export PROGRAM_TABLE=${PROGRAM_TABLE:-$root/tests/gpu/heldout8/programs.tsv}
export RESULTS_STEM=${RESULTS_STEM:-heldout8}
export MAX_CANDIDATES=${MAX_CANDIDATES:-6}
exec bash "$root/tests/gpu/run_heldout_h200.sh"

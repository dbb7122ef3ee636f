#!/usr/bin/env bash
# Issue 15's fourth held-out set on the H200 (tests/gpu/heldout4/programs.tsv):
# run_heldout_h200.sh over .gpu/heldout4 (written on the Clang machine by
# tests/gpu/generate_heldout4_candidates.sh):
#   OUT=$OUT WARPLENS_CAPTURE_BUDGET_S=480 bash tests/gpu/run_heldout4_h200.sh
#   (carry [".gpu/heldout4"])
# $OUT receives heldout4-summary.txt and heldout4-results.tgz.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
export HELDOUT_DIR=${HELDOUT_DIR:-$root/.gpu/heldout4}
export PROGRAM_TABLE=${PROGRAM_TABLE:-$root/tests/gpu/heldout4/programs.tsv}
export RESULTS_STEM=${RESULTS_STEM:-heldout4}
export MAX_CANDIDATES=${MAX_CANDIDATES:-6}
exec bash "$root/tests/gpu/run_heldout_h200.sh"

#!/usr/bin/env bash
# Issue 15's second held-out set on the H200 (tests/gpu/unseen/programs.tsv):
# run_heldout_h200.sh over .gpu/unseen (written on the Clang machine by
# tests/gpu/generate_unseen_candidates.sh):
#   OUT=$OUT WARPLENS_CAPTURE_BUDGET_S=480 bash tests/gpu/run_unseen_h200.sh
#   (carry [".gpu/unseen"])
# $OUT receives unseen-summary.txt and unseen-results.tgz.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
export HELDOUT_DIR=${HELDOUT_DIR:-$root/.gpu/unseen}
export PROGRAM_TABLE=${PROGRAM_TABLE:-$root/tests/gpu/unseen/programs.tsv}
export RESULTS_STEM=${RESULTS_STEM:-unseen}
export MAX_CANDIDATES=${MAX_CANDIDATES:-6}
exec bash "$root/tests/gpu/run_heldout_h200.sh"

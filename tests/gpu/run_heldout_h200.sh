#!/usr/bin/env bash
# Issue 15's held-out set on the H200: naive kernels the rewrite engine was
# not written for (karpathy/llm.c dev/cuda, kernel 1 of each; the table is
# tests/gpu/heldout/programs.tsv), as ordinary programs: each is built with
# nvcc as its Makefile would (-O3, its libraries, no harness), its kernel's
# launches captured from a normal run (`./prog 1`: llm.c's own CPU check and
# block-size sweep), and the candidates written on the Clang machine by
# tests/gpu/generate_heldout_candidates.sh verified by replaying them. This
# is run_capture_h200.sh with the table; it builds warplens the same way (no
# Clang, Release, Ninja, in WARPLENS_BUILD_DIR, default build-h200).
#
# The sources and candidates are not in the repository (llm.c's licence:
# read and run only); they come in the device call's carry list:
#   OUT=$OUT WARPLENS_CAPTURE_BUDGET_S=480 bash tests/gpu/run_heldout_h200.sh
#   (carry [".gpu/heldout"])
#
# Environment (besides run_capture_h200.sh's): HELDOUT_DIR (default
# .gpu/heldout), MAX_CANDIDATES (default 4 here: ten programs, a build and
# llm.c's own CPU references fit 480 s), PROGRAMS="a b" (a second call on
# the warm machine reuses the build).
#
# $OUT receives heldout-summary.txt (the table: the captured launch's time,
# the best verified candidate's, and, where the program printed its own
# benchmark, the speedup over its fastest block size) and heldout-results.tgz
# (per program: capture manifest, the program's output, the optimize report
# and summary, the verify log's tail).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${HELDOUT_DIR:-$root/.gpu/heldout}
if [ ! -d "$dir/src" ] || [ ! -d "$dir/candidates" ]; then
  : "${OUT:?set OUT to a directory for the results}"
  mkdir -p "$OUT"
  echo "no $dir/src or $dir/candidates: run tests/gpu/generate_heldout_candidates.sh on the Clang machine" \
    "and carry .gpu/heldout to this one" | tee "$OUT/heldout-summary.txt" >&2
  exit 1
fi
export PROGRAM_TABLE=${PROGRAM_TABLE:-$root/tests/gpu/heldout/programs.tsv}
export SRC_ROOT=$dir/src CANDIDATES_ROOT=$dir/candidates
export RESULTS_STEM=${RESULTS_STEM:-heldout} NVCC_ARCH=${NVCC_ARCH:-sm_90}
export MAX_CANDIDATES=${MAX_CANDIDATES:-4}
export GEOMEAN_GOAL=${GEOMEAN_GOAL:-3.9}  # issue 15's goal on kernels the engine has not seen
exec bash "$root/tests/gpu/run_capture_h200.sh"

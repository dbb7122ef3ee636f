#!/usr/bin/env bash
# Issue 15's fifth held-out set (tests/gpu/heldout5/): the built-in engine's
# candidates for the naive programs in tests/gpu/heldout5/src, written with
# generate_heldout_candidates.sh's steps into the git-ignored .gpu/heldout5/
# (it travels to the GPU machine in the device call's carry list,
# [".gpu/heldout5"]). Needs the Clang build, no GPU.
#   usage: tests/gpu/generate_heldout5_candidates.sh [BUILD_DIR] [MAX_CANDIDATES]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
export HELDOUT_SOURCE=$root/tests/gpu/heldout5 HELDOUT_SUBDIR=src HELDOUT_EXTRA="" HELDOUT_REV=HEAD
export HELDOUT_DIR=${HELDOUT_DIR:-$root/.gpu/heldout5}
export PROGRAM_TABLE=${PROGRAM_TABLE:-$root/tests/gpu/heldout5/programs.tsv}
exec bash "$root/tests/gpu/generate_heldout_candidates.sh" "$@"

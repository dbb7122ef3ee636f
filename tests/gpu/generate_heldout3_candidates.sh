#!/usr/bin/env bash
# Issue 15's third held-out set (tests/gpu/heldout3/): the built-in engine's
# candidates for the naive programs in tests/gpu/heldout3/src, written with
# generate_heldout_candidates.sh's steps into the git-ignored .gpu/heldout3/
# (it travels to the GPU machine in the device call's carry list,
# [".gpu/heldout3"]). Needs the Clang build, no GPU.
#   usage: tests/gpu/generate_unseen_candidates.sh [BUILD_DIR] [MAX_CANDIDATES]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
export HELDOUT_SOURCE=$root/tests/gpu/heldout3 HELDOUT_SUBDIR=src HELDOUT_EXTRA="" HELDOUT_REV=HEAD
export HELDOUT_DIR=${HELDOUT_DIR:-$root/.gpu/heldout3}
export PROGRAM_TABLE=${PROGRAM_TABLE:-$root/tests/gpu/heldout3/programs.tsv}
exec bash "$root/tests/gpu/generate_heldout_candidates.sh" "$@"

#!/usr/bin/env bash
# Issue 15's eleventh held-out set (tests/gpu/heldout11/): the built-in engine's
# candidates for the naive programs in tests/gpu/heldout11/src, written with
# generate_heldout_candidates.sh's steps into the git-ignored .gpu/heldout11/
# (it travels to the GPU machine in the device call's carry list,
# [".gpu/heldout11"]). Needs the Clang build, no GPU.
#   usage: tests/gpu/generate_heldout11_candidates.sh [BUILD_DIR] [MAX_CANDIDATES]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
export HELDOUT_SOURCE=$root/tests/gpu/heldout11 HELDOUT_SUBDIR=src HELDOUT_EXTRA="" HELDOUT_REV=HEAD
export HELDOUT_DIR=${HELDOUT_DIR:-$root/.gpu/heldout11}
export PROGRAM_TABLE=${PROGRAM_TABLE:-$root/tests/gpu/heldout11/programs.tsv}
exec bash "$root/tests/gpu/generate_heldout_candidates.sh" "$@"

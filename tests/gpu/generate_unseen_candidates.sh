#!/usr/bin/env bash
# Issue 15's second held-out set (tests/gpu/unseen/): the built-in engine's
# candidates for the naive programs in tests/gpu/unseen/src, written with
# generate_heldout_candidates.sh's steps into the git-ignored .gpu/unseen/
# (it travels to the GPU machine in the device call's carry list,
# [".gpu/unseen"]). Needs the Clang build, no GPU.
#   usage: tests/gpu/generate_unseen_candidates.sh [BUILD_DIR] [MAX_CANDIDATES]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
export HELDOUT_SOURCE=$root/tests/gpu/unseen HELDOUT_SUBDIR=src HELDOUT_EXTRA="" HELDOUT_REV=HEAD
export HELDOUT_DIR=${HELDOUT_DIR:-$root/.gpu/unseen}
export PROGRAM_TABLE=${PROGRAM_TABLE:-$root/tests/gpu/unseen/programs.tsv}
exec bash "$root/tests/gpu/generate_heldout_candidates.sh" "$@"

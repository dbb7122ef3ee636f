#!/usr/bin/env bash
# README command 1: install what is missing, build, and analyse the bundled
# examples, printing their diagnostics like a compiler.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/bootstrap.sh"
# Only what the main job needs (the binary, its data, the injection library
# and the replay); scripts/test.sh builds the rest.
WARPLENS_BUILD_TARGETS=warplens-runtime "$root/scripts/build.sh"
shopt -s nullglob
cd "$root"  # file names in the findings relative to the repository
files=(examples/*.cu)
"$root/build/bin/warplens" check "${files[@]}"

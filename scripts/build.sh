#!/usr/bin/env bash
# Configures and builds warplens into build/ (binary: build/bin/warplens).
# Extra arguments go to cmake's configure step, e.g. -DWARPLENS_WITH_CLANG=OFF.
# WARPLENS_BUILD_TARGETS names what to build (default: everything);
# quickstart.sh builds only `warplens-runtime` (the binary and its parts).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${WARPLENS_BUILD_DIR:-$root/build}
jobs=${WARPLENS_JOBS:-$(nproc)}
cmake -S "$root" -B "$build" -G Ninja "$@" >/dev/null
targets=()
for t in ${WARPLENS_BUILD_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$build" -j "$jobs" "${targets[@]}"

#!/usr/bin/env bash
# Configures and builds warplens into build/ (binary: build/bin/warplens).
# Extra arguments go to cmake's configure step, e.g. -DWARPLENS_WITH_CLANG=OFF.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${WARPLENS_BUILD_DIR:-$root/build}
jobs=${WARPLENS_JOBS:-$(nproc)}
cmake -S "$root" -B "$build" -G Ninja "$@" >/dev/null
cmake --build "$build" -j "$jobs"

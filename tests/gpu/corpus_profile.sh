#!/usr/bin/env bash
# GPU check of the static analyses' labels: runs every tests/corpus program
# under `warplens profile` (per-line SASS sectors and wavefronts) and compares
# the measurements with the `// expect:` labels (tests/gpu/corpus_compare.py).
#
# Run on the GPU machine from the repository root:
#   OUT=/some/dir tests/gpu/corpus_profile.sh
# Uses $WARPLENS_BIN when set, else builds warplens with -DWARPLENS_WITH_CLANG=OFF
# into build-gpu/. Without a profiler in the binary it still builds and runs
# every program (nvcc -O3 -lineinfo) so that at least runnability is checked.
# Writes under $OUT/corpus: <name>.json profiles, logs, compare.txt. The last
# lines printed are the summary.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$root/build-gpu/out}/corpus
mkdir -p "$out"
corpus=$root/tests/corpus
arch=${WARPLENS_GPU_ARCH:-sm_90}
nvcc=${CUDACXX:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}

warplens=${WARPLENS_BIN:-}
if [ -z "$warplens" ]; then
  build=${WARPLENS_BUILD_DIR:-$root/build-gpu}
  if [ ! -x "$build/bin/warplens" ] ||
     { [ ! -e "$build/bin/libwarplens_inject.so" ] && [ ! -e "$build/lib/libwarplens_inject.so" ]; }; then
    echo "building warplens (WARPLENS_WITH_CLANG=OFF) in $build"
    cmake -S "$root" -B "$build" -G Ninja -DWARPLENS_WITH_CLANG=OFF -DCMAKE_BUILD_TYPE=Release \
      > "$out/cmake.log" 2>&1 && ninja -C "$build" warplens warplens_inject > "$out/build.log" 2>&1 ||
      echo "warplens build failed (see $out/build.log); falling back to plain runs"
  fi
  warplens=$build/bin/warplens
fi
have_profiler=0
if [ -x "$warplens" ] && "$warplens" profile --help > /dev/null 2>&1; then have_profiler=1; fi

ran=0 failed=0 profiled=0
failures=()
for src in "$corpus"/*.cu; do
  name=$(basename "$src" .cu)
  if [ "$have_profiler" = 1 ]; then
    if "$warplens" profile --passes "${WARPLENS_CORPUS_PASSES:-2}" --format json --out "$out/$name.json" --work-dir "$out/$name.work" --arch "$arch" \
         "$src" > "$out/$name.log" 2>&1; then
      profiled=$((profiled + 1)); ran=$((ran + 1))
    else
      failed=$((failed + 1)); failures+=("$name (profile, see $out/$name.log)")
    fi
  else
    mkdir -p "$out/bin"
    if "$nvcc" -O3 -lineinfo -arch="$arch" -o "$out/bin/$name" "$src" > "$out/$name.build.log" 2>&1 &&
       "$out/bin/$name" > "$out/$name.log" 2>&1; then
      ran=$((ran + 1))
    else
      failed=$((failed + 1)); failures+=("$name (build/run, see $out/$name.*log)")
    fi
  fi
done

compare="not run (no profiles)"
if [ "$profiled" -gt 0 ]; then
  if python3 "$root/tests/gpu/corpus_compare.py" --corpus "$corpus" "$out"/*.json > "$out/compare.txt" 2>&1; then
    compare="labels agree with the hardware"
  else
    compare="labels DISAGREE with the hardware"
  fi
  cat "$out/compare.txt"
fi

echo
echo "== corpus GPU check summary"
echo "programs: $ran ran, $failed failed, $profiled profiled (profiler in binary: $have_profiler)"
for f in "${failures[@]+"${failures[@]}"}"; do echo "  failed: $f"; done
echo "compare: $compare"
echo "results: $out"
[ "$failed" -eq 0 ]

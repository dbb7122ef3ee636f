#!/usr/bin/env bash
# stage-row-walk's output on a GPU: compiles the tridiagonal snippet as
# written and as the rewrite's committed expected output rewrote it, and
# compares them on four cases (tests/gpu/stage_row_walk/driver.cu), the
# aliased one taking the rewritten kernel's run-time fallback. Needs nvcc and
# a GPU; exit 77 (skipped) without one. No Clang: the rewritten text is the
# .expected file's, which rewrite_snippet.stage_row_walk_tridiagonal keeps
# equal to what the engine writes.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q GPU || [ ! -x "$nvcc" ]; then
  echo "no GPU or nvcc: skipped"
  exit 77
fi
snip=$root/tests/unit/agent/rewrite_snippets/stage_row_walk_tridiagonal
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed -n '/^--- rewritten source$/,$p' "$snip.expected" | tail -n +2 > "$tmp/rewritten.cu"
[ -s "$tmp/rewritten.cu" ] || { echo "no rewritten source in $snip.expected" >&2; exit 1; }
arch=${ARCH:-sm_90}
"$nvcc" -O3 -arch=$arch -c "$snip.cu" -o "$tmp/orig.o" -Dsolve=solve_orig -Dtridiag=tridiag_orig
"$nvcc" -O3 -arch=$arch -c "$tmp/rewritten.cu" -o "$tmp/new.o" -Dsolve=solve_new -Dtridiag=tridiag_new
"$nvcc" -O3 -arch=$arch "$root/tests/gpu/stage_row_walk/driver.cu" "$tmp/orig.o" "$tmp/new.o" -o "$tmp/check"
"$tmp/check"
# The aliased cases must be able to fail: with the run-time check forced to
# pass, the staged code must give a different result for the solution
# written into the sub-diagonal.
sed 's/if (!wl_ok) {/if (false) {/' "$tmp/rewritten.cu" > "$tmp/forced.cu"
grep -q 'if (false) {' "$tmp/forced.cu" || { echo "no run-time check found in the rewritten source" >&2; exit 1; }
"$nvcc" -O3 -arch=$arch -c "$tmp/forced.cu" -o "$tmp/forced.o" -Dsolve=solve_new -Dtridiag=tridiag_new
"$nvcc" -O3 -arch=$arch "$root/tests/gpu/stage_row_walk/driver.cu" "$tmp/orig.o" "$tmp/forced.o" -o "$tmp/forced"
forced=$("$tmp/forced" || true)
line=$(printf '%s\n' "$forced" | grep 'sub-diagonal')
echo "without the run-time check: $line"
case "$line" in
  *": 0 of "*) echo "FAIL: the aliased case passes without the run-time check; it tests nothing" >&2; exit 1 ;;
esac
echo "ok: the run-time check is what keeps the aliased case equal"

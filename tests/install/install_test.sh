#!/usr/bin/env bash
# usage: install_test.sh BUILD_DIR SOURCE_DIR install|deb
# install: `cmake --install BUILD --prefix P`; deb: `cpack -G DEB` then
# `dpkg-deb -x` into P (the package's files under P/usr). Then, from a
# directory that is neither the build nor the checkout, with a PATH that
# does not reach the build tree, the installed binary must
#   - find its data directory (no "missing headers" warning),
#   - report the example's known findings with the same text as the build
#     tree's binary,
#   - find the injection library and warplens-replay where the layout puts
#     them (cmake/WarplensInstall.cmake).
set -euo pipefail
build=$1 src=$2 mode=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d /tmp/warplens-install.XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
case $mode in
  install)
    cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 || { cat "$work/install.log" >&2; fail "cmake --install"; }
    ;;
  deb)
    command -v dpkg-deb >/dev/null || { echo "skipped: dpkg-deb not found"; exit 77; }
    (cd "$work" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/pkg" >"$work/cpack.log" 2>&1) \
      || { cat "$work/cpack.log" >&2; fail "cpack -G DEB"; }
    deb=$(ls "$work"/pkg/warplens_*.deb 2>/dev/null | head -1)
    [ -n "$deb" ] || fail "cpack wrote no .deb: $(ls "$work/pkg")"
    dpkg-deb --info "$deb" >"$work/info.txt"
    grep -q "Depends:.*libclang-cpp19" "$work/info.txt" || fail "the package does not depend on libclang-cpp19: $(cat "$work/info.txt")"
    dpkg-deb -x "$deb" "$work/root"
    prefix=$work/root/usr
    echo "package: $(basename "$deb"), $(du -h "$deb" | cut -f1)"
    ;;
  *) fail "mode must be install or deb" ;;
esac
bin=$prefix/bin/warplens
[ -x "$bin" ] || fail "no $bin"
[ -f "$prefix/share/warplens/nvcc-compat/nvcc_compat.h" ] || fail "no data directory at $prefix/share/warplens"
[ -f "$prefix/share/warplens/pytorch_timing.py" ] || fail "no pytorch_timing.py in $prefix/share/warplens"
[ -f "$prefix/share/doc/warplens/README.md" ] || fail "no README in $prefix/share/doc/warplens"
if [ -e "$build/lib/libwarplens_inject.so" ]; then
  [ -f "$prefix/lib/warplens/libwarplens_inject.so" ] || fail "no $prefix/lib/warplens/libwarplens_inject.so"
fi
if [ -e "$build/bin/warplens-replay" ]; then
  [ -x "$prefix/libexec/warplens/warplens-replay" ] || fail "no $prefix/libexec/warplens/warplens-replay"
fi
mkdir -p "$work/elsewhere"
cp "$src/examples/transpose.cu" "$work/elsewhere/"
cd "$work/elsewhere"
# The installed binary, with nothing of the build or the checkout around:
# no WARPLENS_* variables, a PATH without the build tree.
env -i HOME="$work" PATH=/usr/bin:/bin "$bin" check transpose.cu >"$work/installed.txt" 2>"$work/installed.err" || true
env -i HOME="$work" PATH=/usr/bin:/bin "$build/bin/warplens" check transpose.cu >"$work/built.txt" 2>"$work/built.err" || true
grep -q "uncoalesced-global" "$work/installed.txt" || { cat "$work/installed.txt" "$work/installed.err" >&2; fail "the installed binary reported no uncoalesced-global finding"; }
if grep -qi "missing headers" "$work/installed.txt" "$work/installed.err"; then
  cat "$work/installed.err" >&2; fail "the installed binary did not find its data directory"
fi
diff -u "$work/built.txt" "$work/installed.txt" || fail "the installed binary's findings differ from the build tree's"
echo "ok: $mode: $(grep -c "warning:" "$work/installed.txt") findings from $bin, as from the build tree"

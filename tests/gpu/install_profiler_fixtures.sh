#!/usr/bin/env bash
# Installs the profiles recorded by tests/gpu/run_profiler_h200.sh as the CI
# fixtures tests/fixtures/profile/{transpose,strided_copy,bank_reduction}.json,
# replacing the provisional (hand-modelled) ones.
#
#   tests/gpu/install_profiler_fixtures.sh OUT_DIR_OR_TARBALL
#
# OUT_DIR_OR_TARBALL: the $OUT the H200 script wrote into (it holds
# profiler-profiles.tar.gz), or that tarball itself. Each profile is checked
# before anything is changed: it must parse as JSON, carry the schema
# "warplens-profile/1", come from a run whose passes were the metrics pass
# and the timing pass, and hold per-line records with executed instructions.
# If any of the three fails the check, nothing is installed. On success the
# provisional files are removed (git rm when tracked), so the CPU tests read
# the recordings (tests/unit/profiler/test_support.h prefers them anyway).
# Then run the CPU tests: ctest --test-dir build -L unit -R 'profiler|server'.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -eq 1 ] || { echo "usage: $0 OUT_DIR_OR_TARBALL" >&2; exit 2; }
src=$1
if [ -d "$src" ]; then src=$src/profiler-profiles.tar.gz; fi
[ -f "$src" ] || { echo "install_profiler_fixtures: $src not found (did the H200 script profile the programs?)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xzf "$src" -C "$tmp"

names=(transpose strided_copy bank_reduction)
for name in "${names[@]}"; do
  f=$tmp/profiles/$name.json
  python3 - "$f" "$name" <<'EOF' || exit 1
import json, sys
path, name = sys.argv[1], sys.argv[2]
try:
    p = json.load(open(path))
except (OSError, ValueError) as e:
    sys.exit("install_profiler_fixtures: %s: unreadable: %s" % (name, e))
problems = []
if p.get("schema") != "warplens-profile/1":
    problems.append("schema is %r" % p.get("schema"))
if [x.get("kind") for x in p.get("passes", [])] != ["metrics", "timing"]:
    problems.append("passes are %r, not metrics+timing" % [x.get("kind") for x in p.get("passes", [])])
if not any(l.get("executed") for l in p.get("lines", [])):
    problems.append("no per-line record with executed instructions")
if any(w.get("code") == "provisional-fixture" for w in p.get("warnings", [])):
    problems.append("it is a provisional fixture, not a recording")
if problems:
    sys.exit("install_profiler_fixtures: %s: %s" % (name, "; ".join(problems)))
EOF
done

dest=$root/tests/fixtures/profile
for name in "${names[@]}"; do
  cp "$tmp/profiles/$name.json" "$dest/$name.json"
  echo "installed $dest/$name.json"
  prov=$dest/$name.provisional.json
  if [ -f "$prov" ]; then
    if git -C "$root" ls-files --error-unmatch "$prov" >/dev/null 2>&1; then
      git -C "$root" rm -q "$prov"
    else
      rm -f "$prov"
    fi
    echo "removed $prov"
  fi
done
echo "now: ctest --test-dir build -R 'profiler_unit|server_tests' --output-on-failure, then commit tests/fixtures/profile/"

#!/usr/bin/env bash
# Installs what tests/gpu/run_mcp_h200.sh recorded as the CI fixture:
#
#   tests/gpu/install_mcp_fixture.sh PATH/mcp-h200.tar.gz
#
# -> tests/fixtures/mcp/h200-session.json (the transcript of the scripted
# session against the real verifier on the H200), checked by
# `ctest -R mcp_recorded_h200` (tests/mcp/session.py --check). Refuses a
# transcript whose steps did not all pass.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tarball=${1:?usage: install_mcp_fixture.sh mcp-h200.tar.gz}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar xzf "$tarball" -C "$tmp"
python3 "$root/tests/mcp/session.py" --check "$tmp/mcp-h200/h200-session.json" --expect-device H200
mkdir -p "$root/tests/fixtures/mcp"
cp "$tmp/mcp-h200/h200-session.json" "$root/tests/fixtures/mcp/h200-session.json"
echo "installed tests/fixtures/mcp/h200-session.json"

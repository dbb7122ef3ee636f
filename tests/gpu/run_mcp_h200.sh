#!/usr/bin/env bash
# The MCP server's proof on a GPU machine (issue 16; run by the lead on the H200):
#
#   OUT=/some/dir tests/gpu/run_mcp_h200.sh
#
# 1. builds without Clang (Ninja, Release, -DWARPLENS_WITH_CLANG=OFF in
#    $WARPLENS_BUILD_DIR, default build-h200, the other GPU scripts' build):
#    warplens, warplens-replay, the injection library, mcp_make_workspace;
# 2. makes the session's workspace (scale_add.cu and a capture of its launch,
#    1M elements, written with the capture format's API);
# 3. runs the scripted agent session (tests/mcp/session.py, the stdlib MCP
#    client: Node is not needed) against `warplens mcp` with the REAL
#    verifier on this GPU: initialize, tools/list, analyze (a tool error
#    here: no front end without Clang), paths outside the root refused,
#    verify an honest candidate (correct) and an exploit (level -1),
#    apply_rewrite refusing it, a cancelled verify of a hanging candidate,
#    profile of the self-contained scale_add.cu, capture through the
#    configured build/profile commands and a verify on that capture;
# 4. prints the summary last.
#
# $OUT receives two small files:
#   mcp-summary.txt    the session's steps (ok/FAIL) and the timings
#   mcp-h200.tar.gz    mcp-h200/h200-session.json (the full transcript, every
#                      message both ways; install it with
#                      tests/gpu/install_mcp_fixture.sh, checked in CI by
#                      ctest -R mcp_recorded_h200), session.log, build.log tail
# Budget: 97 s measured on the H200 (2026-12-02: from a fresh tree on 16
# cores, 85 s build, 12 s session); WARPLENS_MCP_BUDGET_S (default: what is left of
# WARPLENS_AREA_BUDGET_S when run_all_h200.sh sets it, else 280) bounds the
# session step.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
: "${OUT:?set OUT to a directory for the results}"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
build=${WARPLENS_BUILD_DIR:-$root/build-h200}
work=$(mktemp -d /tmp/warplens-mcp-h200.XXXXXX)
res="$work/mcp-h200"
mkdir -p "$res"
t0=$(date +%s)
summary() { echo "$*" | tee -a "$res/summary.txt"; }
summary "date: $(date -u +%FT%TZ)  commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
summary "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DWARPLENS_WITH_CLANG=OFF \
  -DWARPLENS_BUILD_TESTS=ON >"$work/configure.log" 2>&1
targets=(warplens warplens-replay mcp_make_workspace)
ninja -C "$build" -t targets all 2>/dev/null | grep -q '^warplens_inject:' && targets+=(warplens_inject)
if cmake --build "$build" -j"$(nproc)" --target "${targets[@]}" >"$work/build.log" 2>&1; then
  summary "build: ok in $(( $(date +%s) - t0 )) s (${targets[*]})"
else
  summary "build: FAILED (tail of build.log in the tarball)"
fi
tail -n 60 "$work/build.log" >"$res/build.log"

rc=1
if [ -x "$build/bin/mcp_make_workspace" ] && "$build/bin/mcp_make_workspace" "$work/session" 1048576 >/dev/null; then
  s0=$(date +%s)
  # The session's seconds: WARPLENS_MCP_BUDGET_S, else what is left of the
  # area's budget when run_all_h200.sh gives one (WARPLENS_AREA_BUDGET_S,
  # the build included), else 280.
  session_budget=${WARPLENS_MCP_BUDGET_S:-}
  if [ -z "$session_budget" ] && [ -n "${WARPLENS_AREA_BUDGET_S:-}" ]; then
    session_budget=$(( WARPLENS_AREA_BUDGET_S - (s0 - t0) - 15 ))
    [ "$session_budget" -lt 30 ] && session_budget=30
  fi
  timeout --kill-after=10 "${session_budget:-280}" python3 "$root/tests/mcp/session.py" \
    --warplens "$build/bin/warplens" --workspace "$work/session" --cases "$root/tests/gpu/verifier_cases" \
    --real-gpu --transcript "$res/h200-session.json" >"$res/session.log" 2>&1
  rc=$?
  summary "session: exit $rc in $(( $(date +%s) - s0 )) s"
  grep -E '^(ok|FAIL) ' "$res/session.log" | tee -a "$res/summary.txt"
  tail -n 1 "$res/session.log" | tee -a "$res/summary.txt"
else
  summary "session: NOT RUN (mcp_make_workspace missing or failed)"
fi
summary "total: $(( $(date +%s) - t0 )) s; all steps passed: $([ $rc -eq 0 ] && echo yes || echo no)"
cp "$res/summary.txt" "$OUT/mcp-summary.txt"
tar czf "$OUT/mcp-h200.tar.gz" -C "$work" mcp-h200
rm -rf "$work"
exit $rc

#!/usr/bin/env bash
# GPU smoke test of the optimize engine: verify one committed candidate
# directory end to end (build, check on 5 input sets, time) and require a
# verified winner. Exit 77 (skipped) without a GPU.
set -uo pipefail
bin=$1 dir=$2
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q GPU; then
  echo "no GPU: skipped"
  exit 77
fi
out=$(mktemp -d)
"$bin" --verify-dir "$dir" --json --report "$out" > "$out/summary.stdout"
rc=$?
cat "$out/summary.stdout"
if [ $rc -ne 0 ]; then
  echo "FAIL: warplens-optimize exited $rc" >&2
  exit 1
fi
python3 - "$out/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
p = s["programs"][0]
assert p["verified_faster"] >= 1, p
assert p["best_speedup"] > 1.05, p
print("ok:", p["name"], "%.2fx" % p["best_speedup"], p["best_plan"])
PY

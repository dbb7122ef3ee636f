#!/usr/bin/env bash
# Issue 15's held-out set: the built-in engine's candidates for naive kernels
# it was not written for (karpathy/llm.c dev/cuda/*.cu, kernel 1 of each,
# listed in tests/gpu/heldout/programs.tsv). Needs the Clang build, no GPU.
#
# llm.c's code may be read and run but not committed here, so everything
# this writes lies under the git-ignored .gpu/heldout/ (it travels to the GPU
# machine in the device call's carry list, [".gpu/heldout"]):
#   .gpu/heldout/src/                the table's sources and common.h, copied
#                                    from a checkout or a bare git directory
#   .gpu/heldout/candidates/NAME/    `warplens optimize --candidates-only`
#                                    (original.cu, cNN.cu, manifest.json)
#   .gpu/heldout/candidates/NAME.log what optimize printed (stderr included)
#   .gpu/heldout/candidates.md       per program: candidates, plans, refusals
# tests/gpu/run_heldout_h200.sh then captures each program's launches on the
# H200 and verifies these candidates on them.
#
#   usage: tests/gpu/generate_heldout_candidates.sh [BUILD_DIR] [MAX_CANDIDATES]
# Environment:
#   HELDOUT_SOURCE  llm.c: a bare git directory or a checkout (default: the
#                   mirror /work/.mirror/karpathy+llm.c/repo)
#   HELDOUT_REV     the commit read from a git directory (default: the one
#                   the table was written against)
#   HELDOUT_SUBDIR  the sources' directory in it (default dev/cuda)
#   HELDOUT_EXTRA   further files copied beside them (default common.h)
#   HELDOUT_DIR     where to write (default .gpu/heldout)
#   PROGRAM_TABLE   the table (default tests/gpu/heldout/programs.tsv)
#   HELDOUT_ARCH    the architecture parsed for (default sm_90, the H200's)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
max=${2:-6}
# warplens-optimize (the engine alone) when it is there and not older than
# warplens: a partial build (`--target warplens`) leaves it stale, and
# candidates from a stale engine would be recorded as this tree's.
bin=$build/bin/warplens-optimize
if [ ! -x "$bin" ] || { [ -x "$build/bin/warplens" ] && [ "$build/bin/warplens" -nt "$bin" ]; }; then
  bin=$build/bin/warplens
fi
echo "engine: $bin" >&2
sub=()
[ "$(basename "$bin")" = warplens ] && sub=(optimize)
source_dir=${HELDOUT_SOURCE:-/work/.mirror/karpathy+llm.c/repo}
rev=${HELDOUT_REV:-f1e2ace651495b74ae22d45d1723443fd00ecd3a}
subdir=${HELDOUT_SUBDIR:-dev/cuda}
extra=${HELDOUT_EXTRA-common.h}
dir=${HELDOUT_DIR:-$root/.gpu/heldout}
table=${PROGRAM_TABLE:-$root/tests/gpu/heldout/programs.tsv}
arch=${HELDOUT_ARCH:-sm_90}
src=$dir/src
out=$dir/candidates
mkdir -p "$src" "$out"

# 1. the sources, exactly as upstream has them (no edits: the point is code
# the engine was not written for)
fetch() {  # fetch FILE: copy $subdir/FILE into $src
  if git -C "$source_dir" rev-parse --git-dir >/dev/null 2>&1 && [ ! -f "$source_dir/$subdir/$1" ]; then
    git -C "$source_dir" show "$rev:$subdir/$1" >"$src/$1"
  else
    cp "$source_dir/$subdir/$1" "$src/$1"
  fi
}
names=() kernels=()
while IFS=$'\t' read -r name source kernel _rest; do
  case "$name" in ''|'#'*) continue ;; esac
  names+=("$name") kernels+=("$kernel")
  fetch "$source"
done <"$table"
for f in $extra; do fetch "$f"; done
{
  echo "source: ${source_dir} ${subdir} at ${rev}"
  echo "copied: $(date -u +%FT%TZ)"
} >"$src/SOURCE.txt"
# How each program is built (the table's nvcc flags, as run_capture_h200.sh
# builds it), as a compile database: the front end parses each file the way
# nvcc compiles it (OpenMP's <omp.h> with -Xcompiler -fopenmp, for one).
python3 - "$table" "$src" "$arch" >"$src/compile_commands.json" <<'PY'
import json, os, shlex, sys
table, src, arch = sys.argv[1:]
entries = []
for line in open(table):
    if not line.strip() or line.startswith("#"):
        continue
    f = line.rstrip("\n").split("\t")
    flags = [] if f[5] == "-" else [a for a in shlex.split(f[5]) if not a.startswith("-l")]
    entries.append({"directory": src, "file": os.path.join(src, f[1]),
                    "arguments": ["nvcc", "-O3", "-arch=" + arch] + flags + ["-c", f[1]]})
json.dump(entries, sys.stdout, indent=1)
PY
echo "sources in $src ($(du -sh "$src" | cut -f1))" >&2

# 2. the candidates, one program at a time. A program the engine refuses
# entirely (exit 1: no rewrite applies) still gets its manifest with the
# reasons; a front-end failure (exit 2) is recorded and the others go on.
for i in "${!names[@]}"; do
  name=${names[$i]} kernel=${kernels[$i]}
  file=$(awk -F'\t' -v n="$name" '$1 == n {print $2}' "$table")
  rm -rf "${out:?}/$name"
  rc=0
  "$bin" "${sub[@]}" "$src/$file" --kernel "$kernel" --candidates-only --out "$out/$name" --name "$name" \
    --max-candidates "$max" --arch "$arch" -I "$src" >"$out/$name.log" 2>&1 || rc=$?
  echo "$name: exit $rc" >&2
  echo "$rc" >"$out/$name.exit"
done

# 3. the table the issue asks for: per program what it got and why not more
python3 - "$table" "$out" >"$dir/candidates.md" <<'PY'
import json, os, sys
table, out = sys.argv[1:]
rows = []
for line in open(table):
    if not line.strip() or line.startswith("#"):
        continue
    f = line.rstrip("\n").split("\t")
    rows.append((f[0], f[2], f[8] != "-"))
print("| program | kernel | exit | candidates | plans (in the order the verifier takes them) | refused rewrites |")
print("|---|---|---|---|---|---|")
details = []
for name, kernel, on_gpu in rows:
    d = os.path.join(out, name)
    rc = open(os.path.join(out, name + ".exit")).read().strip() if os.path.exists(os.path.join(out, name + ".exit")) else "?"
    try:
        m = json.load(open(os.path.join(d, "manifest.json")))
    except Exception:
        log = open(os.path.join(out, name + ".log"), errors="replace").read().strip().splitlines()
        err = " / ".join(l for l in log if "error" in l.lower())[:300] or (log[-1] if log else "no output")
        print("| %s | %s | %s | 0 | - | no manifest: %s |" % (name, kernel, rc, err.replace("|", "/")))
        continue
    cands = m.get("candidates", [])
    plans = ["%s x%.2f: %s" % (c["id"], c.get("predicted_gain", 0),
                                " + ".join(p["rewrite"] + ("(" + ", ".join("%s=%s" % kv for kv in p["params"].items()) + ")" if p.get("params") else "")
                                           for p in c.get("plan", []))) for c in cands]
    refused = m.get("refused", [])
    print("| %s%s | %s | %s | %d | %s | %d |" % (name, "" if on_gpu else " (candidates only)", kernel, rc, len(cands),
                                              "<br>".join(plans).replace("|", "/") or "-", len(refused)))
    details.append((name, refused))
print()
for name, refused in details:
    print("### %s: why the other rewrites did not apply" % name)
    print()
    for r in refused:
        print("- `%s`: %s" % (r["rewrite"], r["reason"].replace("\n", " ")))
    print()
PY
echo "table in $dir/candidates.md" >&2

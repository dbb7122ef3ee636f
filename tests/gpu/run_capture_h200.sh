#!/usr/bin/env bash
# The capture path, end to end on the H200 (issue 13): plain programs
# (examples/programs/: allocate, fill, launch, print a checksum; no harness)
# are built, their kernels' launches captured from a normal run, and the
# candidates the Clang machine wrote for them (tests/gpu/capture_candidates/,
# tests/gpu/generate_capture_candidates.sh) verified by replaying those
# launches with the no-Clang `warplens-optimize --verify-dir DIR --capture
# CAPTURE` (the split-machine path). Per program it records the best verified
# speedup, plan, level, candidates tried and seconds per candidate, next to
# the self-checking path's recorded figure (tests/fixtures/optimize/h200-run6/, the same engine).
#
#   OUT=/some/dir tests/gpu/run_capture_h200.sh
#
# Other programs (issue 15's held-out set, tests/gpu/run_heldout_h200.sh):
#   PROGRAM_TABLE=FILE SRC_ROOT=DIR CANDIDATES_ROOT=DIR OUT=... run_capture_h200.sh
# reads the programs from FILE instead of the ten examples: a tab-separated
# table (format in tests/gpu/heldout/programs.tsv) of source under SRC_ROOT,
# kernel, captured kernels and launches, nvcc flags, arguments, the seconds
# the program may run under capture, expected seconds and a regex for the
# times the program prints itself; the candidates are CANDIDATES_ROOT/NAME
# (written on the Clang machine). Programs built with -arch=$NVCC_ARCH
# (default native), captures capped at CAPTURE_MAX_BYTES (default 8 GiB);
# RESULTS_STEM (default capture) names the two files in $OUT.
#
# Environment:
#   PROGRAMS="a b"     only these programs (default: all in the table)
#   MAX_CANDIDATES=N   the N best-predicted candidates of each (default 6)
#   SIZES=full         the programs' own sizes (the examples'; captures up to
#                      2.5 GB); default: sizes whose captures stay <= 640 MB
#   TORCH_TIMES=F      {"name": {"eager_ms", "compiled_ms"}} for level 3
#                      (tests/gpu/optimize_torch_baselines.py; sizes must match)
#   WARPLENS_CAPTURE_BUDGET_S  seconds for this call (default 540): a program
#                      is started only when the time it is expected to take is
#                      left; the ones left over are listed with the command
#                      that runs them (a second call on the warm machine reuses
#                      the build).
#   WARPLENS_BUILD_DIR (default build-h200, shared with the other GPU scripts)
#
# $OUT receives two files (the device returns at most 8):
#   capture-summary.txt    the table (also printed last; RESULTS_STEM-summary.txt)
#   capture-results.tgz    capture-results/ (RESULTS_STEM-results.tgz): summary.json (per program: the
#                          optimize summary row, sizes, capture bytes and
#                          seconds, the self-checking figure, the ratio),
#                          per program the capture manifest, the optimize
#                          report (JSON), the verify log's tail; install it as
#                          tests/fixtures/optimize/h200-capture/ with
#                          tests/gpu/install_capture_fixtures.sh
# Programs, captures (hundreds of MB) and work directories stay outside $OUT.
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
: "${OUT:?set OUT to a directory for the results}"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
start=$(date +%s)
budget=${WARPLENS_CAPTURE_BUDGET_S:-540}
build=${WARPLENS_BUILD_DIR:-$root/build-h200}
max=${MAX_CANDIDATES:-6}
jobs=$(nproc)
work=${WARPLENS_CAPTURE_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/warplens-capture-XXXXXX")}
R=$work/capture-results
G=$work/gpu
mkdir -p "$R/programs" "$G"
export PATH=$PATH:/usr/local/cuda/bin
elapsed() { echo $(($(date +%s) - start)); }
log() { echo "[run_capture_h200 $(elapsed)s] $*" | tee -a "$R/steps.log" >&2; }

# name | kernel | capture regex (kernels replayed) | budget-size args | expected seconds
# (for 6 candidates; estimates, not measured). The programs whose best
# candidates need the launch changes the capture verifier did not replay
# before issue 13 (warp-per-row, swapped mapping, fusion) come first, so a
# call cut short by its budget still shows those.
# The regex holds the fused candidates' producers too (elementwise_chain:
# `mul` then `bias_relu`), each kernel keeping its own first launches.
table=(
  "matvec_row_per_thread|matvec_rows|matvec_rows|8192 4096|50"
  "matmul_naive_colx|matmul_naive_colx|matmul_naive_colx|2048 2048 2048|50"
  "elementwise_chain|bias_relu|mul,bias_relu|16777216|70"
  "matmul_naive_rowx|matmul_naive_rowx|matmul_naive_rowx|2048 2048 2048|70"
  "transpose_naive|transpose_naive|transpose_naive|4096 4096|60"
  "strided_copy|scale_copy_chunked|scale_copy_chunked|16777216|50"
  "bank_conflict_tile|transpose_tiled|transpose_tiled|4096 4096|50"
  "interleaved_reduction|reduce_interleaved|reduce_interleaved|33554432|50"
  "aos_update|update_particles|update_particles|4194304|50"
  "register_heavy|invert4x4|invert4x4|1048576|50"
)
# Every row, built in or from PROGRAM_TABLE, as one normalised entry of
# tab-separated fields (a regex may hold `|`): name, source, candidates dir,
# captured kernels, launches per kernel, nvcc flags, args, capture timeout
# (0: none), expected seconds, own-time regex, extra verify options
stem=${RESULTS_STEM:-capture}
arch=${NVCC_ARCH:-native}
max_bytes=${CAPTURE_MAX_BYTES:-8589934592}
rows=()
skipped_rows=()
if [ -n "${PROGRAM_TABLE:-}" ]; then
  : "${SRC_ROOT:?PROGRAM_TABLE needs SRC_ROOT, the root of the sources}"
  : "${CANDIDATES_ROOT:?PROGRAM_TABLE needs CANDIDATES_ROOT (the candidates, one directory per program)}"
  src_root=$(cd "$SRC_ROOT" && pwd) cand_root=$(cd "$CANDIDATES_ROOT" && pwd)
  dash() { [ "$1" = - ] && echo "" || echo "$1"; }  # (only for expect)
  while IFS=$'\t' read -r name source kernel kernels launches flags args tmo expect own vopts _note; do
    case "$name" in ''|'#'*) continue ;; esac
    if [ "$(dash "$expect")" = "" ]; then skipped_rows+=("$name"); continue; fi
    rows+=("$name"$'\t'"$src_root/$source"$'\t'"$cand_root/$name"$'\t'"$kernels"$'\t'"$launches"$'\t'"$flags"$'\t'"$args"$'\t'"$tmo"$'\t'"$expect"$'\t'"$own"$'\t'"${vopts:--}")
  done <"$PROGRAM_TABLE"
else
  for entry in "${table[@]}"; do
    IFS='|' read -r name _kernel kernels small expect <<< "$entry"
    args=$small
    [ "${SIZES:-}" = full ] && args=""
    rows+=("$name"$'\t'"$root/examples/programs/$name.cu"$'\t'"$root/tests/gpu/capture_candidates/$name"$'\t'"$kernels"$'\t'3$'\t'-$'\t'"${args:--}"$'\t'0$'\t'"$expect"$'\t'-$'\t'-)
  done
fi
wanted=" ${PROGRAMS:-} "
regex_of() {  # "a,b" -> the anchored alternation workflows/kernel_capture.cpp uses
  local out="" k
  IFS=, read -ra ks <<< "$1"
  for k in "${ks[@]}"; do out+="${out:+|}(^|[ :])${k}[<(]|^${k}\$"; done
  echo "$out"
}

# A PROGRAM_TABLE's programs (llm.c's include cuBLAS headers: ~15 s of nvcc
# each) are built in the background while warplens builds; the loop waits
# for each. The examples keep being built in the loop, one at a time.
declare -A nvcc_pid=()
build_program() {  # build_program NAME SOURCE FLAGS
  # shellcheck disable=SC2086
  nvcc -O3 -arch="$arch" -lineinfo -o "$G/$1" "$2" $3 >"$G/$1.nvcc.log" 2>&1
}
if [ -n "${PROGRAM_TABLE:-}" ]; then
  for entry in "${rows[@]}"; do
    IFS=$'\t' read -r name source _cands _kernels _per flags _rest <<< "$entry"
    [ "$flags" = - ] && flags=""
    [ -n "${PROGRAMS:-}" ] && [[ "$wanted" != *" $name "* ]] && continue
    build_program "$name" "$source" "$flags" &
    nvcc_pid[$name]=$!
  done
fi

# --- build (no Clang: the GPU machine has no LLVM) ----------------------------
log "configure and build in $build"
targets="warplens-optimize warplens-verify-cli warplens-replay warplens_inject"
# shellcheck disable=SC2086
if ! { timeout 120 cmake -S "$root" -B "$build" -G Ninja -DWARPLENS_WITH_CLANG=OFF -DCMAKE_BUILD_TYPE=Release \
         >"$R/configure.log" 2>&1 &&
       timeout $(( budget - $(elapsed) - 60 > 30 ? budget - $(elapsed) - 60 : 30 )) cmake --build "$build" -j "$jobs" --target $targets >"$R/build.log" 2>&1; }; then
  log "BUILD FAILED"
  tail -30 "$R/configure.log" "$R/build.log" | tee "$OUT/$stem-summary.txt"
  (cd "$work" && tar czf "$OUT/$stem-results.tgz" capture-results)
  exit 1
fi
bin=$build/bin
inject=$(find "$build" -name 'libwarplens_inject.so' | head -1)
export WARPLENS_INJECT_LIB=$inject WARPLENS_REPLAY=$bin/warplens-replay
log "built in $(elapsed) s"
nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader >"$R/gpu.txt" 2>&1
# The roofline for memory-bound winners: device-to-device copy bandwidth
# (read + write bytes), measured on this card in this run.
copy_gbs=""
if nvcc -O3 -arch="$arch" -o "$G/optimize_bandwidth" "$root/tests/gpu/optimize_bandwidth.cu" >"$R/bandwidth.log" 2>&1 &&
   "$G/optimize_bandwidth" >>"$R/bandwidth.log" 2>&1; then
  copy_gbs=$(awk '/^bandwidth_gbs/ {print $2}' "$R/bandwidth.log" | tail -1)
fi

torch_args=()
[ -n "${TORCH_TIMES:-}" ] && torch_args=(--pytorch-times "$TORCH_TIMES")
left_over=()
done_n=0 done_s=0
for entry in "${rows[@]}"; do
  IFS=$'\t' read -r name source cands kernels per_kernel flags args cap_timeout expect own_re vopts <<< "$entry"
  # (empty fields travel as `-`: read folds adjacent tabs, tabs being whitespace)
  [ "$flags" = - ] && flags="" ; [ "$args" = - ] && args="" ; [ "$own_re" = - ] && own_re=""
  [ "$vopts" = - ] && vopts=""
  [ -n "${PROGRAMS:-}" ] && [[ "$wanted" != *" $name "* ]] && continue
  expect=$(( expect * max / 6 ))  # the table's figures are for 6 candidates
  # Once programs have run, the governor trusts what they took (their mean,
  # plus a quarter) over the table's estimate.
  if [ "$done_n" -gt 0 ]; then expect=$(( done_s * 5 / (4 * done_n) )); fi
  if [ $(( $(elapsed) + expect )) -gt "$budget" ]; then
    left_over+=("$name")
    continue
  fi
  P=$R/programs/$name
  mkdir -p "$P"
  t_prog=$(date +%s)
  # 1. the user's program, built as a user would (lineinfo for the reports)
  if [ -n "${nvcc_pid[$name]:-}" ]; then wait "${nvcc_pid[$name]}"; else build_program "$name" "$source" "$flags"; fi
  nvcc_rc=$?
  cp "$G/$name.nvcc.log" "$P/nvcc.log" 2>/dev/null
  if [ "$nvcc_rc" -ne 0 ]; then
    echo "{\"name\": \"$name\", \"error\": \"the program does not build\"}" >"$P/row.json"
    continue
  fi
  # 2. its launches, captured from an ordinary run
  n_kernels=$(awk -F, '{print NF}' <<< "$kernels")
  t_cap=$(date +%s)
  # A program that goes on long after its launches are captured (a
  # benchmark loop) is stopped after its table's seconds; the capture keeps
  # what it took (the manifest is rewritten after every launch).
  cap_opts=() outer=120
  if [ "$cap_timeout" -gt 0 ]; then cap_opts=(--timeout "$cap_timeout" --max-bytes "$max_bytes"); outer=$((cap_timeout + 60)); fi
  # shellcheck disable=SC2086
  timeout "$outer" "$bin/warplens-verify-cli" capture --kernel "$(regex_of "$kernels")" --launches $((per_kernel * n_kernels)) \
    --launches-per-kernel "$per_kernel" "${cap_opts[@]}" --out "$G/$name.capture" -- "$G/$name" $args >"$P/capture.log" 2>&1
  cap_rc=$?
  cap_s=$(( $(date +%s) - t_cap ))
  cp "$G/$name.capture/manifest.json" "$P/manifest.json" 2>/dev/null
  tail -c 20000 "$G/$name.capture/program.out" >"$P/program.out" 2>/dev/null
  # 3. the Clang machine's candidates, replayed on those launches
  # SIGINT at the budget: warplens-optimize stops after the candidate in
  # hand and still writes its summary of the ones verified.
  # shellcheck disable=SC2086
  timeout -s INT --kill-after=30 $(( budget - $(elapsed) - 40 > 30 ? budget - $(elapsed) - 40 : 30 )) \
    "$bin/warplens-optimize" --verify-dir "$cands" --capture "$G/$name.capture" \
    --max-candidates "$max" --report "$P/report" --json "${torch_args[@]}" $vopts >"$P/summary.json" 2>"$P/verify.log"
  opt_rc=$?
  tail -c 60000 "$P/verify.log" >"$P/verify.log.tail" && mv "$P/verify.log.tail" "$P/verify.log"
  rm -f "$P/report/$name.md"  # the JSON report holds the same
  python3 - "$P" "$name" "$args" "$cap_rc" "$cap_s" "$opt_rc" "$(( $(date +%s) - t_prog ))" "$own_re" <<'PY'
import json, os, re, sys
P, name, args, cap_rc, cap_s, opt_rc, secs, own_re = sys.argv[1:]
def name_of_kernel(mangled):
    k = kernel_table.get(name, "")
    return bool(k) and re.search(r"(^|[^0-9])%d%s|(^|[ :])%s[<(]|^%s$" % (len(k), re.escape(k), re.escape(k), re.escape(k)), mangled)
kernel_table = {}
try:
    for line in open(os.environ.get("PROGRAM_TABLE", "/dev/null")):
        f = line.rstrip("\n").split("\t")
        if len(f) > 2 and not line.startswith("#"):
            kernel_table[f[0]] = f[2]
except OSError:
    pass
row = {"name": name, "args": args, "capture_exit": int(cap_rc), "capture_seconds": int(cap_s),
       "optimize_exit": int(opt_rc), "seconds": int(secs)}
try:
    m = json.load(open(os.path.join(P, "manifest.json")))
    row["capture_bytes"] = m.get("total_bytes", 0)
    row["captured_launches"] = [l["kernel"] for l in m.get("launches", [])]
    row["captured_blocks"] = [l.get("block") for l in m.get("launches", [])]
    row["refusals"] = [r["reason"] for r in m.get("refusals", [])]
    row["program_completed"] = bool(m.get("complete"))
    # The bytes the optimised kernel's launch can move at least: its
    # argument allocations, each read or written once (the last captured
    # launch of that kernel). Over the best time this is the achieved
    # bandwidth the summary sets against the measured copy bandwidth.
    last = [l for l in m.get("launches", []) if name_of_kernel(l.get("kernel", ""))]
    if last:
        row["launch_bytes"] = sum(a.get("bytes", 0) for a in last[-1].get("allocations", []))
except Exception as e:
    row["capture_error"] = str(e)
try:
    s = json.load(open(os.path.join(P, "summary.json")))
    row.update(s["programs"][0])
except Exception as e:
    row["error"] = row.get("error") or "no optimize summary: %s" % e
# The times the program printed for the original (its own benchmark, e.g.
# one per block size): the fastest is a fairer baseline than the captured
# launch, which is whatever configuration the program launched first.
if own_re:
    try:
        own = [float(t) for t in re.findall(own_re, open(os.path.join(P, "program.out"), errors="replace").read())]
        if own:
            row["own_times_ms"] = own
            row["own_best_ms"] = min(own)
            # only a whole sweep gives its fastest configuration
            if row.get("best_ms") and row.get("program_completed"):
                row["speedup_vs_own_best"] = min(own) / row["best_ms"]
    except OSError:
        pass
json.dump(row, open(os.path.join(P, "row.json"), "w"), indent=1)
PY
  done_n=$((done_n + 1)) done_s=$((done_s + $(date +%s) - t_prog))
  log "$name: capture exit $cap_rc (${cap_s} s), optimize exit $opt_rc, $(( $(date +%s) - t_prog )) s"
done

# --- the table, next to the self-checking path's recorded figures -------------
# (the examples'; a PROGRAM_TABLE run has none and shows, where the program
# printed its own times, the speedup over its fastest own configuration)
selfcheck_json=$root/tests/fixtures/optimize/h200-run6/summary.json
[ -n "${PROGRAM_TABLE:-}" ] && selfcheck_json=""
python3 - "$R" "$selfcheck_json" "${left_over[*]:-}" "$max" "${#rows[@]}" "${GEOMEAN_GOAL:-3.5}" \
  "${skipped_rows[*]:-}" "$copy_gbs" >"$R/summary.txt" <<'PY'
import json, math, os, sys
R, selfcheck_path, left_over, max_c, n_table, goal, skipped, copy_gbs = sys.argv[1:]
n_table, goal = int(n_table), float(goal)
copy_gbs = float(copy_gbs) if copy_gbs else None
selfcheck = {}
if selfcheck_path:
    try:
        for p in json.load(open(selfcheck_path))["programs"]:
            selfcheck[p["name"]] = p
    except Exception as e:
        print("self-checking figures unreadable:", e)
rows = []
for name in sorted(os.listdir(os.path.join(R, "programs"))):
    try:
        rows.append(json.load(open(os.path.join(R, "programs", name, "row.json"))))
    except Exception as e:
        rows.append({"name": name, "error": "no result: %s" % e})
if selfcheck_path:
    print("| program | sizes | capture MB | best speedup | self-check | ratio | level | candidates | s/candidate | plan |")
    print("|---|---|---|---|---|---|---|---|---|---|")
else:
    print("| program | capture MB | captured block | original ms | best ms | best speedup | best GB/s | % of copy | own best ms | vs own best | level | candidates | s/candidate | plan |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
logs, ok_ratio, counted = 0.0, 0, 0
own_logs, own_counted = 0.0, 0
f = lambda v, fmt: fmt % v if v else "-"
for r in rows:
    sc = selfcheck.get(r["name"], {}).get("best_speedup")
    sp = r.get("best_speedup")
    ratio = sp / sc if sp and sc else None
    if sp:
        logs += math.log(sp); counted += 1
    if r.get("speedup_vs_own_best"):
        own_logs += math.log(r["speedup_vs_own_best"]); own_counted += 1
    if ratio is not None and ratio >= 0.9: ok_ratio += 1
    per = r.get("median_verify_seconds")
    r["self_check_speedup"] = sc
    r["ratio_to_self_check"] = ratio
    err = (" ERROR: " + r["error"][:120].replace("|", "/").replace("\n", " ")) if r.get("error") else ""
    mb = "%.0f" % (r.get("capture_bytes", 0) / 2**20) if r.get("capture_bytes") else "-"
    if selfcheck_path:
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s%s |" % (
            r["name"], r.get("args") or "full", mb, f(sp, "%.2fx"), f(sc, "%.2fx"),
            "%.2f" % ratio if ratio is not None else "-",
            r.get("best_level", "-"), r.get("candidates", "-"), f(per, "%.1f"), r.get("best_plan", "-"), err))
    else:
        blk = (r.get("captured_blocks") or [None])[0]
        blk_s = "x".join(str(b) for b in blk[:2]) if blk else "-"
        gbs = r["launch_bytes"] / (r["best_ms"] * 1e6) if r.get("launch_bytes") and r.get("best_ms") else None
        r["best_gbs"] = gbs
        r["share_of_copy"] = gbs / copy_gbs if gbs and copy_gbs else None
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s%s |" % (
            r["name"], mb, blk_s,
            f(r.get("original_ms"), "%.4f"), f(r.get("best_ms"), "%.4f"), f(sp, "%.2fx"),
            f(gbs, "%.0f"), f(r["share_of_copy"] and 100 * r["share_of_copy"], "%.0f%%"),
            f(r.get("own_best_ms"), "%.4f"), f(r.get("speedup_vs_own_best"), "%.2fx"),
            r.get("best_level", "-"), r.get("candidates", "-"), f(per, "%.1f"), r.get("best_plan", "-"), err))
geo = math.exp(logs / counted) if counted else 0
print()
print("geomean over the originals (capture path): %.2fx over %d program(s) (goal >= %gx: %s)" % (
    geo, counted, goal, ("met" if geo >= goal else "not met") if counted == n_table else "partial run"))
own_geo = math.exp(own_logs / own_counted) if own_counted else 0
if not selfcheck_path:
    print("geomean over the programs' own fastest configuration: %.2fx over %d program(s) "
          "(where the program printed its own times)" % (own_geo, own_counted))
else:
    print("programs at >= 0.9x the self-checking path's speedup: %d of %d" % (ok_ratio, len(rows)))
if copy_gbs:
    print("device-to-device copy bandwidth on this card: %.0f GB/s (read + write); best GB/s counts the "
          "optimised launch's argument allocations once each over the best time" % copy_gbs)
if skipped:
    print("candidates only, not run on the GPU (the table's expect is -): %s" % skipped)
if left_over:
    print("NOT RUN (time budget of this call): %s -> run again with PROGRAMS=\"%s\"" % (left_over, left_over))
json.dump({"format": "warplens-capture-run/1", "max_candidates": int(max_c), "geomean_speedup": geo,
           "copy_bandwidth_gbs": copy_gbs,
           "geomean_vs_own_best": own_geo if not selfcheck_path else None,
           "programs": rows, "not_run": left_over.split(), "candidates_only": skipped.split()},
          open(os.path.join(R, "summary.json"), "w"), indent=1)
PY
cat "$R/gpu.txt" "$R/summary.txt" >"$OUT/$stem-summary.txt"
echo "total $(elapsed) s" >>"$OUT/$stem-summary.txt"
(cd "$work" && find capture-results -type f -size -4096k -print0 | tar czf "$OUT/$stem-results.tgz" --null -T -)
cat "$OUT/$stem-summary.txt"
[ -z "${WARPLENS_CAPTURE_WORK:-}" ] && rm -rf "$work"
exit 0

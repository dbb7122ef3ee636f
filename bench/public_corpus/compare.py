#!/usr/bin/env python3
"""Compare warplens' static findings on cuda-samples with per-line truth:
hardware counters (`warplens profile --format tsv` profiles of the samples,
tests/gpu/public_corpus_profile.sh) or, until those are recorded, labelled
expectations (clearly not measured).

Truth per (file, line, access kind):
  measured: sum of actual / sum of ideal over every profile row of the line
            (global_load/global_store: sectors, shared_load/shared_store:
            wavefronts); bad when >= 1.25 (the issue's definition, both codes);
  expected: the `verdict` column of the labels (bad / clean).
Static: a line is reported when check_corpus.py --findings-tsv lists a
finding of the code at that line and access kind (warnings and information
alike; --warnings-only counts warnings only).

Precision = reported and bad / reported, recall = reported and bad / bad,
both over the lines that have a truth (measured or labelled) only.

Line-table artefacts (--reach FILE, check_corpus.py --reach-tsv): the
compiler's line table sometimes puts a kernel's memory instructions at a line
with no access of that memory space in the source, often in another function
(shfl_scan's `shfl_vertical_shfl` has its shared loads at a line of an
unrelated helper and at the toolkit's `__shfl_up_sync`). No line-by-line tool
can match such a row. With --reach, a measured row at a line where the model
has no access of that space and kind is not judged by its line: the rows of a
kernel put at such lines are pooled per (kernel, code, access) into one
entry, bad by the same rule on the pooled counts, and reported when the
analysis has a finding of that code and access on a line of a function the
kernel reaches that has no measured row of its own (where the instructions
came from). The pooled entries are listed, so nothing is hidden.

usage: compare.py --static FINDINGS.tsv (--measured DIR [--reach REACH.tsv] | --expected LABELS.tsv)
                  [--warnings-only] [--require|--goal PRECISION RECALL]
                  [--expect CODE=TP/FP/FN ...]
exit: 0 ok, 1 counts differ from --expect, 3 counts as --expect (or none
given) but some code below --require, 77 no profiles in DIR. With --require a
line per code says whether the goal is met, so a caller can tell "below the
goal" (3) from a regression or an error (1 or other).
"""
import argparse
import collections
import glob
import os
import sys

CODES = ("uncoalesced-global", "shared-bank-conflict")
BAD = 1.25
KIND = {"global_load": ("uncoalesced-global", "load"), "global_store": ("uncoalesced-global", "store"),
        "shared_load": ("shared-bank-conflict", "load"), "shared_store": ("shared-bank-conflict", "store")}


def norm(path):
    """A path relative to the cuda-samples root (`Samples/...`, `Common/...`)."""
    p = path.replace("\\", "/")
    for anchor in ("/Samples/", "/Common/"):
        i = p.rfind(anchor)
        if i >= 0:
            return p[i + 1:]
    for anchor in ("Samples/", "Common/"):
        if p.startswith(anchor):
            return p
    return os.path.basename(p)


def rows(path):
    with open(path, encoding="utf-8") as f:
        header = None
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            cells = line.split("\t")
            if header is None:
                header = cells
                continue
            yield dict(zip(header, cells))


SPACE_CODES = {"global": ("uncoalesced-global",), "shared": ("shared-bank-conflict",),
               "generic": CODES}  # a generic pointer may be either
KIND_ACCESSES = {"load": ("load",), "store": ("store",), "atomic": ("load", "store")}


def kernel_base(signature):
    """`void reduce7<int, 256u, true>(int const*, int*, unsigned int)` -> `reduce7`."""
    angle, paren, cut, open_at = 0, 0, len(signature), None
    for i, ch in enumerate(signature):
        if ch == "(" and angle == 0:
            cut = i
            break
        if ch == "(":
            paren += 1
        elif ch == ")":
            paren -= 1
        elif ch == "<" and paren == 0:
            if angle == 0:
                open_at = i
            angle += 1
        elif ch == ">" and paren == 0:
            angle -= 1
    name = signature[:cut].strip()
    if open_at is not None and open_at < cut:
        name = name[:open_at].strip()
    words = name.split()
    return words[-1].split("::")[-1] if words else name


def load_reach(path):
    """check_corpus.py --reach-tsv -> (source accesses as truth keys, kernel -> line ranges)."""
    accesses, reach = set(), collections.defaultdict(list)
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            cells = line.rstrip("\n").split("\t")
            if cells[0] == "access":
                _, file, lineno, space, kind, _function = cells
                for code in SPACE_CODES.get(space, ()):
                    for access in KIND_ACCESSES.get(kind, ()):
                        accesses.add((norm(file), int(lineno), code, access))
            elif cells[0] == "reach":
                _, kernel, file, first, last = cells
                reach[kernel].append((norm(file), int(first), int(last)))
    return accesses, reach


def measured_truth(directory, source_accesses=None):
    """Per-line truth; with source_accesses, rows at lines without such an
    access pooled per kernel (keys (f"<{kernel}>", 0, code, access))."""
    sums = collections.defaultdict(lambda: [0.0, 0.0])
    pooled_lines = collections.defaultdict(set)
    files = sorted(glob.glob(os.path.join(directory, "*.tsv")))
    for path in files:
        for r in rows(path):
            if r.get("kind") not in KIND:
                continue
            try:
                actual, ideal = float(r["actual"] or 0), float(r["ideal"] or 0)
            except (KeyError, ValueError):
                continue
            code, access = KIND[r["kind"]]
            key = (norm(r["file"]), int(r["line"]), code, access)
            if source_accesses is not None and key not in source_accesses:
                pooled_lines[(kernel_base(r.get("kernel", "")), code, access)].add(f"{key[0]}:{key[1]}")
                key = (f"<{kernel_base(r.get('kernel', ''))}>", 0, code, access)
            sums[key][0] += actual
            sums[key][1] += ideal
    truth = {}
    for key, (actual, ideal) in sums.items():
        if ideal > 0:
            note = f"{actual / ideal:.2f}x"
            if key[1] == 0:
                note += ", pooled from " + ", ".join(sorted(pooled_lines[(key[0][1:-1], key[2], key[3])]))
            truth[key] = (actual / ideal >= BAD - 1e-9, note)
    return files, truth


def credit_pooled(truth, reported, reach):
    """A pooled entry counts as reported when a finding of its code and access
    sits in a function its kernel reaches, on a line with no measured row."""
    for key in [k for k in truth if k[1] == 0]:
        kernel, code, access = key[0][1:-1], key[2], key[3]
        for (file, line, c, acc) in list(reported):
            if c != code or acc != access or (file, line, c, acc) in truth:
                continue
            if any(f == file and first <= line <= last for f, first, last in reach.get(kernel, ())):
                reported.add(key)
                break


def expected_truth(path):
    truth = {}
    for r in rows(path):
        key = (norm(r["file"]), int(r["line"]), r["code"], r["access"])
        truth[key] = (r["verdict"] == "bad", r.get("source", ""))
    return truth


def static_findings(path, warnings_only):
    out = set()
    for r in rows(path):
        if r["code"] not in CODES or (warnings_only and r["severity"] != "warning"):
            continue
        out.add((norm(r["file"]), int(r["line"]), r["code"], r["access"]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--static", required=True)
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--measured")
    src.add_argument("--expected")
    ap.add_argument("--reach", help="check_corpus.py --reach-tsv output: pool line-table artefacts per kernel")
    ap.add_argument("--warnings-only", action="store_true")
    ap.add_argument("--require", nargs=2, type=float, metavar=("PRECISION", "RECALL"))
    # --goal: the same check, reported only (the exit status ignores it), for
    # a test that pins the counts of a run that does not meet the goal.
    ap.add_argument("--goal", nargs=2, type=float, metavar=("PRECISION", "RECALL"))
    ap.add_argument("--expect", nargs="*", default=[], metavar="CODE=TP/FP/FN")
    a = ap.parse_args()
    if a.require and a.goal:
        ap.error("--require and --goal are exclusive")
    goal_of = a.require or a.goal

    if a.reach and not a.measured:
        ap.error("--reach needs --measured")
    source_accesses, reach = load_reach(a.reach) if a.reach else (None, {})
    reported = static_findings(a.static, a.warnings_only)
    if source_accesses is not None:
        # A finding sits on an access (one reached through a reference
        # parameter, like the bitonic Comparator's, is listed at the helper's
        # line by the findings only).
        source_accesses |= static_findings(a.static, False)
    if a.measured:
        files, truth = measured_truth(a.measured, source_accesses)
        if not files:
            print(f"no profiles in {a.measured}: nothing measured (skipped)")
            return 77
        what = f"measured ({len(files)} profiles, bad at >= {BAD}x ideal)"
    else:
        truth = expected_truth(a.expected)
        what = "EXPECTED, NOT MEASURED (labels from the issue and the samples' known behaviour)"
    if a.reach:
        credit_pooled(truth, reported, reach)

    print(f"cuda-samples static findings vs {what}; counting "
          f"{'warnings only' if a.warnings_only else 'warnings and information'}")
    print(f"{'code':22} {'lines':>5} {'bad':>4} {'TP':>4} {'FP':>4} {'FN':>4} {'precision':>10} {'recall':>7}")
    ok = True
    below_goal = []
    counts = {}
    details = []
    for code in CODES:
        keys = [k for k in truth if k[2] == code]
        tp = sum(1 for k in keys if truth[k][0] and k in reported)
        fp = sum(1 for k in keys if not truth[k][0] and k in reported)
        fn = sum(1 for k in keys if truth[k][0] and k not in reported)
        bad = sum(1 for k in keys if truth[k][0])
        precision = tp / (tp + fp) if tp + fp else 1.0
        recall = tp / (tp + fn) if tp + fn else 1.0
        counts[code] = (tp, fp, fn)
        print(f"{code:22} {len(keys):5} {bad:4} {tp:4} {fp:4} {fn:4} {precision:10.3f} {recall:7.3f}")
        if goal_of and (precision < goal_of[0] - 1e-9 or recall < goal_of[1] - 1e-9):
            below_goal.append(f"{code} (precision {precision:.3f}, recall {recall:.3f})")
        for k in sorted(keys):
            where = f"{k[0]} (line-table artefacts)" if k[1] == 0 else f"{k[0]}:{k[1]}"
            if truth[k][0] != (k in reported):
                tag = "MISSED" if truth[k][0] else "FALSE ALARM"
                details.append(f"  {tag:11} {where} {code}({k[3]}) [{truth[k][1]}]")
            elif k[1] == 0:
                tag = ("FOUND" if truth[k][0] else "CLEAN") + " (pooled)"
                details.append(f"  {tag:11} {where} {code}({k[3]}) [{truth[k][1]}]")
    for d in details:
        print(d)
    for e in a.expect:
        code, _, numbers = e.partition("=")
        want = tuple(int(x) for x in numbers.split("/"))
        if counts.get(code) != want:
            print(f"expected {code} TP/FP/FN = {numbers}, got {'/'.join(map(str, counts.get(code, ())))}")
            ok = False
    if goal_of:
        goal = f"precision >= {goal_of[0]:g}, recall >= {goal_of[1]:g}"
        if below_goal:
            print(f"goal ({goal}) NOT met: {', '.join(below_goal)}")
        else:
            print(f"goal ({goal}) met for every code")
    if not ok:
        return 1
    return 3 if below_goal and a.require else 0


if __name__ == "__main__":
    sys.exit(main())

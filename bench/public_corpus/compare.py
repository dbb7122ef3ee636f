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

usage: compare.py --static FINDINGS.tsv (--measured DIR | --expected LABELS.tsv)
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


def measured_truth(directory):
    sums = collections.defaultdict(lambda: [0.0, 0.0])
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
            sums[key][0] += actual
            sums[key][1] += ideal
    truth = {}
    for key, (actual, ideal) in sums.items():
        if ideal > 0:
            truth[key] = (actual / ideal >= BAD - 1e-9, f"{actual / ideal:.2f}x")
    return files, truth


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

    if a.measured:
        files, truth = measured_truth(a.measured)
        if not files:
            print(f"no profiles in {a.measured}: nothing measured (skipped)")
            return 77
        what = f"measured ({len(files)} profiles, bad at >= {BAD}x ideal)"
    else:
        truth = expected_truth(a.expected)
        what = "EXPECTED, NOT MEASURED (labels from the issue and the samples' known behaviour)"
    reported = static_findings(a.static, a.warnings_only)

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
            if truth[k][0] != (k in reported):
                tag = "MISSED" if truth[k][0] else "FALSE ALARM"
                details.append(f"  {tag:11} {k[0]}:{k[1]} {code}({k[3]}) [{truth[k][1]}]")
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

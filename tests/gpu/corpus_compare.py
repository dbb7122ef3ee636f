#!/usr/bin/env python3
"""Compare the corpus labels (tests/corpus/*.cu `// expect:` comments) with
hardware counters measured by `warplens profile` (warplens-profile/1 JSON).

Per source line and access kind, the measured verdicts are:
  uncoalesced-global(load|store)  sectors / sectors_ideal >= 1.25 (global_load / global_store)
  shared-bank-conflict(load|store) wavefronts / wavefronts_ideal >= 2 (shared_load / shared_store)
summed over every kernel whose instructions map to the line, the way the
labels are defined (tests/corpus/README.md). Prints the confusion of labels
against hardware per code, every disagreement with its measured ratio, and
the ratio/degree details the labels give. Standard library only.

usage: corpus_compare.py --corpus DIR PROFILE.json [PROFILE.json ...]
"""
import argparse
import collections
import json
import os
import re
import sys

CODES = ("uncoalesced-global", "shared-bank-conflict")
UNCOALESCED = 1.25
BANK = 2.0
LABEL_RE = re.compile(r"//\s*expect:(.*)$")


def parse_labels(path):
    """{(basename, line, code, kind): {"ratio":..., "degree":...}} for the two measured codes."""
    out = {}
    base = os.path.basename(path)
    with open(path, encoding="utf-8") as f:
        for number, text in enumerate(f, 1):
            m = LABEL_RE.search(text)
            if not m:
                continue
            for item in re.findall(r"[a-z-]+(?:\([^)]*\))?(?:@[a-z]+)?", m.group(1)):
                code = item.split("(")[0].split("@")[0]
                if code not in CODES:
                    continue
                args = []
                if "(" in item:
                    args = [a.strip() for a in item[item.index("(") + 1:item.rindex(")")].split(",")]
                kind = next((a for a in args if a in ("load", "store", "atomic")), "")
                detail = {}
                for a in args:
                    if a.endswith("-way"):
                        detail["degree"] = int(a[:-4])
                    elif a.endswith("x"):
                        detail["ratio"] = float(a[:-1])
                out[(base, number, code, kind)] = detail
    return out


def measured_lines(profiles):
    """{(basename, line, kind): [actual, ideal]} summed over kernels and profiles."""
    sums = collections.defaultdict(lambda: [0, 0])
    for p in profiles:
        with open(p, encoding="utf-8") as f:
            doc = json.load(f)
        if doc.get("schema") != "warplens-profile/1":
            sys.exit(f"{p}: schema {doc.get('schema')!r}, expected 'warplens-profile/1'")
        for w in doc.get("warnings", []):
            print(f"  {os.path.basename(p)}: warning {w.get('code')}: {w.get('message')}")
        for rec in doc.get("lines", []):
            kind = rec.get("kind")
            key = (os.path.basename(rec.get("file", "")), int(rec.get("line", 0)), kind)
            if kind in ("global_load", "global_store"):
                sums[key][0] += rec.get("sectors", 0)
                sums[key][1] += rec.get("sectors_ideal", 0)
            elif kind in ("shared_load", "shared_store"):
                sums[key][0] += rec.get("wavefronts", 0)
                sums[key][1] += rec.get("wavefronts_ideal", 0)
    return sums


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", required=True)
    ap.add_argument("profiles", nargs="+")
    args = ap.parse_args()

    labels = {}
    corpus_files = sorted(f for f in os.listdir(args.corpus) if f.endswith(".cu"))
    for name in corpus_files:
        labels.update(parse_labels(os.path.join(args.corpus, name)))
    sums = measured_lines(args.profiles)
    profiled = {key[0] for key in sums}

    measured = {}
    ratios = {}
    for (base, line, kind), (actual, ideal) in sums.items():
        if ideal <= 0 or base not in corpus_files:
            continue
        space, access = kind.split("_")
        code = "uncoalesced-global" if space == "global" else "shared-bank-conflict"
        ratio = actual / ideal
        ratios[(base, line, code, access)] = ratio
        if ratio >= (UNCOALESCED if space == "global" else BANK) - 1e-9:
            measured[(base, line, code, access)] = ratio

    confusion = {c: [0, 0, 0] for c in CODES}  # labelled&measured, labelled only, measured only
    disagreements = []
    for key, detail in sorted(labels.items()):
        if key[0] not in profiled:
            continue
        code = key[2]
        if key in measured:
            confusion[code][0] += 1
            if "ratio" in detail and abs(measured[key] - detail["ratio"]) > 0.05 * detail["ratio"]:
                disagreements.append(f"  detail {key[0]}:{key[1]} {code}({key[3]}): measured {measured[key]:.2f}, "
                                     f"label {detail['ratio']}")
            if "degree" in detail and abs(measured[key] - detail["degree"]) > 0.05 * detail["degree"]:
                disagreements.append(f"  detail {key[0]}:{key[1]} {code}({key[3]}): measured {measured[key]:.2f}-way "
                                     f"(per request over the line), label {detail['degree']}-way")
        else:
            confusion[code][1] += 1
            r = ratios.get(key)
            disagreements.append(f"  LABEL-ONLY {key[0]}:{key[1]} {code}({key[3]}): measured "
                                 f"{'%.3f' % r if r is not None else 'nothing (no such instruction)'}")
    for key, r in sorted(measured.items()):
        if key not in labels:
            confusion[key[2]][2] += 1
            disagreements.append(f"  HW-ONLY {key[0]}:{key[1]} {key[2]}({key[3]}): measured {r:.3f}, no label")

    print(f"\ncorpus vs hardware: {len(profiled & set(corpus_files))} of {len(corpus_files)} corpus files profiled")
    print(f"{'code':22} {'both':>5} {'label-only':>11} {'hw-only':>8} {'label precision':>16} {'label recall':>13}")
    ok = True
    for code, (both, label_only, hw_only) in confusion.items():
        precision = both / (both + label_only) if both + label_only else 1.0
        recall = both / (both + hw_only) if both + hw_only else 1.0
        ok = ok and precision >= 0.95 and recall >= 0.90
        print(f"{code:22} {both:5} {label_only:11} {hw_only:8} {precision:16.3f} {recall:13.3f}")
    for d in disagreements:
        print(d)
    print("labels agree with the hardware" if ok else "labels DISAGREE with the hardware (see above)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

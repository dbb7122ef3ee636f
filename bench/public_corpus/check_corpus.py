#!/usr/bin/env python3
"""Check every `.cu` file of a cuda-samples checkout with `warplens check`
and report parse health and findings.

For each file of the compile database (bench/public_corpus/compile_db.py
writes one; it is regenerated into --out when --db is not given):

  warplens check --format json -p DB --no-resource-usage FILE

Parse health: a file has front-end errors when any finding from the front
end (source "clang") is an error. With --nvcc-referee, every file with
front-end errors is also compiled by nvcc with the entry's own flags
(`-c -o /dev/null`); a file nvcc rejects too is not counted against the
front end (results are cached in OUT/nvcc_referee.json, keyed by the
command, because nvcc takes long).

Writes OUT/report.json (per file: time, front-end errors, finding counts),
OUT/summary.txt (also printed) and, with --findings-tsv, the static
findings of the memory analyses as `file line code severity access` rows
(file relative to the checkout, 1-based line) for
tests/unit/analysis/public_corpus_compare.py.

With --headers, the samples' own headers that define kernels (`__global__`
in a .cuh/.h/.hpp beside a checked .cu, never Common/) are checked too, each
as its own target: warplens parses a header in the context of the .cu that
includes it, as the editor does when the header is opened. A kernel defined
in a header is analysed only there (checking the .cu reports the header's
inlined device helpers, not its kernels), and the hardware attributes its
instructions to the header's lines. Headers are not counted in parse
health (the bar is over the .cu files); their findings go to the TSV.

With --explain BIN instead of --warplens, the files are analysed by the
development tool `corpus_explain --tsv FILE` (tests/corpus/corpus_explain.cpp:
the same analyze() call, with default options, without building the whole
server); the compile database is then the one found above each file, so pass
the checkout's own as --db.

With --reach-tsv FILE (needs --explain), every file is analysed a second
time by `corpus_explain --reach` and its rows are written to FILE: every
modelled access (`access file line space kind function`) and the lines of
each function a kernel reaches (`reach kernel file first last`), paths
relative to the checkout. compare.py --reach uses them to tell a profile row
at a source access from one the compiler's line table put elsewhere.

usage: check_corpus.py CHECKOUT (--warplens BIN | --explain BIN) --out DIR [--db DIR] [--jobs N]
                       [--only REGEX] [--nvcc-referee] [--findings-tsv FILE] [--headers]
                       [--reach-tsv FILE]
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SEVERITY = {1: "error", 2: "warning", 3: "information", 4: "hint"}
MEMORY_CODES = ("shared-bank-conflict", "uncoalesced-global")


SEVERITY_NUMBER = {"error": 1, "warning": 2, "info": 3, "information": 3, "hint": 4}


def explain_findings(text):
    """corpus_explain --tsv rows -> the findings `warplens check --format json` would give."""
    out = []
    for line in text.splitlines():
        cells = line.split("\t")
        if len(cells) < 7:
            # Not a row: a tool without --tsv, or broken output; never read as "no findings".
            raise ValueError(f"not a corpus_explain --tsv row: {line[:120]!r}")
        file, line_no, code, severity, source, access, message = cells[:7]
        out.append({"file": file, "range": {"start": {"line": int(line_no) - 1}}, "code": code,
                    "severity": SEVERITY_NUMBER.get(severity, 0), "source": source,
                    "data": {"access": access} if access else {}, "message": message})
    return out


def check_one(warplens, db, path, timeout, explain=None):
    t0 = time.monotonic()
    # The analysis time limit is wall clock: a loaded machine reaches the
    # default 30 s in the parse alone, so the benchmark allows the timeout.
    command = [explain, "--tsv", "--max-time-s", str(int(timeout)), path] if explain else \
        [warplens, "check", "--format", "json", "-p", db, "--no-resource-usage", path]
    try:
        r = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"file": path, "status": "timeout", "seconds": time.monotonic() - t0, "findings": []}
    seconds = time.monotonic() - t0
    out = {"file": path, "seconds": seconds, "exit": r.returncode, "findings": []}
    if r.returncode < 0:
        out["status"] = f"crashed (signal {-r.returncode})"
        out["stderr"] = r.stderr.decode(errors="replace")[-2000:]
        return out
    try:
        text = r.stdout.decode(errors="replace")
        out["findings"] = explain_findings(text) if explain else json.loads(text or "[]")
        out["status"] = "ok" if r.returncode == 0 else f"exit {r.returncode}"
    except (json.JSONDecodeError, ValueError):
        out["status"] = f"unreadable output (exit {r.returncode})"
        out["stderr"] = r.stderr.decode(errors="replace")[-2000:]
    return out


def reach_rows(explain, path, timeout, checkout):
    """corpus_explain --reach rows of one file, paths relative to the checkout."""
    r = subprocess.run([explain, "--reach", "--max-time-s", str(int(timeout)), path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"corpus_explain --reach {path}: exit {r.returncode}")
    out = set()
    for line in r.stdout.decode(errors="replace").splitlines():
        cells = line.split("\t")
        if cells[0] == "access" and len(cells) == 6:
            out.add(("access", os.path.relpath(cells[1], checkout), *cells[2:]))
        elif cells[0] == "reach" and len(cells) == 5:
            out.add(("reach", cells[1], os.path.relpath(cells[2], checkout), *cells[3:]))
        else:
            raise ValueError(f"not a corpus_explain --reach row: {line[:120]!r}")
    return out


HEADER_SUFFIXES = (".cuh", ".h", ".hpp")


def kernel_headers(entries, checkout):
    """Headers beside the entries' .cu files (not under Common/) that define a kernel."""
    out = []
    for d in sorted({os.path.dirname(os.path.abspath(e["file"])) for e in entries}):
        if os.path.relpath(d, checkout).split(os.sep)[0] == "Common":
            continue
        for name in sorted(os.listdir(d)):
            path = os.path.join(d, name)
            if not name.endswith(HEADER_SUFFIXES) or not os.path.isfile(path):
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                if "__global__" in f.read():
                    out.append(path)
    return out


def frontend_errors(result):
    return [f for f in result["findings"] if f.get("source") == "clang" and f.get("severity") == 1]


def nvcc_referee(entry, cache):
    args = [a for a in entry["arguments"]]
    # Same flags, no object file.
    if "-o" in args:
        i = args.index("-o")
        args[i + 1] = "/dev/null"
    key = " ".join(args)
    if key in cache:
        return cache[key]
    r = subprocess.run(args, cwd=entry["directory"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    text = r.stdout.decode(errors="replace")
    first = next((line for line in text.splitlines() if "error" in line), text.strip()[:300])
    cache[key] = {"accepted": r.returncode == 0, "first_error": first}
    return cache[key]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checkout")
    tool = ap.add_mutually_exclusive_group(required=True)
    tool.add_argument("--warplens")
    tool.add_argument("--explain")
    ap.add_argument("--out", required=True)
    ap.add_argument("--db", help="directory of compile_commands.json (default: written into --out)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--only", help="regular expression on the path: check only matching files")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--nvcc-referee", action="store_true")
    ap.add_argument("--findings-tsv")
    ap.add_argument("--reach-tsv", help="with --explain: write access and reach rows (see above)")
    ap.add_argument("--headers", action="store_true",
                    help="also check the samples' own headers that define kernels (findings only)")
    a = ap.parse_args()
    if a.reach_tsv and not a.explain:
        ap.error("--reach-tsv needs --explain")

    checkout = os.path.abspath(a.checkout)
    out_dir = os.path.abspath(a.out)
    os.makedirs(out_dir, exist_ok=True)
    db = os.path.abspath(a.db) if a.db else out_dir
    if not a.db:
        subprocess.run([sys.executable, os.path.join(HERE, "compile_db.py"), checkout, "--out", db], check=True)
    with open(os.path.join(db, "compile_commands.json"), encoding="utf-8") as f:
        entries = json.load(f)
    if a.only:
        entries = [e for e in entries if re.search(a.only, e["file"])]

    t0 = time.monotonic()
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        results = list(pool.map(lambda e: check_one(a.warplens, db, e["file"], a.timeout, a.explain), entries))
        headers = kernel_headers(entries, checkout) if a.headers else []
        header_results = list(pool.map(lambda h: check_one(a.warplens, db, h, a.timeout, a.explain), headers))
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.monotonic() - t0
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)

    referee = {}
    cache_path = os.path.join(out_dir, "nvcc_referee.json")
    if a.nvcc_referee and os.path.exists(cache_path):
        with open(cache_path, encoding="utf-8") as f:
            referee = json.load(f)

    by_file = {e["file"]: e for e in entries}
    codes = collections.Counter()
    error_kinds = collections.Counter()
    with_errors, nvcc_rejects, crashed = [], [], []
    for r in results:
        rel = os.path.relpath(r["file"], checkout)
        r["rel"] = rel
        if r["status"] != "ok":
            crashed.append((rel, r["status"]))
        errs = frontend_errors(r)
        r["frontend_errors"] = len(errs)
        r["first_errors"] = [e["message"][:300] for e in errs[:3]]
        for e in errs:
            error_kinds[e.get("code", "?")] += 1
        for f in r["findings"]:
            if f.get("source") == "clang":
                continue
            codes[(f.get("code"), SEVERITY.get(f.get("severity"), "?"))] += 1
        if errs:
            with_errors.append(r)
            if a.nvcc_referee:
                verdict = nvcc_referee(by_file[r["file"]], referee)
                r["nvcc"] = verdict
                if not verdict["accepted"]:
                    nvcc_rejects.append(r)
                with open(cache_path, "w", encoding="utf-8") as f:
                    json.dump(referee, f, indent=1)

    n = len(results)
    clean = n - len(with_errors)
    against = [r for r in with_errors if r not in nvcc_rejects]
    times = sorted(r["seconds"] for r in results)
    lines = []
    lines.append(f"cuda-samples checkout: {checkout}")
    lines.append(f"files: {n}; wall {wall:.0f} s, CPU {cpu:.0f} s ({a.jobs} job(s))")
    lines.append(f"time per file: median {statistics.median(times):.2f} s, p90 {times[int(0.9 * (n - 1))]:.2f} s, "
                 f"max {times[-1]:.2f} s (wall)")
    lines.append(f"without front-end errors: {clean} of {n} ({100.0 * clean / n:.1f}%)")
    if a.nvcc_referee:
        lines.append(f"with front-end errors: {len(with_errors)}, of which nvcc rejects {len(nvcc_rejects)} "
                     f"with the same flags; counted against the front end: {len(against)} "
                     f"-> {n - len(against)} of {n} ({100.0 * (n - len(against)) / n:.1f}%)")
    lines.append(f"crashes / timeouts / bad exits: {len(crashed)}")
    for rel, status in crashed:
        lines.append(f"  {rel}: {status}")
    lines.append("front-end error codes: " + ", ".join(f"{k} {v}" for k, v in error_kinds.most_common(12)))
    for r in with_errors:
        tag = ""
        if "nvcc" in r:
            tag = " [nvcc rejects too: " + r["nvcc"]["first_error"][:120] + "]" if not r["nvcc"]["accepted"] \
                else " [nvcc accepts]"
        lines.append(f"  {r['rel']}: {r['frontend_errors']} error(s): {r['first_errors'][0][:160]}{tag}")
    if a.headers:
        bad = [r for r in header_results if r["status"] != "ok" or frontend_errors(r)]
        lines.append(f"headers that define kernels, checked for findings (not in the counts above): "
                     f"{len(header_results)}, with front-end errors or bad exits: {len(bad)}")
        for r in bad:
            errs = frontend_errors(r)
            lines.append(f"  {os.path.relpath(r['file'], checkout)}: {r['status']}"
                         + (f", {len(errs)} error(s): {errs[0]['message'][:160]}" if errs else ""))
    lines.append("findings (code, severity): " +
                 ", ".join(f"{c}/{s} {v}" for (c, s), v in sorted(codes.items())))
    summary = "\n".join(lines)
    print(summary)
    with open(os.path.join(out_dir, "summary.txt"), "w", encoding="utf-8") as f:
        f.write(summary + "\n")
    with open(os.path.join(out_dir, "report.json"), "w", encoding="utf-8") as f:
        json.dump(results, f, indent=1)

    if a.findings_tsv:
        with open(a.findings_tsv, "w", encoding="utf-8") as f:
            f.write("# static findings of warplens check on cuda-samples (bench/public_corpus/check_corpus.py)\n")
            f.write("file\tline\tcode\tseverity\taccess\n")
            rows = set()
            for r in results + header_results:
                for x in r["findings"]:
                    if x.get("code") not in MEMORY_CODES:
                        continue
                    path = os.path.relpath(x.get("file", r["file"]), checkout)
                    line = x["range"]["start"]["line"] + 1
                    access = (x.get("data") or {}).get("access", "")
                    rows.add((path, line, x["code"], SEVERITY.get(x.get("severity"), "?"), access))
            for row in sorted(rows):
                f.write("\t".join(str(v) for v in row) + "\n")
    if a.reach_tsv:
        targets = [r["file"] for r in results + header_results if r["status"] == "ok"]
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
            parts = list(pool.map(lambda p: reach_rows(a.explain, p, a.timeout, checkout), targets))
        rows = set().union(*parts) if parts else set()
        with open(a.reach_tsv, "w", encoding="utf-8") as f:
            f.write("# modelled accesses and kernels' reach on cuda-samples (check_corpus.py --reach-tsv)\n")
            f.write("# access\tfile\tline\tspace\tkind\tfunction | reach\tkernel\tfile\tfirst\tlast\n")
            for row in sorted(rows):
                f.write("\t".join(str(v) for v in row) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

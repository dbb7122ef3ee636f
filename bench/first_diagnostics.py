#!/usr/bin/env python3
"""Time to first diagnostics and peak memory: warplens vs clangd-19, same file, same run.

warplens is driven as an editor would drive it (initialize, didOpen, wait for
the first textDocument/publishDiagnostics of that version); clangd-19 runs its
own `--check=FILE --check-locations=false` mode, which parses the file
(preamble + AST) and produces its diagnostics once.
Both are given the same compile command (a compile_commands.json written next
to a copy of the file). Each tool runs N times, interleaved; medians are
reported, and the ratio warplens / clangd.

Peak memory is the child's maximum resident set size (getrusage), measured
per run by forking each tool from a fresh helper process.

Usage: bench/first_diagnostics.py [--warplens build/bin/warplens] [--clangd clangd-19]
                                  [--runs 5] [--file bench/inputs/kernels500.cu]
Prints a markdown table (for docs/benchmarks.md) and a JSON line.
"""
import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def frame(obj):
    body = json.dumps(obj).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_message(stream):
    length = None
    while True:
        line = stream.readline()
        if not line:
            raise RuntimeError("warplens closed its output")
        line = line.strip()
        if not line:
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(stream.read(length))


def run_warplens_once(binary, path, text, extra_args):
    """Returns (seconds to first diagnostics, number of diagnostics)."""
    proc = subprocess.Popen([binary, "serve", "--debounce-ms", "0", *extra_args],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    uri = "file://" + path
    start = time.monotonic()
    proc.stdin.write(frame({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                            "params": {"processId": os.getpid(), "rootUri": "file://" + os.path.dirname(path),
                                       "capabilities": {}}}))
    proc.stdin.flush()
    while read_message(proc.stdout).get("id") != 1:
        pass
    proc.stdin.write(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    proc.stdin.write(frame({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                            "params": {"textDocument": {"uri": uri, "languageId": "cuda-cpp",
                                                        "version": 1, "text": text}}}))
    proc.stdin.flush()
    count = None
    while True:
        msg = read_message(proc.stdout)
        if msg.get("method") == "textDocument/publishDiagnostics" and msg["params"]["uri"] == uri:
            count = len(msg["params"]["diagnostics"])
            break
    elapsed = time.monotonic() - start
    proc.stdin.write(frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
    proc.stdin.write(frame({"jsonrpc": "2.0", "method": "exit"}))
    proc.stdin.flush()
    proc.wait(timeout=30)
    return elapsed, count


def run_clangd_once(binary, path, build_dir):
    # --check-locations=false: parse, build the AST and report diagnostics,
    # without also running hover/code actions at every token (which --check
    # does by default and no editor does on open).
    start = time.monotonic()
    r = subprocess.run([binary, "--check=" + path, "--check-locations=false",
                        "--compile-commands-dir=" + build_dir, "--log=error"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=300)
    elapsed = time.monotonic() - start
    # --check exits non-zero when the file has errors; it still parsed it.
    # Count its error lines so the table says how clean its parse was.
    errors = sum(1 for line in r.stderr.decode(errors="replace").splitlines() if line.startswith("E["))
    if r.returncode not in (0, 1, 3):
        raise RuntimeError("clangd failed (exit %d): %s" % (r.returncode, r.stderr.decode()[-2000:]))
    return elapsed, errors


def measured(fn, *args):
    """Runs fn in a forked child so getrusage(RUSAGE_CHILDREN) isolates its peak RSS."""
    rd, wr = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rd)
        try:
            secs, count = fn(*args)
            peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
            os.write(wr, json.dumps({"secs": secs, "count": count, "peak_kb": peak_kb}).encode())
        except Exception as e:  # report, never hang the parent
            os.write(wr, json.dumps({"error": str(e)}).encode())
        os._exit(0)
    os.close(wr)
    data = b""
    while True:
        chunk = os.read(rd, 65536)
        if not chunk:
            break
        data += chunk
    os.waitpid(pid, 0)
    out = json.loads(data)
    if "error" in out:
        raise RuntimeError(out["error"])
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--warplens", default=os.path.join(ROOT, "build/bin/warplens"))
    ap.add_argument("--clangd", default=shutil.which("clangd-19") or "clangd-19")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--file", default=os.path.join(ROOT, "bench/inputs/kernels500.cu"))
    ap.add_argument("--cuda-path", default=os.environ.get("CUDA_PATH", "/usr/local/cuda"))
    args = ap.parse_args()

    work = tempfile.mkdtemp(prefix="warplens-bench-")
    path = os.path.join(work, os.path.basename(args.file))
    shutil.copy(args.file, path)
    text = open(path).read()
    lines = text.count("\n")
    # One compile command for both tools: what an nvcc-based CMake project
    # would export (warplens translates it; clangd gets the clang spelling,
    # with the CUDA 13 workarounds it needs to parse at all).
    shim = os.path.join(ROOT, "analysis/prelude/cuda13-shim")
    clang_cmd = ["clang++", "-x", "cuda", "--cuda-gpu-arch=sm_90", "--cuda-path=" + args.cuda_path,
                 "-nocudalib", "-std=c++17", "-isystem", args.cuda_path + "/include/cccl",
                 "-isystem", shim, "-Xclang", "-target-sdk-version=12.5",
                 "-Wno-unknown-cuda-version", "--cuda-device-only", "-c", path]
    with open(os.path.join(work, "compile_commands.json"), "w") as f:
        json.dump([{"directory": work, "file": path,
                    "arguments": ["nvcc", "-arch=sm_90", "-O3", "-std=c++17", "-c", path, "-o", path + ".o"]}], f)
    clangd_dir = os.path.join(work, "clangd")
    os.makedirs(clangd_dir)
    with open(os.path.join(clangd_dir, "compile_commands.json"), "w") as f:
        json.dump([{"directory": work, "file": path, "arguments": clang_cmd}], f)

    # The static analyses' share of the engine's time, from the report's own
    # timers (parse = Clang + model builder; analysis = the static passes).
    parse_ms, analysis_ms = [], []
    for _ in range(args.runs):
        r = subprocess.run([args.warplens, "report", "--no-resource-usage", path],
                           capture_output=True, text=True, timeout=300)
        f = json.loads(r.stdout)["files"][0]
        parse_ms.append(f["parseMs"])
        analysis_ms.append(f["analysisMs"])

    w, c = [], []
    for _ in range(args.runs):  # interleaved, so drift hits both alike
        w.append(measured(run_warplens_once, args.warplens, path, text, []))
        c.append(measured(run_clangd_once, args.clangd, path, clangd_dir))
    wt = statistics.median(r["secs"] for r in w)
    ct = statistics.median(r["secs"] for r in c)
    wm = max(r["peak_kb"] for r in w) / 1024
    cm = max(r["peak_kb"] for r in c) / 1024
    print(f"file: {os.path.relpath(args.file, ROOT)} ({lines} lines), {args.runs} runs each, interleaved")
    print()
    print("| tool | time to first diagnostics (median) | peak RSS |")
    print("|---|---|---|")
    print(f"| warplens (LSP, didOpen -> publishDiagnostics; {w[0]['count']} diagnostics) | {wt:.3f} s | {wm:.0f} MB |")
    print(f"| clangd-19 --check --check-locations=false ({c[0]['count']} error lines in its log) | {ct:.3f} s | {cm:.0f} MB |")
    print(f"| ratio warplens / clangd | {wt / ct:.2f}x | {wm / cm:.2f}x |")
    pm, am = statistics.median(parse_ms), statistics.median(analysis_ms)
    print()
    print(f"static analyses: {am:.1f} ms on top of {pm:.0f} ms parse = {100 * am / pm:.1f}% (goal <= 20%)")
    print(json.dumps({"parse_ms": pm, "analysis_ms": am, "warplens_s": wt, "clangd_s": ct, "warplens_mb": wm, "clangd_mb": cm,
                      "time_ratio": wt / ct, "memory_ratio": wm / cm, "lines": lines}))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

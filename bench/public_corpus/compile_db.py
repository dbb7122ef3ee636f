#!/usr/bin/env python3
"""Write a compile_commands.json for a checkout of NVIDIA's cuda-samples
(github.com/NVIDIA/cuda-samples), outside the warplens tree.

Every `.cu` file under Samples/ gets one nvcc entry with the flags the
samples' own CMake build uses (the top-level CMakeLists.txt and each
sample's): `-std=c++17 -lineinfo --extended-lambda
-Wno-deprecated-gpu-targets -I <checkout>/Common`, the sample's own
`include_directories(...)`, `-rdc=true` when the sample sets
`CUDA_SEPARABLE_COMPILATION ON`, and `-Xcompiler -fopenmp` when it finds
OpenMP. The architecture is one `-arch` (default sm_90, the H200's).

Re-runnable: the output is rewritten from the checkout each time.

usage: compile_db.py CHECKOUT [--out DIR] [--arch sm_90] [--nvcc PATH]
       (DIR defaults to CHECKOUT; the file is DIR/compile_commands.json)
"""
import argparse
import json
import os
import re
import sys

INCLUDE_RE = re.compile(r"(?:target_)?include_directories\s*\(([^)]*)\)", re.S)


def cmake_flags(sample_dir, checkout):
    """Flags a sample's CMakeLists.txt adds: (include dirs, rdc, openmp)."""
    path = os.path.join(sample_dir, "CMakeLists.txt")
    includes, rdc, openmp = [], False, False
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return includes, rdc, openmp
    # Comments would otherwise be read as directory names.
    text = re.sub(r"#[^\n]*", "", text)
    for m in INCLUDE_RE.finditer(text):
        for word in m.group(1).split():
            if word in ("PUBLIC", "PRIVATE", "INTERFACE", "SYSTEM", "BEFORE", "AFTER") or "$" in word:
                continue
            if word.startswith(tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ")) and not os.sep in word and not os.path.isdir(
                    os.path.join(sample_dir, word)):
                continue  # a target name (target_include_directories(name ...))
            d = os.path.normpath(os.path.join(sample_dir, word))
            if os.path.isdir(d) and d not in includes:
                includes.append(d)
    rdc = re.search(r"CUDA_SEPARABLE_COMPILATION\s+ON", text) is not None
    openmp = re.search(r"OpenMP", text) is not None
    return includes, rdc, openmp


def sample_dir_of(path, samples_root):
    """The nearest ancestor of `path` (inside Samples/) with a CMakeLists.txt."""
    d = os.path.dirname(path)
    while d.startswith(samples_root) and d != samples_root:
        if os.path.exists(os.path.join(d, "CMakeLists.txt")):
            return d
        d = os.path.dirname(d)
    return os.path.dirname(path)


def entries(checkout, arch, nvcc):
    checkout = os.path.abspath(checkout)
    samples = os.path.join(checkout, "Samples")
    common = os.path.join(checkout, "Common")
    if not os.path.isdir(samples) or not os.path.isdir(common):
        sys.exit(f"{checkout}: not a cuda-samples checkout (no Samples/ and Common/)")
    out = []
    for root, dirs, files in os.walk(samples):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(".cu"):
                continue
            path = os.path.join(root, name)
            sdir = sample_dir_of(path, samples)
            includes, rdc, openmp = cmake_flags(sdir, checkout)
            args = [nvcc, "-std=c++17", f"-arch={arch}", "-lineinfo", "--extended-lambda",
                    "-Wno-deprecated-gpu-targets", "-I", common]
            for d in includes:
                if d != common:
                    args += ["-I", d]
            if rdc:
                args.append("-rdc=true")
            if openmp:
                args += ["-Xcompiler", "-fopenmp"]
            args += ["-c", path, "-o", os.path.splitext(path)[0] + ".o"]
            out.append({"directory": root, "file": path, "arguments": args})
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checkout")
    ap.add_argument("--out", help="directory for compile_commands.json (default: the checkout)")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--nvcc", default="nvcc")
    a = ap.parse_args()
    db = entries(a.checkout, a.arch, a.nvcc)
    out_dir = os.path.abspath(a.out or a.checkout)
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "compile_commands.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(db, f, indent=1)
        f.write("\n")
    rdc = sum("-rdc=true" in e["arguments"] for e in db)
    omp = sum("-fopenmp" in e["arguments"] for e in db)
    print(f"{path}: {len(db)} entries ({rdc} with -rdc=true, {omp} with -Xcompiler -fopenmp)")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Eager PyTorch and torch.compile times of the optimize examples' references.

Each examples/optimize/NAME.py is a KernelBench-style module (Model,
get_inputs, get_init_inputs). All models are loaded and compiled in one
process (phase 1: CPU-heavy, may overlap a build); with --wait-for FILE the
timing phase (phase 2, GPU) starts only once FILE exists, so nothing else
runs on the GPU meanwhile. Timing uses the same method as the kernels' own:
warm-up, a write of a buffer larger than twice the L2 before every run, CUDA
events around the call with a device-wide synchronise, median of --runs.

Writes {"NAME": {"eager_ms": x, "compiled_ms": y, "error": "..."}} to --out.
"""
import argparse
import importlib.util
import json
import os
import statistics
import sys
import time
import traceback


def load(path):
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def time_fn(torch, fn, args, runs, flush):
    with torch.no_grad():
        for _ in range(3):
            fn(*args)
        torch.cuda.synchronize()
        samples = []
        for i in range(runs):
            flush.fill_(i)
            torch.cuda.synchronize()
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            fn(*args)
            end.record()
            torch.cuda.synchronize()
            samples.append(start.elapsed_time(end))
    return statistics.median(samples)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("examples")
    p.add_argument("--out", required=True)
    p.add_argument("--runs", type=int, default=30)
    p.add_argument("--wait-for", default="")
    p.add_argument("--compile-budget-s", type=float, default=240)
    args = p.parse_args()
    result = {}
    try:
        import torch
    except Exception as e:  # no PyTorch: levels stop at 2
        json.dump({"_error": f"no torch: {e}"}, open(args.out, "w"))
        print(f"torch baselines: no torch ({e})")
        return 0
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    models = {}
    t0 = time.time()
    for name in sorted(os.listdir(args.examples)):
        if not name.endswith(".py"):
            continue
        key = name[:-3]
        try:
            m = load(os.path.join(args.examples, name))
            torch.manual_seed(42)
            init = m.get_init_inputs() if hasattr(m, "get_init_inputs") else []
            model = m.Model(*init).cuda().eval()
            inputs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in m.get_inputs()]
            entry = {"model": model, "inputs": inputs, "compiled": None}
            if time.time() - t0 < args.compile_budget_s:
                try:
                    compiled = torch.compile(model)
                    with torch.no_grad():
                        compiled(*inputs)  # compile now (phase 1)
                    torch.cuda.synchronize()
                    entry["compiled"] = compiled
                except Exception as e:
                    result.setdefault(key, {})["compile_error"] = str(e)[:300]
            else:
                result.setdefault(key, {})["compile_error"] = "compile budget exhausted"
            models[key] = entry
        except Exception as e:
            result[key] = {"error": str(e)[:300]}
            traceback.print_exc()
    print(f"torch baselines: {len(models)} model(s) ready in {time.time() - t0:.1f} s", flush=True)
    if args.wait_for:
        while not os.path.exists(args.wait_for):
            time.sleep(0.2)
    l2 = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 64 << 20)
    flush = torch.empty(max(2 * l2, 64 << 20) // 4, dtype=torch.float32, device="cuda")
    for key, e in models.items():
        r = result.setdefault(key, {})
        try:
            r["eager_ms"] = time_fn(torch, e["model"], e["inputs"], args.runs, flush)
            if e["compiled"] is not None:
                r["compiled_ms"] = time_fn(torch, e["compiled"], e["inputs"], args.runs, flush)
        except Exception as ex:
            r["error"] = str(ex)[:300]
        print(f"  {key}: eager {r.get('eager_ms', float('nan')):.4f} ms, "
              f"torch.compile {r.get('compiled_ms', float('nan')):.4f} ms", flush=True)
        e["inputs"] = None
        torch.cuda.empty_cache()
    json.dump(result, open(args.out, "w"), indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Times a KernelBench-style PyTorch reference, eager and under torch.compile.

Used by `warplens verify --pytorch-ref model.py` for reward level 3. The
module must define `Model` (an nn.Module), `get_inputs()` and optionally
`get_init_inputs()`. Timing follows the same method as warplens's kernel
timing: warm-up runs, an L2 flush (writing a buffer larger than twice the L2)
before every run, CUDA events around the call with a device-wide synchronise,
and the same number of timed runs.

Prints one JSON object as the last line of stdout:
  {"ok": bool, "error": str, "torch_version": str, "device": str,
   "eager_us": [...], "eager_device_us": [...],
   "compiled_ok": bool, "compile_error": str,
   "compiled_us": [...], "compiled_device_us": [...]}
"""
import argparse
import importlib.util
import json
import sys
import traceback


def load_module(path):
    spec = importlib.util.spec_from_file_location("warplens_pytorch_reference", path)
    if spec is None or spec.loader is None:
        raise RuntimeError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name in ("Model", "get_inputs"):
        if not hasattr(module, name):
            raise RuntimeError(f"{path} defines no `{name}` (KernelBench layout: Model, get_inputs, get_init_inputs)")
    return module


def to_device(x, torch):
    if isinstance(x, torch.Tensor):
        return x.cuda()
    if isinstance(x, (list, tuple)):
        return type(x)(to_device(v, torch) for v in x)
    return x


def time_callable(fn, args, runs, warmup, flush, torch):
    samples, device_samples = [], []
    stream = torch.cuda.current_stream()
    with torch.no_grad():
        for _ in range(warmup):
            fn(*args)
            torch.cuda.synchronize()
        for i in range(runs):
            flush.fill_(i)  # L2 flush: write more than twice the L2
            torch.cuda.synchronize()
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            device_end = torch.cuda.Event(enable_timing=True)
            start.record(stream)
            fn(*args)
            end.record(stream)
            torch.cuda.synchronize()  # device-wide: work on any stream counts
            device_end.record(stream)
            device_end.synchronize()
            samples.append(start.elapsed_time(end) * 1000.0)
            device_samples.append(start.elapsed_time(device_end) * 1000.0)
    return samples, device_samples


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--no-compile", action="store_true")
    args = parser.parse_args()

    result = {"ok": False, "error": "", "torch_version": "", "device": "",
              "eager_us": [], "eager_device_us": [],
              "compiled_ok": False, "compile_error": "", "compiled_us": [], "compiled_device_us": []}
    try:
        import torch
        result["torch_version"] = torch.__version__
        if not torch.cuda.is_available():
            raise RuntimeError("PyTorch sees no CUDA device")
        result["device"] = torch.cuda.get_device_name(0)
        module = load_module(args.model)
        torch.manual_seed(args.seed)
        init = module.get_init_inputs() if hasattr(module, "get_init_inputs") else []
        model = module.Model(*init).cuda().eval()
        inputs = [to_device(x, torch) for x in module.get_inputs()]
        props = torch.cuda.get_device_properties(0)
        l2 = int(getattr(props, "L2_cache_size", 0) or (64 << 20))
        flush = torch.empty((2 * l2 + (1 << 20)) // 4, dtype=torch.int32, device="cuda")
        result["eager_us"], result["eager_device_us"] = time_callable(
            model, inputs, args.runs, args.warmup, flush, torch)
        result["ok"] = True
        if not args.no_compile:
            try:
                torch._dynamo.reset()
                compiled = torch.compile(model)
                result["compiled_us"], result["compiled_device_us"] = time_callable(
                    compiled, inputs, args.runs, max(args.warmup, 3), flush, torch)
                result["compiled_ok"] = True
            except Exception as e:  # torch.compile problems must not hide the eager numbers
                result["compile_error"] = f"{type(e).__name__}: {e}"[:2000]
                traceback.print_exc(file=sys.stderr)
    except Exception as e:
        result["error"] = f"{type(e).__name__}: {e}"[:2000]
        traceback.print_exc(file=sys.stderr)
    sys.stdout.write("\n" + json.dumps(result) + "\n")
    sys.stdout.flush()
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""One line about a warplens profile (warplens-profile/1), for the H200 script.

usage: profile_digest.py PROFILE.json

Prints: the passes, line records (global-store records), the naive
transpose's store and load sectors per request when present, how many
kernels were timed, whether the device was described, the SASS collector
counters, and the warning codes. Exit code 0 when the profile has per-line
data with executed instructions, 1 when it has none, 2 when it cannot be read.
"""
import json
import sys


def per_request(lines, kernel_part, kind):
    for l in lines:
        if kernel_part in l.get("kernel", "") and l.get("kind") == kind and l.get("executed"):
            return "%.1f (ideal %.1f)" % (l["sectors"] / l["executed"], l["sectors_ideal"] / l["executed"])
    return None


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2])
        return 2
    try:
        with open(sys.argv[1]) as f:
            p = json.load(f)
    except (OSError, ValueError) as e:
        print("unreadable profile: %s" % e)
        return 2
    lines = p.get("lines", [])
    measured = [l for l in lines if l.get("executed")]
    stores = [l for l in lines if l.get("kind") == "global_store"]
    kernels = p.get("kernels", [])
    timed = [k for k in kernels if k.get("timing", {}).get("launches")]
    c = p.get("collector", {})
    passes = "+".join(ps.get("kind", "?") for ps in p.get("passes", [])) or "?"
    parts = ["passes %s; %d line records (%d global_store)" % (passes, len(lines), len(stores))]
    store = per_request(lines, "transpose_naive", "global_store")
    load = per_request(lines, "transpose_naive", "global_load")
    if store or load:
        parts.append("naive store %s, load %s sectors/req" % (store, load))
    parts.append("%d/%d kernels timed" % (len(timed), len(kernels)))
    d = (p.get("devices") or [{}])[0]
    parts.append("device %s %s %.0f GB/s chip %s" % (d.get("name") or "?", d.get("arch") or "?",
                                                     d.get("peak_bandwidth_gbs") or 0, d.get("chip") or "-"))
    parts.append("SASS records %s nonzero %s unmatched %s setup %s" % (
        c.get("sass_records", "?"), c.get("sass_nonzero_values", "?"),
        c.get("sass_unmatched_values", "?"), c.get("sass_setup", "?") or "none"))
    codes = sorted({w.get("code", "?") for w in p.get("warnings", [])})
    if codes:
        parts.append("warnings: " + ",".join(codes))
    print("; ".join(parts))
    return 0 if measured else 1


if __name__ == "__main__":
    sys.exit(main())

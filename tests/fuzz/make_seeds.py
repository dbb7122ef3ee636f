#!/usr/bin/env python3
"""Seed corpora for the fuzz targets (tests/fuzz/*.cpp), written into OUT/<target>/.

fuzz_analysis: every .cu/.cuh under tests/ and examples/ (up to 64 KiB), and
               the robustness fixtures (the inputs that once crashed or hung).
               `--analysis-seeds N` keeps N of the sources, evenly spread over
               the sorted list (the robustness fixtures always stay): libFuzzer
               executes every seed before its time limit counts, at about
               0.3 s each for this target, so CI bounds the set.
fuzz_protocol: LSP sessions as byte streams (first byte: how the stream is cut
               into reads), built from the examples, plus malformed frames and
               the crash inputs of issue 21 at fuzzer-friendly sizes.
fuzz_server:   the same sessions without the leading byte.
fuzz_mcp:      MCP sessions (one JSON-RPC message per line): every tool on the
               fuzz workspace's file, FIFO and directory, and the inputs that
               once ended `warplens mcp` (a clientInfo or a cancellation
               reason of the wrong type).

Deterministic: the same tree gives the same seeds.
"""
import json
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def frame(obj):
    body = obj if isinstance(obj, bytes) else json.dumps(obj, separators=(",", ":")).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def request(i, method, params):
    return frame({"jsonrpc": "2.0", "id": i, "method": method, "params": params})


def notify(method, params):
    return frame({"jsonrpc": "2.0", "method": method, "params": params})


def session(uri, text):
    caps = {"window": {"workDoneProgress": True},
            "textDocument": {"hover": {"contentFormat": ["markdown"]},
                             "codeAction": {"dataSupport": True, "resolveSupport": {"properties": ["edit"]}}},
            "general": {"positionEncodings": ["utf-8", "utf-16"]}}
    out = request(1, "initialize", {"processId": None, "rootUri": "file:///tmp", "capabilities": caps,
                                    "initializationOptions": {"warplens": {"arch": "sm_80", "debounceMs": 0}}})
    out += notify("initialized", {})
    out += notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "cuda", "version": 1,
                                                            "text": text}})
    pos = {"line": 2, "character": 4}
    td = {"uri": uri}
    out += request(2, "textDocument/hover", {"textDocument": td, "position": pos})
    out += request(3, "textDocument/codeAction", {"textDocument": td, "range": {"start": pos, "end": pos},
                                                  "context": {"diagnostics": []}})
    out += request(4, "textDocument/codeLens", {"textDocument": td})
    out += notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                             "contentChanges": [{"range": {"start": pos, "end": pos}, "text": "k"}]})
    out += request(5, "workspace/executeCommand", {"command": "warplens.report", "arguments": [{"uri": uri}]})
    out += request(6, "workspace/executeCommand", {"command": "warplens.listJobs", "arguments": []})
    out += notify("$/cancelRequest", {"id": 5})
    out += notify("workspace/didChangeConfiguration", {"settings": {"warplens": {"thresholds": {"bankConflict": 4}}}})
    out += request(7, "shutdown", None)
    out += notify("exit", None)
    return out


def malformed():
    """Frames that once ended the server (issue 21), and framing errors."""
    seeds = []
    init = request(1, "initialize", {"processId": None, "capabilities": {}})
    for msg in ["5", "null", "[]", "{}", "true", "1.5"]:
        seeds.append(init + frame(('{"jsonrpc":"2.0","id":"zz","error":{"code":1,"message":%s}}' % msg).encode()))
    deep = b'{"a":' * 200 + b"1" + b"}" * 200
    seeds.append(init + frame(b'{"jsonrpc":"2.0","id":2,"method":"workspace/executeCommand","params":{"command":"x","arguments":[' + deep + b"]}}"))
    seeds.append(frame(b'{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"capabilities":' + b"[" * 150 + b"]" * 150 + b"}}"))
    seeds.append(init + request(4, "textDocument/hover", {"textDocument": {"uri": "file:///a.cu"},
                                                          "position": {"line": 4294967296, "character": 0}}))
    seeds.append(b"Content-Length: 5\r\n\r\n{\"a\":" + b"hello\r\n\r\nContent-Length: nine\r\n\r\n")
    seeds.append(init + frame(b'{"jsonrpc":"2.0","method":"x","params":{"apiKey":"sk-1","password":"p'))
    seeds.append(init + notify("workspace/didChangeConfiguration",
                               {"settings": {"warplens": {"token": "t", "llm": {"endpoint": "http://u:p@h/v1"},
                                                          "allowedDrivers": ["/usr/bin/*", 5]}}}))
    return seeds


def mcp_line(obj):
    return (obj if isinstance(obj, bytes) else json.dumps(obj, separators=(",", ":")).encode()) + b"\n"


def mcp_sessions():
    def req(i, method, params=None):
        m = {"jsonrpc": "2.0", "id": i, "method": method}
        if params is not None:
            m["params"] = params
        return mcp_line(m)

    init = req(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                 "clientInfo": {"name": "fuzz", "version": "1"}})
    init += mcp_line({"jsonrpc": "2.0", "method": "notifications/initialized"})
    seeds = []
    calls = [("analyze", {"file": "src/k.cu"}), ("kernel_report", {"file": "src/k.cu", "kernel": "k"}),
             ("analyze", {"file": "src/fifo.cu"}), ("kernel_report", {"file": "dir.cu"}),
             ("verify", {"file": "src/k.cu", "kernel": "k", "candidate_source": "x", "block": [32, 1]}),
             ("apply_rewrite", {"candidate_id": "c1", "candidate_hash": "h"}),
             ("profile", {"file": "src/k.cu", "program_args": ["1"]}), ("profile", {"recorded_profile": "src/k.cu"}),
             ("capture", {"kernel": "k", "launches": 2}), ("optimize", {"file": "src/k.cu", "kernel": "k"}),
             ("analyze", {"file": "../../etc/passwd"})]
    session = init + req(1, "tools/list", {}) + req(2, "ping")
    for i, (name, args) in enumerate(calls):
        session += req(10 + i, "tools/call", {"name": name, "arguments": args, "_meta": {"progressToken": i}})
    session += mcp_line({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 12, "reason": "x"}})
    seeds.append(session)
    for bad in (5, [], "x", {"name": 5}):
        seeds.append(req(0, "initialize", {"protocolVersion": "2025-06-18", "clientInfo": bad}) + req(1, "ping"))
    for reason in (5, {}, [1], None):
        seeds.append(init + req(3, "tools/call", {"name": "analyze", "arguments": {"file": "src/k.cu"}}) +
                     mcp_line({"jsonrpc": "2.0", "method": "notifications/cancelled",
                               "params": {"requestId": 3, "reason": reason}}))
    seeds.append(init + b"{not json\n" + b"[1,2]\n" + req(4, "tools/call", [1]) + req(5, "tools/call", {"name": 5}) +
                 req(6, "tools/call", {"name": "verify", "arguments": {"block": [1e300], "file": 5}}))
    return seeds


def main():
    args = sys.argv[1:]
    limit = None
    if "--analysis-seeds" in args:
        i = args.index("--analysis-seeds")
        if i + 1 >= len(args) or not args[i + 1].isdigit() or int(args[i + 1]) < 1:
            sys.exit("make_seeds.py: --analysis-seeds needs a positive count")
        limit = int(args[i + 1])
        del args[i:i + 2]
    out = pathlib.Path(args[0] if args else "fuzz-seeds")
    for t in ("fuzz_analysis", "fuzz_protocol", "fuzz_server", "fuzz_mcp"):
        (out / t).mkdir(parents=True, exist_ok=True)
    sources = []
    for base in ("tests", "examples"):
        for p in sorted((ROOT / base).rglob("*")):
            if p.suffix in (".cu", ".cuh") and p.is_file() and p.stat().st_size <= 64 * 1024:
                sources.append(p)
    analysis_sources = sources
    if limit is not None and len(sources) > limit:
        # An even spread keeps every directory's kind of code represented.
        analysis_sources = [sources[i * len(sources) // limit] for i in range(limit)]
    n = 0
    for p in analysis_sources:
        data = p.read_bytes()
        (out / "fuzz_analysis" / ("src-%04d.cu" % n)).write_bytes(data)
        n += 1
    for p in sorted((ROOT / "tests/fixtures/robustness").glob("*.cu")):
        (out / "fuzz_analysis" / ("robust-" + p.name)).write_bytes(p.read_bytes())
    streams = []
    for i, p in enumerate(sources[:40]):
        streams.append(session("file:///tmp/fuzz/%s" % p.name, p.read_text(errors="replace")))
    streams += malformed()
    for i, s in enumerate(streams):
        (out / "fuzz_server" / ("seed-%04d" % i)).write_bytes(s)
        for cut in (0x03, 0x85):  # small reads, and 5 KiB reads
            (out / "fuzz_protocol" / ("seed-%04d-%02x" % (i, cut))).write_bytes(bytes([cut]) + s)
    for i, s in enumerate(mcp_sessions()):
        (out / "fuzz_mcp" / ("seed-%04d" % i)).write_bytes(s)
    print("seeds: %d analysis, %d protocol, %d server, %d mcp" %
          tuple(len(os.listdir(out / t)) for t in ("fuzz_analysis", "fuzz_protocol", "fuzz_server", "fuzz_mcp")))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The scripted agent session against the real `warplens mcp`, as a minimal
MCP client of its own (newline-delimited JSON-RPC over the server's stdio,
MCP 2025-06-18), with the Python standard library only.

The TypeScript SDK drives the same steps in session.mjs (the CI test); this
client exists for machines without Node (the H200) and records a full
transcript, every message both ways, for tests/fixtures/mcp/.

  session.py --warplens BIN --workspace DIR --cases DIR [--real-gpu] [--transcript FILE]
  session.py --check FILE [--expect-device H200]     checks a recorded transcript

The workspace comes from mcp_make_workspace (tests/mcp/make_workspace.cpp):
DIR/ws/src/scale_add.cu, a capture of scale_add in DIR/ws/.warplens/capture,
DIR/outside.cu and the link DIR/ws/escape.cu -> ../outside.cu.
Without --real-gpu the verifier runs on the fake CUDA driver (the caller sets
LD_LIBRARY_PATH) and the GPU-only tools must answer with tool errors.
Exit 0 when every step passed, 1 otherwise.
"""
import argparse
import json
import os
import queue
import subprocess
import sys
import threading
import time

TOOLS = ["analyze", "kernel_report", "verify", "apply_rewrite", "profile", "capture", "optimize"]


class Client:
    def __init__(self, argv, env):
        self.t0 = time.time()
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=sys.stderr, env=env)
        self.messages = []  # the transcript
        self.inbox = queue.Queue()
        self.next_id = 1
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            try:
                m = json.loads(line)
            except ValueError:
                m = {"unparsable_line": line.decode("utf-8", "replace")}
            self.messages.append({"t": round(time.time() - self.t0, 3), "from": "server", "message": m})
            self.inbox.put(m)
        self.inbox.put(None)

    def send_raw(self, text):
        self.messages.append({"t": round(time.time() - self.t0, 3), "from": "client", "raw": text})
        self.proc.stdin.write(text.encode() + b"\n")
        self.proc.stdin.flush()

    def send(self, message):
        self.messages.append({"t": round(time.time() - self.t0, 3), "from": "client", "message": message})
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method, params=None, on_notification=None, timeout=600, send_only=False):
        rid = self.next_id
        self.next_id += 1
        m = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            m["params"] = params
        self.send(m)
        if send_only:
            return rid
        return self.wait(rid, on_notification, timeout)

    def wait(self, rid, on_notification=None, timeout=600):
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                m = self.inbox.get(timeout=max(0.05, deadline - time.time()))
            except queue.Empty:
                break
            if m is None:
                raise RuntimeError("the server closed its stdout")
            if "id" in m and m.get("id") == rid and ("result" in m or "error" in m):
                return m
            if "method" in m and on_notification:
                on_notification(m)
        return None

    def call(self, name, arguments, progress_token=None, on_notification=None, timeout=600):
        params = {"name": name, "arguments": arguments}
        if progress_token is not None:
            params["_meta"] = {"progressToken": progress_token}
        return self.request("tools/call", params, on_notification, timeout)

    def close(self):
        self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return None


def run_session(args):
    steps = []

    def check(step, ok, detail=""):
        steps.append({"step": step, "ok": bool(ok), "detail": detail})
        print(("ok   " if ok else "FAIL ") + step + (": " + detail if detail and not ok else ""), flush=True)
        return ok

    def tool_error(r):
        # isError, no structuredContent, the kind and message in _meta and in
        # the text; anything else is not one of our tool errors (None).
        res = (r or {}).get("result", {})
        e = res.get("_meta", {}).get("warplens/error")
        if not res.get("isError") or "structuredContent" in res or not isinstance(e, dict):
            return None
        text = (res.get("content") or [{}])[0].get("text")
        return e.get("kind") if text == "error (%s): %s" % (e.get("kind"), e.get("message")) else None

    ws = os.path.join(args.workspace, "ws")
    version = subprocess.run([args.warplens, "--version"], capture_output=True, text=True).stdout.strip()
    frontend = "clang" in version
    cases = args.cases
    honest = open(os.path.join(cases, "candidates", "honest_scale_add_launch_bounds.cu")).read()
    exploit = open(os.path.join(cases, "candidates", "exploit_ignores_alpha.cu")).read()
    hang = open(os.path.join(cases, "candidates", "exploit_hang.cu")).read()
    original_path = os.path.join(ws, "src", "scale_add.cu")
    original = open(original_path, "rb").read()

    argv = [args.warplens, "mcp", "--root", ws, "--runs", "10"]
    if args.real_gpu:  # the workspace's program, for the capture tool
        argv += ["--build-command", "mkdir -p .warplens && nvcc -O3 -lineinfo -arch=native -o .warplens/scale_add src/scale_add.cu",
                 "--profile-command", ".warplens/scale_add 65536"]
    c = Client(argv, os.environ.copy())
    try:
        r = c.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                     "clientInfo": {"name": "warplens-session.py", "version": "1"}}, timeout=30)
        res = (r or {}).get("result", {})
        check("initialize", res.get("protocolVersion") == "2025-06-18" and res.get("serverInfo", {}).get("name") == "warplens"
              and "tools" in res.get("capabilities", {}), json.dumps(r))
        c.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        check("ping", (c.request("ping", timeout=30) or {}).get("result") == {})

        r = c.request("tools/list", {}, timeout=30)
        tools = (r or {}).get("result", {}).get("tools", [])
        names = [t["name"] for t in tools]
        check("tools/list", names == TOOLS and all(t["inputSchema"]["type"] == "object" and "outputSchema" in t for t in tools),
              str(names))

        # resource_usage on (the default): under the fake driver the GPU
        # probe reads zero limits and must fall back, not crash (SIGFPE once).
        r = c.call("analyze", {"file": "src/scale_add.cu"}, timeout=300)
        if frontend:
            s = r["result"].get("structuredContent", {})
            check("analyze a file", not r["result"].get("isError") and "scale_add" in s.get("kernels", []) and
                  all({"code", "range", "message", "numbers"} <= set(d) for d in s.get("diagnostics", [])), json.dumps(r)[:2000])
        else:  # the no-Clang build (the H200 machine) has no front end
            check("analyze without a front end is a tool error", tool_error(r) == "failed", json.dumps(r)[:2000])
        check("analyze outside the root is refused", tool_error(c.call("analyze", {"file": "../outside.cu"})) == "outside-root")
        check("a link out of the root is refused", tool_error(c.call("analyze", {"file": "escape.cu"})) == "outside-root")

        progress = []
        r = c.call("verify", {"file": "src/scale_add.cu", "kernel": "scale_add", "candidate_source": honest},
                   progress_token="honest", on_notification=progress.append)
        s = (r or {}).get("result", {}).get("structuredContent", {})
        check("verify an honest candidate: correct", r and not r["result"].get("isError") and s.get("correct") is True
              and s.get("level", -1) >= 1, json.dumps(r)[:3000])
        check("verify reports progress with the token",
              len(progress) >= 2 and all(p["params"]["progressToken"] == "honest" for p in progress), str(len(progress)))
        honest_result = s

        r = c.call("verify", {"file": "src/scale_add.cu", "kernel": "scale_add", "candidate_source": exploit})
        s = (r or {}).get("result", {}).get("structuredContent", {})
        check("verify an exploit: level -1", r and not r["result"].get("isError") and s.get("level") == -1
              and s.get("applicable") is False, json.dumps(r)[:3000])
        r = c.call("apply_rewrite", {"candidate_id": s.get("candidate_id", "?"), "candidate_hash": s.get("candidate_hash", "?")})
        check("apply_rewrite refuses the unverified candidate", tool_error(r) == "refused" and
              "not verified at level >= 2" in r["result"]["content"][0]["text"], json.dumps(r))
        r = c.call("apply_rewrite", {"candidate_id": honest_result.get("candidate_id", "?"), "candidate_hash": "0" * 16})
        check("apply_rewrite refuses a hash that is not the verified text's", tool_error(r) == "refused", json.dumps(r))
        check("the file is unchanged", open(original_path, "rb").read() == original)
        r = c.call("verify", {"file": "../outside.cu", "kernel": "scale_add", "candidate_source": honest})
        check("verify outside the root is refused", tool_error(r) == "outside-root", json.dumps(r))

        # Cancellation: a candidate that never ends (on the GPU; on the fake
        # driver it is cancelled while compiling), stopped by the client.
        rid = c.request("tools/call", {"name": "verify", "_meta": {"progressToken": "hang"},
                                       "arguments": {"file": "src/scale_add.cu", "kernel": "scale_add", "candidate_source": hang}},
                        send_only=True)
        started = []
        c.wait(-1, lambda m: started.append(m) if m.get("params", {}).get("progressToken") == "hang" else None,
               timeout=0)  # drain
        deadline = time.time() + 60
        while not started and time.time() < deadline:  # cancel once it runs
            c.wait(-1, lambda m: started.append(m) if m.get("params", {}).get("progressToken") == "hang" else None,
                   timeout=0.2)
        c.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": rid, "reason": "session.py"}})
        t = time.time()
        late = c.wait(rid, None, timeout=3)
        check("a cancelled call gets no response", started and late is None, json.dumps(late))
        r = c.request("ping", timeout=120)
        check("the server serves after a cancellation", (r or {}).get("result") == {}, "%.1f s" % (time.time() - t))

        r = c.call("profile", {"file": "src/scale_add.cu", "program_args": ["65536"]}, progress_token="profile")
        if args.real_gpu:
            s = r["result"].get("structuredContent", {})
            check("profile a self-contained file", not r["result"].get("isError") and
                  any(k["name"].startswith("scale_add") for k in s.get("kernels", [])), json.dumps(r)[:3000])
        else:
            check("profile without a GPU is a tool error", tool_error(r) == "no-gpu", json.dumps(r)[:2000])
        r = c.call("capture", {"kernel": "scale_add", "launches": 2, "out": ".warplens/capture-tool"}, progress_token="capture")
        if args.real_gpu:
            s = r["result"].get("structuredContent", {})
            ok = check("capture from the configured command", not r["result"].get("isError") and s.get("launches", 0) >= 1,
                       json.dumps(r)[:3000])
            if ok:
                r = c.call("verify", {"file": "src/scale_add.cu", "kernel": "scale_add", "candidate_source": honest,
                                      "capture": ".warplens/capture-tool"})
                s = r["result"].get("structuredContent", {})
                check("verify on the tool's capture", not r["result"].get("isError") and s.get("correct") is True,
                      json.dumps(r)[:3000])
        else:
            check("capture without a profile command is a tool error", tool_error(r) == "no-capture", json.dumps(r)[:2000])

        c.send_raw("{this is not json")
        bad = c.wait(None, None, timeout=10)
        check("malformed JSON is a parse error", bad is not None and bad.get("error", {}).get("code") == -32700, json.dumps(bad))
        r = c.request("tools/call", {"name": "no_such_tool", "arguments": {}}, timeout=30)
        check("an unknown tool is a protocol error", (r or {}).get("error", {}).get("code") == -32602, json.dumps(r))
    finally:
        rc = c.close()
    check("the server exits 0 when stdin closes", rc == 0, str(rc))
    return {"warplens": version, "frontend": frontend, "real_gpu": args.real_gpu,
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "steps": steps, "messages": c.messages}


def check_transcript(path, expect_device):
    t = json.load(open(path))
    failed = [s["step"] for s in t["steps"] if not s["ok"]]
    devices = set()
    for m in t["messages"]:
        sc = m.get("message", {}).get("result", {}).get("structuredContent", {})
        if isinstance(sc, dict) and sc.get("device"):
            devices.add(sc["device"])
    print("transcript %s: %d steps, %d failed %s; devices %s; %s" % (path, len(t["steps"]), len(failed), failed,
          sorted(devices), t.get("warplens")))
    if failed:
        return 1
    if expect_device and not any(expect_device in d for d in devices):
        print("no verdict from a device named %s" % expect_device)
        return 1
    need = ["initialize", "tools/list", "verify an honest candidate: correct", "verify an exploit: level -1",
            "apply_rewrite refuses the unverified candidate", "verify outside the root is refused"]
    missing = [n for n in need if n not in [s["step"] for s in t["steps"]]]
    if missing:
        print("steps missing: %s" % missing)
        return 1
    return 0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--warplens")
    p.add_argument("--workspace")
    p.add_argument("--cases")
    p.add_argument("--real-gpu", action="store_true")
    p.add_argument("--transcript")
    p.add_argument("--check")
    p.add_argument("--expect-device")
    a = p.parse_args()
    if a.check:
        if not os.path.exists(a.check):
            print("skipped: no recorded transcript at %s (tests/gpu/run_mcp_h200.sh records it)" % a.check)
            return 77
        return check_transcript(a.check, a.expect_device)
    t = run_session(a)
    if a.transcript:
        with open(a.transcript, "w") as f:
            json.dump(t, f, indent=1)
    failed = [s["step"] for s in t["steps"] if not s["ok"]]
    print("%d steps, %d failed" % (len(t["steps"]), len(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

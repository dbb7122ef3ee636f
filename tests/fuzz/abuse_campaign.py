#!/usr/bin/env python3
"""A re-runnable abuse campaign against the real warplens binary (issue 21).

Categories, each counted: malformed frames over stdio, mutated documents with
requests, a long edit session (RSS), cancellation storms, deep JSON, odd
response shapes, path tricks (devices, FIFOs, /proc, binaries), budgets
(macro bomb, huge files, long expressions), transport (stdout closed, listen
addresses), secrets in logs, workspace content that would run programs, and
the CLI. A finding is a crash (the server died of a signal or without being
asked to), a hang (no answer within the deadline), a leak (a secret in a log
or on stdout) or a program that ran without consent (a marker file).

  tests/fuzz/abuse_campaign.py [--binary build/bin/warplens] [--scale N] [--seed S] [--only CATEGORY]

Exit status 1 when anything was found. --scale multiplies the case counts
(1: about 3 minutes; the issue's campaign was about --scale 10).
"""
import argparse
import json
import os
import random
import re
import select
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEADLINE = 60.0


class Findings:
    def __init__(self):
        self.items = []
        self.counts = {}

    def case(self, category):
        self.counts.setdefault(category, [0, 0])[0] += 1

    def found(self, category, kind, detail):
        self.counts.setdefault(category, [0, 0])[1] += 1
        self.items.append((category, kind, detail))
        print("  FOUND %s (%s): %s" % (kind, category, detail[:300]), flush=True)


def frame(obj):
    body = obj if isinstance(obj, bytes) else json.dumps(obj, separators=(",", ":")).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Server:
    """One warplens process on pipes, with a minimal LSP client."""

    def __init__(self, binary, args=(), env=None, cwd=None):
        self.p = subprocess.Popen([binary] + list(args), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, env=env, cwd=cwd)
        self.buf = b""
        self.messages = []
        self.err = b""
        self.next_id = 1000
        for f in (self.p.stdout, self.p.stderr):
            os.set_blocking(f.fileno(), False)

    def send(self, data):
        try:
            self.p.stdin.write(data)
            self.p.stdin.flush()
            return True
        except (BrokenPipeError, OSError):
            return False

    def pump(self, wait):
        fds = [f for f in (self.p.stdout, self.p.stderr) if not f.closed]
        r, _, _ = select.select(fds, [], [], wait)
        for f in r:
            try:
                chunk = os.read(f.fileno(), 1 << 20)
            except BlockingIOError:
                continue
            if f is self.p.stderr:
                self.err += chunk[-100000:]
                continue
            self.buf += chunk
        while True:
            head = self.buf.find(b"\r\n\r\n")
            if head < 0:
                break
            n = None
            for line in self.buf[:head].split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    n = int(line.split(b":")[1])
            if n is None or len(self.buf) < head + 4 + n:
                break
            body = self.buf[head + 4:head + 4 + n]
            self.buf = self.buf[head + 4 + n:]
            try:
                self.messages.append(json.loads(body))
            except ValueError:
                self.messages.append({"unparsable": body[:200].decode(errors="replace")})

    def request(self, method, params, deadline=DEADLINE):
        self.next_id += 1
        i = self.next_id
        if not self.send(frame({"jsonrpc": "2.0", "id": i, "method": method, "params": params})):
            return None
        return self.wait_id(i, deadline)

    def wait_id(self, i, deadline=DEADLINE):
        end = time.time() + deadline
        while time.time() < end:
            for m in self.messages:
                if m.get("id") == i and "method" not in m:
                    return m
                if m.get("method") in ("workspace/configuration", "window/workDoneProgress/create") and "id" in m \
                        and not m.get("_answered"):
                    m["_answered"] = True
                    self.send(frame({"jsonrpc": "2.0", "id": m["id"], "result": None if "create" in m["method"] else [{}]}))
            if self.p.poll() is not None:
                self.pump(0)
                return None
            self.pump(0.05)
        return None

    def notify(self, method, params):
        return self.send(frame({"jsonrpc": "2.0", "method": method, "params": params}))

    def initialize(self, options=None):
        params = {"processId": None, "rootUri": None, "capabilities": {"window": {"workDoneProgress": True}}}
        if options is not None:
            params["initializationOptions"] = options
        r = self.request("initialize", params)
        self.notify("initialized", {})
        return r

    def alive(self):
        # An answer is an answer: before `initialize` the right one is the
        # error ServerNotInitialized (-32002), not a result.
        r = self.request("workspace/executeCommand", {"command": "warplens.listJobs"}, deadline=DEADLINE)
        return r is not None and ("result" in r or "error" in r)

    def close(self, expect_clean=True):
        code = None
        if self.p.poll() is None:
            r = self.request("shutdown", None, deadline=20)
            self.notify("exit", None)
            try:
                code = self.p.wait(20)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
                return "hang: did not exit after shutdown/exit"
            if r is None:
                return "no answer to shutdown"
        else:
            code = self.p.returncode
        self.pump(0)
        if code is not None and code < 0:
            return "killed by signal %d" % -code
        if expect_clean and code != 0:
            return "exit code %s after shutdown: %s" % (code, self.err[-400:].decode(errors="replace"))
        return None

    def rss_kib(self):
        try:
            with open("/proc/%d/status" % self.p.pid) as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1])
        except OSError:
            return 0
        return 0


def check_server(fnd, cat, s, label):
    if s.p.poll() is not None:
        fnd.found(cat, "crash", "%s: the server exited (%s): %s" % (label, s.p.returncode, s.err[-300:]))
        return False
    if not s.alive():
        fnd.found(cat, "hang", "%s: no answer to listJobs within %d s" % (label, DEADLINE))
        return False
    return True


def finish(fnd, cat, s, label):
    why = s.close()
    if why:
        fnd.found(cat, "crash" if "signal" in why else "hang", "%s: %s" % (label, why))


def examples():
    out = []
    for base in ("examples", "tests/corpus"):
        d = os.path.join(ROOT, base)
        for n in sorted(os.listdir(d)):
            if n.endswith(".cu"):
                with open(os.path.join(d, n), errors="replace") as f:
                    out.append(f.read())
    return out


def mutate(rng, text):
    b = list(text)
    for _ in range(rng.randint(1, 12)):
        op = rng.random()
        i = rng.randrange(len(b) + 1)
        if op < 0.3 and b:
            del b[min(i, len(b) - 1):min(i + rng.randint(1, 40), len(b))]
        elif op < 0.6:
            b[i:i] = list(rng.choice(["(", ")", "{", "}", "<<<", ">>>", "dim3 b(32, nope);", "__shared__", "[", "]",
                                      "#include \"/dev/stdin\"\n", "threadIdx.x", "*", "-", "+ 1" * 50, "\\", "\"",
                                      "#define A A A\n", "template<", "\x00", "\u00e9", "\U0001F600"]))
        elif b:
            j = rng.randrange(len(b))
            b[j] = chr(rng.randrange(32, 127))
    return "".join(b)


# ----------------------------------------------------------------------------- categories

def cat_malformed_frames(fnd, binary, rng, scale):
    cat = "malformed frames"
    garbage = [b"hello\r\n\r\n", b"Content-Length: nine\r\n\r\n", b"Content-Length: 99999999999999999999\r\n\r\n",
               b"Content-Length: -1\r\n\r\n", b"Content-Length: 3\r\nContent-Length: 4\r\n\r\nabc",
               frame(b"{"), frame(b"[1,2]"), frame(b"null"), frame(b'"str"'), frame(b'{"jsonrpc":"1.0","id":1}'),
               frame(b'{"jsonrpc":"2.0","id":{},"method":"x"}'), frame(b'{"jsonrpc":"2.0","id":1.5,"method":"x"}'),
               frame(b'{"jsonrpc":"2.0","id":1,"method":5}'), frame(b'{"jsonrpc":"2.0","id":1,"method":"x","params":5}'),
               frame(b'{"jsonrpc":"2.0","id":1,"result":1}'), frame(b'{"jsonrpc":"2.0","method":"textDocument/didOpen","params":[]}'),
               frame(b'{"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":5}}'),
               frame(b'{"jsonrpc":"2.0","id":3,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///x"},"position":{"line":4294967296,"character":0}}}'),
               frame('{"jsonrpc":"2.0","id":4,"method":"x","params":{"s":"\ud800"}}'.encode("utf-8", "surrogatepass")),
               b"\x00" * 100, bytes(range(256)), b"\r\n" * 1000]
    for conn in range(max(4, 6 * scale)):
        fnd.case(cat)
        s = Server(binary)
        if conn % 2:
            s.initialize()
        sent = b""
        for _ in range(rng.randint(5, 40)):
            g = rng.choice(garbage)
            if rng.random() < 0.3:
                g = bytes(rng.randrange(256) if rng.random() < 0.05 else c for c in g)
            s.send(g)
            sent += g
        if s.p.poll() is None and not s.alive():
            # A mutated header can declare a body longer than what follows
            # ("Content-Length: 145\r" became "1453\n"): the server rightly
            # reads the next bytes, our listJobs included, as that body. Pad
            # up to the longest length declared (the framer skips junk up to
            # the next header) and ask again: no answer then is a hang.
            declared = [int(n) for n in re.findall(rb"content-length:[ \t]*(\d{1,7})", sent, re.I)]
            s.send(b" " * min(max(declared, default=0), 1 << 21))
        if check_server(fnd, cat, s, "connection %d" % conn):
            if conn % 2 == 0:
                s.initialize()
            finish(fnd, cat, s, "connection %d" % conn)


def cat_response_shapes(fnd, binary, rng, scale):
    cat = "odd responses"
    fnd.case(cat)
    s = Server(binary)
    for msg in ["5", "null", "[]", "{}", "true", "1.5", '"x"']:
        s.send(frame(('{"jsonrpc":"2.0","id":"zz","error":{"code":1,"message":%s}}' % msg).encode()))
        s.send(frame(('{"jsonrpc":"2.0","id":7,"error":{"code":%s,"message":"m"}}' % msg).encode()))
        s.send(frame(('{"jsonrpc":"2.0","id":%s,"result":null}' % msg).encode()))
    s.initialize()
    for msg in ["5", "null", "[]", "{}", "true", "1.5"]:
        s.send(frame(('{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":%s}}' % msg).encode()))
    if check_server(fnd, cat, s, "after odd responses"):
        finish(fnd, cat, s, "odd responses")


def cat_deep_json(fnd, binary, rng, scale):
    cat = "deep JSON"
    deep_obj = b'{"a":' * 100000 + b"1" + b"}" * 100000
    deep_arr = b"[" * 300000 + b"]" * 300000
    for level in ("info", "trace"):
        fnd.case(cat)
        s = Server(binary, ["--log-level", level, "--log-file", os.devnull])
        s.send(frame(b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"capabilities":' + deep_obj + b"}}"))
        s.wait_id(1)
        s.initialize()
        for body in [b'{"jsonrpc":"2.0","id":2,"method":"workspace/executeCommand","params":{"command":"warplens.listJobs","arguments":' + deep_arr + b"}}",
                     b'{"jsonrpc":"2.0","method":"workspace/didChangeConfiguration","params":{"settings":' + deep_obj + b"}}",
                     b'{"jsonrpc":"2.0","id":3,"method":"codeAction/resolve","params":{"title":"x","data":' + deep_obj + b"}}",
                     b'{"jsonrpc":"2.0","id":4,"result":' + deep_arr + b"}"]:
            s.send(frame(body))
        if check_server(fnd, cat, s, "deep JSON at %s" % level):
            finish(fnd, cat, s, "deep JSON at %s" % level)


def cat_documents(fnd, binary, rng, scale):
    cat = "mutated documents"
    texts = examples()
    s = Server(binary, ["--debounce-ms", "0", "--no-resource-usage"])
    s.initialize()
    for n in range(25 * scale):
        fnd.case(cat)
        text = mutate(rng, rng.choice(texts))
        uri = "file:///tmp/warplens-abuse/doc%d.cu" % (n % 7)
        s.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "cuda", "version": n + 1, "text": text}})
        lines = text.count("\n") + 1
        for _ in range(4):
            pos = {"line": rng.randrange(lines + 3), "character": rng.randrange(120)}
            td = {"uri": uri}
            method, params = rng.choice([
                ("textDocument/hover", {"textDocument": td, "position": pos}),
                ("textDocument/codeAction", {"textDocument": td, "range": {"start": pos, "end": pos}, "context": {"diagnostics": []}}),
                ("textDocument/codeLens", {"textDocument": td}),
                ("workspace/executeCommand", {"command": "warplens.report", "arguments": [{"uri": uri}]}),
            ])
            if s.request(method, params) is None:
                # Keep the input: without it a finding cannot be reproduced.
                kept = os.path.join(tempfile.gettempdir(), "warplens-abuse-finding-%d-%d.cu" % (os.getpid(), n))
                with open(kept, "w", errors="replace") as f:
                    f.write(text)
                fnd.found(cat, "crash" if s.p.poll() is not None else "hang",
                          "%s on a mutated document (kept in %s, exit %s): no answer (%s)" %
                          (method, kept, s.p.poll(), s.err[-300:]))
                if s.p.poll() is not None:
                    s = Server(binary, ["--debounce-ms", "0", "--no-resource-usage"])
                    s.initialize()
                break
        s.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    if check_server(fnd, cat, s, "after mutated documents"):
        finish(fnd, cat, s, "mutated documents")


def cat_edit_session(fnd, binary, rng, scale):
    cat = "edit session"
    fnd.case(cat)
    s = Server(binary, ["--debounce-ms", "0", "--no-resource-usage"])
    s.initialize()
    text = examples()[0]
    uri = "file:///tmp/warplens-abuse/edit.cu"
    s.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "cuda", "version": 1, "text": text}})
    s.request("workspace/executeCommand", {"command": "warplens.listJobs"})
    edits = 500 * scale
    rss = []
    for v in range(2, edits + 2):
        ch = rng.choice(["x", " ", "\n", ";"])
        s.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": v},
                                            "contentChanges": [{"range": {"start": {"line": 1, "character": 0},
                                                                          "end": {"line": 1, "character": 0}},
                                                                "text": ch}]})
        if v % 100 == 0:
            if s.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}) is None:
                fnd.found(cat, "hang", "hover after %d edits" % v)
                break
            rss.append(s.rss_kib())
    if len(rss) >= 4 and rss[-1] > 2 * max(rss[1], 1) + 200000:
        fnd.found(cat, "leak", "RSS grew from %d to %d KiB over %d edits" % (rss[1], rss[-1], edits))
    print("  RSS over the edit session (KiB): %s" % rss[:3] + (" ... %s" % rss[-1] if rss else ""))
    if check_server(fnd, cat, s, "edit session"):
        finish(fnd, cat, s, "edit session")


def cat_cancel_storm(fnd, binary, rng, scale):
    cat = "cancellation storms"
    fnd.case(cat)
    s = Server(binary, ["--debounce-ms", "0", "--no-resource-usage"])
    s.initialize()
    uri = "file:///tmp/warplens-abuse/cancel.cu"
    s.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "cuda", "version": 1, "text": examples()[1]}})
    first = s.next_id + 1
    for i in range(200 * scale):
        s.next_id += 1
        s.send(frame({"jsonrpc": "2.0", "id": s.next_id, "method": "textDocument/hover",
                      "params": {"textDocument": {"uri": uri}, "position": {"line": i % 20, "character": 3}}}))
        s.notify("$/cancelRequest", {"id": s.next_id - rng.randrange(3)})
    last = s.next_id
    for i in range(first, last + 1):
        if s.wait_id(i, 30) is None:
            fnd.found(cat, "hang", "request %d of a cancellation storm was never answered" % i)
            break
    if check_server(fnd, cat, s, "cancellation storm"):
        finish(fnd, cat, s, "cancellation storm")


def cat_paths(fnd, binary, rng, scale, tmp):
    cat = "path tricks"
    fifo = os.path.join(tmp, "fifo.h")
    os.mkfifo(fifo)
    s = Server(binary, ["--debounce-ms", "0", "--no-resource-usage"])
    s.initialize()
    for inc in ["/dev/stdin", "/proc/self/fd/0", "/dev/zero", "/dev/urandom", fifo, "/proc/self/exe", "/proc/self/status",
                "/proc/kmsg", "/sys/kernel/mm/transparent_hugepage/enabled", tmp, "/dev/tty"]:
        fnd.case(cat)
        uri = "file://%s/inc%d.cu" % (tmp, fnd.counts[cat][0])
        text = '#include "%s"\n__global__ void k(float* a) { a[0] = 1; }\n' % inc
        s.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "cuda", "version": 1, "text": text}})
        r = s.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 17}}, deadline=90)
        if r is None:
            fnd.found(cat, "crash" if s.p.poll() is not None else "hang", "#include \"%s\": no answer" % inc)
            s = Server(binary, ["--debounce-ms", "0", "--no-resource-usage"])
            s.initialize()
    for target in ["/dev/zero", fifo, "/proc/self/mem"]:
        fnd.case(cat)
        uri = "file://" + target
        s.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "cuda", "version": 1,
                                                           "text": "__global__ void k(float* a) { a[0] = 1; }\n"}})
        for cmd, arg in [("warplens.optimize", {"uri": uri, "kernel": "k"}), ("warplens.profile", {"uri": uri}),
                         ("warplens.profile", {"uri": uri, "profileFile": target}),
                         ("warplens.profile", {"uri": uri, "profileFile": "/etc/passwd"})]:
            r = s.request("workspace/executeCommand", {"command": cmd, "arguments": [arg]}, deadline=90)
            if r is None:
                fnd.found(cat, "hang", "%s %s: no answer" % (cmd, json.dumps(arg)))
                break
            if "root:" in json.dumps(r) or "last read" in json.dumps(r):
                fnd.found(cat, "leak", "%s quoted the file: %s" % (cmd, json.dumps(r)[:200]))
    if check_server(fnd, cat, s, "path tricks"):
        finish(fnd, cat, s, "path tricks")


def cat_budgets(fnd, binary, rng, scale, tmp):
    cat = "budgets"
    bomb = open(os.path.join(ROOT, "tests/fixtures/robustness/macro_bomb.cu")).read()
    cases = [("macro bomb", bomb),
             ("30,000-term sum", "__global__ void k(float* a) { a[0] = 1" + " + 1" * 30000 + "; }\n"),
             ("1,000,000-term sum", "__global__ void k(float* a) { a[0] = 1" + "+1" * 1000000 + "; }\n"),
             ("200,000 unary minus", "__global__ void k(int* a) { a[0] = " + "- " * 200000 + "1; }\n"),
             ("100,000 nested parens", "int x = " + "(" * 100000 + "1" + ")" * 100000 + ";\n"),
             ("100,000 nested ifs", "void f(int c) { " + "if (c) " * 100000 + "; }\n"),
             ("100,000 nested templates", "template <class T> struct A {};\nA<" * 1 + "A<" * 20000 + "int" + ">" * 20001 + " x;\n"),
             ("5 MiB file", "__global__ void k(float* a) { a[0] = 1; }\n" + "// " + "x" * 80 + "\n" * 1 * 70000),
             ("ELF text", "\x7fELF\x02\x01\x01" + "\x00" * 64 + "{ ( int")]
    for name, text in cases:
        fnd.case(cat)
        s = Server(binary, ["--debounce-ms", "0", "--no-resource-usage"])
        s.initialize()
        uri = "file://%s/budget.cu" % tmp
        t0 = time.time()
        s.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "cuda", "version": 1, "text": text}})
        # Past the analysis' own 120 s time limit, whose "too large to
        # analyse" answer counts (and is reported below as slow).
        r = s.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}, deadline=180)
        dt = time.time() - t0
        peak = s.rss_kib()
        if r is None:
            fnd.found(cat, "crash" if s.p.poll() is not None else "hang", "%s: no answer (%s)" % (name, s.err[-300:]))
            if s.p.poll() is None:
                s.p.kill()
            continue
        print("  %-26s answered in %5.1f s, RSS %d MiB" % (name, dt, peak // 1024))
        if dt > 90:
            fnd.found(cat, "hang", "%s took %.0f s" % (name, dt))
        finish(fnd, cat, s, name)


def cat_transport(fnd, binary, rng, scale):
    cat = "transport"
    fnd.case(cat)
    s = Server(binary)
    s.initialize()
    s.p.stdout.close()
    try:
        code = s.p.wait(20)
        if code < 0:
            fnd.found(cat, "crash", "closing stdout: killed by signal %d" % -code)
    except subprocess.TimeoutExpired:
        fnd.found(cat, "hang", "closing only the server's stdout left it running")
        s.p.kill()
        s.p.wait()
    fnd.case(cat)
    s = Server(binary)
    s.initialize()
    s.p.stdin.close()
    try:
        s.p.wait(20)
    except subprocess.TimeoutExpired:
        fnd.found(cat, "hang", "closing stdin left it running")
        s.p.kill()
    for addr in ["0.0.0.0:0", "[::]:0", "192.168.1.1:0", "8.8.8.8:0", "example.com:0", "127.0.0.1:99999", "127.0.0.1:-1",
                 "localhost", ":0", "[::1:0", "127.0.0.1:0:0", "", "\x00:0"]:
        fnd.case(cat)
        try:
            p = subprocess.run([binary, "serve", "--listen", addr], capture_output=True, timeout=10)
            if p.returncode != 2:
                fnd.found(cat, "crash" if p.returncode < 0 else "trust", "--listen %r exited %d" % (addr, p.returncode))
        except subprocess.TimeoutExpired:
            fnd.found(cat, "trust", "--listen %r was accepted (listening)" % addr)
        except ValueError:
            pass


def cat_secrets(fnd, binary, rng, scale, tmp):
    cat = "secrets"
    secrets = ["sk-abuse-ENVKEY-123456", "abuse-URLPW-secret", "abuse-URLUSER", "ghp_abuse-TOKEN", "sk-abuse-BODY",
               "abuse-BODYPW", "abuse-HFTOKEN-99"]
    env = dict(os.environ, WARPLENS_LLM_API_KEY=secrets[0], HF_TOKEN=secrets[6])
    for level in ("info", "debug", "trace"):
        fnd.case(cat)
        log = os.path.join(tmp, "secrets-%s.log" % level)
        s = Server(binary, ["--log-level", level, "--log-file", log, "--no-resource-usage"], env=env)
        s.initialize({"warplens": {"llm": {"endpoint": "http://%s:%s@127.0.0.1:9/v1" % (secrets[2], secrets[1]),
                                           "model": "m"}, "token": secrets[3]}})
        s.send(frame(('{"jsonrpc":"2.0","method":"x","params":{"apiKey":"%s","password":"%s' % (secrets[4], secrets[5])).encode()))
        s.notify("workspace/didChangeConfiguration", {"settings": {"warplens": {"token": secrets[3], "apiKey": secrets[4]}}})
        s.request("workspace/executeCommand", {"command": "warplens.optimize", "arguments": [{"uri": "file:///nope.cu", "kernel": "k"}]})
        out = s.buf + b"".join(json.dumps(m).encode() for m in s.messages)
        finish(fnd, cat, s, "secrets at %s" % level)
        text = open(log, errors="replace").read() + s.err.decode(errors="replace")
        for secret in secrets:
            if secret in text:
                fnd.found(cat, "leak", "%s in the %s log" % (secret, level))
        for secret in secrets[:1] + secrets[6:]:
            if secret.encode() in out:
                fnd.found(cat, "leak", "%s sent to the client" % secret)


def cat_trust(fnd, binary, rng, scale, tmp):
    cat = "workspace programs"
    ws = os.path.join(tmp, "ws")
    os.makedirs(os.path.join(ws, "tools"))
    os.makedirs(os.path.join(ws, "cuda", "bin"))
    marker = os.path.join(tmp, "program-ran")
    for path in (os.path.join(ws, "tools", "cc"), os.path.join(ws, "cuda", "bin", "nvcc"), os.path.join(ws, "tools", "as")):
        with open(path, "w") as f:
            f.write("#!/bin/sh\necho %s >> %s\nexit 1\n" % (path, marker))
        os.chmod(path, 0o755)
    src = os.path.join(ws, "k.cu")
    with open(src, "w") as f:
        f.write("__global__ void k(float* a) { a[threadIdx.x] = 1; }\n")
    commands = ["nvcc -ccbin ./tools/cc -c k.cu", "nvcc --compiler-bindir=tools -c k.cu", "nvcc -ccbin tools/cc -c k.cu",
                "nvcc -Xcompiler -B./tools -c k.cu", "nvcc --compiler-options=-fplugin=./tools/cc -c k.cu",
                "clang++ -fplugin=./tools/cc -Xclang -load -Xclang ./tools/cc -x cuda -c k.cu",
                "./tools/cc -c k.cu", "nvcc --options-file tools/cc -c k.cu"]
    for command in commands:
        fnd.case(cat)
        with open(os.path.join(ws, "compile_commands.json"), "w") as f:
            json.dump([{"directory": ws, "command": command, "file": src}], f)
        p = subprocess.run([binary, "check", src], capture_output=True, timeout=300)
        if p.returncode < 0:
            fnd.found(cat, "crash", "check with %r: signal %d" % (command, -p.returncode))
        if os.path.exists(marker):
            fnd.found(cat, "trust", "check with %r ran %s" % (command, open(marker).read().strip()))
            os.remove(marker)
    fnd.case(cat)
    s = Server(binary, ["--debounce-ms", "0"])
    s.initialize({"warplens": {"cudaPath": os.path.join(ws, "cuda"), "compileCommandsDir": ws}})
    s.notify("textDocument/didOpen", {"textDocument": {"uri": "file://" + src, "languageId": "cuda", "version": 1,
                                                       "text": open(src).read()}})
    time.sleep(8)
    s.request("workspace/executeCommand", {"command": "warplens.reanalyze", "arguments": [{}]})
    time.sleep(4)
    finish(fnd, cat, s, "server with cudaPath in the workspace")
    if os.path.exists(marker):
        fnd.found(cat, "trust", "the server ran %s" % open(marker).read().strip())


def cat_cli(fnd, binary, rng, scale, tmp):
    cat = "CLI"
    fifo = os.path.join(tmp, "cli.fifo")
    os.mkfifo(fifo)
    big = os.path.join(tmp, "big.cu")
    with open(big, "w") as f:
        f.write("// x\n" * (1300000))
    cases = [["check", "/dev/stdin"], ["check", "/dev/zero"], ["check", fifo], ["check", tmp], ["check", "/bin/true"],
             ["check", "/proc/self/status"], ["check", big], ["report", "/dev/zero"], ["report", "/bin/ls"],
             ["check", "--arch", "sm_", "x.cu"], ["check", "--format", "yaml", "x.cu"], ["check"],
             ["check", "--allow-driver", "relative/*", "x.cu"], ["--log-file", "/nonexistent/dir/x.log", "check", "x.cu"],
             ["--log-file", tmp, "check", "x.cu"], ["--log-file", "/dev/stdout", "check", "x.cu"],
             ["--log-level", "loud"], ["optimize", "--budget", "nan", "--kernel", "k", "x.cu"],
             ["optimize", "--budget", "-5", "--kernel", "k", "x.cu"], ["optimize", "--budget", "inf", "--kernel", "k", "x.cu"],
             ["optimize", "--max-candidates", "1e30", "--kernel", "k", "x.cu"], ["optimize", "--kernel", "k", "/dev/zero"],
             ["profile", "--show", "/dev/zero"], ["profile", "--show", "/etc/passwd"], ["serve", "--jobs", "0"],
             ["serve", "--max-message-bytes", "1"], ["serve", "--debounce-ms", "99999999999999999999"], ["nonsense"],
             ["--version"], ["--help"], ["check", "--help"]]
    for args in cases:
        fnd.case(cat)
        try:
            p = subprocess.run([binary] + args, capture_output=True, timeout=120, stdin=subprocess.PIPE, cwd=tmp)
        except subprocess.TimeoutExpired:
            fnd.found(cat, "hang", "warplens %s" % " ".join(args))
            continue
        if p.returncode < 0:
            fnd.found(cat, "crash", "warplens %s: signal %d" % (" ".join(args), -p.returncode))
        elif p.returncode not in (0, 1, 2):
            fnd.found(cat, "crash", "warplens %s: exit %d" % (" ".join(args), p.returncode))
        if len(p.stdout) + len(p.stderr) > 1 << 20:
            fnd.found(cat, "flood", "warplens %s printed %d bytes" % (" ".join(args), len(p.stdout) + len(p.stderr)))
        if b"root:" in p.stdout + p.stderr:
            fnd.found(cat, "leak", "warplens %s printed /etc/passwd" % " ".join(args))
        if "--budget" in args and p.returncode != 2:
            fnd.found(cat, "accepted", "warplens %s was accepted" % " ".join(args))
    if os.path.exists("/nonexistent/dir"):
        fnd.found(cat, "trust", "--log-file created /nonexistent/dir")


CATEGORIES = {
    "frames": cat_malformed_frames, "responses": cat_response_shapes, "deep": cat_deep_json,
    "documents": cat_documents, "edits": cat_edit_session, "cancel": cat_cancel_storm,
    "paths": cat_paths, "budgets": cat_budgets, "transport": cat_transport, "secrets": cat_secrets,
    "trust": cat_trust, "cli": cat_cli,
}
NEEDS_TMP = {"paths", "budgets", "secrets", "trust", "cli"}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "bin", "warplens"))
    ap.add_argument("--scale", type=int, default=1)
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--only", action="append", choices=sorted(CATEGORIES))
    args = ap.parse_args()
    # The CLI cases run in a scratch directory: a relative path would not be found there.
    args.binary = os.path.abspath(args.binary)
    if not os.access(args.binary, os.X_OK):
        print("abuse_campaign: no binary at %s (build first)" % args.binary, file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    fnd = Findings()
    t_all = time.time()
    for name in (args.only or list(CATEGORIES)):
        print("== %s" % name, flush=True)
        t0 = time.time()
        tmp = tempfile.mkdtemp(prefix="warplens-abuse-")
        try:
            fn = CATEGORIES[name]
            if name in NEEDS_TMP:
                fn(fnd, args.binary, rng, args.scale, tmp)
            else:
                fn(fnd, args.binary, rng, args.scale)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        print("   %.0f s" % (time.time() - t0), flush=True)
    print("\n%-22s %6s %6s" % ("category", "cases", "found"))
    for c, (n, f) in sorted(fnd.counts.items()):
        print("%-22s %6d %6d" % (c, n, f))
    kinds = {}
    for _, k, _ in fnd.items:
        kinds[k] = kinds.get(k, 0) + 1
    print("total: %d cases, %d findings %s in %.0f s" % (sum(n for n, _ in fnd.counts.values()), len(fnd.items),
                                                        json.dumps(kinds), time.time() - t_all))
    return 1 if fnd.items else 0


if __name__ == "__main__":
    sys.exit(main())

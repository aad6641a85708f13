#!/usr/bin/env python3
"""The language server's latency as an editor sees it (docs/lsp.md, bench/README.md).

A scripted client runs `vxc lsp` over pipes, opens a 5,000-line file
(bench/gen_vx.py) and types in one function: one keystroke-sized change at
a time (a character typed, then deleted), 200 changes. For each it measures
the time from sending `didChange` to the first `publishDiagnostics` of that
version. Then the same with a function that exhausts the checker's budget
(bench/lsp/budget_exhausting.vx, ~20 s, W6900) at the end of the file, the
edits made elsewhere. Then hover and completion requests. It prints p50/p95
of each, the server's peak memory (VmHWM), the memory of 100 open
documents (`--docs`), and the figures of `--sync` (every check on the
message thread, the whole file each time) for scale.

    bench/lsp.py [--vxc build/src/driver/vxc] [--lines 5000] [--edits 200]
"""
import argparse
import json
import os
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))


class Client:
    def __init__(self, cmd):
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL)
        self.lock = threading.Condition()
        self.published = {}  # (uri, version) -> first arrival time
        self.latest = {}     # uri -> diagnostics of the last publication
        self.replies = {}    # id -> (time, message)
        self.next_id = 1
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        out = self.p.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            body = json.loads(out.read(length))
            now = time.perf_counter()
            with self.lock:
                if body.get("method") == "textDocument/publishDiagnostics":
                    prm = body["params"]
                    key = (prm["uri"], prm.get("version"))
                    self.published.setdefault(key, now)
                    self.latest[prm["uri"]] = prm["diagnostics"]
                elif "id" in body and "method" not in body:
                    self.replies[body["id"]] = (now, body)
                self.lock.notify_all()

    def send(self, msg):
        data = json.dumps(msg).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        self.p.stdin.flush()

    def request(self, method, params):
        i = self.next_id
        self.next_id += 1
        t0 = time.perf_counter()
        self.send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        with self.lock:
            self.lock.wait_for(lambda: i in self.replies, timeout=120)
            t, body = self.replies[i]
        return t - t0, body

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait_published(self, uri, version, timeout=300):
        with self.lock:
            ok = self.lock.wait_for(lambda: (uri, version) in self.published, timeout=timeout)
            return self.published.get((uri, version)) if ok else None

    def peak_kib(self):
        with open("/proc/%d/status" % self.p.pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
        return 0

    def close(self):
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            self.p.wait(timeout=60)
        except Exception:
            self.p.kill()


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def ms(x):
    return "%.1f ms" % (x * 1000)


def position(text, offset):
    line = text.count("\n", 0, offset)
    col = offset - (text.rfind("\n", 0, offset) + 1)
    return {"line": line, "character": col}


def session(vxc, text, edit_at, edits, sync=False, queries=0, slow_at=None):
    """Opens `text`, types at `edit_at`; returns latencies and figures.
    With `slow_at`: then one edit there (in the slow function) and, at
    once, one at `edit_at`, timed to their first publications and to the
    end of the slow function's new check."""
    uri = "file:///bench/lsp.vx"
    cmd = [vxc, "lsp"] + (["--sync"] if sync else [])
    c = Client(cmd)
    c.request("initialize", {"capabilities": {"window": {"workDoneProgress": True}}})
    c.notify("initialized", {})
    t0 = time.perf_counter()
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "vx", "version": 1, "text": text}})
    opened = c.wait_published(uri, 1)
    first = (opened - t0) if opened else float("nan")
    lat = []
    version = 1
    pos = position(text, edit_at)
    for k in range(edits):
        version += 1
        if k % 2 == 0:
            change = {"range": {"start": pos, "end": pos}, "text": " "}
        else:
            end = dict(pos, character=pos["character"] + 1)
            change = {"range": {"start": pos, "end": end}, "text": ""}
        t = time.perf_counter()
        c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                            "contentChanges": [change]})
        got = c.wait_published(uri, version)
        lat.append((got - t) if got else float("inf"))
    hover, completion = [], []
    if queries:
        at = text.find("transfer_async", edit_at)
        hpos = position(text, at + 3)
        for _ in range(queries):
            dt, _ = c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": hpos})
            hover.append(dt)
            dt, _ = c.request("textDocument/completion", {"textDocument": {"uri": uri}, "position": hpos})
            completion.append(dt)
    slow = {}
    if slow_at is not None:
        def change(v, offset):
            p = position(text, offset)
            c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": v},
                                                "contentChanges": [{"range": {"start": p, "end": p}, "text": " "}]})
        # The typing above left the text as it was (every space deleted) when
        # `edits` is even.
        version += 1
        t = time.perf_counter()
        change(version, slow_at)
        got = c.wait_published(uri, version)
        slow["in_slow"] = got - t if got else float("inf")
        version += 1
        t = time.perf_counter()
        change(version, edit_at)
        got = c.wait_published(uri, version)
        slow["elsewhere"] = got - t if got else float("inf")
        dt, _ = c.request("shutdown", None)  # waits for the queued checks
        slow["final"] = dt
    peak = c.peak_kib()
    c.close()
    return {"first": first, "lat": lat, "hover": hover, "completion": completion, "peak": peak, "slow": slow}


def many_documents(vxc, n):
    """Opens `n` copies of examples/ring2.vx and returns the server's memory
    (KiB, VmRSS) before and after all were checked: what each open document
    costs (only the documents checked last keep a Z3 context)."""
    text = open(os.path.join(HERE, "..", "examples", "ring2.vx")).read()
    c = Client([vxc, "lsp"])
    c.request("initialize", {"capabilities": {}})
    c.notify("initialized", {})

    def rss():
        with open("/proc/%d/status" % c.p.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0
    before = rss()
    for i in range(n):
        c.notify("textDocument/didOpen", {"textDocument": {"uri": "file:///bench/doc%d.vx" % i, "languageId": "vx",
                                                           "version": 1, "text": text}})
    for i in range(n):
        c.wait_published("file:///bench/doc%d.vx" % i, 1)
    after = rss()
    c.close()
    return before, after


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--vxc", default=os.path.join(HERE, "..", "build", "src", "driver", "vxc"))
    ap.add_argument("--lines", type=int, default=5000)
    ap.add_argument("--edits", type=int, default=200)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--sync-edits", type=int, default=40)
    ap.add_argument("--no-slow", action="store_true", help="leave out the budget-exhausting function's runs")
    ap.add_argument("--docs", type=int, default=100, help="open documents for the memory figure (0: none)")
    a = ap.parse_args()
    text = subprocess.run([sys.executable, os.path.join(HERE, "gen_vx.py"), str(a.lines)],
                          check=True, capture_output=True, text=True).stdout
    # The edit goes into the kernel in the middle of the file, before its
    # first statement's first character.
    mid = text.find("\nfn ", len(text) // 2)
    mid = text.find("{\n", mid) + 2
    edit_at = mid + len(text[mid:]) - len(text[mid:].lstrip(" "))
    print("file: %d lines; %d edits in one function (line %d)" %
          (text.count("\n"), a.edits, text.count("\n", 0, edit_at) + 1))

    r = session(a.vxc, text, edit_at, a.edits, queries=a.queries)
    print("didChange -> publishDiagnostics: p50 %s, p95 %s, max %s (first check of the file: %s)" %
          (ms(pct(r["lat"], .5)), ms(pct(r["lat"], .95)), ms(max(r["lat"])), ms(r["first"])))
    print("hover: p50 %s, p95 %s; completion: p50 %s, p95 %s" %
          (ms(pct(r["hover"], .5)), ms(pct(r["hover"], .95)), ms(pct(r["completion"], .5)),
           ms(pct(r["completion"], .95))))
    print("peak memory: %.1f MiB" % (r["peak"] / 1024))

    slow = open(os.path.join(HERE, "lsp", "budget_exhausting.vx")).read()
    full = text + "\n" + slow
    slow_at = full.find("{\n", full.find("fn slow(")) + 2
    r2 = session(a.vxc, full, edit_at, a.edits + a.edits % 2, slow_at=slow_at) if not a.no_slow else None
    if r2:
        print("with a budget-exhausting function in the file: p50 %s, p95 %s, max %s "
              "(first check of the file: %s); peak memory %.1f MiB" %
              (ms(pct(r2["lat"], .5)), ms(pct(r2["lat"], .95)), ms(max(r2["lat"])), ms(r2["first"]),
               r2["peak"] / 1024))
        print("an edit in the budget-exhausting function: first publication %s (the others' diagnostics, its "
              "previous ones); then an edit elsewhere: %s; its own new result after %s" %
              (ms(r2["slow"]["in_slow"]), ms(r2["slow"]["elsewhere"]), ms(r2["slow"]["final"])))

    if a.docs:
        before, after = many_documents(a.vxc, a.docs)
        print("%d open documents (examples/ring2.vx): memory %.1f -> %.1f MiB, %.2f MiB a document" %
              (a.docs, before / 1024, after / 1024, (after - before) / 1024 / a.docs))

    if a.sync_edits:
        r3 = session(a.vxc, text, edit_at, a.sync_edits, sync=True)
        print("--sync (legality on the message thread too), %d edits: p50 %s, p95 %s; "
              "p50 ratio sync/background %.1fx" %
              (a.sync_edits, ms(pct(r3["lat"], .5)), ms(pct(r3["lat"], .95)),
               pct(r3["lat"], .5) / pct(r["lat"], .5)))


if __name__ == "__main__":
    main()

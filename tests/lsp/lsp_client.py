"""A client of `vxc lsp` for the tests of tests/lsp: the server as an
editor starts it (its own cache folder), a thread reading its messages into
`seen` as (time, message) under `lock`, and framed sends."""
import json
import os
import subprocess
import sys
import tempfile
import threading
import time


class Client:
    """`answer`: how the client answers the server's requests
    (`window/workDoneProgress/create`, `workspace/inlayHint/refresh`, ...):
    "result" (null, as editors do), "error", or None (never)."""

    def __init__(self, vxc, stderr=subprocess.DEVNULL, answer="result"):
        env = dict(os.environ, XDG_CACHE_HOME=tempfile.mkdtemp())
        self.p = subprocess.Popen([vxc, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                                  env=env)
        self.seen = []
        self.lock = threading.Condition()
        self.answer = answer
        self.send_lock = threading.Lock()
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        while True:
            length = None
            while True:
                line = self.p.stdout.readline()
                if not line:
                    return
                if not line.strip():
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            if length is None:
                return
            m = json.loads(self.p.stdout.read(length))
            with self.lock:
                self.seen.append((time.perf_counter(), m))
                self.lock.notify_all()
            if "method" in m and "id" in m and self.answer is not None:
                reply = {"jsonrpc": "2.0", "id": m["id"]}
                if self.answer == "error":
                    reply["error"] = {"code": -32603, "message": "refused by the test client"}
                else:
                    reply["result"] = None
                try:
                    self.send(reply)
                except (BrokenPipeError, ValueError):
                    return

    def send(self, m):
        data = json.dumps(m).encode()
        with self.send_lock:
            self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
            self.p.stdin.flush()

    def wait(self, pred, timeout):
        with self.lock:
            self.lock.wait_for(lambda: [x for x in self.seen if pred(x[1])], timeout=timeout)
            return [x for x in self.seen if pred(x[1])]

    def response(self, rid, timeout):
        got = self.wait(lambda m: m.get("id") == rid and "method" not in m, timeout)
        return got[0] if got else None

    def close(self):
        self.send({"jsonrpc": "2.0", "id": 999, "method": "shutdown"})
        self.send({"jsonrpc": "2.0", "method": "exit"})
        try:
            self.p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.p.kill()

    def exit(self):
        """`exit` after a `shutdown` answered, and the server's end."""
        self.send({"jsonrpc": "2.0", "method": "exit"})
        self.p.wait(timeout=30)


def report(failures, ok):
    """Prints each failure and exits 1, or prints `ok: ...`."""
    for f in failures:
        print("FAIL:", f)
    if failures:
        sys.exit(1)
    print("ok:", ok)

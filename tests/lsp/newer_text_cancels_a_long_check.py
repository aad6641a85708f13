#!/usr/bin/env python3
"""A newer text cancels the check of an older one that runs long, and a
long check reports work-done progress (ctest lsp.cancel).

`vxc lsp` runs as an editor starts it; the client takes work-done
progress. It opens bench/lsp/budget_exhausting.vx, whose check takes about
20 s of solver work, waits a second, and replaces the text with a clean
program. The new version's diagnostics must come within a few seconds
(the old check was abandoned), the old version's never; while the old one
ran, a progress was created, begun naming the function being analysed
(`slow`), and ended.

    newer_text_cancels_a_long_check.py VXC SOURCE_ROOT
"""
import json
import os
import subprocess
import sys
import tempfile
import threading
import time


def main():
    vxc, root = sys.argv[1], sys.argv[2]
    slow = open(os.path.join(root, "bench/lsp/budget_exhausting.vx")).read()
    clean = open(os.path.join(root, "tests/examples/ok/stream.vx")).read()
    env = dict(os.environ, XDG_CACHE_HOME=tempfile.mkdtemp())
    p = subprocess.Popen([vxc, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         env=env)
    seen = []  # (time, message)
    lock = threading.Condition()

    def read():
        while True:
            length = None
            while True:
                line = p.stdout.readline()
                if not line:
                    return
                if not line.strip():
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            m = json.loads(p.stdout.read(length))
            with lock:
                seen.append((time.perf_counter(), m))
                lock.notify_all()

    threading.Thread(target=read, daemon=True).start()

    def send(m):
        data = json.dumps(m).encode()
        p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        p.stdin.flush()

    uri = "file:///slow.vx"
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
          "params": {"capabilities": {"window": {"workDoneProgress": True}}}})
    send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
          "params": {"textDocument": {"uri": uri, "languageId": "vx", "version": 1, "text": slow}}})
    time.sleep(1.0)
    t0 = time.perf_counter()
    send({"jsonrpc": "2.0", "method": "textDocument/didChange",
          "params": {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": clean}]}})

    def published(v):
        return [t for t, m in seen if m.get("method") == "textDocument/publishDiagnostics"
                and m["params"].get("version") == v]

    with lock:
        lock.wait_for(lambda: published(2), timeout=15)
        got = published(2)
    send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    send({"jsonrpc": "2.0", "method": "exit"})
    p.wait(timeout=60)
    if not got:
        sys.exit("FAIL: version 2 was not published within 15 s: the long check was not cancelled")
    print("version 2 published %.0f ms after its change" % ((got[0] - t0) * 1000))
    if published(1):
        sys.exit("FAIL: the cancelled version 1 was published")
    progress = [m for _, m in seen if m.get("method") == "$/progress"]
    creates = [m for _, m in seen if m.get("method") == "window/workDoneProgress/create"]
    kinds = [m["params"]["value"]["kind"] for m in progress]
    print("progress:", [(m["params"]["value"]["kind"], m["params"]["value"].get("message")) for m in progress])
    if not creates or not kinds or kinds[0] != "begin" or "end" not in kinds:
        sys.exit("FAIL: no work-done progress begun and ended for the long check")
    if "`slow`" not in progress[0]["params"]["value"].get("message", ""):
        sys.exit("FAIL: the progress does not name the function being analysed")
    if p.returncode != 0:
        sys.exit("FAIL: vxc lsp exited %d" % p.returncode)
    print("ok")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""A newer text cancels the check of an older one that runs long, and a
long check reports work-done progress (ctest lsp.cancel).

`vxc lsp` runs as an editor starts it; the client takes work-done
progress. It opens bench/lsp/budget_exhausting.vx, whose check takes about
10 s of solver work, waits a second, and replaces the text with a clean
program. The new version's diagnostics must come within a few seconds
(the old check was abandoned), the old version's never; while the old one
ran, a progress was created, begun naming the function being analysed
(`slow`), and ended. Then a second document holds that function and one
with an E6003; an edit in the other function a second into the first check
(which it cancels) is published within seconds with the E6003: the slow
function, interrupted past 300 ms, is left for a second run.

    newer_text_cancels_a_long_check.py VXC SOURCE_ROOT
"""
import os
import sys
import time

from lsp_client import Client


def main():
    vxc, root = sys.argv[1], sys.argv[2]
    slow = open(os.path.join(root, "bench/lsp/budget_exhausting.vx")).read()
    clean = open(os.path.join(root, "tests/examples/ok/stream.vx")).read()
    c = Client(vxc)
    p, seen, lock, send = c.p, c.seen, c.lock, c.send

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

    mixed = slow + "\n" + open(os.path.join(root, "tests/examples/bad/dropped.vx")).read()
    uri2 = "file:///mixed.vx"
    send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
          "params": {"textDocument": {"uri": uri2, "languageId": "vx", "version": 1, "text": mixed}}})
    time.sleep(1.0)
    line = mixed[:mixed.find("let mut inflight")].count("\n")
    t1 = time.perf_counter()
    send({"jsonrpc": "2.0", "method": "textDocument/didChange",
          "params": {"textDocument": {"uri": uri2, "version": 2},
                     "contentChanges": [{"range": {"start": {"line": line, "character": 0},
                                                   "end": {"line": line, "character": 0}}, "text": " "}]}})

    def published2(v):
        return [(t, m) for t, m in seen if m.get("method") == "textDocument/publishDiagnostics"
                and m["params"]["uri"] == uri2 and m["params"].get("version") == v]

    with lock:
        lock.wait_for(lambda: published2(2), timeout=10)
        got2 = published2(2)
    # An edit in the slow function, then, before its new analysis has run
    # 300 ms, an edit elsewhere: the second is published at once (the slow
    # function, interrupted early this time, is still slow).
    slow_line = mixed[:mixed.find("matmul_acc(wait(t))")].count("\n")
    t2 = time.perf_counter()
    send({"jsonrpc": "2.0", "method": "textDocument/didChange",
          "params": {"textDocument": {"uri": uri2, "version": 3},
                     "contentChanges": [{"range": {"start": {"line": slow_line, "character": 0},
                                                   "end": {"line": slow_line, "character": 0}}, "text": " "}]}})
    with lock:
        lock.wait_for(lambda: published2(3), timeout=10)
        got3 = published2(3)
    t3 = time.perf_counter()
    send({"jsonrpc": "2.0", "method": "textDocument/didChange",
          "params": {"textDocument": {"uri": uri2, "version": 4},
                     "contentChanges": [{"range": {"start": {"line": line, "character": 0},
                                                   "end": {"line": line, "character": 0}}, "text": " "}]}})
    with lock:
        lock.wait_for(lambda: published2(4), timeout=10)
        got4 = published2(4)
    # Closing it cancels the slow function's run, which `shutdown` would
    # otherwise wait for.
    send({"jsonrpc": "2.0", "method": "textDocument/didClose", "params": {"textDocument": {"uri": uri2}}})
    send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    send({"jsonrpc": "2.0", "method": "exit"})
    p.wait(timeout=60)
    if not got:
        sys.exit("FAIL: version 2 was not published within 15 s: the long check was not cancelled")
    print("version 2 published %.0f ms after its change" % ((got[0] - t0) * 1000))
    if published(1):
        sys.exit("FAIL: the cancelled version 1 was published")
    progress = [m for _, m in seen if m.get("method") == "$/progress"][:2]
    creates = [m for _, m in seen if m.get("method") == "window/workDoneProgress/create"]
    kinds = [m["params"]["value"]["kind"] for m in progress]
    print("progress:", [(m["params"]["value"]["kind"], m["params"]["value"].get("message")) for m in progress])
    if not creates or not kinds or kinds[0] != "begin" or "end" not in kinds:
        sys.exit("FAIL: no work-done progress begun and ended for the long check")
    if "`slow`" not in progress[0]["params"]["value"].get("message", ""):
        sys.exit("FAIL: the progress does not name the function being analysed")
    if not got2:
        sys.exit("FAIL: an edit beside a long-running function waited for it (no publication within 10 s)")
    codes = [d["code"] for d in got2[0][1]["params"]["diagnostics"]]
    print("beside the long function: published %.0f ms after the edit, codes %s" % ((got2[0][0] - t1) * 1000, codes))
    if "E6003" not in codes:
        sys.exit("FAIL: the other function's E6003 is missing")
    if not got3 or got3[0][0] - t2 > 2.0:
        sys.exit("FAIL: an edit in the slow function, its previous run interrupted at once, waited for it (%s)" %
                 ("%.0f ms" % ((got3[0][0] - t2) * 1000) if got3 else "not published within 10 s"))
    print("an edit in the long function: first published %.0f ms after the edit" % ((got3[0][0] - t2) * 1000))
    if not got4 or got4[0][0] - t3 > 2.0:
        sys.exit("FAIL: the edit right after one in the slow function waited for the slow function (%s)" %
                 ("%.0f ms" % ((got4[0][0] - t3) * 1000) if got4 else "not published within 10 s"))
    print("right after an edit in the long function: published %.0f ms after the edit" % ((got4[0][0] - t3) * 1000))
    if p.returncode != 0:
        sys.exit("FAIL: vxc lsp exited %d" % p.returncode)
    print("ok")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""A text of another document does not wait for a long check (ctest
lsp.preempt).

`vxc lsp` runs as an editor starts it. It opens bench/lsp/budget_exhausting.vx,
whose first check takes about 10 s of solver work, and, a second later, a
small document with an E6003. The small document's diagnostics must come
within a few seconds, before the slow document's first publication (its
check is put back behind the small one, keeping what it finished); the slow
document's diagnostics (its W6900) must still come, for its own version.
Then the same with the small document changed (not opened) while the slow
one is checked again from the start (closed and opened). Then two slow
documents at once: both are published in full and `shutdown` is answered
(a check put back preempts none, so the two do not cancel each other).

    another_documents_edit_does_not_wait_for_a_long_check.py VXC SOURCE_ROOT
"""
import os
import sys
import time

from lsp_client import Client, report


def main():
    vxc, root = sys.argv[1], sys.argv[2]
    slow = open(os.path.join(root, "bench/lsp/budget_exhausting.vx")).read()
    bad = open(os.path.join(root, "tests/examples/bad/dropped.vx")).read()
    clean = open(os.path.join(root, "tests/examples/ok/stream.vx")).read()
    c = Client(vxc)
    seen, lock, send = c.seen, c.lock, c.send
    failures = []

    def pubs(uri):
        return [(t, m["params"]) for t, m in seen if m.get("method") == "textDocument/publishDiagnostics"
                and m["params"]["uri"] == uri]

    def codes(p):
        return sorted(d.get("code") for d in p["diagnostics"])

    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
    slow_uri, small_uri = "file:///slow.vx", "file:///small.vx"
    send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
          "params": {"textDocument": {"uri": slow_uri, "languageId": "vx", "version": 1, "text": slow}}})
    time.sleep(1.0)
    t0 = time.perf_counter()
    send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
          "params": {"textDocument": {"uri": small_uri, "languageId": "vx", "version": 1, "text": bad}}})
    with lock:
        lock.wait_for(lambda: pubs(small_uri), timeout=60)
        small, first_slow = pubs(small_uri), pubs(slow_uri)
    if not small:
        failures.append("the small document was never published")
    else:
        waited = small[0][0] - t0
        print("small document published %.2f s after it was opened" % waited)
        if "E6003" not in codes(small[0][1]):
            failures.append("the small document's diagnostics lack its E6003: %s" % codes(small[0][1]))
        if first_slow:
            failures.append("the slow document was published before the small one: it waited for the check")
        if waited > 5.0:
            failures.append("the small document waited %.1f s behind the slow one's check" % waited)

    # The slow one is still checked, and published in full (its W6900,
    # after a first publication without the function left for later) for
    # its version 1.
    with lock:
        lock.wait_for(lambda: any("W6900" in codes(p) for _, p in pubs(slow_uri)), timeout=120)
        got = pubs(slow_uri)
    if not got:
        failures.append("the slow document, put back, was never published")
    elif got[-1][1].get("version") != 1 or "W6900" not in codes(got[-1][1]):
        failures.append("the slow document's diagnostics: version %s, %s; want version 1 with W6900"
                        % (got[-1][1].get("version"), codes(got[-1][1])))

    # An edit (not an open) of the small document during the slow one's
    # check from the start (closed and opened again).
    send({"jsonrpc": "2.0", "method": "textDocument/didClose", "params": {"textDocument": {"uri": slow_uri}}})
    send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
          "params": {"textDocument": {"uri": "file:///slow2.vx", "languageId": "vx", "version": 1, "text": slow}}})
    time.sleep(1.0)
    t1 = time.perf_counter()
    n = len(pubs(small_uri))
    send({"jsonrpc": "2.0", "method": "textDocument/didChange",
          "params": {"textDocument": {"uri": small_uri, "version": 2}, "contentChanges": [{"text": clean}]}})
    with lock:
        lock.wait_for(lambda: len(pubs(small_uri)) > n, timeout=60)
        after = pubs(small_uri)[n:]
    if not after:
        failures.append("the small document's edit was never published")
    else:
        waited = after[0][0] - t1
        print("small document's edit published %.2f s after it was made" % waited)
        if after[0][1].get("version") != 2 or codes(after[0][1]):
            failures.append("the edit's diagnostics: version %s, %s; want version 2, none"
                            % (after[0][1].get("version"), codes(after[0][1])))
        if waited > 5.0:
            failures.append("the small document's edit waited %.1f s behind the slow one's check" % waited)

    send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    c.response(2, 120)
    got = pubs("file:///slow2.vx")
    if not got or "W6900" not in codes(got[-1][1]):
        failures.append("the second slow document was never published in full")
    c.exit()

    # Two long checks: the second preempts the first once, and the first,
    # put back, preempts nothing (they would cancel each other for ever):
    # both are published in full and `shutdown` is answered.
    c = Client(vxc)
    seen, lock, send = c.seen, c.lock, c.send
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
    for name in ("first", "second"):
        send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
              "params": {"textDocument": {"uri": "file:///%s.vx" % name, "languageId": "vx", "version": 1,
                                          "text": slow}}})
        time.sleep(1.0)
    send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    if c.response(2, 120) is None:
        failures.append("two long checks: shutdown not answered in 120 s")
    for name in ("first", "second"):
        got = pubs("file:///%s.vx" % name)
        if not got or "W6900" not in codes(got[-1][1]):
            failures.append("two long checks: %s.vx never published in full" % name)
    print("two long checks: %d and %d publications" % (len(pubs("file:///first.vx")), len(pubs("file:///second.vx"))))
    c.exit()

    report(failures, "another document's text does not wait for a long check")


if __name__ == "__main__":
    main()

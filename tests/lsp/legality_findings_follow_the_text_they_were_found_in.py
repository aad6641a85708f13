#!/usr/bin/env python3
"""The target's legality findings (E0206: what the target cannot build),
which a second thread finds after the first publication, are published for
the text they were found in and for every document (ctest lsp.legality).

1. A document closed and opened again with another text, as version 1
   again, while the legality of its old text still runs: the old text's
   E0206 must not be published over the new text (the versions are equal;
   the server tells the texts apart by when they were submitted).
2. Three documents opened at once (an editor restoring a session), the
   first with a legality pass that takes a while: the second's E0206 must
   still be published (one waiting legality per document, not one for all).

    legality_findings_follow_the_text_they_were_found_in.py VXC SOURCE_ROOT
"""
import os
import sys
import time

from lsp_client import Client, report


def final_codes(c, uri):
    pubs = [m for _, m in c.seen if m.get("method") == "textDocument/publishDiagnostics"
            and m["params"]["uri"] == uri]
    return sorted(d.get("code") for d in pubs[-1]["params"]["diagnostics"]) if pubs else None


def main():
    vxc, root = sys.argv[1], sys.argv[2]
    illegal = open(os.path.join(root, "tests/ui/check/extents/an_index_along_a_run_time_leading_extent_is_not_lowered.vx")).read()
    stream = open(os.path.join(root, "examples/stream.vx")).read()
    bad_lines = "let v = transfer(&x[k], Memory::VMEM); //~ ERROR E0206\n    store(&v, out);"
    assert bad_lines in illegal
    failures = []

    # 1. Closed and opened again, version 1 both times.
    filler = "".join(stream.replace("fn stream(", "fn s%d(" % i) for i in range(300))
    a = illegal + filler
    b = a.replace(bad_lines, "")
    c = Client(vxc)
    c.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
    uri = "file:///reopened.vx"
    c.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": uri, "languageId": "vx", "version": 1, "text": a}}})
    c.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics", 60)
    c.send({"jsonrpc": "2.0", "method": "textDocument/didClose", "params": {"textDocument": {"uri": uri}}})
    c.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": uri, "languageId": "vx", "version": 1, "text": b}}})
    c.send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})  # answered once every check has published
    c.response(2, 120)
    got = final_codes(c, uri)
    if got != ["W0001", "W0001"]:
        failures.append("reopened document: final diagnostics %s, want the new text's two W0001" % got)
    c.exit()

    # 2. Three documents at once; the first one's legality is slow.
    c = Client(vxc)
    c.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
    big = "".join(stream.replace("fn stream(", "fn s%d(" % i) for i in range(3000))
    for name, text in (("a_big", big), ("b_illegal", illegal), ("c_clean", stream)):
        c.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                "params": {"textDocument": {"uri": "file:///%s.vx" % name, "languageId": "vx", "version": 1,
                                            "text": text}}})
    c.send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    c.response(2, 300)
    got = final_codes(c, "file:///b_illegal.vx")
    if got is None or "E0206" not in got:
        failures.append("second of three documents: final diagnostics %s, want its E0206" % got)
    c.exit()

    report(failures, "legality findings follow their text and their document")


if __name__ == "__main__":
    main()

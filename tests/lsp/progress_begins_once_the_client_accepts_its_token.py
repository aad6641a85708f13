#!/usr/bin/env python3
"""Work-done progress of a long check begins only once the client has
accepted the token (ctest lsp.progress): the server sends
`window/workDoneProgress/create` and its `$/progress` `begin` only after a
successful response; a client that answers an error, or never answers,
sees no `$/progress` at all (and the check publishes as usual).

    progress_begins_once_the_client_accepts_its_token.py VXC SOURCE_ROOT
"""
import os
import sys
import time

from lsp_client import Client, report


def session(vxc, slow, answer):
    c = Client(vxc, answer=answer)
    c.send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"capabilities": {"window": {"workDoneProgress": True}}}})
    c.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": "file:///slow.vx", "languageId": "vx", "version": 1, "text": slow}}})
    time.sleep(2.0)
    c.send({"jsonrpc": "2.0", "method": "textDocument/didClose", "params": {"textDocument": {"uri": "file:///slow.vx"}}})
    c.send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    c.response(2, 60)
    c.exit()
    with c.lock:
        return list(c.seen)


def main():
    vxc, root = sys.argv[1], sys.argv[2]
    slow = open(os.path.join(root, "bench/lsp/budget_exhausting.vx")).read()
    failures = []
    for answer in ("result", "error", None):
        seen = session(vxc, slow, answer)
        creates = [(t, m) for t, m in seen if m.get("method") == "window/workDoneProgress/create"]
        progress = [(t, m) for t, m in seen if m.get("method") == "$/progress"]
        kinds = [m["params"]["value"]["kind"] for _, m in progress]
        print("client answering %s: %d create, progress %s" % (answer, len(creates), kinds))
        if len(creates) != 1:
            failures.append("client answering %s: %d create requests, want 1" % (answer, len(creates)))
            continue
        token = creates[0][1]["params"]["token"]
        if creates[0][1]["id"] != token:
            failures.append("the create request's id is not its token")
        if answer == "result":
            if kinds[:1] != ["begin"] or kinds[-1:] != ["end"]:
                failures.append("accepted token: progress %s, want begin ... end" % kinds)
            if any(m["params"]["token"] != token for _, m in progress):
                failures.append("progress under another token than the one created")
        elif progress:
            failures.append("client answering %s: progress %s sent for a token it did not accept" % (answer, kinds))
    report(failures, "progress begins once its token is accepted")


if __name__ == "__main__":
    main()

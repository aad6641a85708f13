#!/usr/bin/env python3
"""A burst of 50 edits sent without waiting gives one final diagnostic set,
the one `vxc check` gives for the final text (ctest lsp.burst).

`vxc lsp` runs as an editor starts it (checks on its worker thread). The
client opens tests/examples/bad/dropped.vx, then sends 49 one-character
edits (typing a comment) and a 50th that replaces the text with
tests/examples/bad/double_wait.vx, all at once, then `shutdown` (which
waits for the queued checks) and `exit`. Every publication must carry a
version no older than the one before it, the last must be the final
version's, published once and followed by `workspace/inlayHint/refresh`
(the client declares `refreshSupport`), with the codes and positions `vxc check
--error-format=json` reports for the final text; and the edits must have
been coalesced (fewer checks published than edits).

    burst_of_edits.py VXC SOURCE_ROOT
"""
import json
import os
import re
import subprocess
import sys
import tempfile


def frame(msg):
    data = json.dumps(msg).encode()
    return b"Content-Length: %d\r\n\r\n" % len(data) + data


def main():
    vxc, root = sys.argv[1], sys.argv[2]
    first = open(os.path.join(root, "tests/examples/bad/dropped.vx")).read()
    final = open(os.path.join(root, "tests/examples/bad/double_wait.vx")).read()
    uri = "file:///burst.vx"
    caps = {"workspace": {"inlayHint": {"refreshSupport": True}}}
    msgs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": caps}},
            {"jsonrpc": "2.0", "method": "initialized", "params": {}},
            {"jsonrpc": "2.0", "method": "textDocument/didOpen",
             "params": {"textDocument": {"uri": uri, "languageId": "vx", "version": 1, "text": first}}}]
    lines = first.count("\n")
    typed = "// typing a comment, one key at a time"
    version = 1
    for k in range(49):
        version += 1
        at = {"line": lines, "character": k}
        msgs.append({"jsonrpc": "2.0", "method": "textDocument/didChange",
                     "params": {"textDocument": {"uri": uri, "version": version},
                                "contentChanges": [{"range": {"start": at, "end": at},
                                                    "text": typed[k % len(typed)]}]}})
    version += 1
    msgs.append({"jsonrpc": "2.0", "method": "textDocument/didChange",
                 "params": {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": final}]}})
    msgs.append({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    msgs.append({"jsonrpc": "2.0", "method": "exit"})
    env = dict(os.environ, XDG_CACHE_HOME=tempfile.mkdtemp())
    p = subprocess.run([vxc, "lsp"], input=b"".join(frame(m) for m in msgs), capture_output=True, env=env,
                       timeout=120)
    if p.returncode != 0:
        sys.exit("FAIL: vxc lsp exited %d: %s" % (p.returncode, p.stderr.decode()))
    published = []
    refreshed_after_last = False
    for part in re.split(rb"Content-Length: \d+\r\n\r\n", p.stdout):
        if part.strip():
            m = json.loads(part)
            if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri:
                published.append(m["params"])
                refreshed_after_last = False
            if m.get("method") == "workspace/inlayHint/refresh" and "id" in m:
                refreshed_after_last = True
    versions = [x["version"] for x in published]
    print("published versions:", versions)
    if not published:
        sys.exit("FAIL: nothing published")
    if versions != sorted(versions):
        sys.exit("FAIL: an older version was published after a newer one")
    if versions[-1] != version or versions.count(version) != 1:
        sys.exit("FAIL: the final version %d must be published exactly once, last" % version)
    if not refreshed_after_last:
        sys.exit("FAIL: no workspace/inlayHint/refresh after the final check (the client declared refreshSupport)")
    if len(published) >= 50:
        sys.exit("FAIL: %d publications for 50 edits: the edits were not coalesced" % len(published))
    got = sorted((d["code"], d["range"]["start"]["line"] + 1, d["range"]["start"]["character"] + 1)
                 for d in published[-1]["diagnostics"])
    with tempfile.NamedTemporaryFile("w", suffix=".vx", delete=False) as f:
        f.write(final)
    c = subprocess.run([vxc, "check", "--error-format=json", f.name], capture_output=True, text=True)
    os.unlink(f.name)
    want = []
    for line in (c.stdout + c.stderr).splitlines():
        if not line.startswith("{"):
            continue
        d = json.loads(line)
        if d.get("$message_type") != "diagnostic" or not d.get("code"):
            continue
        prim = [s for s in d["spans"] if s["is_primary"]][0]
        want.append((d["code"]["code"], prim["line_start"], prim["column_start"]))
    want.sort()
    if got != want or not want:
        sys.exit("FAIL: final set %s, `vxc check` gives %s" % (got, want))
    print("ok: final set", got)


if __name__ == "__main__":
    main()

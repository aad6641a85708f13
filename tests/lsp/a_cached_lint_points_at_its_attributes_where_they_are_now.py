#!/usr/bin/env python3
"""A lint's level-setting attributes are labelled where they are now when
its function's result comes from the cache (ctest lsp.cached-lint-spans).

A function with `#[warn(unproved)]` (its own lint) and `#[deny(warnings)]`
(the group) gets a W6900, an error through the group; five lines are then
inserted above it. The function is not analysed again, and the republished
W6900 must label `#[deny(warnings)]` on its new line, not on the old one.

    a_cached_lint_points_at_its_attributes_where_they_are_now.py VXC SOURCE_ROOT
"""
import sys

from lsp_client import Client, report

TEXT = """#[warn(unproved)]
#[deny(warnings)]
fn five_deep_buffer(n: i32) on Topology::TensorCore {
  let b = zeros::<f32, [8, 8]>(Memory::VMEM);
  let _q = (((((b, n), n), n), n), n);
}
"""


def main():
    vxc = sys.argv[1]
    c = Client(vxc)
    c.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
    uri = "file:///lint.vx"
    c.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": uri, "languageId": "vx", "version": 1, "text": TEXT}}})
    c.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"].get("version") == 1, 60)
    c.send({"jsonrpc": "2.0", "method": "textDocument/didChange",
            "params": {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": "\n" * 5 + TEXT}]}})
    c.send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    c.response(2, 60)
    failures = []
    for version, line in ((1, 1), (2, 6)):
        pubs = [m["params"] for _, m in c.seen if m.get("method") == "textDocument/publishDiagnostics"
                and m["params"].get("version") == version]
        w = [d for p in pubs[-1:] for d in p["diagnostics"] if d.get("code") == "W6900"]
        if not w:
            failures.append("version %d: no W6900" % version)
            continue
        labels = [r["location"]["range"] for r in w[0].get("relatedInformation", [])
                  if r["message"] == "the lint level is defined here"]
        print("version %d: the lint level is defined at %s" % (version, [(r["start"], r["end"]) for r in labels]))
        if w[0].get("severity") != 1:
            failures.append("version %d: W6900 is not an error under #[deny(warnings)]" % version)
        if not labels or any(r["start"]["line"] != line or r["end"]["line"] != line for r in labels):
            failures.append("version %d: the attribute is labelled at %s, want line %d" % (version, labels, line))
    c.exit()
    report(failures, "a cached lint labels its attributes where they are now")


if __name__ == "__main__":
    main()

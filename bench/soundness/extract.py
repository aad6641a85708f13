#!/usr/bin/env python3
"""One function of a generated file, with the `const`s and the functions it
calls (transitively): a file `vxc run --entry FN` builds on its own, the
first step of minimising a case the soundness benchmark kept.

usage: extract.py FILE FN [FN ...] > OUT.vx
"""
import re
import sys


def items(text):
    """Top-level items: (name or None, text), in order. An item is a `fn`
    (with the attributes and comments just above it) or a `const`."""
    out, pending = [], []
    lines = text.split("\n")
    k = 0
    while k < len(lines):
        line = lines[k]
        m = re.match(r"fn (\w+)", line)
        if m:
            body = [line]
            depth = line.count("{") - line.count("}")
            k += 1
            while depth > 0 and k < len(lines):
                body.append(lines[k])
                depth += lines[k].count("{") - lines[k].count("}")
                k += 1
            out.append((m.group(1), "\n".join(pending + body)))
            pending = []
            continue
        if line.startswith("const "):
            out.append((None, line))
        elif line.startswith("#[") or (line.startswith("//") and pending):
            pending.append(line)
        elif line.startswith("//") and not line.startswith("// k"):
            pending.append(line)
        else:
            pending = []
        k += 1
    return out


def main():
    text = open(sys.argv[1]).read()
    wanted = sys.argv[2:]
    parsed = items(text)
    fns = {name: body for name, body in parsed if name}
    keep, todo = set(), list(wanted)
    while todo:
        name = todo.pop()
        if name in keep or name not in fns:
            continue
        keep.add(name)
        body = fns[name].split("\n", 1)[1] if "\n" in fns[name] else ""
        todo += [c for c in re.findall(r"\b(\w+)\s*\(", body) if c in fns]
    out = [body for name, body in parsed if name is None or name in keep]
    print("\n\n".join(out))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Whether a kernel's SASS (`cuobjdump -sass`) has a loop that holds every
named instruction: the smallest range [target, branch] of a backward branch
whose instructions include one of each prefix. Prints the loop, exit 0; or
what no loop holds, exit 1.

usage: sass_loop.py SASS FUNCTION_PREFIX INSTRUCTION_PREFIX...
"""
import re
import sys


def main():
    path, function, wanted = sys.argv[1], sys.argv[2], sys.argv[3:]
    insts, inside = [], False
    for line in open(path, errors="replace"):
        if "Function : " in line:
            inside = line.split("Function : ", 1)[1].strip().startswith(function)
            continue
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)([^;]*);", line)
        if inside and m:
            insts.append((int(m.group(1), 16), m.group(2), m.group(3)))
    if not insts:
        print(f"no function {function}* in {path}")
        return 1
    loops = []
    for addr, op, rest in insts:
        t = re.match(r"\s*(?:U?P\w+\s*,\s*)?(0x[0-9a-f]+)", rest) if op.startswith("BRA") else None
        if t and int(t.group(1), 16) < addr:
            lo = int(t.group(1), 16)
            ops = {o for a, o, _ in insts if lo <= a <= addr}
            if all(any(o.startswith(w) for o in ops) for w in wanted):
                loops.append((addr - lo, lo, addr))
    if not loops:
        print(f"no loop of {function}* holds all of {' '.join(wanted)}")
        return 1
    size, lo, hi = min(loops)
    print(f"loop {lo:#x}..{hi:#x} ({size // 16} instructions) holds {' '.join(wanted)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The ownership checker against the simulator (docs/tpu/lowering.md).

For every function of every program in tests/ui/ and tests/examples/:
- accepted by `vxc check --target tpu`: `vxc run --target tpu` must not report
  a DMA fault (a race, a deadlock, a DMA left in flight). Functions the tpu
  lowering does not support (E0206) or that cannot be entries are counted.
- rejected with E6004/E6005 only: for each such error, a build with the
  checker's verdict overridden (`--unchecked`) runs with the values of the
  error's z3 counterexample (`(tiles.len() 1)` -> `--arg tiles=1`, a scalar
  parameter `(n 3)` -> `--arg n=3`) and must fault with a read/write race at
  the error's line.

usage: soundness.py VXC ROOT [FILE...]
"""
import json
import pathlib
import re
import subprocess
import sys

RACES = ("read-during-dma-write", "write-during-dma")
DMA_FAULTS = RACES + ("dma-overlaps-itself", "deadlock", "halt-with-dma-in-flight", "too-many-dmas")
HAZARDS = ("E6004", "E6005")


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def functions(text):
    """[(name, first line, params)] in source order; params from the signature."""
    out = []
    for m in re.finditer(r"^\s*fn\s+(\w+)\s*\(", text, re.M):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        params = re.findall(r"(\w+)\s*:", text[m.end():i - 1])
        out.append((m.group(1), text.count("\n", 0, m.start()) + 1, params))
    return out


def owner(fns, line):
    name = None
    for n, first, _ in fns:
        if first <= line:
            name = n
    return name


def counterexample_args(diag, params):
    args = []
    for child in diag.get("children", []):
        msg = child.get("message", "")
        if "counterexample:" not in msg:
            continue
        for name, value in re.findall(r"\(\s*([A-Za-z_][\w.]*(?:\(\))?)\s+([^\s()]+)\s*\)", msg):
            if name.endswith(".len()") and name[:-6] in params:
                args += ["--arg", f"{name[:-6]}={value}"]
            elif name in params:
                args += ["--arg", f"{name}={value}"]
    return args


def fault_kind(stderr):
    m = re.search(r"runtime fault \(([\w-]+)\)", stderr)
    return m.group(1) if m else None


def main():
    vxc, root = sys.argv[1], pathlib.Path(sys.argv[2])
    files = [pathlib.Path(f) for f in sys.argv[3:]] or sorted(
        list((root / "tests/ui").rglob("*.vx")) + list((root / "tests/examples").rglob("*.vx")))
    failures, counts = [], {"no race": 0, "race found": 0, "unsupported": 0, "not an entry": 0,
                            "trapped": 0, "rejected": 0}
    for f in files:
        text = f.read_text(errors="replace")
        rc, out, err = run([vxc, "check", "--target", "tpu", "--error-format=json", str(f)])
        if rc not in (0, 1):
            # A crash (or a sanitizer's abort) would otherwise read as "no errors".
            failures.append(f"{f}: `vxc check --target tpu` exited {rc}:\n{err}")
            continue
        diags = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
        errors = [d for d in diags if d.get("level") == "error"]
        if any((d.get("code") or {}).get("code") not in HAZARDS for d in errors):
            counts["rejected"] += 1
            continue
        fns = functions(text)
        hazards = {}
        for d in errors:
            primary = next(s for s in d["spans"] if s["is_primary"])
            # A hazard through a call races where the callee accesses the
            # buffer: the secondary label names that line.
            lines = [primary["line_start"]] + [s["line_start"] for s in d["spans"] if not s["is_primary"]]
            hazards.setdefault(owner(fns, primary["line_start"]), []).append((d, lines))
        unchecked = ["--unchecked"] if errors else []
        for name, _, params in fns:
            base = [vxc, "run", str(f), "--target", "tpu", "--entry", name] + unchecked
            if name not in hazards:
                rc, out, err = run(base)
                kind = fault_kind(err)
                if rc == 0:
                    counts["no race"] += 1
                    print(f"ok {f.name} {name}: no race")
                elif rc == 1 and ("E0206" in err or "E6007" in err):
                    counts["unsupported"] += 1
                    why = next((l for l in err.splitlines() if l.startswith("error[")), "")
                    print(f"unsupported {f.name} {name}: {why}")
                elif rc == 2 and "cannot be an entry" in err:
                    counts["not an entry"] += 1
                elif (rc == 3 and kind not in DMA_FAULTS) or (rc == 1 and "runtime trap" in err):
                    counts["trapped"] += 1  # the program's own error (an index, a division), not a race
                else:
                    failures.append(f"{f}: `{name}` is accepted by the checker but `{' '.join(base)}` "
                                    f"exited {rc}:\n{err}")
                continue
            for diag, lines in hazards[name]:
                line = lines[0]
                cmd = base + counterexample_args(diag, params)
                rc, out, err = run(cmd)
                code = diag["code"]["code"]
                where = f"from Vx source {f}:{line}:"
                at_line = any(f"from Vx source {f}:{l}:" in err for l in lines)
                if rc == 1 and "E0206" in err:
                    counts["unsupported"] += 1
                    print(f"unsupported {f.name} {name} {code}: the tpu target cannot build it")
                elif rc == 2 and "on target tpu" in err:
                    # The counterexample needs inputs the tpu target cannot
                    # take (an empty Vec, a u64 of 2^63 or more).
                    counts["unsupported"] += 1
                    print(f"unsupported {f.name} {name} {code}: the counterexample's inputs do not fit the tpu target")
                elif rc == 3 and fault_kind(err) in RACES and at_line and "instruction " in err:
                    counts["race found"] += 1
                    print(f"ok {f.name} {name} {code} line {line}: {' '.join(cmd[3:])} -> {fault_kind(err)}")
                else:
                    failures.append(f"{f}: {code} at line {line} in `{name}`: `{' '.join(cmd)}` exited {rc}, "
                                    f"expected a race fault {where}\n{err}")
    print(", ".join(f"{v} {k}" for k, v in counts.items()))
    for msg in failures:
        print("FAIL:", msg, file=sys.stderr)
    if counts["race found"] == 0 and len(sys.argv) == 3:
        print("FAIL: no E6004/E6005 program was run", file=sys.stderr)
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

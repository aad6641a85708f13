#!/usr/bin/env python3
"""The ownership checker against a machine that catches races: the tpu
simulator (docs/tpu/lowering.md), or the b200/h100 interpreter
(docs/b200.md, `--target b200`).

For every function of every program in tests/ui/ and tests/examples/:
- accepted by `vxc check --target T`: `vxc run --target T` must not report
  a race or a copy left in flight (tpu: a DMA fault, a deadlock; b200: an
  access of memory a copy is landing in or reading, a token never waited, a
  phase never armed). Functions T's lowering does not support (E0206, E6007)
  or that cannot be entries are counted.
- rejected with E6004/E6005 only: for each such error, a build with the
  checker's verdict overridden (`--unchecked`) runs with the values of the
  error's z3 counterexample (`(tiles.len() 1)` -> `--arg tiles=1`, a scalar
  parameter `(n 3)` -> `--arg n=3`) and must stop with a read/write race at
  the error's line.

usage: soundness.py VXC ROOT [--target tpu|b200|h100] [--jobs N] [FILE...]
"""
import concurrent.futures
import json
import pathlib
import re
import subprocess
import sys

RACES = ("read-during-dma-write", "write-during-dma")
DMA_FAULTS = RACES + ("dma-overlaps-itself", "deadlock", "halt-with-dma-in-flight", "too-many-dmas")
HAZARDS = ("E6004", "E6005")


def run(cmd, timeout=300):
    """(rc, stdout, stderr); a run past `timeout` seconds is rc 124 with a
    message, so one slow counterexample fails its own case, not the replay."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124, "", f"timed out after {timeout} s (a counterexample with too many loop trips to replay?)"
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
        # A value is `5` or, negative, SMT-LIB's `(- 5)`.
        pairs = re.findall(r"\(\s*([A-Za-z_][\w.]*(?:\(\))?)\s+(?:\(-\s+(\d+)\)|([^\s()]+))\s*\)", msg)
        for name, negative, plain in pairs:
            value = f"-{negative}" if negative else plain
            if name.endswith(".len()") and name[:-6] in params:
                args += ["--arg", f"{name[:-6]}={value}"]
            elif name in params:
                args += ["--arg", f"{name}={value}"]
    return args


def fault_kind(stderr):
    m = re.search(r"runtime fault \(([\w-]+)\)", stderr)
    return m.group(1) if m else None


# The b200/h100 interpreter's reports (include/vx/cuda/interpret.h): races,
# and the other misuses of copies and barriers no accepted program may show.
CUDA_RACES = ("read of memory a copy is still landing in", "write of memory a copy in flight is writing",
              "write of memory a copy in flight is reading")
CUDA_MISUSE = CUDA_RACES + ("the kernel returns with a copy in flight", "the kernel returns with a token never waited",
                            "wait on an mbarrier phase that no copy was armed", "transaction-count mismatch",
                            "mbarrier armed again", "tensor-memory leak")


class Tpu:
    name = "tpu"
    run_flags = []

    def accepted(self, rc, err):
        """'no race', 'trapped' (the program's own error), or None (a failure)."""
        if rc == 0:
            return "no race"
        if (rc == 3 and fault_kind(err) not in DMA_FAULTS) or (rc == 1 and "runtime trap" in err):
            return "trapped"
        return None

    def raced(self, rc, err, f, lines):
        at_line = any(f"from Vx source {f}:{l}:" in err for l in lines)
        return rc == 3 and fault_kind(err) in RACES and at_line and "instruction " in err

    def kind(self, err):
        return fault_kind(err)


class Cuda:
    # The latest schedule: a copy lands only when waited, so every access
    # before its wait is seen.
    run_flags = ["--interpret", "--schedule-seed", "0"]

    def __init__(self, name):
        self.name = name

    def accepted(self, rc, err):
        if rc == 0:
            return "no race"
        if rc == 1 and "runtime trap" in err and not any(m in err for m in CUDA_MISUSE):
            return "trapped"
        return None

    def raced(self, rc, err, f, lines):
        trap = next((l for l in err.splitlines() if "runtime trap:" in l), "")
        return rc == 1 and any(r in trap for r in CUDA_RACES) and any(
            re.search(rf" at {re.escape(str(f))}:{l}:\d+$", trap) for l in lines)

    def kind(self, err):
        trap = next((l for l in err.splitlines() if "runtime trap:" in l), "")
        return next((r for r in CUDA_RACES if r in trap), trap)


def check_file(vxc, target, f):
    """(counts, messages, failures) of one file."""
    counts, log, failures = {}, [], []

    def count(k):
        counts[k] = counts.get(k, 0) + 1

    text = f.read_text(errors="replace")
    rc, out, err = run([vxc, "check", "--target", target.name, "--error-format=json", str(f)])
    if rc not in (0, 1):
        # A crash (or a sanitizer's abort) would otherwise read as "no errors".
        return counts, log, [f"{f}: `vxc check --target {target.name}` exited {rc}:\n{err}"]
    diags = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    errors = [d for d in diags if d.get("level") == "error"]
    if any((d.get("code") or {}).get("code") not in HAZARDS for d in errors):
        count("rejected")
        return counts, log, failures
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
        base = [vxc, "run", str(f), "--target", target.name, "--entry", name] + target.run_flags + unchecked
        if name not in hazards:
            rc, out, err = run(base)
            verdict = target.accepted(rc, err)
            if verdict:
                count(verdict)
                log.append(f"ok {f.name} {name}: {verdict}")
            elif rc == 1 and ("E0206" in err or "E6007" in err):
                count("unsupported")
                why = next((l for l in err.splitlines() if l.startswith("error[")), "")
                log.append(f"unsupported {f.name} {name}: {why}")
            elif rc == 2 and "cannot be an entry" in err:
                count("not an entry")
            else:
                failures.append(f"{f}: `{name}` is accepted by the checker but `{' '.join(base)}` "
                                f"exited {rc}:\n{err}")
            continue
        for diag, lines in hazards[name]:
            line = lines[0]
            cmd = base + counterexample_args(diag, params)
            rc, out, err = run(cmd)
            code = diag["code"]["code"]
            if rc == 1 and "E0206" in err:
                count("unsupported")
                log.append(f"unsupported {f.name} {name} {code}: the {target.name} target cannot build it")
            elif rc == 2 and f"on target {target.name}" in err:
                # The counterexample needs inputs the target cannot take (an
                # empty Vec, a u64 of 2^63 or more).
                count("unsupported")
                log.append(f"unsupported {f.name} {name} {code}: the counterexample's inputs do not fit "
                           f"the {target.name} target")
            elif target.raced(rc, err, f, lines):
                count("race found")
                log.append(f"ok {f.name} {name} {code} line {line}: {' '.join(cmd[3:])} -> {target.kind(err)}")
            else:
                failures.append(f"{f}: {code} at line {line} in `{name}`: `{' '.join(cmd)}` exited {rc}, "
                                f"expected a race at {f}:{line}\n{err}")
    return counts, log, failures


def main():
    args = sys.argv[1:]
    target_name, jobs = "tpu", 1
    if "--target" in args:
        i = args.index("--target")
        target_name = args[i + 1]
        del args[i:i + 2]
    if "--jobs" in args:
        i = args.index("--jobs")
        jobs = int(args[i + 1])
        del args[i:i + 2]
    target = Tpu() if target_name == "tpu" else Cuda(target_name)
    vxc, root = args[0], pathlib.Path(args[1])
    named = [pathlib.Path(f) for f in args[2:]]
    files = named or sorted(list((root / "tests/ui").rglob("*.vx")) + list((root / "tests/examples").rglob("*.vx")))
    failures, counts = [], {"no race": 0, "race found": 0, "unsupported": 0, "not an entry": 0,
                            "trapped": 0, "rejected": 0}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for c, log, fails in pool.map(lambda f: check_file(vxc, target, f), files):
            for k, v in c.items():
                counts[k] = counts.get(k, 0) + v
            for line in log:
                print(line)
            failures += fails
    print(", ".join(f"{v} {k}" for k, v in counts.items()))
    for msg in failures:
        print("FAIL:", msg, file=sys.stderr)
    if counts["race found"] == 0 and not named:
        print("FAIL: no E6004/E6005 program was run", file=sys.stderr)
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Loop benchmark: the checker on deep loop nests and long sequences of
loops carrying one token (the double-buffered stream's shape), each decided
on its own, quiet and then with every core busy. Prints per program the
time, the solver's share, the queries and the verdict; the verdicts must be
the same both ways (the budgets count solver resources, not seconds).

    bench/loops.py [--vxc build/src/driver/vxc] [--no-load]
"""
import argparse
import multiprocessing
import os
import re
import subprocess
import sys
import tempfile
import time

HEAD = ("fn k(a: &Vec<Tensor<f32, [8, 8]>>, acc: &mut Pinned<Tensor<f32, [8, 8]>, Memory::VMEM>, "
        "w: &Pinned<Tensor<f32, [8, 8]>, Memory::VMEM>, n: usize) on Topology::TensorCore {\n"
        "  let mut t = transfer_async(a[0], Memory::VMEM);\n")
STEP = "let x = wait(t);\n{p}mma(acc, &x, w);\n{p}t = transfer_async(a[{i}], Memory::VMEM);\n"


def nest(depth):
    body, pad = HEAD, "  "
    for d in range(depth):
        index = f"i{d}" if d == depth - 1 else f"_i{d}"
        body += f"{pad}for {index} in 0..n {{\n"
        pad += "  "
    body += pad + STEP.format(p=pad, i=f"i{depth - 1}")
    for d in range(depth):
        pad = pad[:-2]
        body += pad + "}\n"
    return body + "  wait(t);\n}\n"


def seq(count):
    body = HEAD
    for d in range(count):
        body += f"  for i{d} in 0..n {{\n    " + STEP.format(p="    ", i=f"i{d}") + "  }\n"
    return body + "  wait(t);\n}\n"


def check(vxc, path):
    t0 = time.perf_counter()
    r = subprocess.run([vxc, "check", "--stats", path], capture_output=True, text=True)
    took = time.perf_counter() - t0
    stats = re.search(r"ownership ([0-9.]+) s \(solver ([0-9.]+) s", r.stderr)
    queries = re.search(r"(\d+) queries: .*?(\d+) to z3, (\d+) unknown", r.stderr)
    codes = sorted(set(re.findall(r"(?:error|warning)\[([EW]\d+)\]", r.stderr)))
    verdict = "accepted" if r.returncode == 0 and not codes else ",".join(codes) or f"exit {r.returncode}"
    return took, stats, queries, verdict


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vxc", default="build/src/driver/vxc")
    ap.add_argument("--no-load", action="store_true", help="skip the run with every core busy")
    args = ap.parse_args()
    programs = [(f"nest{d}", nest(d)) for d in (1, 2, 3, 4, 5)] + [(f"seq{c}", seq(c)) for c in (10, 40, 120)]
    tmp = tempfile.mkdtemp()
    rows = {}
    for load in ([False] if args.no_load else [False, True]):
        hogs = []
        if load:
            hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(multiprocessing.cpu_count())]
        try:
            for name, text in programs:
                path = os.path.join(tmp, name + ".vx")
                with open(path, "w") as f:
                    f.write(text)
                rows.setdefault(name, []).append(check(args.vxc, path))
        finally:
            for h in hogs:
                h.kill()
    print(f"{'program':10} {'quiet s':>8} {'solver s':>9} {'queries':>8} {'verdict':>10}" +
          ("" if args.no_load else f" {'loaded s':>9} {'verdict':>10}"))
    same = True
    for name, _ in programs:
        quiet = rows[name][0]
        took, stats, queries, verdict = quiet
        line = f"{name:10} {took:8.2f} {float(stats.group(2)) if stats else 0:9.2f} {queries.group(2) if queries else '-':>8} {verdict:>10}"
        if not args.no_load:
            lt, _, _, lv = rows[name][1]
            line += f" {lt:9.2f} {lv:>10}"
            same = same and lv == verdict
        print(line)
    if not args.no_load:
        print("verdicts quiet and loaded: " + ("the same" if same else "DIFFERENT"))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())

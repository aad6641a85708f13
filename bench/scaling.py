#!/usr/bin/env python3
"""Scaling of `vxc check` on inputs that grow one construct: each family at
N and 4N items, timed in one run; a ratio near 4 is linear, near 16 quadratic.

Families (each once made vxc quadratic):
  unknown-names  N uses of unknown names among N locals ("did you mean" compared each with every local)
  let-chain      N untyped `let`s, each from the last (inference variables bound in a chain)
  call-chain     N functions, each calling the last and adding to its result (summaries grew with the chain)
  param-count    one function of N parameters (their attributes in VIR were set one by one, rebuilding the list)
  fn-count       N small functions with a copy and a wait each (per-function work only)
  call-fanout    N/8 functions, each reading a parameter's slot and calling the next two (a callee's
                 accesses were copied into the caller's summary once per call path: Fibonacci growth)
  token-cycle    N/8 functions in a recursive cycle handing a token on (the condition under which the
                 token is waited grew with the cycle: quadratic memory, 24 GB at 2,000 functions)

  bench/scaling.py [--n N] [--vxc PATH]
"""
import argparse
import os
import subprocess
import tempfile
import time


def unknown_names(n):
    lines = ["fn f() -> u32 {"]
    lines += [f"  let a{i}: u32 = zz{i};" for i in range(n)]
    return "\n".join(lines + ["  0", "}", ""])


def let_chain(n):
    lines = ["fn f() -> u32 {", "  let a0 = 1;"]
    lines += [f"  let a{i} = a{i - 1} + 1;" for i in range(1, n)]
    return "\n".join(lines + [f"  a{n - 1}", "}", ""])


def call_chain(n):
    lines = ["fn f0(x: u32) -> u32 { x + 1 }"]
    lines += [f"fn f{i}(x: u32) -> u32 {{ f{i - 1}(x) + 1 }}" for i in range(1, n)]
    return "\n".join(lines + [""])


def param_count(n):
    return "fn f(" + ", ".join(f"_p{i}: u32" for i in range(n)) + ") -> u32 { 0 }\n"


def fn_count(n):
    out = []
    for i in range(n):
        out.append(f"fn k{i}(t: &Vec<Tensor<f32, [8, 8]>>, o: &mut Tensor<f32, [8, 8]>) on Topology::TensorCore {{\n"
                   f"  let x = transfer_async(t[0], Memory::VMEM);\n"
                   f"  let v = wait(x);\n"
                   f"  store(&v, o);\n}}")
    return "\n".join(out + [""])


TILE = "Tensor<f32, [8, 8]>"


def call_fanout(n):
    out = []
    for i in range(n):
        calls = f"f{i + 1}(x, s); f{i + 2}(x, s);" if i + 2 < n else ""
        out.append(f"fn f{i}(x: usize, s: &Vec<{TILE}>) on Topology::TensorCore {{\n"
                   f"  let _q = transfer(s[x % 2], Memory::VMEM);\n  {calls}\n}}")
    return "\n".join(out + [""])


def token_cycle(n):
    out = []
    for i in range(n):
        out.append(f"fn f{i}(k: usize, t: Token<{TILE}, Memory::VMEM>) on Topology::TensorCore {{\n"
                   f"  if k > 0 {{ f{(i + 1) % n}(k - 1, t); }} else {{ let x = wait(t); matmul_acc(x); }}\n}}")
    out.append(f"fn main(a: &{TILE}) on Topology::TensorCore {{\n"
               f"  let t = transfer_async(a, Memory::VMEM);\n  f0(5, t);\n}}")
    return "\n".join(out + [""])


# (name, generator, `vxc check`'s exit status, N divided by)
FAMILIES = [("unknown-names", unknown_names, 1, 1), ("let-chain", let_chain, 0, 1),
            ("call-chain", call_chain, 0, 1), ("param-count", param_count, 0, 1), ("fn-count", fn_count, 0, 1),
            ("call-fanout", call_fanout, 0, 8), ("token-cycle", token_cycle, 0, 8)]


def timed(vxc, path, status):
    best = None
    for _ in range(3):
        t0 = time.perf_counter()
        r = subprocess.run([vxc, "check", path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        dt = time.perf_counter() - t0
        if r.returncode != status:
            raise SystemExit(f"{path}: vxc check exited {r.returncode}, expected {status}")
        best = dt if best is None else min(best, dt)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=4000)
    ap.add_argument("--vxc", default=os.path.join(os.path.dirname(__file__), "..", "build", "src", "driver", "vxc"))
    args = ap.parse_args()
    print(f"{'family':16} {'N':>7} {'s':>8} {'4N':>7} {'s':>8} {'ratio':>7}")
    with tempfile.TemporaryDirectory() as tmp:
        for name, make, status, div in FAMILIES:
            times = []
            n0 = max(1, args.n // div)
            for n in (n0, 4 * n0):
                path = os.path.join(tmp, f"{name}_{n}.vx")
                with open(path, "w") as f:
                    f.write(make(n))
                times.append(timed(args.vxc, path, status))
            print(f"{name:16} {n0:7} {times[0]:8.3f} {4 * n0:7} {times[1]:8.3f} {times[1] / times[0]:7.1f}")
    print("a ratio near 4 is linear in N, near 16 quadratic (each time the best of 3 runs)")


if __name__ == "__main__":
    main()

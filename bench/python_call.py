#!/usr/bin/env python3
"""Per-call overhead of the Python package on b200/h100 (docs/python.md):
a call through the interpreter's C ABI in this process against a call that
runs `vxc run --interpret` (isolate=True, the only way before), on the same
small kernel (examples/rows.vx, m = 8: one instance, one block) and the same
arrays. Prints the median time per call of each and their ratio, measured in
one run.
    VXC=build/src/driver/vxc /usr/bin/python3 bench/python_call.py [CALLS]
"""
import os
import statistics
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "python"))
import numpy as np  # noqa: E402
import vx  # noqa: E402

calls = int(sys.argv[1]) if len(sys.argv) > 1 else 20
path = os.path.join(REPO, "examples", "rows.vx")
x = np.random.default_rng(0).standard_normal((8, 256)).astype(np.float32)
for target in ("b200", "h100"):
    times = {}
    results = {}
    for isolate in (False, True):
        k = vx.compile(path, target=target, isolate=isolate)
        y = np.zeros_like(x)
        k.rows(x, y)  # warm: the first call builds nothing more, but loads
        samples = []
        for _ in range(calls if not isolate else max(3, calls // 4)):
            t = time.perf_counter()
            k.rows(x, y)
            samples.append(time.perf_counter() - t)
        times[k.via] = statistics.median(samples)
        results[k.via] = y.copy()
    same = np.array_equal(results["C ABI"], results["vxc run"])
    print("%s: per call %.3f ms through the C ABI, %.1f ms through `vxc run --interpret`: %.0fx less overhead%s" % (
        target, times["C ABI"] * 1e3, times["vxc run"] * 1e3, times["vxc run"] / times["C ABI"],
        "" if same else " (RESULTS DIFFER)"))

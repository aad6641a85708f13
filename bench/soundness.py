#!/usr/bin/env python3
"""The soundness benchmark: the checker against the simulator on generated
programs (docs/checker.md, "Soundness at scale").

    bench/soundness.py N [--seed S] [--jobs J] [--per-file K] [--keep DIR] [--minutes M]
                         [--generators gen,typed,grid | --grid]

Generates N kernels (bench/soundness/gen.py, typed.py and grid.py, seeded,
batch by batch in turn), checks each file and runs every function through
vx-oracle (bench/soundness/Oracle.cpp), then prints:

  accepted   kernels the checker accepts (each ran on vxsim for two input
             sizes and four sets of run-time extents, async and
             --sync-baseline)
  rejected   kernels rejected with ownership errors (E6001-E6010, W6900),
             confirmed by the simulator each by its own observable (a race
             between grid instances for E6010, the block's bounds check
             trapping for E6009, a DMA fault in one instance otherwise)
  unsound    accepted kernels that fault on vxsim or access past an HBM
             buffer, and rejected ones whose run shows a race between grid
             instances without E6010 (must be 0)
  mismatch   accepted kernels whose checksums differ from --sync-baseline
  imprecise  rejected kernels that run clean with every counterexample, by
             error code (rate of the rejected ones)
  check time mean per kernel

`--grid` writes grid-and-block kernels only (grid.py); its figures come
first per generator in the `kernels` line.

Unsound, mismatching, imprecise and crashing cases are copied to --keep (default
build/soundness-failures) to become UI tests. With --minutes M it stops
generating after M minutes (CI runs a two-minute slice with a fixed seed).
Exit status 1 when anything is unsound, mismatches or crashes.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent


def oracle_run(oracle, path):
    try:
        p = subprocess.run([oracle, str(path)], capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return path, None, "timeout"
    if p.returncode != 0:
        return path, None, f"exit {p.returncode}: {p.stderr[-2000:]}"
    rows = []
    for line in p.stdout.splitlines():
        if line.startswith("{"):
            rows.append(json.loads(line))
    return path, rows, None


# The (expression kind, position) pairs the type system allows: a position
# takes the kinds whose types it can hold (docs/checker.md, "Soundness at
# scale"). Kinds are HIR's, with `&&`/`||` (Logic) apart from the other
# binary operators and the borrows the checker inserts (AutoBorrow) apart
# from written ones.
VALUES = ["Int", "Float", "Bool", "Local", "Const", "Tuple", "Call", "Len", "Field", "Index", "Unary", "Borrow",
          "Deref", "Cast", "Binary", "Logic"]
BOOLS = ["Bool", "Local", "Const", "Call", "Field", "Unary", "Deref", "Binary", "Logic"]
USIZES = ["Int", "Local", "Const", "Call", "Len", "Field", "Deref", "Cast", "Binary"]
ALLOWED = {
    "let-initializer": VALUES + ["Unit"],
    "assigned-value": VALUES,
    "assigned-place": ["Local", "Field", "Index", "Deref"],
    "expression-statement": ["Call", "Local", "Field", "Tuple", "Unit"],
    "return-value": ["Int", "Bool", "Local", "Const", "Tuple", "Call", "Len", "Field", "Unary", "Borrow", "Deref",
                     "Cast", "Binary", "Logic"],
    "block-tail": ["Int", "Bool", "Local", "Const", "Tuple", "Call", "Len", "Field", "Unary", "Borrow", "Deref",
                   "Cast", "Binary", "Logic"],
    "if-condition": BOOLS,
    "while-condition": BOOLS,
    "logic-left": BOOLS,
    "logic-right": BOOLS,
    "for-range": USIZES,
    "index": USIZES,
    "call-argument": VALUES + ["MemConst", "AutoBorrow"],
    "tuple-element": VALUES,
    # `&&slots[s]`: a reference to a reference.
    "borrow-operand": ["Int", "Float", "Bool", "Local", "Const", "Tuple", "Call", "Len", "Field", "Index", "Unary",
                       "Deref", "Cast", "Binary", "Logic", "Borrow"],
    "deref-operand": ["Local", "Borrow", "Field", "Call"],
    "index-base": ["Local", "Field", "Index", "Deref", "Call", "Borrow"],
    "field-base": ["Local", "Tuple", "Call", "Field", "Deref"],
    "unary-operand": ["Int", "Float", "Bool", "Local", "Const", "Call", "Field", "Unary", "Deref", "Cast", "Binary",
                      "Logic"],
    "cast-operand": ["Int", "Bool", "Local", "Const", "Call", "Len", "Field", "Unary", "Deref", "Cast", "Binary",
                     "Logic"],
    # The tensor operators borrow their operands (`&x * &x`, `x + x`).
    "binary-operand": ["Int", "Float", "Bool", "Local", "Const", "Call", "Len", "Field", "Unary", "Deref", "Cast",
                       "Binary", "Logic", "Borrow", "AutoBorrow"],
    "len-operand": ["Local", "Deref", "Field"],
    # The grid forms (docs/grid.md): a grid's extents (around the grid, where
    # calls are allowed in the extents themselves), a block's tensor (`a`,
    # `*&a`, `&a[b]`, `a[b]` auto-borrowed, `(a, 0).0`, a block of a block)
    # and its offsets.
    "grid-extent": USIZES,
    "block-source": ["Local", "Call", "Field", "Borrow", "Deref", "AutoBorrow"],
    "block-destination": ["Local", "Call", "Field", "Borrow", "Deref"],
    "block-offset": USIZES,
}
GRID_POSITIONS = ("grid-extent", "block-source", "block-destination", "block-offset")


def print_coverage(coverage):
    allowed = {f"{k}@{p}" for p, ks in ALLOWED.items() for k in ks}
    got = {pair for pair, c in coverage.items() if c > 0}
    covered = allowed & got
    print(f"coverage      {len(covered)} of the {len(allowed)} (expression kind, position) pairs the type system "
          f"allows ({100.0 * len(covered) / max(1, len(allowed)):.1f}%)")
    grid = {f"{k}@{p}" for p in GRID_POSITIONS for k in ALLOWED[p]}
    print(f"  grid forms  {len(grid & got)} of the {len(grid)} pairs of the grid positions "
          f"({', '.join(GRID_POSITIONS)})")
    for pos in ALLOWED:
        row = [f"{k} {coverage[k + '@' + pos]}" for k in ALLOWED[pos]]
        print(f"  {pos:21s} " + ", ".join(row))
    missing = sorted(allowed - got)
    if missing:
        print("  not covered: " + ", ".join(missing))
    extra = sorted(got - allowed)
    if extra:
        print("  outside the table (the table is incomplete): " + ", ".join(extra))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("n", type=int)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--per-file", type=int, default=25)
    ap.add_argument("--keep", default=str(ROOT / "build" / "soundness-failures"))
    ap.add_argument("--minutes", type=float, default=0)
    ap.add_argument("--oracle", default=str(ROOT / "build" / "bench" / "vx-oracle"))
    ap.add_argument("--no-early-exits", action="store_true", help="generate no break/continue/return")
    ap.add_argument("--generators", default="gen,typed,grid",
                    help="which generators write the batches, in turn: gen (templates), typed (type-directed), "
                         "grid (grids and blocks)")
    ap.add_argument("--grid", action="store_true", help="grid-and-block kernels only (--generators grid)")
    args = ap.parse_args()
    if args.grid:
        args.generators = "grid"

    work = pathlib.Path(tempfile.mkdtemp(prefix="vx-soundness-"))
    files_per_batch = max(1, args.jobs * 2)
    batch_kernels = files_per_batch * args.per_file
    counts = collections.Counter()
    imprecise = collections.Counter()
    confirmed = collections.Counter()
    notes = collections.Counter()
    unjudged = []  # accepted kernels never seen to finish (kept, listed after the failures)
    results = collections.Counter()
    failures = []
    check_ms = []
    start = time.time()
    made = 0
    seed = args.seed
    keep = pathlib.Path(args.keep)
    generators = args.generators.split(",")
    batches = 0
    coverage = collections.Counter()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        while made < args.n:
            if args.minutes and time.time() - start > args.minutes * 60:
                break
            n = min(batch_kernels, args.n - made)
            out = work / f"batch{seed}"
            generator = generators[batches % len(generators)]
            batches += 1
            subprocess.run([sys.executable, str(ROOT / "bench" / "soundness" / f"{generator}.py"), str(seed), str(n),
                            str(out), "--per-file", str(args.per_file), "--first", str(made)] +
                           (["--no-early-exits"] if args.no_early_exits else []), check=True)
            files = sorted(out.glob("*.vx"))
            for path, rows, err in pool.map(lambda f: oracle_run(args.oracle, f), files):
                if err is not None:
                    counts["crash"] += 1
                    failures.append((path, "*", "crash", err))
                    continue
                for r in rows:
                    if "coverage" in r:
                        for pair, c in r["coverage"].items():
                            coverage[pair] += c
                        continue
                    if r["fn"] == "*":
                        # The whole file is not well typed (it does not parse,
                        # or a type error): a generator bug.
                        counts["other"] += 1
                        failures.append((path, "*", "ill-typed", r.get("detail", "")))
                        continue
                    if not r["fn"].startswith("k"):
                        continue  # the helpers, not kernels
                    counts[f"kernels:{generator}"] += 1
                    counts["kernels"] += 1
                    check_ms.append(r.get("check_ms", 0.0))
                    kind, res = r["kind"], r.get("result", "other")
                    results[f"{kind}:{res}"] += 1
                    if r.get("grid"):
                        counts["grid"] += 1
                    for note in filter(None, r.get("notes", "").split(",")):
                        notes[note] += 1
                    if res in ("build", "unrunnable"):
                        counts["unsupported"] += 1  # the tpu target cannot build it (E0206)
                    if kind == "accepted":
                        counts["accepted"] += 1
                        if res == "unsound":
                            counts["unsound"] += 1
                            failures.append((path, r["fn"], "unsound", r.get("detail", "")))
                        elif res == "mismatch":
                            counts["mismatch"] += 1
                            failures.append((path, r["fn"], "mismatch", r.get("detail", "")))
                        elif res == "unjudged":
                            counts["unjudged"] += 1
                            unjudged.append((path, r["fn"], "unjudged", r.get("detail", "")))
                    elif kind == "rejected":
                        counts["rejected"] += 1
                        if res == "imprecise":
                            imprecise[r.get("detail") or "?"] += 1
                            counts["imprecise"] += 1
                            failures.append((path, r["fn"], "imprecise", r.get("detail", "")))
                        elif res == "confirmed":
                            counts["confirmed"] += 1
                            confirmed[r.get("detail", "?").split(" ")[0]] += 1
                        elif res == "unsound":
                            # A race between grid instances the checker did
                            # not report (the kernel was rejected for others).
                            counts["unsound"] += 1
                            failures.append((path, r["fn"], "unsound", r.get("detail", "")))
                        else:
                            counts["inconclusive"] += 1
                    else:
                        counts["other"] += 1
                        failures.append((path, r["fn"], "ill-typed", r.get("detail", "")))
            made += n
            seed += 1
    elapsed = time.time() - start
    for path, fn, what, detail in failures + unjudged[:20]:
        if what == "ill-typed" and counts["other"] > 20:
            continue
        keep.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, keep / path.name)
    shutil.rmtree(work, ignore_errors=True)

    k = counts["kernels"] or 1
    rej = counts["rejected"] or 1
    print(f"kernels       {counts['kernels']}  ({made} generated, seed {args.seed}, {elapsed:.0f} s; " +
          ", ".join(f"{g} {counts['kernels:' + g]}" for g in generators) + ")")
    print(f"accepted      {counts['accepted']}  (unjudged {counts['unjudged']}: no run ended to be compared — each "
          f"ended at vxsim's instruction or race-check limit or trapped; some runs ended at a limit: {notes['limit']})")
    print(f"rejected      {counts['rejected']}  (confirmed on vxsim {counts['confirmed']}, "
          f"inconclusive {counts['inconclusive']}: not buildable for tpu, or the counterexample traps or needs "
          f"inputs vxsim cannot take)")
    print("  confirmed   " + ", ".join(f"{code} {c}" for code, c in sorted(confirmed.items())))
    print(f"grids         {counts['grid']}  (kernels with a `parallel` grid; accepted ones whose run-time block check "
          f"trapped, undecided by the checker: {notes['block-trap']})")
    print(f"unsound       {counts['unsound']}")
    print(f"mismatch      {counts['mismatch']}")
    print(f"imprecise     {counts['imprecise']}  ({100.0 * counts['imprecise'] / rej:.2f}% of the rejected, "
          f"{100.0 * counts['imprecise'] / k:.2f}% of all)")
    for code, c in imprecise.most_common():
        print(f"  {code:10s}  {c}")
    print(f"unsupported   {counts['unsupported']}  (accepted or rejected, but the tpu target cannot build them: "
          f"not run)")
    print(f"other         {counts['other']}  (not well typed, kernels or whole files: generator bugs)")
    print(f"crash         {counts['crash']}")
    print(f"check time    {sum(check_ms) / max(1, len(check_ms)):.1f} ms per kernel (mean)")
    print("results:", ", ".join(f"{key} {v}" for key, v in sorted(results.items())))
    print_coverage(coverage)
    # The worst first: every unsound, mismatching or crashing case, then up
    # to 20 of the others.
    severe = [f for f in failures if f[2] in ("unsound", "mismatch", "crash")]
    for path, fn, what, detail in severe + [f for f in failures if f not in severe][:20]:
        print(f"FAIL {what}: {path.name} {fn}: {detail[:300]}")
    for path, fn, what, detail in unjudged[:5]:
        print(f"UNJUDGED: {path.name} {fn}: {detail[:300]}")
    return 1 if counts["unsound"] or counts["mismatch"] or counts["crash"] else 0


if __name__ == "__main__":
    sys.exit(main())

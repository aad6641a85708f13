#!/usr/bin/env python3
"""Generates a valid Vx program of exactly N lines for the frontend benchmark.

The program is a sequence of "modules": a comment banner, a few consts,
scalar helper functions and several `on Topology::TensorCore` kernels built
from the patterns of /work/shared/examples/ok (streaming, rings of slots,
exclusive paths, local accumulators, blocked loops). Every kernel consumes
each token exactly once on every path and every binding is used, so the file
checks clean with today's `vxc check` and should keep doing so once names,
types and the ownership checker land. Builtins are called only the way the
shared examples call them. Output is deterministic for a given seed.

    gen_vx.py LINES [-o FILE] [--seed N]
"""
import argparse
import random
import sys

TENSOR = "Tensor<f32, [128, 128]>"
TILES = f"&Vec<{TENSOR}>"
PINNED = f"Pinned<{TENSOR}, Memory::VMEM>"

COMMENTS = [
    "issue before consuming",
    "token consumed here",
    "the prefetch overlaps the matrix unit",
    "slot (i + 1) % 2 is being filled while slot i % 2 is read",
    "weights stay latched across the loop",
    "the last tile is waited outside the loop",
    "double buffering hides the HBM latency",
    "every path waits exactly once",
    "scalar bookkeeping only; no tensor is touched",
    "rounds up to whole tiles",
]
TOK = ["inflight", "pending", "tok", "prefetch", "in_flight", "req"]
NXT = ["next", "upcoming", "ahead", "next_tok"]
CUR = ["cur", "tile", "x", "blk", "landed", "ready"]
IDX = ["i", "j", "k", "ti"]
CNT = ["n", "count", "len", "num_tiles"]


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.uid = 0

    def pick(self, xs):
        return self.r.choice(xs)

    def comment(self):
        return self.pick(COMMENTS)

    # ---------- top-level items; each returns a list of lines ----------

    def banner(self, m):
        lines = [f"// ---- module {m}: tiles through the matrix unit ----"]
        if self.r.random() < 0.3:
            lines += ["/* Generated for the frontend benchmark.",
                      "   /* Block comments nest, as in Rust. */",
                      "   Each kernel below checks clean. */"]
        return lines

    def consts(self, m):
        return [f"const TILE_{m}: usize = 128;",
                f"const DEPTH_{m}: usize = {self.pick([2, 4, 8])};",
                f"const BIAS_{m}: i32 = {self.r.randint(-9, 9)};",
                f"const ALPHA_{m}: f32 = {self.pick(['0.5', '0.25', '1.0e-3', '2.0'])};"]

    def helpers(self, m):
        """Scalar helpers: usize ones run on the TensorCore (kernels call
        them), i32/i64/f32 ones on the host call each other."""
        return [
            f"// Rounds `n` up to a whole number of DEPTH_{m} blocks.",
            f"fn round_up_{m}(n: usize) -> usize on Topology::TensorCore {{",
            f"  let r = n % DEPTH_{m};",
            "  if r == 0 {",
            "    return n;",
            "  }",
            f"  n + (DEPTH_{m} - r)",
            "}",
            f"fn tiles_for_{m}(rows: usize, cols: usize) -> usize on Topology::TensorCore {{",
            f"  let per_row = (cols + TILE_{m} - 1) / TILE_{m};",
            "  let mut total: usize = 0;",
            "  for r in 0..rows {",
            "    if r % 2 == 0 {",
            "      total += per_row;",
            "    } else {",
            "      total += per_row + 1;",
            "    }",
            "  }",
            "  total",
            "}",
            f"fn divmod_{m}(a: usize, b: usize) -> (usize, usize) on Topology::TensorCore {{",
            "  (a / b, a % b)",
            "}",
            f"fn clamp_{m}(x: i32, lo: i32, hi: i32) -> i32 {{",
            f"  let mut v = x + BIAS_{m};",
            "  if v < lo {",
            "    v = lo;",
            "  } else if v > hi {",
            "    v = hi;",
            "  }",
            "  v",
            "}",
            f"fn score_{m}(a: i64, b: i64, fast: bool) -> i64 {{",
            "  let d = a - b;",
            "  let mut s = d * 2 + 1;",
            "  if !fast && d < 0 {",
            "    s = -d;",
            "  }",
            "  while s > 1000 {",
            "    s /= 2;",
            "  }",
            "  s",
            "}",
            f"fn lerp_{m}(a: f32, b: f32) -> f32 {{",
            f"  a + (b - a) * ALPHA_{m}",
            "}",
            f"fn plan_{m}(rows: i32, cols: i32, a: i64, b: i64) -> i32 {{",
            f"  let r = clamp_{m}(rows, 0, 4096);",
            f"  let c = clamp_{m}(cols * 2 - 1, 1, 4096);",
            f"  if score_{m}(a, b, r > c) > 10 {{",
            "    return r;",
            "  }",
            "  (r + 127) / 128 * ((c + 127) / 128)",
            "}",
        ]

    def tail_wait(self, tok, cond):
        """Consumes `tok` on both arms of an if/else (or unconditionally)."""
        if cond is None:
            return [f"  matmul_acc(wait({tok}));"]
        c = self.pick(CUR)
        return [f"  if {cond} {{",
                f"    matmul_acc(wait({tok}));",
                "  } else {",
                f"    let {c} = wait({tok});",
                f"    matmul_acc({c});",
                "  }"]

    def k_stream(self, m, name):
        tok, nxt, cur, i = self.pick(TOK), self.pick(NXT), self.pick(CUR), self.pick(IDX)
        n = self.pick(CNT)
        scalar = self.r.random() < 0.6
        body = [f"fn {name}(tiles: {TILES}) -> void on Topology::TensorCore {{"]
        if scalar:
            body += [f"  let {n} = tiles.len();",
                     f"  let half = {n} / 2;",
                     "  let mut issued: usize = 0;"]
        body += [f"  let mut {tok} = transfer_async(tiles[0], Memory::VMEM);",
                 f"  for {i} in 1..{n if scalar else 'tiles.len()'} {{",
                 f"    let {nxt} = transfer_async(tiles[{i}], Memory::VMEM);   // {self.comment()}",
                 f"    let {cur} = wait({tok});"]
        if scalar:
            op = self.pick([f"{i} < half", f"({i} * 3 + 1) % 4 == 0", f"{i} % 2 == 1 && {i} > 2"])
            body += [f"    if {op} {{",
                     f"      matmul_acc({cur});",
                     "    } else {",
                     f"      matmul_acc({cur});",
                     "    }",
                     "    issued += 1;"]
        else:
            body += [f"    matmul_acc({cur});"]
        body += [f"    {tok} = {nxt};", "  }"]
        body += self.tail_wait(tok, f"issued + half >= {n}" if scalar else None)
        return body + ["}"]

    def k_stream_out(self, m, name):
        tok, nxt, i = self.pick(TOK), self.pick(NXT), self.pick(IDX)
        return [
            f"// Streams tiles through latched weights: out = sum_i tiles[i] @ w.",
            f"fn {name}(tiles: {TILES},",
            f"          w: &{TENSOR},",
            f"          out: &mut {TENSOR}) on Topology::TensorCore {{",
            "  let wv = transfer(w, Memory::VMEM);",
            "  load_weights(&wv);",
            f"  let mut {tok} = transfer_async(tiles[0], Memory::VMEM);",
            f"  for {i} in 1..tiles.len() {{",
            f"    let {nxt} = transfer_async(tiles[{i}], Memory::VMEM);",
            f"    matmul_acc(wait({tok}));",
            f"    {tok} = {nxt};",
            "  }",
            f"  matmul_acc(wait({tok}));",
            "  store_acc(out);",
            "}",
        ]

    def k_ring(self, m, name):
        i = self.pick(IDX)
        use_n = self.r.random() < 0.5
        n = "n" if use_n else "tiles.len()"
        body = [
            f"fn {name}(tiles: {TILES},",
            f"          acc: &mut {PINNED},",
            f"          w: &{PINNED}) on Topology::TensorCore {{",
            "  let mut slots = zeros::<f32, [2, 128, 128]>(Memory::VMEM);",
        ]
        if use_n:
            body += ["  let n = tiles.len();"]
        body += [
            "  let mut t = transfer_async_into(tiles[0], &mut slots[0]);",
            f"  for {i} in 0..{n} {{",
            "    wait(t);",
            f"    if {i} + 1 < {n} {{   // {self.comment()}",
            f"      t = transfer_async_into(tiles[{i} + 1], &mut slots[({i} + 1) % 2]);",
            "    } else {",
            f"      t = transfer_async_into(tiles[{i}], &mut slots[({i} + 1) % 2]);",
            "    }",
            f"    mma(acc, &slots[{i} % 2], w);",
            "  }",
            "  wait(t);",
            "}",
        ]
        return body

    def k_exclusive(self, m, name):
        tok = self.pick(TOK)
        return [
            f"// {self.comment()}",
            f"fn {name}(tiles: {TILES}, flag: bool) on Topology::TensorCore {{",
            f"  let {tok} = transfer_async(tiles[0], Memory::VMEM);",
            "  if flag {",
            f"    matmul_acc(wait({tok}));",
            "  }",
            "  if !flag {",
            f"    matmul_acc(wait({tok}));",
            "  }",
            "}",
        ]

    def k_accum(self, m, name):
        cur, i = self.pick(CUR), self.pick(IDX)
        return [
            f"fn {name}(tiles: {TILES},",
            f"          w: &{PINNED},",
            f"          out: &mut {PINNED}) on Topology::TensorCore {{",
            "  let mut acc = zeros::<f32, [128, 128]>(Memory::VMEM);",
            f"  let total = tiles_for_{m}(tiles.len(), TILE_{m} * 2);",
            f"  for {i} in 0..tiles.len() {{",
            f"    let {cur} = wait(transfer_async(tiles[{i}], Memory::VMEM));",
            f"    mma(&mut acc, &{cur}, w);",
            "  }",
            "  if total > tiles.len() {",
            "    mma(out, &acc, w);",
            "  } else {",
            "    mma(out, &acc, w);",
            "  }",
            "}",
        ]

    def k_blocked(self, m, name):
        cur = self.pick(CUR)
        return [
            f"/* Blocks of DEPTH_{m} tiles, one accumulator per block. */",
            f"fn {name}(tiles: {TILES},",
            f"          w: &{PINNED},",
            f"          out: &mut {PINNED}) on Topology::TensorCore {{",
            f"  let padded = round_up_{m}(tiles.len());",
            f"  let (blocks, rest) = divmod_{m}(padded, DEPTH_{m});",
            "  for b in 0..blocks {",
            "    let mut acc = zeros::<f32, [128, 128]>(Memory::VMEM);",
            f"    for k in 0..DEPTH_{m} {{",
            f"      let idx = b * DEPTH_{m} + k;",
            "      if idx < tiles.len() && rest == 0 {",
            f"        let {cur} = wait(transfer_async(tiles[idx], Memory::VMEM));",
            f"        mma(&mut acc, &{cur}, w);",
            "      }",
            "    }",
            "    mma(out, &acc, w);",
            "  }",
            "}",
        ]

    KERNELS = ["k_stream", "k_stream", "k_stream_out", "k_ring", "k_ring",
               "k_exclusive", "k_accum", "k_blocked"]

    def module(self, m):
        items = [self.banner(m), self.consts(m), self.helpers(m)]
        for j in range(self.r.randint(3, 6)):
            kind = self.pick(self.KERNELS)
            items.append(getattr(self, kind)(m, f"{kind[2:]}_{m}_{j}"))
        return items


def generate(lines, seed):
    g = Gen(seed)
    out = []
    m = 0
    while True:
        mod = g.module(m)
        size = sum(len(it) + 1 for it in mod)  # a blank line after each item
        if len(out) + size > lines:
            break
        for it in mod:
            out += it + [""]
        m += 1
    # Pad with comment lines so the file has exactly `lines` lines.
    while len(out) < lines:
        out.append(f"// padding {len(out)}")
    return "\n".join(out[:lines]) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("lines", type=int)
    ap.add_argument("-o", "--output", default="-")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    text = generate(a.lines, a.seed)
    if a.output == "-":
        sys.stdout.write(text)
    else:
        with open(a.output, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()

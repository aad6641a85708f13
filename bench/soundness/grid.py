#!/usr/bin/env python3
"""Grid-and-block Vx kernels for the soundness benchmark (bench/soundness.py).

Every kernel is a `parallel` grid (docs/grid.md) over tensors with run-time
extents (`a: &Tensor<f32, [m, W]>`), whose instances copy blocks in, compute
and write blocks out. What the grid and its blocks are is drawn dimension by
dimension:

- the grid's extents: `m / BM`, `m / (2 * BM)`, `m / BM - 1`, `m / BM + 1`,
  `(m - BM) / BM`, `m / BM / 2`, constants, a scalar parameter, a Vec's
  length, one row per instance (`[m]`);
- each block's offsets: indexed by every index (`i * BM`, reversed, shifted
  by one block for an extent one short), by some indices only (a missing
  index, the other index), off by one (`i * BM + 1`), a stride too short
  (`i * BM / 2`, blocks of `2 * BM` rows at `i * BM`), `(i % 2) * BM`, a
  scalar added;
- guards: none, exact (`if r + BM <= m`), off by one (`r + BM <= m + 1`,
  `r < m`), on the index (`i < m / BM`);
- the kernels: row blocks and 2-D tiles (copies synchronous, through
  `transfer_async`, or into a buffer with `transfer_async_into`; stores,
  `store_async`, block views held in variables, helpers taking `&mut
  Tensor<f32, [m, W]>` and an offset or an index, with a loop, reading
  through a helper; the block written chosen by a condition of the index),
  GEMMs pipelined along K through a ring of slots, the pipeline form
  (docs/pipeline.md) at depths 1 to 4 with a store behind, at, among or
  past the copies in flight, into the tensor copied or another, row pipelines that store a block per step,
  groups of blocks per instance written in a loop (`for`, `while`, an offset
  carried from one iteration to the next, a `break`), 2 x 2 squares of
  tiles in nested loops, pairs of tiles with a copy of the instance's own
  columns (or past them) while its store is in flight, whole-tensor reads
  and writes of static tensors (by one instance, by all, beside blocks),
  reads of a neighbour's block (of the input, or of the output others
  write), batched tensors (`&a[b]`, grids of three indices, whole matrices
  beside blocks of them), Vec outputs indexed by the instance and halves of
  Vec tiles.

Every expression of type `usize` or `bool` (extents, offsets, guards) is
drawn from its type as in typed.py (literals, `const`s, locals, calls,
casts, tuple fields, dereferences, arithmetic), and so is each block's
source (`a`, `*&a`, `(a, 0).0`, `a[b]`, `&a[b]`, a block of a block). Then
half the pipelines get one of gen.py's mutations (a wait dropped,
duplicated or moved after a read, a slot index shifted). The generator
does not know the verdict: the checker gives it and the oracle (vx-oracle,
vxsim's race detector and its run-time block checks) judges it.

usage: grid.py SEED COUNT OUT_DIR [--per-file K] [--first N]
"""
import os
import random
import sys

VMEM = "Memory::VMEM"
HBM_TOK = "Token<void, Memory::HBM>"


def header(rnd):
    """The file's tile sizes and helpers."""
    c = {"BM": rnd.choice([8, 16]), "BN": rnd.choice([8, 16]), "BK": 8, "W": rnd.choice([32, 64]), "NB": 2,
         "S": rnd.choice([16, 32])}
    consts = "".join(f"const {k}: usize = {v};\n" for k, v in c.items())
    consts += "const ZERO: usize = 0;\nconst ONE: usize = 1;\nconst YES: bool = true;\n"
    pin = f"Pinned<Tensor<f32, [BM, W]>, {VMEM}>"
    pin2 = f"Pinned<Tensor<f32, [BM, BN]>, {VMEM}>"
    row = "Tensor<f32, [m, W]>"
    ret = rnd.random() < 0.5
    tail = (lambda e: f"  return {e};") if ret else (lambda e: f"  {e}")
    ident = rnd.choice(["x", "(x + 0)", "((x) as u64) as usize", "(x, 0).0", "*&x", "x * ONE"])
    helpers = f"""
fn idx(x: usize) -> usize on Topology::TensorCore {{
{tail(ident)}
}}

fn yes(b: bool) -> bool on Topology::TensorCore {{
  b
}}

// The row block at `r`, guarded.
fn put(x: &{pin}, c: &mut {row}, r: usize) on Topology::TensorCore {{
  if r + BM <= m {{
    store(x, block_mut::<[BM, W]>(c, r, 0));
  }}
}}

// The row block at `r`, unguarded: E6009 here, a run-time check at the call.
fn put_raw(x: &{pin}, c: &mut {row}, r: usize) on Topology::TensorCore {{
  store(x, block_mut::<[BM, W]>(c, r, 0));
}}

// Block `i` of rows, the offset computed here.
fn put_at(x: &{pin}, c: &mut {row}, i: usize) on Topology::TensorCore {{
  let r = idx(i) * BM;
  if r + BM <= m {{
    store(x, block_mut::<[BM, W]>(c, r, 0));
  }}
}}

// Block `i` of rows, wrapped into the tensor, stored asynchronously.
fn put_async(x: &{pin}, c: &mut {row}, i: usize) -> {HBM_TOK} on Topology::TensorCore {{
  store_async(x, block_mut::<[BM, W]>(c, (i % (m / BM)) * BM, 0))
}}

// Block `i` of rows, wrapped into the tensor.
fn get(a: &{row}, i: usize) -> {pin} on Topology::TensorCore {{
  transfer(block::<[BM, W]>(a, (i % (m / BM)) * BM, 0), {VMEM})
}}

// Reads the next row block of `c` into the one at `r`.
fn shift_up(c: &mut {row}, r: usize) on Topology::TensorCore {{
  if r + 2 * BM <= m {{
    let x = transfer(block::<[BM, W]>(c, r + BM, 0), {VMEM});
    store(&x, block_mut::<[BM, W]>(c, r, 0));
  }}
}}

// `cnt` row blocks from `r` on, in a loop.
fn put_rows(x: &{pin}, c: &mut {row}, r: usize, cnt: usize) on Topology::TensorCore {{
  for s in 0..cnt {{
    if r + s * BM + BM <= m {{
      store(x, block_mut::<[BM, W]>(c, r + s * BM, 0));
    }}
  }}
}}

// A tile at (r, q), guarded.
fn put2(x: &{pin2}, c: &mut Tensor<f32, [m, n]>, r: usize, q: usize) on Topology::TensorCore {{
  if r + BM <= m && q + BN <= n {{
    store(x, block_mut::<[BM, BN]>(c, r, q));
  }}
}}
"""
    return c, consts + helpers


class Kernel:
    def __init__(self, rnd, name, consts):
        self.r = rnd
        self.name = name
        self.c = consts
        self.lines = []
        self.pre = []  # scalar set-up before the grid
        self.n = 0
        self.params = []
        self.ring = None  # the ring's size, for the mutations
        self.note = ""

    # ---- plumbing ----
    def emit(self, depth, text, tag=""):
        self.lines.append("  " * depth + text + (f" // {tag}" if tag else ""))

    def fresh(self, base):
        self.n += 1
        return f"{base}{self.n}"

    def pick(self, *weighted):
        forms, weights = zip(*weighted)
        return self.r.choices(forms, weights)[0]

    def chance(self, p):
        return self.r.random() < p

    # ---- values of a type, in any of its forms ----
    def usize(self, e, depth, calls=True, budget=2, outer=False):
        """An expression of type usize with the value of `e`. `outer`: before
        the grid, where only scalar set-up runs (no calls in `let`s)."""
        if budget <= 0:
            return e
        form = self.pick(("plain", 8), ("add0", 1), ("mul1", 1), ("cast", 1), ("call", 1 if calls else 0),
                         ("field", 1), ("deref", 1), ("local", 1), ("const", 1))
        sub = lambda x: self.usize(x, depth, calls, budget - 1, outer)  # noqa: E731
        if form == "plain":
            return e
        if form == "add0":
            return f"({sub(e)} + {self.pick(('0', 1), ('ZERO', 1))})"
        if form == "mul1":
            return f"({sub(e)} * {self.pick(('1', 1), ('ONE', 1))})"
        if form == "cast":
            return f"((({sub(e)}) as u64) as usize)"
        if form == "call":
            return f"idx({sub(e)})"
        if form == "field":
            return self.pick((f"({sub(e)}, 0).0", 1), (f"(YES, {sub(e)}).1", 1))
        if form == "deref":
            return f"*&({sub(e)})"
        if form == "const" and e in ("0", "1"):
            return {"0": "ZERO", "1": "ONE"}[e]
        if form == "local":
            v = self.fresh("u")
            if outer:
                self.pre.append(f"  let {v} = {self.usize(e, depth, False, budget - 1, True)};")
            else:
                self.emit(depth, f"let {v} = {sub(e)};")
            return v
        return e

    def boolean(self, e, depth, budget=2):
        if budget <= 0:
            return e
        form = self.pick(("plain", 8), ("and", 1), ("not", 1), ("call", 1), ("field", 1), ("local", 1))
        sub = lambda x: self.boolean(x, depth, budget - 1)  # noqa: E731
        if form == "plain":
            return e
        if form == "and":
            return self.pick((f"({sub(e)} && true)", 1), (f"(YES && {sub(e)})", 1))
        if form == "not":
            return f"!(!({sub(e)}))"
        if form == "call":
            return f"yes({sub(e)})"
        if form == "field":
            return f"({sub(e)}, 1).0"
        v = self.fresh("g")
        self.emit(depth, f"let {v} = {sub(e)};")
        return v

    # ---- grids and offsets ----
    def dim(self, X, B, var, other=None, group=False):
        """One dimension of the grid: its extent and the offset of the
        instance's block along it, right or wrong. Returns (extent, offset,
        guard needed to be in bounds, what)."""
        right = self.chance(0.6)
        if right:
            kind = self.pick(("div", 6), ("div2", 1 if group else 0), ("minus1", 2), ("reversed", 1), ("sub", 1),
                             ("half", 1), ("unit", 1 if B == "ONE" else 0))
        else:
            kind = self.pick(("plus1", 2), ("const", 2), ("shift", 3), ("short", 2), ("zero", 2),
                             ("other", 2 if other else 0), ("mod", 1), ("scalar", 1), ("wide_ext", 1))
        off = f"{var} * {B}"
        if kind == "div":
            ext = f"{X} / {B}"
            off = self.pick((f"{var} * {B}", 4), (f"{B} * {var}", 1), (f"{var} * {self.c.get(B, 1)}", 1))
        elif kind == "div2":
            ext = f"{X} / (2 * {B})"
            off = f"(2 * {var} + s) * {B}"
        elif kind == "minus1":
            ext = f"{X} / {B} - 1"
            off = self.pick((f"({var} + 1) * {B}", 1), (f"{var} * {B} + {B}", 1), (f"{var} * {B}", 1))
        elif kind == "reversed":
            ext = f"{X} / {B}"
            off = f"({X} / {B} - 1 - {var}) * {B}"
        elif kind == "sub":
            ext = f"({X} - {B}) / {B}"
        elif kind == "half":
            ext = f"{X} / {B} / 2"
            off = self.pick((f"{var} * {B}", 1), (f"({var} + {X} / {B} / 2) * {B}", 1))
        elif kind == "unit":
            ext = X
            off = var
        elif kind == "plus1":
            ext = f"{X} / {B} + 1"
        elif kind == "const":
            ext = self.pick(("1", 1), ("2", 2), ("3", 1), ("ONE", 1))
        elif kind == "shift":
            ext = f"{X} / {B}"
            off = f"{var} * {B} + 1"
        elif kind == "short":
            ext = f"{X} / {B}"
            off = self.pick((f"{var} * {B} / 2", 1), (f"{var} * ({B} / 2)", 1), (f"{var} * {B} - {var}", 1))
        elif kind == "zero":
            ext = f"{X} / {B}"
            off = "0"
        elif kind == "other":
            ext = f"{X} / {B}"
            off = f"{other} * {B}"
        elif kind == "mod":
            ext = f"{X} / {B}"
            off = f"({var} % 2) * {B}"
        elif kind == "scalar":
            ext = f"{X} / {B}"
            off = f"{var} * {B} + d"
            self.want_scalar = True
        else:  # wide_ext: one row per instance, blocks of B rows
            ext = X
            off = var
        return ext, off, kind

    def guard(self, off, rows, X, var, ext_kind, depth):
        """`if ... {` around an access at `off` of `rows` rows of X, or None."""
        g = self.pick(("none", 5), ("exact", 4), ("loose", 1), ("index", 1))
        if g == "none":
            return None
        if g == "exact":
            return f"{off} + {rows} <= {X}"
        if g == "loose":
            return self.pick((f"{off} + {rows} <= {X} + 1", 1), (f"{off} < {X}", 1), (f"{off} <= {X}", 1))
        return f"{var} < {X} / ({rows})" if ext_kind != "unit" else f"{var} < {X}"

    # ---- pieces of instances ----
    def block(self, mut, src, rows, cols, r, c, depth):
        fn = "block_mut" if mut else "block"
        blk = f"{fn}::<[{rows}, {cols}]>({src}, {self.usize(r, depth)}, {self.usize(c, depth)})"
        nest = self.pick(("no", 30), ("same", 2), ("shift", 1 if rows in ("BM", "BN", "BK", "ONE", "1") else 0))
        if nest == "same":
            # A block of the block: the same elements.
            blk = f"{fn}::<[{rows}, {cols}]>({blk}, {self.usize('0', depth)}, {self.usize('0', depth)})"
        elif nest == "shift":
            # The second half of a block twice as tall: one block further.
            inner = f"{fn}::<[2 * {rows}, {cols}]>({src}, {self.usize(r, depth)}, {self.usize(c, depth)})"
            blk = f"{fn}::<[{rows}, {cols}]>({inner}, {self.usize(rows, depth)}, {self.usize('0', depth)})"
        return blk

    def dest(self, depth, once):
        """`c` where a block of it is written, in one of its forms. `once`:
        the last use of `c` (it may be moved into a tuple)."""
        form = self.pick(("plain", 16), ("reborrow", 2), ("field", 1 if once else 0), ("deref", 1))
        if form == "plain":
            return "c"
        if form == "reborrow":
            return "&mut *c"
        if form == "field":
            return "(c, 0).0"
        cc, r = self.fresh("cc"), self.fresh("r")
        self.emit(depth, f"let mut {cc} = &mut *c;")
        self.emit(depth, f"let {r} = &mut {cc};")
        return f"*{r}"

    def source(self, name, depth):
        """The tensor a `block` is taken of, in one of its forms (`&mut`
        parameters are only reborrowed: they are used again)."""
        if name == "c":
            return self.pick((name, 8), (f"&*{name}", 1))
        return self.pick((name, 8), (f"*&{name}", 1), (f"({name}, 0).0", 1), (f"&*{name}", 1))

    def read(self, blk, rows, cols, depth, view=True):
        """A copy of `blk` on chip; returns the buffer's name (`x`). `view`:
        `blk` may be held in a variable first (a block, not a tensor)."""
        form = self.pick(("sync", 4), ("async", 2), ("into", 3), ("view", 1 if view else 0))
        x = self.fresh("x")
        if form == "sync":
            self.emit(depth, f"let {x} = transfer({blk}, {VMEM});")
        elif form == "async":
            t = self.fresh("t")
            self.emit(depth, f"let {t} = transfer_async({blk}, {VMEM});", "I")
            self.emit(depth, f"let {x} = wait({t});", "W")
        elif form == "view":
            v = self.fresh("v")
            self.emit(depth, f"let {v} = {blk};")
            self.emit(depth, f"let {x} = transfer({v}, {VMEM});")
        else:
            t = self.fresh("t")
            self.emit(depth, f"let mut {x} = zeros::<f32, [{rows}, {cols}]>({VMEM});")
            self.emit(depth, f"let {t} = transfer_async_into({blk}, &mut {x});", "I")
            self.emit(depth, f"wait({t});", "W")
        return x

    def compute(self, x, depth):
        y = self.fresh("y")
        form = self.pick(("exp", 2), ("relu", 2), ("mul", 1), ("add", 1), ("same", 1))
        text = {"exp": f"exp(&{x})", "relu": f"relu({x})", "mul": f"&{x} * &{x}", "add": f"{x} + {x}",
                "same": x}[form]
        self.emit(depth, f"let {y} = {text};", "C")
        return y

    def write(self, y, blk, depth, view=True):
        form = self.pick(("store", 5), ("async", 2), ("view", 1 if view else 0))
        if form == "store":
            self.emit(depth, f"store(&{y}, {blk});")
        elif form == "view":
            v = self.fresh("v")
            self.emit(depth, f"let {v} = {blk};")
            self.emit(depth, f"store(&{y}, {v});")
        else:
            s = self.fresh("s")
            self.emit(depth, f"let {s} = store_async(&{y}, {blk});", "I")
            if self.chance(0.3):
                self.emit(depth, "();")
            self.emit(depth, f"wait({s});", "W")

    def extent(self, e):
        """A grid extent: `e` through the forms its position allows."""
        return self.usize(e, 1, calls=True, outer=True)

    def open_guard(self, cond, depth):
        if cond is None:
            return depth
        self.emit(depth, f"if {self.boolean(cond, depth)} {{")
        return depth + 1

    def close(self, depth, to):
        while depth > to:
            depth -= 1
            self.emit(depth, "}")

    # ---- kernels ----
    def rows(self):
        """1-D grid of row blocks of a row-major m x W matrix."""
        self.want_scalar = False
        self.params = ["a: &Tensor<f32, [m, W]>", "c: &mut Tensor<f32, [m, W]>"]
        unit = self.chance(0.1)
        B = "ONE" if unit else "BM"
        ext, off, kind = self.dim("m", B, "i", group=True)
        rows = "1" if unit and kind == "unit" else "BM"
        if rows == "1" and kind != "unit":
            rows = "ONE"
        if kind == "wide_ext":
            rows = "BM"
        if self.chance(0.12) and not unit:
            rows = "2 * BM"  # blocks wider than the stride: neighbours overlap
        if self.want_scalar:
            self.params.append("d: usize")
        self.note = f"rows {kind} rows={rows}"
        d = 2
        self.emit(1, f"parallel i in [{self.extent(ext)}] {{")
        group = kind == "div2"
        if group:
            self.emit(d, f"for s in {self.usize('0', d)}..{self.usize('2', d)} {{")
            d += 1
        cond = self.guard(off, rows, "m", "i", kind, d)
        d = self.open_guard(cond, d)
        src = self.pick(("a", 6), ("c-own", 1), ("c-next", 1), ("a-next", 1))
        if src == "a":
            roff, sname = off, "a"
        elif src == "c-own":
            roff, sname = off, "c"
        else:
            sname = "a" if src == "a-next" else "c"
            roff = f"({off}) + {rows}"
            if self.chance(0.7):
                self.emit(d, f"if {self.boolean(f'{roff} + {rows} <= m', d)} {{")
                d += 1
        blk = self.block(False, self.source(sname, d), rows, "W", roff, self.pick(("0", 9), ("1", 1)), d)
        if rows == "BM" and roff == off and self.chance(0.1):
            # The copy in through a helper: block `i` of the rows.
            x = self.fresh("x")
            self.emit(d, f"let {x} = get({'&*c' if sname == 'c' else 'a'}, "
                         f"{self.usize(self.pick(('i', 4), ('i + 1', 1)), d)});")
        else:
            x = self.read(blk, rows, "W", d)
        y = self.compute(x, d)
        helper = rows == "BM" and self.chance(0.3)
        if helper:
            h = self.pick(("put", 3), ("put_raw", 1), ("put_at", 2), ("put_async", 2), ("shift_up", 1),
                          ("put_rows", 2))
            if h == "put" or h == "put_raw":
                self.emit(d, f"{h}(&{y}, c, {self.usize(off, d)});")
            elif h == "put_rows":
                cnt = self.pick(("1", 3), ("2", 1), ("ONE", 1))
                self.emit(d, f"put_rows(&{y}, c, {self.usize(off, d)}, {self.usize(cnt, d)});")
            elif h == "put_at":
                self.emit(d, f"put_at(&{y}, c, {self.usize(self.pick(('i', 4), ('i + 1', 1), ('i / 2', 1)), d)});")
            elif h == "put_async":
                s = self.fresh("s")
                self.emit(d, f"let {s} = put_async(&{y}, c, {self.usize(self.pick(('i', 4), ('i + 1', 1)), d)});",
                          "I")
                self.emit(d, f"wait({s});", "W")
            else:
                self.emit(d, f"shift_up(c, {self.usize(off, d)});")
        elif self.chance(0.15) and rows == "BM":
            # The block written depends on a condition of the index.
            cond, other = self.pick((("i % 2 == 0", "(i - 1) * BM"), 2), (("i % 2 == 0", off), 1),
                                    (("i + 1 < m / BM", "(m / BM - 1) * BM"), 1), (("i < m / BM / 2", "0"), 1),
                                    (("i < m / BM / 2", "(i - m / BM / 2) * BM"), 1), (("d > 3", off), 1),
                                    (("i > 0", "(i - 1) * BM + 1"), 1))
            if "d" in cond and "d: usize" not in self.params:
                self.params.append("d: usize")
            self.note += f" branch {cond}: {other}"
            self.emit(d, f"if {self.boolean(cond, d)} {{")
            self.write(y, self.block(True, "c", rows, "W", off, "0", d + 1), d + 1)
            self.emit(d, "} else {")
            self.write(y, self.block(True, "c", rows, "W", other, "0", d + 1), d + 1)
            self.emit(d, "}")
        else:
            self.write(y, self.block(True, self.dest(d, not group), rows, "W", off, "0", d), d)
        self.close(d, 1)

    def tiles(self):
        """2-D grid of BM x BN tiles of m x n matrices."""
        self.want_scalar = False
        self.params = ["a: &Tensor<f32, [m, n]>", "c: &mut Tensor<f32, [m, n]>"]
        e0, o0, k0 = self.dim("m", "BM", "i", other="j")
        if self.chance(0.5):
            e1, o1, k1 = "n / BN", self.pick(("j * BN", 5), ("BN * j", 1)), "div"
        else:
            e1, o1, k1 = self.dim("n", "BN", "j", other="i")
        if k0 == "unit":
            e0, o0, k0 = "m / BM", "i * BM", "div"
        if k1 == "unit":
            e1, o1, k1 = "n / BN", "j * BN", "div"
        if self.want_scalar:
            self.params.append("d: usize")
        self.note = f"tiles {k0} {k1}"
        if self.chance(0.15):
            e0, e1 = e1, e0  # the grid's extents swapped
            self.note += " swapped"
        self.emit(1, f"parallel (i, j) in [{self.extent(e0)}, {self.extent(e1)}] {{")
        d = 2
        c0 = self.guard(o0, "BM", "m", "i", k0, d)
        c1 = self.guard(o1, "BN", "n", "j", k1, d)
        cond = " && ".join(f"({c})" for c in (c0, c1) if c) or None
        d = self.open_guard(cond, d)
        src = self.pick(("a", 6), ("c-own", 1), ("c-next", 1))
        sname = "a" if src == "a" else "c"
        r0 = o0 if src != "c-next" else f"({o0}) + BM"
        if src == "c-next" and self.chance(0.7):
            self.emit(d, f"if {r0} + BM <= m {{")
            d += 1
        x = self.read(self.block(False, self.source(sname, d), "BM", "BN", r0, o1, d), "BM", "BN", d)
        y = self.compute(x, d)
        if self.chance(0.2):
            self.emit(d, f"put2(&{y}, c, {self.usize(o0, d)}, {self.usize(o1, d)});")
        else:
            self.write(y, self.block(True, self.dest(d, True), "BM", "BN", o0, o1, d), d)
        self.close(d, 1)

    def gemm(self):
        """C = A @ B, one instance per tile of C, A's blocks through a ring
        of slots along K (prefetch distance D), B's copied each step."""
        self.want_scalar = False
        self.params = ["a: &Tensor<f32, [m, k]>", "b: &Tensor<f32, [k, n]>", "c: &mut Tensor<f32, [m, n]>"]
        e0, o0, k0 = self.dim("m", "BM", "i", other="j")
        if k0 == "unit":
            e0, o0, k0 = "m / BM", "i * BM", "div"
        if self.chance(0.6):
            e1, o1, k1 = "n / BN", "j * BN", "div"
        else:
            e1, o1, k1 = self.dim("n", "BN", "j", other="i")
            if k1 == "unit":
                e1, o1, k1 = "n / BN", "j * BN", "div"
        if self.want_scalar:
            self.params.append("d: usize")
        D = self.r.randint(1, 3)
        R = max(1, D + self.pick((1, 5), (0, 2), (-1, 1)))
        self.ring = R
        self.note = f"gemm {k0} {k1} D={D} R={R}"
        self.emit(1, f"parallel (i, j) in [{self.extent(e0)}, {self.extent(e1)}] {{")
        d = 2
        self.emit(d, f"let kt = {self.usize('k / BK', d)};")
        self.emit(d, f"let mut acc = zeros::<f32, [BM, BN]>({VMEM});")
        # The instance's rows of A and columns of B: in bounds when guarded.
        ra = o0 if self.chance(0.8) else "i * BM"
        cb = o1 if self.chance(0.8) else "j * BN"
        conds = [f"kt >= {D}"] if self.chance(0.9) else []
        if self.chance(0.7):
            conds.append(f"{ra} + BM <= m")
        if self.chance(0.7):
            conds.append(f"{cb} + BN <= n")
        inner = d
        if conds:
            self.emit(d, f"if {self.boolean(' && '.join(conds), d)} {{")
            inner = d + 1
        e = inner
        self.emit(e, f"let mut slots = zeros::<f32, [{R}, BM, BK]>({VMEM});")
        for s in range(D):
            blk = self.block(False, self.source("a", e), "BM", "BK", ra, f"{s} * BK", e)
            self.emit(e, f"let mut t{s} = transfer_async_into({blk}, &mut slots[{s % R}]);", "I")
        self.emit(e, f"for kk in {self.usize('0', e)}..kt {{")
        f = e + 1
        self.emit(f, "wait(t0);", "W")
        bblk = self.block(False, self.source("b", f), "BK", "BN", "kk * BK", cb, f)
        bk = self.fresh("bk")
        self.emit(f, f"let {bk} = transfer({bblk}, {VMEM});")
        self.emit(f, f"mma(&mut acc, &slots[kk % {R}], &{bk});", "C")
        for s in range(D - 1):
            self.emit(f, f"t{s} = t{s + 1};")
        blk = self.block(False, "a", "BM", "BK", ra, f"((kk + {D}) % kt) * BK", f)
        self.emit(f, f"t{D - 1} = transfer_async_into({blk}, &mut slots[(kk + {D}) % {R}]);", "I")
        self.emit(e, "}")
        for s in range(D):
            self.emit(e, f"wait(t{s});", "W")
        if conds:
            self.emit(d, "}")
        cond = self.guard(o0, "BM", "m", "i", k0, d)
        d2 = self.open_guard(cond, d)
        if self.chance(0.15):
            self.emit(d2, f"put2(&acc, c, {self.usize(o0, d2)}, {self.usize(o1, d2)});")
        else:
            self.write("acc", self.block(True, self.dest(d2, True), "BM", "BN", o0, o1, d2), d2)
        self.close(d2, 1)

    def rowpipe(self):
        """Each instance streams its row block of A along the columns through
        a ring of two slots and stores each block to C (examples' `pipelined`)."""
        self.want_scalar = False
        self.params = ["a: &Tensor<f32, [m, n]>", "c: &mut Tensor<f32, [m, n]>"]
        e0, o0, k0 = self.dim("m", "BM", "i")
        if k0 == "unit":
            e0, o0, k0 = "m / BM", "i * BM", "div"
        if self.want_scalar:
            self.params.append("d: usize")
        self.ring = 2
        wcol = self.pick(("(jj - 1) * BN", 6), ("jj * BN", 1), ("0", 1))
        self.note = f"rowpipe {k0} {wcol}"
        self.emit(1, f"parallel i in [{self.extent(e0)}] {{")
        d = 2
        self.emit(d, f"let nt = {self.usize('n / BN', d)};")
        cond = self.guard(o0, "BM", "m", "i", k0, d)
        conds = ["nt > 0"] + ([cond] if cond else [])
        self.emit(d, f"if {self.boolean(' && '.join(f'({x})' for x in conds), d)} {{")
        e = d + 1
        self.emit(e, f"let mut slots = zeros::<f32, [2, BM, BN]>({VMEM});")
        self.emit(e, f"let mut t = transfer_async_into({self.block(False, 'a', 'BM', 'BN', o0, '0', e)}, "
                     f"&mut slots[0]);", "I")
        self.emit(e, f"for jj in {self.usize('1', e)}..nt {{")
        f = e + 1
        self.emit(f, f"let next = transfer_async_into({self.block(False, self.source('a', f), 'BM', 'BN', o0, 'jj * BN', f)}, "
                     f"&mut slots[jj % 2]);", "I")
        self.emit(f, "wait(t);", "W")
        self.emit(f, f"store(&slots[(jj + 1) % 2], {self.block(True, 'c', 'BM', 'BN', o0, wcol, f)});", "C")
        self.emit(f, "t = next;")
        self.emit(e, "}")
        self.emit(e, "wait(t);", "W")
        self.emit(e, f"store(&slots[(nt + 1) % 2], {self.block(True, 'c', 'BM', 'BN', o0, '(nt - 1) * BN', e)});",
                  "C")
        self.emit(d, "}")
        self.emit(1, "}")

    def plain_usize(self, e):
        """`e` in a form a pipelined copy's source may take: no call and no
        local bound in the loop (E0210)."""
        return self.pick((e, 8), (f"({e} + ZERO)", 1), (f"((({e}) as u64) as usize)", 1), (f"({e}, 0).0", 1),
                         (f"*&({e})", 1))

    def pipe(self):
        """The pipeline form (docs/pipeline.md): each instance streams its
        row block of A along the columns at depth D (a second copy from C on
        some), and stores a block per step into C or back into A: behind the
        copies, at its own step, among the copies in flight (a race: trip jj
        + K's copy is reading it for 1 <= K < D) or past them."""
        self.want_scalar = False
        self.params = ["a: &mut Tensor<f32, [m, n]>", "c: &mut Tensor<f32, [m, n]>"]
        e0, o0, k0 = self.dim("m", "BM", "i")
        if k0 == "unit":
            e0, o0, k0 = "m / BM", "i * BM", "div"
        if self.want_scalar:
            self.params.append("d: usize")
        D = self.r.randint(1, 4)
        K = self.pick((-1, 2), (0, 2), (1, 2), (D - 1, 2), (D, 2), (D + 1, 1))
        target = self.pick(("a", 3), ("c", 2))
        two = self.chance(0.3)
        lo = self.pick(("0", 4), ("1", 1))
        self.note = f"pipe {k0} D={D} K={K} {target}{' two' if two else ''}"
        self.emit(1, f"parallel i in [{self.extent(e0)}] {{")
        d = 2
        cond = self.guard(o0, "BM", "m", "i", k0, d)
        d = self.open_guard(cond, d)
        self.emit(d, f"let mut acc = zeros::<f32, [BM, BN]>({VMEM});")
        self.emit(d, f"for jj in pipeline({lo}..n / BN, depth = {D}) {{")
        f = d + 1
        row = self.plain_usize(o0)
        self.emit(f, f"let x = transfer(block::<[BM, BN]>({self.pick(('a', 4), ('&*a', 1))}, {row}, "
                     f"{self.plain_usize('jj * BN')}), {VMEM});")
        if two:
            self.emit(f, f"let w = transfer(block::<[BM, BN]>(&*c, {row}, {self.plain_usize('jj * BN')}), {VMEM});")
            self.emit(f, "acc = &acc + &w;")
        y = self.compute("x", f)
        self.emit(f, f"acc = &acc + &{y};")
        g = f
        if K < 0:
            col = "(jj - 1) * BN"
            if self.chance(0.9):
                self.emit(f, f"if {self.boolean('jj >= 1', f)} {{")
                g = f + 1
        elif K == 0:
            col = "jj * BN"
        else:
            col = f"(jj + {K}) * BN"
            if self.chance(0.9):
                self.emit(f, f"if {self.boolean(f'jj + {K} < n / BN', f)} {{")
                g = f + 1
        self.emit(g, f"store(&acc, block_mut::<[BM, BN]>({target}, {self.usize(o0, g)}, {self.usize(col, g)}));")
        self.close(g, d)
        self.close(d, 1)

    def pair(self):
        """Each instance owns two tiles side by side; a copy of its own
        columns (or past them) while its store is in flight, or a second
        store over them: the blocks' overlap decides."""
        self.params = ["a: &Tensor<f32, [m, n]>", "c: &mut Tensor<f32, [m, n]>"]
        qr = self.pick(("0", 6), ("1", 1), ("BM", 1))
        qc = self.pick(("0", 2), ("1", 2), ("BN - 1", 2), ("BN", 3), ("BN + 1", 1), ("2 * BN", 1))
        mode = self.pick(("read", 3), ("write", 2), ("copy", 2))
        self.note = f"pair {mode} +({qr}, {qc})"
        self.emit(1, f"parallel (i, j) in [{self.extent('m / BM')}, {self.extent('n / (2 * BN)')}] {{")
        d = 2
        r, c = "i * BM", "2 * j * BN"
        x = self.read(self.block(False, self.source("a", d), "BM", "BN", r, c, d), "BM", "BN", d)
        y = self.compute(x, d)
        r2, c2 = f"{r} + {qr}", f"{c} + {qc}"
        cond = f"{r2} + BM <= m && {c2} + BN <= n" if self.chance(0.8) else None
        if mode == "copy":
            t = self.fresh("t")
            g = self.open_guard(cond, d)
            self.emit(g, f"let {t} = transfer_async({self.block(False, 'c', 'BM', 'BN', r2, c2, g)}, {VMEM});", "I")
            self.emit(g, f"store(&{y}, {self.block(True, 'c', 'BM', 'BN', r, c, g)});", "C")
            self.emit(g, f"let {self.fresh('z')} = wait({t});", "W")
            self.close(g, 1)
            return
        s1 = self.fresh("s")
        self.emit(d, f"let {s1} = store_async(&{y}, {self.block(True, 'c', 'BM', 'BN', r, c, d)});", "I")
        g = self.open_guard(cond, d)
        if mode == "read":
            self.emit(g, f"let {self.fresh('z')} = transfer({self.block(False, '&*c', 'BM', 'BN', r2, c2, g)}, "
                         f"{VMEM});", "C")
        else:
            self.emit(g, f"store(&{y}, {self.block(True, 'c', 'BM', 'BN', r2, c2, g)});", "C")
        self.close(g, d)
        self.emit(d, f"wait({s1});", "W")
        self.emit(d, f"store(&{y}, {self.block(True, 'c', 'BM', 'BN', r, f'{c} + BN', d)});")
        self.emit(1, "}")

    def nest(self):
        """Each instance writes a 2 x 2 square of tiles in two nested loops."""
        self.params = ["a: &Tensor<f32, [m, n]>", "c: &mut Tensor<f32, [m, n]>"]
        e0 = self.pick(("m / (2 * BM)", 6), ("m / BM", 1), ("m / (2 * BM) + 1", 1))
        e1 = self.pick(("n / (2 * BN)", 6), ("n / BN", 1))
        r = self.pick(("(2 * i + s) * BM", 6), ("(i + s) * BM", 1), ("(2 * i + q) * BM", 1))
        c = self.pick(("(2 * j + q) * BN", 6), ("(2 * j + s) * BN", 1), ("(j + q) * BN", 1))
        self.note = f"nest [{e0}, {e1}] ({r}, {c})"
        self.emit(1, f"parallel (i, j) in [{self.extent(e0)}, {self.extent(e1)}] {{")
        self.emit(2, f"for s in 0..{self.usize('2', 2)} {{")
        self.emit(3, f"for q in {self.usize('0', 3)}..2 {{")
        d = self.open_guard(self.guard(r, "BM", "m", "i", "div", 4), 4)
        if d == 4 and self.chance(0.5):
            d = self.open_guard(f"{r} + BM <= m && {c} + BN <= n", 4)
        x = self.read(self.block(False, self.source("a", d), "BM", "BN", r, c, d), "BM", "BN", d)
        y = self.compute(x, d)
        self.write(y, self.block(True, "c", "BM", "BN", r, c, d), d)
        self.close(d, 1)

    def group(self):
        """Each instance writes G row blocks in a loop."""
        self.want_scalar = False
        self.params = ["a: &Tensor<f32, [m, W]>", "c: &mut Tensor<f32, [m, W]>"]
        G = self.r.randint(2, 3)
        right = self.chance(0.6)
        ext = f"m / ({G} * BM)" if right else self.pick((f"m / BM", 2), (f"m / ({G} * BM) + 1", 1),
                                                        (f"m / (({G} - 1) * BM)", 1))
        off = self.pick((f"({G} * i + s) * BM", 4), (f"i * {G} * BM + s * BM", 2), (f"(i + s) * BM", 1),
                        (f"(i * {G} + s + 1) * BM", 1))
        self.note = f"group G={G} {ext} {off}"
        loop = self.pick(("for", 6), ("while", 2), ("counter", 2))
        self.emit(1, f"parallel i in [{self.extent(ext)}] {{")
        d = 2
        if loop == "counter":
            # The offset carried from one iteration to the next.
            start = self.pick((f"{G} * i * BM", 4), ("i * BM", 1), (f"{G} * i * BM + 1", 1))
            step = self.pick(("BM", 4), ("BM - 1", 1), ("2 * BM", 1))
            stop = self.pick((f"({G} * i + {G}) * BM", 3), (f"{start} + {G} * BM", 1), ("m", 1))
            self.note += f" counter {start} += {step} < {stop}"
            self.emit(d, f"let mut r = {self.usize(start, d)};")
            self.emit(d, f"while {self.boolean(f'r < {stop}', d)} {{")
            e = d + 1
            cond = self.guard("r", "BM", "m", "i", "div", e)
            f = self.open_guard(cond, e)
            x = self.read(self.block(False, self.source("a", f), "BM", "W", "r", "0", f), "BM", "W", f)
            y = self.compute(x, f)
            self.write(y, self.block(True, "c", "BM", "W", "r", "0", f), f)
            self.close(f, e)
            self.emit(e, f"r += {step};")
            self.emit(d, "}")
            self.emit(1, "}")
            return
        if loop == "for":
            self.emit(d, f"for s in {self.usize('0', d)}..{self.usize(str(G), d)} {{")
        else:
            self.emit(d, "let mut s: usize = 0;")
            self.emit(d, f"while {self.boolean(f's < {G}', d)} {{")
        e = d + 1
        if self.chance(0.15):
            lim = self.pick(("1", 2), ("m", 1), (str(G), 1))
            self.emit(e, f"if {self.boolean(f's == {lim}', e)} {{")
            if loop == "while":
                self.emit(e + 1, "s += 1;")
            self.emit(e + 1, "break;")
            self.emit(e, "}")
        cond = self.guard(off, "BM", "m", "i", "div", e)
        f = self.open_guard(cond, e)
        x = self.read(self.block(False, self.source("a", f), "BM", "W", off, "0", f), "BM", "W", f)
        y = self.compute(x, f)
        if self.chance(0.3):
            # A copy of the instance's own rows while its store is in flight:
            # the blocks overlap where their rows meet.
            q = self.pick(("0", 2), ("1", 1), ("BM - 1", 1), ("BM", 2), ("s * BM", 1), ("(s + 1) * BM", 1),
                          (f"{G} * BM - 1", 1))
            r2 = f"{G} * i * BM + {q}"
            self.note += f" hazard +{q}"
            s1 = self.fresh("s")
            if self.chance(0.5):
                self.emit(f, f"let {s1} = store_async(&{y}, {self.block(True, 'c', 'BM', 'W', off, '0', f)});", "I")
                g = f
                if self.chance(0.8):
                    g = self.open_guard(f"{r2} + BM <= m", f)
                z = self.fresh("z")
                self.emit(g, f"let {z} = transfer({self.block(False, '&*c', 'BM', 'W', r2, '0', g)}, {VMEM});",
                          "C")
                self.close(g, f)
                self.emit(f, f"wait({s1});", "W")
            else:
                g = f
                if self.chance(0.8):
                    g = self.open_guard(f"{r2} + BM <= m", f)
                t = self.fresh("t")
                self.emit(g, f"let {t} = transfer_async({self.block(False, 'c', 'BM', 'W', r2, '0', g)}, {VMEM});",
                          "I")
                self.emit(g, f"store(&{y}, {self.block(True, 'c', 'BM', 'W', off, '0', g)});", "C")
                self.emit(g, f"let {self.fresh('z')} = wait({t});", "W")
                self.close(g, f)
        else:
            self.write(y, self.block(True, "c", "BM", "W", off, "0", f), f)
        self.close(f, e)
        if loop == "while":
            self.emit(e, "s += 1;")
        self.emit(d, "}")
        self.emit(1, "}")

    def whole(self):
        """Whole-tensor reads and writes of static tensors."""
        self.want_scalar = False
        self.params = ["a: &Tensor<f32, [m, W]>", "c: &mut Tensor<f32, [S, W]>"]
        ext = self.pick(("1", 2), ("ONE", 1), ("2", 2), ("m / BM", 2), ("S / BM", 2), ("d", 1))
        if ext == "d":
            self.params.append("d: usize")
        what = self.pick(("whole-write", 3), ("block-write", 3), ("whole-read", 2), ("read-only", 1), ("mixed", 1))
        self.note = f"whole {ext} {what}"
        self.emit(1, f"parallel i in [{self.extent(ext)}] {{")
        d = 2
        if what == "read-only":
            # Every instance reads all of `c` and writes nothing: no race.
            x = self.read(self.pick(("c", 1), ("&*c", 1)), "S", "W", d, view=False)
            y = self.compute(x, d)
            self.emit(d, f"let {self.fresh('z')} = exp(&{y});")
        elif what == "mixed":
            # All of `c` by one instance, a block of it by the others.
            self.emit(d, f"if {self.boolean(self.pick(('i == 0', 3), ('i > S', 1)), d)} {{")
            x = self.read(self.block(False, "a", "S", "W", "0", "0", d + 1), "S", "W", d + 1)
            self.write(x, "c", d + 1, view=False)
            self.emit(d, "} else {")
            g = self.open_guard(self.pick(("i * BM + BM <= S", 3), (None, 1)), d + 1)
            x = self.fresh("x")
            self.emit(g, f"let {x} = zeros::<f32, [BM, W]>({VMEM});")
            self.write(x, self.block(True, "c", "BM", "W", "i * BM", "0", g), g)
            self.close(g, d + 1)
            self.emit(d, "}")
        elif what == "whole-write":
            cond = self.pick((None, 3), ("S <= m", 1))
            d = self.open_guard(cond, d)
            x = self.read(self.block(False, "a", "S", "W", "0", "0", d), "S", "W", d)
            y = self.compute(x, d)
            self.write(y, "c", d, view=False)
        else:
            off = self.pick(("i * BM", 4), ("0", 1), ("i * BM + 1", 1), ("(i % 2) * BM", 1))
            cond = self.guard(off, "BM", "S", "i", "div", d)
            d = self.open_guard(cond, d)
            if what == "whole-read":
                z = self.read("c", "S", "W", d, view=False)
                self.emit(d, f"let {self.fresh('z')} = exp(&{z});")
            if self.chance(0.5):
                at = self.pick(("i * BM", 2), ("0", 2), ("v.len()", 1))
                if at == "v.len()":
                    # Rows given by a Vec's length, guarded or not.
                    self.params.append("v: &Vec<Tensor<f32, [8, 8]>>")
                    if self.chance(0.7):
                        d = self.open_guard(f"v.len() + BM <= m", d)
                x = self.read(self.block(False, "a", "BM", "W", at, "0", d), "BM", "W", d)
                x = x if self.chance(0.5) else self.compute(x, d)
            else:
                x = self.fresh("x")
                self.emit(d, f"let {x} = zeros::<f32, [BM, W]>({VMEM});")
            self.write(x, self.block(True, "c", "BM", "W", off, "0", d), d)
        self.close(d, 1)

    def batch(self):
        """Blocks of the matrices of a batch: `&a[b]`. (Static shapes: the
        tpu target lowers a slot of a tensor with run-time extents wrongly
        today, a stride of -4 bytes and a wrong bound, which vxsim sees as
        races and accesses out of bounds; not the checker's.)"""
        self.want_scalar = False
        self.params = ["a: &Tensor<f32, [NB, S, W]>", "c: &mut Tensor<f32, [NB, S, W]>"]
        e1, o1, k1 = self.dim("S", "BM", "i")
        if k1 == "unit":
            e1, o1, k1 = "S / BM", "i * BM", "div"
        if self.want_scalar:
            self.params.append("d: usize")
        e0 = self.pick(("NB", 4), ("2", 1), ("1", 1), ("NB + 1", 1))
        bi = self.pick(("b", 6), ("0", 1), ("(b + 1) % NB", 1), ("NB - 1 - b", 1), ("b / 2", 1))
        if self.chance(0.2):
            # A grid of three indices: batch, rows, columns.
            cj = self.pick(("j * BN", 6), ("0", 1), ("j * BN + 1", 1), ("i * BN", 1))
            self.note = f"batch3 {e0} {k1} [{bi}] col {cj}"
            self.emit(1, f"parallel (b, i, j) in [{self.extent(e0)}, {self.extent(e1)}, {self.extent('W / BN')}] {{")
            d = 2
            conds = [c for c in ("b < NB" if e0 == "NB + 1" else None, self.guard(o1, "BM", "S", "i", k1, d),
                                 f"{cj} + BN <= W" if self.chance(0.5) else None) if c]
            if conds:
                d = self.open_guard(" && ".join(f"({c})" for c in conds), d)
            x = self.read(self.block(False, self.pick(("a[b]", 1), ("&a[b]", 1)), "BM", "BN", o1, cj, d), "BM", "BN",
                          d)
            y = self.compute(x, d)
            self.write(y, self.block(True, f"&mut c[{self.usize(bi, d)}]", "BM", "BN", o1, cj, d), d)
            self.close(d, 1)
            return
        self.note = f"batch {e0} {k1} [{bi}]"
        self.emit(1, f"parallel (b, i) in [{self.extent(e0)}, {self.extent(e1)}] {{")
        d = 2
        conds = []
        if e0 == "NB + 1" and self.chance(0.7):
            conds.append("b < NB")
        g = self.guard(o1, "BM", "S", "i", k1, d)
        if g:
            conds.append(g)
        if conds:
            d = self.open_guard(" && ".join(f"({c})" for c in conds), d)
        src = self.pick(("a[b]", 3), ("&a[b]", 3), (f"&a[{self.usize('b', d)}]", 1))
        if self.chance(0.1):
            # The whole matrix by the instance whose i is 0, blocks of it by
            # the others: a block and its whole tensor overlap.
            self.note += " mixed"
            whole = self.fresh("w")
            self.emit(d, f"if {self.boolean(self.pick(('i == 0', 2), ('i == S / BM', 1)), d)} {{")
            self.emit(d + 1, f"let {whole} = transfer({src}, {VMEM});")
            self.write(whole, f"&mut c[{self.usize(bi, d + 1)}]", d + 1)
            self.emit(d, "} else {")
            x = self.read(self.block(False, src, "BM", "W", o1, "0", d + 1), "BM", "W", d + 1)
            self.write(x, self.block(True, f"&mut c[{self.usize(bi, d + 1)}]", "BM", "W", o1, "0", d + 1), d + 1)
            self.emit(d, "}")
        elif self.chance(0.25):
            # Whole matrices of the batch, written by the instances whose
            # i is 0 (or by all).
            self.note += " whole"
            if self.chance(0.7):
                d = self.open_guard(self.pick(("i == 0", 3), ("i < 1", 1)), d)
            x = self.read(src, "S", "W", d, view=False)
            y = self.compute(x, d)
            self.write(y, f"&mut c[{self.usize(bi, d)}]", d)
        else:
            x = self.read(self.block(False, src, "BM", "W", o1, "0", d), "BM", "W", d)
            y = self.compute(x, d)
            self.write(y, self.block(True, f"&mut c[{self.usize(bi, d)}]", "BM", "W", o1, "0", d), d)
        self.close(d, 1)

    def vec(self):
        """A Vec of tiles in and out, one tile per instance."""
        self.params = ["v: &Vec<Tensor<f32, [8, 8]>>", "out: &mut Vec<Tensor<f32, [8, 8]>>"]
        ext = self.pick(("v.len()", 3), ("out.len()", 2), ("v.len() / 2", 1), ("v.len() + 1", 1))
        oi = self.pick(("i", 6), ("i / 2", 1), ("0", 1), ("(i + 1) % out.len()", 1), ("out.len() - 1 - i", 1))
        if self.chance(0.3):
            # Halves of the tiles: two instances per tile, each its rows.
            ext = self.pick(("2 * out.len()", 4), ("out.len()", 1), ("2 * out.len() + 1", 1))
            half = self.pick(("(i % 2) * 4", 5), ("0", 1), ("(i % 2) * 3", 1), ("(i % 2) * 4 + 1", 1))
            self.note = f"vec halves {ext} +{half}"
            self.emit(1, f"parallel i in [{self.extent(ext)}] {{")
            d = self.open_guard(self.pick(("i / 2 < v.len() && i / 2 < out.len()", 4), ("i / 2 < v.len()", 1)), 2)
            x = self.read(self.block(False, f"&v[{self.usize('i / 2', d)}]", "4", "8", half, "0", d), "4", "8", d)
            y = self.compute(x, d)
            self.write(y, self.block(True, f"&mut out[{self.usize('i / 2', d)}]", "4", "8", half, "0", d), d)
            self.close(d, 1)
            return
        self.note = f"vec {ext} out[{oi}]"
        self.emit(1, f"parallel i in [{self.extent(ext)}] {{")
        d = 2
        cond = self.pick(("i < v.len() && i < out.len()", 3), (None, 1), ("i < v.len()", 1))
        d = self.open_guard(cond, d)
        x = self.read(f"v[{self.usize('i', d)}]", "8", "8", d, view=False)
        y = self.compute(x, d)
        self.write(y, f"&mut out[{self.usize(oi, d)}]", d)
        self.close(d, 1)

    def text(self):
        kind = self.pick(("rows", 6), ("tiles", 4), ("gemm", 3), ("rowpipe", 2), ("group", 3), ("pair", 2),
                         ("nest", 1), ("whole", 2), ("batch", 2), ("vec", 2), ("pipe", 3))
        getattr(self, kind)()
        # The written tensor taken by value and reached through a reference
        # bound before the grid: HBM the instances share all the same.
        byValue = []
        for k, p in enumerate(self.params):
            name, _, ty = p.partition(": &mut ")
            if ty and name in ("c", "out") and self.chance(0.2):
                self.params[k] = f"mut {name}: {ty}"
                byValue.append(f"  let {name} = &mut {name};")
        body = "\n".join(byValue + self.pre + self.lines)
        return (f"#[allow(unused_variables)]\nfn {self.name}({', '.join(self.params)}) on Topology::TensorCore {{\n"
                f"{body}\n}}\n", kind)


def mutate(rnd, src, ring):
    """One of gen.py's mistakes: a wait dropped, duplicated or moved after a
    read, a slot index shifted along the ring."""
    lines = src.split("\n")
    waits = [k for k, l in enumerate(lines) if l.endswith("// W") and not l.strip().startswith("let ")]
    reads = [k for k, l in enumerate(lines) if l.endswith("// C")]
    slotted = [k for k, l in enumerate(lines) if "slots[" in l and (l.endswith("// I") or l.endswith("// C"))]
    choices = []
    if waits:
        choices += ["drop_wait", "drop_wait", "dup_wait", "late_wait"]
    if slotted and ring:
        choices += ["shift_slot"]
    if not choices:
        return src, "none"
    what = rnd.choice(choices)
    if what == "drop_wait":
        del lines[rnd.choice(waits)]
    elif what == "dup_wait":
        k = rnd.choice(waits)
        lines.insert(k, lines[k])
    elif what == "late_wait":
        k = rnd.choice(waits)
        later = [c for c in reads if c > k]
        if not later:
            del lines[k]
        else:
            line = lines.pop(k)
            lines.insert(later[0], line)
    else:
        k = rnd.choice(slotted)
        line = lines[k]
        i = line.index("slots[") + len("slots[")
        j = line.index("]", i)
        lines[k] = line[:i] + f"({line[i:j]} + 1) % {ring}" + line[j:]
    return "\n".join(lines), what


def program(rnd, idx, consts):
    k = Kernel(rnd, f"k{idx}", consts)
    src, kind = k.text()
    what = "none"
    if rnd.random() < 0.5:
        src, what = mutate(rnd, src, k.ring)
    return src, f"grid {k.note} {what}"


def main():
    seed, count, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    per = 20
    if "--per-file" in sys.argv:
        per = int(sys.argv[sys.argv.index("--per-file") + 1])
    first = 0
    if "--first" in sys.argv:
        first = int(sys.argv[sys.argv.index("--first") + 1])
    rnd = random.Random(seed * 104729 + 3)
    os.makedirs(out, exist_ok=True)
    made = 0
    f = 0
    while made < count:
        n = min(per, count - made)
        consts, head = header(rnd)
        bodies, notes = [], []
        for j in range(n):
            src, note = program(rnd, first + made + j, consts)
            bodies.append(src)
            notes.append(f"// k{first + made + j}: {note}")
        with open(os.path.join(out, f"grid{seed}_{f}.vx"), "w") as fh:
            fh.write("\n".join(notes) + "\n" + head + "\n" + "\n".join(bodies))
        made += n
        f += 1


if __name__ == "__main__":
    main()

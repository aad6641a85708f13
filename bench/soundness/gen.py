#!/usr/bin/env python3
"""Random Vx pipelines for the soundness benchmark (bench/soundness.py).

Each program is one kernel (plus the helpers it calls): a ring or a stream
of copies in flight at a prefetch distance, over `for` or `while` loops,
nested or not, with the many ways users write the same thing — slot indices
as `(i + k) % R`, as a counter wrapped by `%` or by a branch, through casts;
tokens in variables, in tuples, through helpers that start, pass on or wait
them; references in variables; write-backs with `store_async`; integer
branches; shadowing; early exits. Then, for half of them, one mutation: a
wait dropped, duplicated or moved after a read, a slot index shifted, a ring
too small, an early exit that forgets a token. The generator does not know
whether a program is right: the oracle (vx-oracle, the simulator's race
detector) decides.

usage: gen.py SEED COUNT OUT_DIR [--per-file K]
"""
import os
import random
import sys

EARLY_EXITS = "--no-early-exits" not in sys.argv
TILE = "Tensor<f32, [8, 8]>"
VMEM = "Memory::VMEM"
PIN = f"Pinned<{TILE}, {VMEM}>"
TOK = f"Token<void, {VMEM}>"
SIG = (f"tiles: &Vec<{TILE}>, out: &mut Vec<{TILE}>, acc: &mut {PIN}, w: &{PIN}, m: usize, flag: bool")

HELPERS = f"""
fn issue(src: &Vec<{TILE}>, k: usize, dst: &mut {PIN}) -> {TOK} on Topology::TensorCore {{
  transfer_async_into(src[k], dst)
}}

fn issue_slot<R>(src: &Vec<{TILE}>, k: usize, ring: &mut Pinned<Tensor<f32, [R, 8, 8]>, {VMEM}>, s: usize) -> {TOK} on Topology::TensorCore {{
  transfer_async_into(src[k], &mut ring[s])
}}

fn finish(t: {TOK}) on Topology::TensorCore {{
  wait(t);
}}

fn pass(t: {TOK}) -> {TOK} on Topology::TensorCore {{
  t
}}

fn compute(x: &{PIN}, acc: &mut {PIN}, w: &{PIN}) on Topology::TensorCore {{
  mma(acc, x, w);
}}

fn wait_then_compute(t: {TOK}, x: &{PIN}, acc: &mut {PIN}, w: &{PIN}) on Topology::TensorCore {{
  wait(t);
  mma(acc, x, w);
}}

fn keep(y: {PIN}) -> {PIN} on Topology::TensorCore {{
  y
}}

fn fill_reading(p: &{PIN}, mut q: {PIN}, src: &Vec<{TILE}>, k: usize, acc: &mut {PIN}, w: &{PIN}) -> {PIN} on Topology::TensorCore {{
  let t = transfer_async_into(src[k], &mut q);
  mma(acc, p, w);
  wait(t);
  q
}}

fn fill_writing(p: &mut {PIN}, mut q: {PIN}, src: &Vec<{TILE}>, k: usize) -> {PIN} on Topology::TensorCore {{
  let t = transfer_async_into(src[k], &mut q);
  fill(p, 0.5);
  wait(t);
  q
}}
"""
# Generic user functions are not Vx (E0207): one issue_slot per ring size.


def slot_helpers(sizes):
    out = []
    for r in sorted(sizes):
        out.append(f"""
fn issue_slot{r}(src: &Vec<{TILE}>, k: usize, ring: &mut Pinned<Tensor<f32, [{r}, 8, 8]>, {VMEM}>, s: usize) -> {TOK} on Topology::TensorCore {{
  transfer_async_into(src[k], &mut ring[s])
}}
""")
    return "".join(out)


BASE_HELPERS = HELPERS.replace(HELPERS[HELPERS.index("fn issue_slot<R>"):HELPERS.index("fn finish")], "")


class Ring:
    """A ring pipeline: D copies in flight into R slots, one kernel."""

    def __init__(self, rnd, name):
        self.r = rnd
        self.name = name
        self.R = rnd.randint(1, 8)
        self.D = rnd.randint(1, min(7, max(1, self.R + rnd.choice([0, 0, 0, 1]))))
        self.loop = rnd.choice(["for", "for", "while"])
        self.slot_style = rnd.choice(["mod", "mod", "counter", "wrap", "cast"])
        self.holders = rnd.choice(["vars", "vars", "tuple"]) if 2 <= self.D <= 3 else "vars"
        self.issue_style = rnd.choice(["direct", "direct", "ref", "helper", "slot_helper"])
        self.compute_style = rnd.choice(["direct", "direct", "ref", "helper", "fused"])
        self.wait_style = rnd.choice(["wait", "wait", "finish", "pass"])
        self.store = rnd.random() < 0.25
        self.branch = rnd.random() < 0.3
        self.shadow = rnd.random() < 0.2
        self.early = rnd.choice([None, None, None, "break", "continue", "return"])
        if not EARLY_EXITS:
            self.early = None
        self.nested = rnd.random() < 0.2
        self.lines = []
        self.sizes = {self.R}

    def emit(self, depth, text, tag=""):
        self.lines.append("  " * depth + text + (f" // {tag}" if tag else ""))

    def tok(self, j):
        if self.holders == "tuple":
            return f"p.{j}"
        return f"t{j}"

    def slot_expr(self, off):
        """The slot of the copy `off` iterations ahead of the current one."""
        R = self.R
        if self.slot_style == "mod":
            return f"(i + {off}) % {R}" if off else f"i % {R}"
        if self.slot_style == "cast":
            # Cast after the `%`: `i as u32` itself wraps past 2^32, which
            # breaks the ring for very long Vecs (a real bug, found).
            return f"((((i + {off}) % {R}) as u32) as usize)" if off else f"(((i % {R}) as u32) as usize)"
        # counter styles keep `s` = i % R
        return f"(s + {off}) % {R}" if off else "s"

    def issue(self, depth, src, slot, target, tag="I"):
        if self.issue_style == "direct":
            self.emit(depth, f"{target} = transfer_async_into(tiles[{src}], &mut slots[{slot}]);", tag)
        elif self.issue_style == "ref":
            self.emit(depth, "{")
            self.emit(depth + 1, f"let r = &mut slots[{slot}];")
            self.emit(depth + 1, f"{target} = transfer_async_into(tiles[{src}], r);", tag)
            self.emit(depth, "}")
        elif self.issue_style == "helper":
            self.emit(depth, f"{target} = issue(tiles, {src}, &mut slots[{slot}]);", tag)
        else:
            self.emit(depth, f"{target} = issue_slot{self.R}(tiles, {src}, &mut slots, {slot});", tag)

    def wait(self, depth, tok, tag="W"):
        if self.wait_style == "wait" or tok == "st":
            self.emit(depth, f"wait({tok});", tag)
        elif self.wait_style == "finish":
            self.emit(depth, f"finish({tok});", tag)
        else:
            self.emit(depth, f"wait(pass({tok}));", tag)

    def compute(self, depth, slot, tok=None):
        style = self.compute_style if tok is None else "fused"
        if style == "fused" and tok is None:
            style = "direct"
        if style == "direct":
            self.emit(depth, f"mma(acc, &slots[{slot}], w);", "C")
        elif style == "ref":
            self.emit(depth, f"let x = &slots[{slot}];", "C")
            self.emit(depth, "mma(acc, x, w);", "C")
        elif style == "helper":
            self.emit(depth, f"compute(&slots[{slot}], acc, w);", "C")
        else:
            self.emit(depth, f"wait_then_compute({tok}, &slots[{slot}], acc, w);", "W")

    def body(self):
        R, D = self.R, self.D
        self.emit(1, f"let mut slots = zeros::<f32, [{R}, 8, 8]>({VMEM});")
        self.emit(1, "let n = tiles.len();")
        b = 1
        if self.nested:
            # A GEMM-like nest: the whole pipeline runs once per row.
            self.emit(1, "for _row in 0..2 {")
            b = 2
        # Prologue: D copies in flight.
        if self.holders == "tuple":
            parts = [f"transfer_async_into(tiles[{j}], &mut slots[{j % R}])" for j in range(D)]
            self.emit(b, f"let mut p = ({', '.join(parts)});", "I")
        else:
            for j in range(D):
                self.emit(b, f"let mut t{j} = transfer_async_into(tiles[{j}], &mut slots[{j % R}]);", "I")
        if self.slot_style in ("counter", "wrap"):
            self.emit(b, "let mut s: usize = 0;")
        depth = b
        if self.loop == "for":
            self.emit(depth, "for i in 0..n {")
        else:
            self.emit(depth, "let mut i: usize = 0;")
            self.emit(depth, "while i < n {")
        d = depth + 1
        if self.shadow and self.loop == "for":
            self.emit(d, "let i = i + 0;")
        if self.early == "break":
            self.emit(d, "if i == m {")
            self.drain(d + 1)
            self.refill(d + 1)
            self.emit(d + 1, "break;")
            self.emit(d, "}")
        if self.early == "return":
            self.emit(d, "if i == m {")
            self.drain(d + 1)
            self.emit(d + 1, "return;")
            self.emit(d, "}")
        # Wait the oldest copy, compute on its slot.
        if self.compute_style == "fused" and self.holders != "tuple":
            self.compute(d, self.slot_expr(0), tok="t0")
        else:
            if self.holders == "tuple":
                self.wait(d, "p.0")
            else:
                self.wait(d, "t0")
            if self.branch:
                cond = self.r.choice(["flag", f"i % {self.r.randint(2, 4)} == 0", "i + 1 < n"])
                self.emit(d, f"if {cond} {{")
                self.compute(d + 1, self.slot_expr(0))
                self.emit(d, "} else {")
                self.emit(d + 1, f"mma(acc, w, &slots[{self.slot_expr(0)}]);", "C")
                self.emit(d, "}")
            else:
                self.compute(d, self.slot_expr(0))
        if self.store:
            self.emit(d, f"let st = store_async(&slots[{self.slot_expr(0)}], &mut out[i]);", "I")
            if self.r.random() < 0.5:
                self.wait(d, "st")
                stored = True
            else:
                stored = False
        else:
            stored = True
        if self.early == "continue":
            if not stored:
                self.wait(d, "st")
                stored = True
        # Rotate the tokens and issue the next copy.
        src = f"(i + {D}) % n"
        if self.holders == "tuple":
            rest = [f"p.{j}" for j in range(1, D)]
            new = f"transfer_async_into(tiles[{src}], &mut slots[{self.slot_expr(D)}])"
            self.emit(d, f"p = ({', '.join(rest + [new])});", "I")
        else:
            for j in range(D - 1):
                self.emit(d, f"t{j} = t{j + 1};")
            self.issue(d, src, self.slot_expr(D), f"t{D - 1}")
        if not stored:
            self.wait(d, "st")
        if self.slot_style == "counter":
            self.emit(d, f"s = (s + 1) % {R};")
        elif self.slot_style == "wrap":
            self.emit(d, "s += 1;")
            self.emit(d, f"if s == {R} {{ s = 0; }}")
        if self.early == "continue":
            self.emit(d, "if i == m {")
            if self.loop == "while":
                self.emit(d + 1, "i += 1;")
            self.emit(d + 1, "continue;")
            self.emit(d, "}")
            self.emit(d, "mma(acc, w, w);")
        if self.loop == "while":
            self.emit(d, "i += 1;")
        self.emit(depth, "}")
        self.drain(b)
        if self.nested:
            self.emit(1, "}")

    def drain(self, depth):
        for j in range(self.D):
            self.wait(depth, self.tok(j))

    def refill(self, depth):
        """After a drain inside the loop, give every token a copy again (the
        code after the loop waits them)."""
        if self.holders == "tuple":
            parts = [f"transfer_async_into(tiles[{j}], &mut slots[{j % self.R}])" for j in range(self.D)]
            self.emit(depth, f"p = ({', '.join(parts)});", "I")
        else:
            for j in range(self.D):
                self.emit(depth, f"t{j} = transfer_async_into(tiles[{j}], &mut slots[{j % self.R}]);", "I")

    def source(self):
        self.body()
        text = "\n".join(self.lines)
        return f"#[allow(unused_variables)]\nfn {self.name}({SIG}) on Topology::TensorCore {{\n{text}\n}}\n"


class Stream:
    """Copies into new buffers (`transfer_async`) consumed by the matrix unit."""

    def __init__(self, rnd, name):
        self.r = rnd
        self.name = name
        self.D = rnd.randint(1, 4)
        self.loop = rnd.choice(["for", "while"])
        self.lines = []
        self.sizes = set()

    def emit(self, depth, text, tag=""):
        self.lines.append("  " * depth + text + (f" // {tag}" if tag else ""))

    def source(self):
        D = self.D
        self.emit(1, "let n = tiles.len();")
        for j in range(D):
            self.emit(1, f"let mut t{j} = transfer_async(tiles[{j}], {VMEM});", "I")
        if self.loop == "for":
            self.emit(1, "for i in 0..n {")
        else:
            self.emit(1, "let mut i: usize = 0;")
            self.emit(1, "while i < n {")
        self.emit(2, f"let next = transfer_async(tiles[(i + {D}) % n], {VMEM});", "I")
        self.emit(2, "let x = wait(t0);", "W")
        self.emit(2, "mma(acc, &x, w);", "C")
        for j in range(D - 1):
            self.emit(2, f"t{j} = t{j + 1};")
        self.emit(2, f"t{D - 1} = next;")
        if self.loop == "while":
            self.emit(2, "i += 1;")
        self.emit(1, "}")
        for j in range(D):
            self.emit(1, f"let x{j} = wait(t{j});", "W")
            self.emit(1, f"mma(acc, &x{j}, w);", "C")
        text = "\n".join(self.lines)
        return f"#[allow(unused_variables)]\nfn {self.name}({SIG}) on Topology::TensorCore {{\n{text}\n}}\n"


class Flags:
    """Tokens waited under conditions: wait-once flags, tokens swapped on
    some iterations, waits on correlated branches."""

    def __init__(self, rnd, name):
        self.r = rnd
        self.name = name
        self.kind = rnd.choice(["once", "swap", "correlated"])
        self.lines = []
        self.sizes = set()

    def emit(self, depth, text, tag=""):
        self.lines.append("  " * depth + text + (f" // {tag}" if tag else ""))

    def source(self):
        r = self.r
        self.emit(1, f"let mut slots = zeros::<f32, [2, 8, 8]>({VMEM});")
        self.emit(1, "let n = tiles.len();")
        if self.kind == "once":
            # Wait once, at an iteration chosen by a condition, with a flag.
            cond = r.choice(["i == 0", "i == m", "i + 1 == n", "flag", "i % 3 == 2"])
            self.emit(1, "let t = transfer_async_into(tiles[0], &mut slots[0]);", "I")
            self.emit(1, "let mut pending = true;")
            self.emit(1, "for i in 0..n {")
            self.emit(2, f"if pending && {cond} {{")
            self.emit(3, "wait(t);", "W")
            self.emit(3, "pending = false;")
            self.emit(2, "}")
            self.emit(2, "if !pending {")
            self.emit(3, "mma(acc, &slots[0], w);", "C")
            self.emit(2, "}")
            self.emit(2, "mma(acc, &slots[1], w);", "C")
            self.emit(1, "}")
            self.emit(1, "if pending {")
            self.emit(2, "wait(t);", "W")
            self.emit(1, "}")
        elif self.kind == "swap":
            # Two tokens that trade places on some iterations; each slot is
            # read only after its own token is waited.
            cond = r.choice(["i % 2 == 1", "flag", "i == m"])
            self.emit(1, "let mut a = transfer_async_into(tiles[0], &mut slots[0]);", "I")
            self.emit(1, "let mut b = transfer_async_into(tiles[1], &mut slots[1]);", "I")
            self.emit(1, "let mut sa: usize = 0;")
            self.emit(1, "for i in 0..n {")
            self.emit(2, f"if {cond} {{")
            self.emit(3, "let tmp = a;")
            self.emit(3, "a = b;")
            self.emit(3, "b = tmp;")
            self.emit(3, "sa = 1 - sa;")
            self.emit(2, "}")
            self.emit(2, "wait(a);", "W")
            self.emit(2, "mma(acc, &slots[sa], w);", "C")
            self.emit(2, "a = transfer_async_into(tiles[i], &mut slots[sa]);", "I")
            self.emit(1, "}")
            self.emit(1, "wait(a);", "W")
            self.emit(1, "wait(b);", "W")
        else:
            # Waits on branches that are exclusive only by the values.
            k = r.randint(2, 4)
            self.emit(1, "let t = transfer_async_into(tiles[0], &mut slots[0]);", "I")
            self.emit(1, f"let c = m % {k};")
            self.emit(1, "if c == 0 {")
            self.emit(2, "wait(t);", "W")
            self.emit(1, "}")
            self.emit(1, "if c != 0 {")
            if r.random() < 0.5:
                self.emit(2, "mma(acc, &slots[1], w);", "C")
            self.emit(2, "wait(t);", "W")
            self.emit(1, "}")
            self.emit(1, "mma(acc, &slots[0], w);", "C")
        text = "\n".join(self.lines)
        return f"#[allow(unused_variables)]\nfn {self.name}({SIG}) on Topology::TensorCore {{\n{text}\n}}\n"


class Nest:
    """A token the outer loops carry, waited and refilled only inside the
    innermost loop (which may run no trip): the copy it leaves in flight at
    the end of one outer trip is still in flight in the next. Slots read in
    the outer loops on conditions of their indices (`i >= 2`: past the
    trips a checker walks exactly), before or after the inner loop, waited
    or not; slots read and written in the inner loop by constant, outer or
    inner indices."""

    def __init__(self, rnd, name):
        self.r = rnd
        self.name = name
        self.R = rnd.choice([2, 2, 3])
        self.depth = rnd.choice([2, 2, 2, 3])
        self.lines = []
        self.sizes = set()

    def emit(self, depth, text, tag=""):
        self.lines.append("  " * depth + text + (f" // {tag}" if tag else ""))

    def slot(self, idx):
        r, R = self.r, self.R
        return r.choice(["0", "1" if R > 1 else "0", f"{idx[0]} % {R}", f"{idx[-1]} % {R}", f"({idx[-1]} + 1) % {R}"])

    def cond(self, var):
        return self.r.choice([f"{var} >= 2", f"{var} == 3", f"{var} % 3 == 2", f"{var} >= 1", "flag", "true"])

    def outer_read(self, d, idx):
        r = self.r
        self.emit(d, f"if {self.cond(idx[-1])} {{")
        self.emit(d + 1, f"mma(acc, &slots[{self.slot(idx)}], w);", "C")
        self.emit(d, "}")

    def source(self):
        r, R = self.r, self.R
        self.emit(1, f"let mut slots = zeros::<f32, [{R}, 8, 8]>({VMEM});")
        self.emit(1, "let n = tiles.len();")
        self.emit(1, f"let mut t = transfer_async_into(tiles[0], &mut slots[{r.randrange(R)}]);", "I")
        idx = []
        d = 1
        names = ["i", "h"]
        for level in range(self.depth - 1):
            v = names[level]
            idx.append(v)
            self.emit(d, f"for {v} in 0..{r.choice(['n', 'n', 'm', '3'])} {{")
            d += 1
            if r.random() < 0.6:
                self.outer_read(d, idx)
        trips = r.choice(["m", "2", "n", "m % 3", "1"])
        inner_while = r.random() < 0.3
        if inner_while:
            self.emit(d, "let mut j: usize = 0;")
            self.emit(d, f"while j < {trips} {{")
        else:
            self.emit(d, f"for j in 0..{trips} {{")
        e = d + 1
        self.emit(e, "wait(t);", "W")
        if r.random() < 0.6:
            self.emit(e, f"mma(acc, &slots[{self.slot(idx + ['j'])}], w);", "C")
        self.emit(e, f"t = transfer_async_into(tiles[(j + {idx[0]}) % n], &mut slots[{self.slot(idx + ['j'])}]);", "I")
        if inner_while:
            self.emit(e, "j += 1;")
        self.emit(d, "}")
        if r.random() < 0.6:
            self.outer_read(d, idx)
        for level in range(self.depth - 1):
            d -= 1
            self.emit(d, "}")
        self.emit(1, "wait(t);", "W")
        text = "\n".join(self.lines)
        return f"#[allow(unused_variables)]\nfn {self.name}({SIG}) on Topology::TensorCore {{\n{text}\n}}\n"


class Held:
    """A ring and a tile held in a tuple (`p.0`, `p.1`), reached directly
    and through references to the whole tuple (`r.0[s]`, `(*r).0[s]`, made
    afresh at each use): copies into the ring's slots in flight while the
    other slots, the tile, or the whole ring are read and written. (Helpers
    given `&p` are checked by tests/ui/check/calls/: the tpu target does not
    build a reference to a tuple as a parameter, and a file it cannot build
    leaves its rejected kernels unconfirmed.)"""

    def __init__(self, rnd, name):
        self.r = rnd
        self.name = name
        self.R = rnd.choice([1, 2, 2, 3])
        self.loop = rnd.choice(["for", "while"])
        self.lines = []
        self.sizes = set()

    def emit(self, depth, text, tag=""):
        self.lines.append("  " * depth + text + (f" // {tag}" if tag else ""))

    def ring(self, idx, mut):
        """The ring's slot `idx` as a place, in one of the forms."""
        form = self.r.choice(["direct", "ref", "deref"])
        if form == "direct":
            return "", f"p.0[{idx}]"
        b = "&mut p" if mut else "&p"
        return f"let r = {b}; ", (f"r.0[{idx}]" if form == "ref" else f"(*r).0[{idx}]")

    def read(self, d, idx):
        pre, place = self.ring(idx, False)
        self.emit(d, f"{{ {pre}mma(acc, &{place}, w); }}", "C")

    def issue(self, d, src, idx, first=False):
        pre, place = self.ring(idx, True)
        if first:
            self.emit(d, f"let mut t = transfer_async_into({src}, &mut p.0[{idx}]);", "I")
        else:
            self.emit(d, f"{{ {pre}t = transfer_async_into({src}, &mut {place}); }}", "I")

    def other(self, d):
        """The tile or the whole ring, touched while a copy is in flight."""
        r, R = self.r, self.R
        what = r.choice(["tile", "tile_ref", "tile_deref", "fill_ring"])
        if what == "tile":
            self.emit(d, "mma(acc, &p.1, w);")
        elif what == "tile_ref":
            self.emit(d, "{ let r = &mut p; fill(&mut r.1, 1.0); }")
        elif what == "tile_deref":
            self.emit(d, "{ let r = &p; mma(acc, &(*r).1, w); }")
        else:
            # Every slot, the one in flight too: a race unless waited.
            cond = r.choice(['flag', 'i == m', 'false'])
            self.emit(d, f"if {cond} {{ let r = &mut p; fill(&mut r.0, 0.5); }}")

    def source(self):
        r, R = self.r, self.R
        self.emit(1, f"let mut p = (zeros::<f32, [{R}, 8, 8]>({VMEM}), zeros::<f32, [8, 8]>({VMEM}));")
        self.emit(1, "let n = tiles.len();")
        self.issue(1, "tiles[0]", "0", first=True)
        if self.loop == "for":
            self.emit(1, "for i in 0..n {")
        else:
            self.emit(1, "let mut i: usize = 0;")
            self.emit(1, "while i < n {")
        self.emit(2, "wait(t);", "W")
        if r.random() < 0.5:
            self.read(2, f"i % {R}")
        self.issue(2, "tiles[(i + 1) % n]", f"(i + 1) % {R}")
        for _ in range(r.randint(0, 2)):
            if r.random() < 0.5:
                self.read(2, f"i % {R}")
            else:
                self.other(2)
        if self.loop == "while":
            self.emit(2, "i += 1;")
        self.emit(1, "}")
        self.emit(1, "wait(t);", "W")
        self.read(1, "0")
        text = "\n".join(self.lines)
        return f"#[allow(unused_variables)]\nfn {self.name}({SIG}) on Topology::TensorCore {{\n{text}\n}}\n"


class Nested:
    """A buffer borrowed by a call and, among the same call's arguments,
    moved one level down (`f(&x, keep(x), ..)`, `(x, 0).0`, `dbg(x)`; the
    borrow direct or a reference made and dereferenced): the callee, given
    one buffer as both its borrowed and its owned parameter, starts a copy
    into the owned one and reads or writes the borrowed one. Or the buffer
    moved and the one borrowed are two, which is right."""

    def __init__(self, rnd, name):
        self.r = rnd
        self.name = name
        self.sizes = set()

    def moved(self, b):
        return self.r.choice([b, f"keep({b})", f"({b}, 0).0", f"dbg({b})", f"keep(keep({b}))", f"(0, {b}).1"])

    def borrowed(self, b, mut):
        amp = "&mut " if mut else "&"
        return self.r.choice([f"{amp}{b}", f"{amp}*{amp}{b}"])

    def source(self):
        r = self.r
        lines = [f"let mut x = transfer(tiles[0], {VMEM});", f"let mut y = zeros::<f32, [8, 8]>({VMEM});"]
        mut = r.random() < 0.4
        same = r.random() < 0.6
        mv = r.choice(["x", "y"])
        br = mv if same else ("y" if mv == "x" else "x")
        k = r.choice(["0", "1 % tiles.len()", "m % tiles.len()"])
        if mut:
            call = f"fill_writing({self.borrowed(br, True)}, {self.moved(mv)}, tiles, {k})"
        else:
            call = f"fill_reading({self.borrowed(br, False)}, {self.moved(mv)}, tiles, {k}, acc, w)"
        lines.append(f"let z = {call};")
        lines.append("store(&z, &mut out[0]);")
        if br != mv:
            lines.append(f"store(&{br}, &mut out[1 % out.len()]);")
        body = "\n".join("  " + l for l in lines)
        return f"#[allow(unused_variables)]\nfn {self.name}({SIG}) on Topology::TensorCore {{\n{body}\n}}\n"


def slot_at(line):
    """(start, end) of the ring slot's index in a line: `slots[...]` or a
    held ring's `.0[...]`; None when the line names no slot."""
    for mark in ("slots[", ".0["):
        if mark in line:
            i = line.index(mark) + len(mark)
            return i, line.index("]", i)
    return None


def mutate(rnd, src):
    """One mistake of the kinds users make; returns (source, what)."""
    lines = src.split("\n")
    waits = [k for k, l in enumerate(lines) if l.endswith("// W") and not l.strip().startswith("let ")]
    computes = [k for k, l in enumerate(lines) if l.endswith("// C") and slot_at(l) is not None]
    issues = [k for k, l in enumerate(lines) if l.endswith("// I") and slot_at(l) is not None]
    # Copies started again in the loop or on an early exit (`t1 = ...`,
    # `p = (...)`): left out, the token keeps a copy already waited, which
    # the next wait waits again (on every path: through `break`, `continue`
    # and the loop's back edge alike).
    restarts = [k for k in issues if not lines[k].strip().startswith("let ")]
    choices = []
    if waits:
        choices += ["drop_wait", "drop_wait", "dup_wait", "late_wait"]
    if restarts:
        choices += ["drop_issue"]
    if issues:
        choices += ["shift_slot"]
    if computes:
        choices += ["shift_read"]
    if not choices:
        return src, "none"
    what = rnd.choice(choices)
    if what == "drop_wait":
        k = rnd.choice(waits)
        del lines[k]
    elif what == "drop_issue":
        del lines[rnd.choice(restarts)]
    elif what == "dup_wait":
        k = rnd.choice(waits)
        lines.insert(k, lines[k])
    elif what == "late_wait":
        k = rnd.choice(waits)
        later = [c for c in computes if c > k]
        if not later:
            del lines[k]
        else:
            c = later[0]
            line = lines.pop(k)
            lines.insert(c, line)
    elif what in ("shift_slot", "shift_read"):
        k = rnd.choice(issues if what == "shift_slot" else computes)
        line = lines[k]
        # The slot index one further along the ring (still in bounds).
        i, j = slot_at(line)
        ring = line[line.index("zeros::<f32, [") + 14:] if False else None
        lines[k] = line[:i] + "(" + line[i:j] + " + 1) % RING" + line[j:]
    text = "\n".join(lines)
    ring = text[text.index("zeros::<f32, [") + 14:].split(",")[0] if "zeros::<f32, [" in text else "1"
    return text.replace("RING", ring), what


def program(rnd, idx):
    name = f"k{idx}"
    kind = rnd.choice(["ring", "ring", "ring", "stream", "flags", "nest", "held", "nested"])
    g = (Ring(rnd, name) if kind == "ring" else Stream(rnd, name) if kind == "stream" else Flags(rnd, name)
         if kind == "flags" else Nest(rnd, name) if kind == "nest" else Held(rnd, name) if kind == "held"
         else Nested(rnd, name))
    src = g.source()
    what = "none"
    if rnd.random() < 0.5:
        src, what = mutate(rnd, src)
    return src, g.sizes, f"{kind} {what}"


def main():
    seed, count, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    per = 20
    if "--per-file" in sys.argv:
        per = int(sys.argv[sys.argv.index("--per-file") + 1])
    first = 0  # numbering of the kernels, so that batches do not repeat names
    if "--first" in sys.argv:
        first = int(sys.argv[sys.argv.index("--first") + 1])
    rnd = random.Random(seed)
    os.makedirs(out, exist_ok=True)
    made = 0
    f = 0
    while made < count:
        n = min(per, count - made)
        bodies, sizes, notes = [], set(), []
        for j in range(n):
            src, sz, note = program(rnd, first + made + j)
            bodies.append(src)
            sizes |= sz
            notes.append(f"// k{first + made + j}: {note}")
        text = "\n".join(notes) + "\n" + BASE_HELPERS + slot_helpers(sizes) + "\n" + "\n".join(bodies)
        with open(os.path.join(out, f"gen{seed}_{f}.vx"), "w") as fh:
            fh.write(text)
        made += n
        f += 1


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Type-directed Vx programs for the soundness benchmark (bench/soundness.py).

gen.py writes pipelines from templates; this generator writes the same
kinds of pipelines (rings and streams over `for` and `while` loops, nested
or not, at prefetch distances up to 12, copies refreshed on some iterations
only) but produces every expression from its type: where a `usize`, a
`bool`, a reference to a slot, a token or a landed buffer is needed, it
picks one of the expression forms of the language that has that type and
that value — a literal, a local, a `const`, arithmetic, a cast, a call, a
tuple and a field of it, a borrow and a dereference of it, an index, `&&`
and `||` (waits in their right operands), a condition, a recursive helper —
so that waits and calls sit under borrows, in indices, in conditions and
short-circuit operands, in tuple elements, and references are held in
variables and tuples. What the program means stays what the pipeline
means; then half the programs get one mutation (gen.py's: a wait dropped,
duplicated or moved after a read, a slot index shifted). The generator does
not know whether a program is right: the oracle decides. The oracle
(vx-oracle) reports which (expression kind, position) pairs the programs
contain; soundness.py prints them against the pairs the type system allows.

usage: typed.py SEED COUNT OUT_DIR [--per-file K] [--first N]
"""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402  (mutate, the shared helpers)

TILE = gen.TILE
VMEM = gen.VMEM
PIN = gen.PIN
TOK = gen.TOK
PTOK = f"Token<{TILE}, {VMEM}>"
SIG = gen.SIG

HELPERS = f"""
const YES: bool = true;
const NO: bool = false;
const ZERO: usize = 0;
const ONE: usize = 1;
const HALF: f32 = 0.5;

fn idx(x: usize) -> usize on Topology::TensorCore {{
  x
}}

fn yes(b: bool) -> bool on Topology::TensorCore {{
  return b;
}}

fn always() -> bool on Topology::TensorCore {{
  if NO {{
    return YES;
  }}
  return true;
}}

fn one() -> usize on Topology::TensorCore {{
  if NO {{
    return 0;
  }}
  1
}}

fn half() -> f32 on Topology::TensorCore {{
  HALF
}}

fn zero() -> usize on Topology::TensorCore {{
  if NO {{
    return ZERO;
  }}
  ZERO
}}

fn done(t: {TOK}) -> bool on Topology::TensorCore {{
  wait(t);
  true
}}

fn rec_wait(k: usize, t: {TOK}) on Topology::TensorCore {{
  if k == 0 {{
    wait(t);
  }} else {{
    rec_wait(k - 1, t);
  }}
}}

fn rec_read(k: usize, x: &{PIN}, acc: &mut {PIN}, w: &{PIN}) on Topology::TensorCore {{
  if k > 0 {{
    rec_read(k - 1, x, acc, w);
  }} else {{
    mma(acc, x, w);
  }}
}}

fn pass_p(t: {PTOK}) -> {PTOK} on Topology::TensorCore {{
  t
}}

fn swap2(p: ({TOK}, {TOK})) -> ({TOK}, {TOK}) on Topology::TensorCore {{
  let (a, b) = p;
  (b, a)
}}

fn both(p: ({TOK}, {TOK})) on Topology::TensorCore {{
  wait(p.0);
  wait(p.1);
}}

fn read_pair(p: (&{PIN}, &{PIN}), acc: &mut {PIN}, w: &{PIN}) on Topology::TensorCore {{
  mma(acc, p.0, w);
  mma(acc, p.1, w);
}}
"""
KERNEL_HELPERS = ("idx", "yes", "done", "rec_wait", "rec_read", "pass_p", "swap2", "both", "read_pair")


def scalar_helpers(rnd, k):
    """Helpers whose results are their arguments, written through random
    forms in the tail or after `return`: the kernels call them where a
    value of their type is needed."""
    out = []
    usz = rnd.choice(["x", "(x + 0)", "((x) as u64) as usize", "idx(x)", "(x, 0).0", "*&x", "x * ONE",
                      "(-(-(x as i64))) as usize"])
    bol = rnd.choice(["b", "b && true", "!(!b)", "(b, 0).0", "*&b", "yes(b)", "b == true", "false || b"])
    ret = rnd.random() < 0.5
    body = (lambda e: f"  return {e};") if ret else (lambda e: f"  {e}")
    out.append(f"fn hu{k}(x: usize) -> usize on Topology::TensorCore {{\n{body(usz)}\n}}\n")
    out.append(f"fn hb{k}(b: bool) -> bool on Topology::TensorCore {{\n{body(bol)}\n}}\n")
    ref = rnd.choice(["r", "&*r", "(r, 0).0", "*&r"])
    out.append(f"fn hr{k}(r: &{PIN}) -> &{PIN} on Topology::TensorCore {{\n{body(ref)}\n}}\n")
    # A reference behind a reference, and references returned in a tuple.
    out.append(f"fn hrr{k}(r: &&{PIN}) -> &{PIN} on Topology::TensorCore {{\n{body('*r')}\n}}\n")
    out.append(f"fn htr{k}(r: &{PIN}, x: usize) -> (&{PIN}, usize) on Topology::TensorCore {{\n{body('(r, x)')}\n}}\n")
    out.append(f"fn htm{k}(r: &mut {PIN}, x: usize) -> (&mut {PIN}, usize) on Topology::TensorCore {{\n{body('(r, x)')}\n}}\n")
    tok = rnd.choice(["t", "(t, 0).0", "pass(t)"])
    out.append(f"fn ht{k}(t: {TOK}) -> {TOK} on Topology::TensorCore {{\n{body(tok)}\n}}\n")
    out.append(f"fn hp{k}(t: {TOK}, x: usize) -> ({TOK}, usize) on Topology::TensorCore {{\n{body('(t, x)')}\n}}\n")
    ln = rnd.choice(["v.len()", "(*v).len()", "(v, 0).0.len()"])
    out.append(f"fn hl{k}(v: &Vec<{TILE}>) -> usize on Topology::TensorCore {{\n{body(ln)}\n}}\n")
    lg = rnd.choice(["a && b", "a || b", "!(a && b) == false"])
    out.append(f"fn hg{k}(a: bool, b: bool) -> bool on Topology::TensorCore {{\n{body(lg)}\n}}\n")
    return "\n".join(out)


def ring_helpers(sizes):
    return "".join(f"""
fn ringr{r}(s: &Pinned<Tensor<f32, [{r}, 8, 8]>, {VMEM}>) -> &Pinned<Tensor<f32, [{r}, 8, 8]>, {VMEM}> on Topology::TensorCore {{
  s
}}
""" for r in sorted(sizes))


class Kernel:
    """One kernel: a pipeline whose every expression is drawn from its type."""

    def __init__(self, rnd, name, helpers):
        self.r = rnd
        self.name = name
        self.lines = []
        self.n = 0
        self.sizes = set()
        self.h = helpers  # this file's random helpers (scalar_helpers)

    def emit(self, depth, text, tag=""):
        self.lines.append("  " * depth + text + (f" // {tag}" if tag else ""))

    def fresh(self, base):
        self.n += 1
        return f"{base}{self.n}"

    def pick(self, *weighted):
        forms, weights = zip(*weighted)
        return self.r.choices(forms, weights)[0]

    # ---- values of a type, in any of its forms ----
    def usize(self, e, depth, budget=2):
        """An expression of type usize whose value is that of `e` (pure)."""
        if budget <= 0:
            return e
        form = self.pick(("plain", 6), ("add0", 1), ("mul1", 1), ("cast", 1), ("call", 1), ("field", 1),
                         ("deref", 1), ("local", 1), ("const", 1), ("neg", 1), ("len", 1 if e == "n" else 0),
                         ("helper", 1), ("lenhelper", 1 if e == "n" else 0))
        sub = lambda x: self.usize(x, depth, budget - 1)  # noqa: E731
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
            return self.pick((f"({sub(e)}, 0).0", 1), (f"(flag, {sub(e)}).1", 1))
        if form == "deref":
            return f"*&{sub(e)}"
        if form == "neg":
            return f"((-(-(({sub(e)}) as i64))) as usize)"
        if form == "len":
            return self.pick(("tiles.len()", 2), ("(*tiles).len()", 1), ("(tiles, 0).0.len()", 1))
        if form == "helper":
            return f"hu{self.h}({sub(e)})"
        if form == "lenhelper":
            return f"hl{self.h}(tiles)"
        if form == "const" and e in ("0", "1"):
            return {"0": "ZERO", "1": "ONE"}[e]
        if form == "local":
            v = self.fresh("u")
            self.emit(depth, f"let {v} = {sub(e)};")
            return v
        return e

    def boolean(self, e, depth, budget=2):
        """An expression of type bool whose value is that of `e` (pure)."""
        if budget <= 0:
            return e
        form = self.pick(("plain", 5), ("not", 1), ("and", 1), ("or", 1), ("call", 1), ("field", 1),
                         ("deref", 1), ("local", 1), ("eq", 1), ("cast", 1), ("helper", 1), ("const", 1),
                         ("nested", 1))
        sub = lambda x: self.boolean(x, depth, budget - 1)  # noqa: E731
        if form == "plain":
            return e
        if form == "not":
            return f"!(!({sub(e)}))"
        if form == "and":
            return self.pick((f"({sub(e)} && true)", 1), (f"(true && {sub(e)})", 1), (f"({sub(e)} && YES)", 1),
                             (f"(YES && {sub(e)})", 1), (f"({sub(e)} && *&true)", 1), (f"({sub(e)} && !false)", 1),
                             (f"({sub(e)} && (true, 0).0)", 1), (f"({sub(e)} && yes(true))", 1))
        if form == "helper":
            return f"hb{self.h}({sub(e)})"
        if form == "const":
            return self.pick((f"(YES && {sub(e)})", 1), (f"({sub(e)} || !YES)", 1))
        if form == "nested":
            return f"(true && ({sub(e)} || false))"
        if form == "or":
            return f"(false || {sub(e)})"
        if form == "call":
            return f"yes({sub(e)})"
        if form == "field":
            return f"({sub(e)}, 1).0"
        if form == "deref":
            return f"*&({sub(e)})"
        if form == "eq":
            return f"(({sub(e)}) == true)"
        if form == "cast":
            return f"(({sub(e)}) as usize == 1)"
        v = self.fresh("c")
        self.emit(depth, f"let {v} = {sub(e)};")
        return v

    def slot_ref(self, slot, depth, mut=False, tag=""):
        """A reference to `slots[slot]`: written, held in a local or a tuple,
        re-borrowed, or taken from a reference to the whole ring."""
        amp = "&mut " if mut else "&"
        s = self.usize(slot, depth)
        form = self.pick(("plain", 5), ("local", 2), ("tuple", 1), ("reborrow", 1), ("ring", 1),
                         ("ringdot", 1), ("derefring", 1), ("helper", 0 if mut else 1), ("callring", 1 if not mut else 0),
                         ("again", 1), ("refref", 0 if mut else 1), ("tupleret", 1))
        if form == "plain":
            return f"{amp}slots[{s}]"
        if form == "ringdot":
            q = self.fresh("q")
            self.emit(depth, f"let {q} = ({amp}slots, 0);", tag)
            return f"{amp}{q}.0[{s}]"
        if form == "derefring":
            return f"{amp}(*{amp}slots)[{s}]" if not mut else f"{amp}(*{amp}slots)[{s}]"
        if form == "helper":
            return f"hr{self.h}(&slots[{s}])"
        if form == "refref":
            if self.r.random() < 0.5:
                return f"hrr{self.h}(&&slots[{s}])"
            v = self.fresh("r")
            self.emit(depth, f"let {v} = &slots[{s}];", tag)
            return f"hrr{self.h}(&{v})"
        if form == "tupleret":
            v = self.fresh("q")
            f = "htm" if mut else "htr"
            self.emit(depth, f"let ({v}, _) = {f}{self.h}({amp}slots[{s}], {self.usize('0', depth)});", tag)
            return v
        if form == "callring":
            return f"&ringr{self.R}(&slots)[{s}]"
        if form == "again":
            # A reference local reassigned before its use.
            v = self.fresh("r")
            self.emit(depth, f"let mut {v} = {amp}slots[{s}];", tag)
            self.emit(depth, f"{v} = {amp}slots[{s}];", tag)
            return v
        if form == "reborrow":
            return f"{amp}*{amp}slots[{s}]"
        if form == "ring":
            ring = self.fresh("ring")
            self.emit(depth, f"let {ring} = {amp}slots;")
            return f"{amp}{ring}[{s}]"
        if form == "local":
            v = self.fresh("r")
            self.emit(depth, f"let {v} = {amp}slots[{s}];", tag)
            return v
        v = self.fresh("q")
        self.emit(depth, f"let {v} = ({amp}slots[{s}], {self.usize('0', depth)});", tag)
        return f"{v}.0"

    def token(self, t, helper="pass"):
        """The token `t`, moved: itself, through a helper, or out of a tuple."""
        if helper != "pass":
            return self.pick((t, 6), (f"{helper}({t})", 1), (f"({t}, 0).0", 1), (f"(0, {t}).1", 1))
        return self.pick((t, 6), (f"{helper}({t})", 1), (f"({t}, 0).0", 1), (f"(0, {t}).1", 1),
                         (f"ht{self.h}({t})", 1), (f"hp{self.h}({t}, 0).0", 1), (f"((({t}, 0), 1).0).0", 1))

    # ---- statements ----
    def wait(self, t, depth, in_loop=True):
        """`t` waited, in one line (a mutation may drop, repeat or move it)."""
        c = self.boolean(self.pick(("flag", 1), ("i % 2 == 0", 1 if in_loop else 0), ("m > 3", 1)), depth, 1)
        # (Recursion rarely: the tpu target, where the oracle runs programs,
        # does not build it; those programs are checked, not run.)
        form = self.pick(("wait", 12), ("finish", 2), ("rec", 1), ("or", 2), ("and", 2), ("if", 2))
        tok = self.token(t)
        if form == "wait":
            self.emit(depth, f"wait({tok});", "W")
        elif form == "finish":
            self.emit(depth, f"finish({tok});", "W")
        elif form == "rec":
            self.emit(depth, f"rec_wait({self.usize(str(self.r.randint(0, 3)), depth)}, {tok});", "W")
        elif form == "or":
            v = self.fresh("c")
            self.emit(depth, f"let {v} = {c}; if {v} || done({tok}) {{ if {v} {{ wait({t}); }} }}", "W")
        elif form == "and":
            v = self.fresh("c")
            self.emit(depth, f"let {v} = {c}; let ok = {v} && done({tok}); if !ok {{ wait({t}); }}", "W")
        else:
            v = self.fresh("c")
            self.emit(depth, f"let {v} = {c}; if {v} {{ wait({tok}); }} else {{ wait({t}); }}", "W")

    def compute(self, slot, depth, at="i"):
        """A read of `slots[slot]` by the matrix unit, one way or another
        (`at`: the output tile a store writes)."""
        form = self.pick(("mma", 10), ("helper", 2), ("rec", 1), ("pair", 2), ("store", 2), ("unary", 1),
                         ("binary", 1), ("into", 1), ("reduce", 1), ("dbg", 1), ("byvalue", 2))
        if form == "byvalue":
            # The slot taken by value where it is read (`matmul_acc(slots[s])`,
            # an operator's operand): a read of the slot, which stays in the
            # ring (E6014 keeps it from being bound elsewhere).
            s = self.usize(slot, depth)
            place = self.pick((f"slots[{s}]", 3), (f"(*&slots)[{s}]", 1), (f"(*ringr{self.R}(&slots))[{s}]", 1))
            if self.r.random() < 0.5:
                self.emit(depth, f"matmul_acc({place});", "C")
            else:
                v = self.fresh("v")
                self.emit(depth, f"let {v} = {place} * w; mma(acc, &{v}, w);", "C")
            return
        if form == "pair":
            a = self.slot_ref(slot, depth, tag="C")
            self.emit(depth, f"read_pair(({a}, w), acc, w);", "C")
            return
        x = self.slot_ref(slot, depth, tag="C")
        if form == "mma":
            self.emit(depth, f"mma(acc, {x}, w);", "C")
        elif form == "helper":
            self.emit(depth, f"compute({x}, acc, w);", "C")
        elif form == "unary":
            # On-chip compute reads its operand through the borrow (compute.md).
            v = self.fresh("u")
            fn = self.r.choice(["exp", "tanh", "abs", "neg"])
            self.emit(depth, f"let {v} = {fn}({x}); mma(acc, &{v}, w);", "C")
        elif form == "binary":
            # Operators read both sides, auto-borrowed or written `&`.
            v = self.fresh("b")
            op = self.r.choice(["+", "-", "*", "/"])
            self.emit(depth, f"let {v} = {x} {op} w; mma(acc, &{v}, w);", "C")
        elif form == "into":
            v = self.fresh("y")
            self.emit(depth, f"let mut {v} = zeros::<f32, [8, 8]>({VMEM}); copy_into(&mut {v}, {x}); "
                             f"mma(acc, &{v}, w);", "C")
        elif form == "reduce":
            # A column broadcast back over the slot it was reduced from.
            v = self.fresh("r")
            self.emit(depth, f"let {v} = row_max({x}); let {v}d = {x} - {v}; mma(acc, &{v}d, w);", "C")
        elif form == "dbg":
            # `dbg(&slot)` reads the slot (language.md §5), and passes it on.
            self.emit(depth, f"mma(acc, w, dbg({x}));", "C")
        elif form == "rec":
            self.emit(depth, f"rec_read({self.usize(str(self.r.randint(0, 2)), depth)}, {x}, acc, w);", "C")
        else:
            self.emit(depth, f"store({x}, &mut out[{self.usize(at, depth)}]);", "C")

    def issue(self, target, src, slot, depth):
        """`target` = a new copy of tiles[src] into slots[slot]."""
        form = self.pick(("direct", 4), ("helper", 1), ("ref", 1))
        s = self.usize(src, depth)
        if form == "direct":
            dst = self.slot_ref(slot, depth, mut=True, tag="I")
            self.emit(depth, f"{target} = transfer_async_into(tiles[{s}], {dst});", "I")
        elif form == "helper":
            self.emit(depth, f"{target} = issue(tiles, {s}, &mut slots[{self.usize(slot, depth)}]);", "I")
        else:
            self.emit(depth, "{")
            r = self.fresh("r")
            self.emit(depth + 1, f"let {r} = &mut slots[{self.usize(slot, depth + 1)}];", "I")
            self.emit(depth + 1, f"{target} = transfer_async_into(tiles[{s}], {r});", "I")
            self.emit(depth, "}")

    # ---- pure statements, for the forms the pipelines rarely write ----
    FILLERS = [
        "let {v} = ();", "();", "flag;", "(flag, 1);", "(flag, 1).1;", "let {v} = -(HALF * 2.0);",
        "let {v} = (1.5, !flag, (1, 2));", "let {v} = *&0.5;", "let {v} = -0.5;",
        "let mut {v} = 1.0; {v} = 2.0 * {v};", "let {v} = true as usize + (flag as usize);",
        "let {v} = *&(!flag) || *&(flag && true);", "let {v} = (!flag) == (flag == false);",
        "let mut {v} = flag; {v} = !{v}; {v} = {v} && true;", "let {v} = (*&(1, flag)).0;",
        "let {v} = -(-1) + 1;", "let {v} = !(flag && (m > 1 || !flag));", "let {v} = m > 1 && !flag;",
        "let {v} = YES && *&flag;", "let {v} = -(ONE as i64);", "let {v} = hg{h}(flag, YES);",
        "let {v} = tiles.len() - tiles.len() + 1;", "let mut {v} = 0; {v} = tiles.len();",
        "let {v} = (tiles.len(), 0);", "let {v} = idx(tiles.len());",
        "if m == 123456 {{ let {v} = &tiles[tiles.len()]; }}", "while false {{ flag; }}", "if true {{ (); }}",
        "if YES {{ (); }}", "while !YES {{ (); }}", "if !flag || flag {{ (); }}", "let {v} = &*hr{h}(w);",
        "let {v} = (w, 0); let {v}b = &*{v}.0;", "let {v} = w; let {v}b = &*{v};",
        "let {v} = &slots[0][0];", "let {v} = &(&slots)[0];", "let {v} = (flag, 1).0 && (true, 0).0;",
        "let {v} = !*&flag;", "let {v} = (m as i64) * -(1 as i64);", "let mut {v} = &slots[0]; {v} = &slots[0];",
        "if always() {{ (); }}", "let {v} = one() + zero();", "let {v} = half();", "let {v} = !yes(flag);",
        "while NO {{ (); }}", "let mut {v} = 1.0; {v} = 2.0;",
    ]
    # After the last wait: a slot read by value where it stands (a buffer
    # moved out of the ring to be kept is E6014 wherever it is), or copied
    # out to be kept.
    LATE = [
        "mma(acc, &relu(slots[0]), w);", "let {v} = transfer(&slots[0], {vm}); mma(acc, &{v}, w);",
        "mma(acc, dbg(&slots[0]), w);", "matmul_acc(slots[0]);", "matmul_acc((*&slots)[0]);",
        "let {v} = (transfer(&slots[0], {vm}), 0); mma(acc, &{v}.0, w);",
        "let {v} = slots[0] + (*&slots)[0]; mma(acc, &{v}, w);",
        "let mut {v} = zeros::<f32, [8, 8]>({vm}); {v} = transfer(&slots[0], {vm}); mma(acc, &{v}, w);",
    ]

    def filler(self, depth, late=False):
        text = self.r.choice(self.LATE if late else self.FILLERS)
        self.emit(depth, text.format(v=self.fresh("f"), h=self.h, vm=VMEM))

    # ---- pipelines ----
    def ring(self):
        r = self.r
        D = r.randint(1, 12) if r.random() < 0.2 else r.randint(1, 4)
        R = D + r.choice([1, 1, 2]) if r.random() < 0.8 else max(1, D)  # sometimes too small
        self.sizes.add(R)
        self.R = R
        refresh = r.random() < 0.15 and D == 1  # copies refreshed on some iterations only
        loop = r.choice(["for", "for", "while", "short"])
        self.emit(1, f"let mut slots = zeros::<f32, [{R}, 8, 8]>({VMEM});")
        self.emit(1, f"let n = {self.usize('tiles.len()', 1, 1)};")
        for _ in range(r.randint(0, 3)):
            self.filler(1)
        for j in range(D):
            self.emit(1, f"let mut t{j} = transfer_async_into(tiles[{self.usize(str(j), 1)}], "
                         f"{self.slot_ref(str(j % R), 1, mut=True)});", "I")
        if refresh:
            # A copy every third iteration, read two iterations later.
            self.emit(1, f"for i in {self.usize('0', 1)}..{self.usize('n', 1)} {{")
            self.emit(2, f"if {self.boolean('i % 3 == 0', 2)} {{")
            self.wait("t0", 3)
            self.issue("t0", "i", "0", 3)
            self.emit(2, "}")
            self.emit(2, f"if {self.boolean('i % 3 == 2', 2)} {{")
            self.compute("1 % " + str(R), 3)
            self.emit(2, "}")
            self.emit(1, "}")
            self.wait("t0", 1, in_loop=False)
            return
        if loop == "for":
            self.emit(1, f"for i in {self.usize('0', 1)}..{self.usize('n', 1)} {{")
        elif loop == "while":
            self.emit(1, "let mut i: usize = 0;")
            self.emit(1, f"while {self.boolean('i < n', 1)} {{")
        else:
            # The last token is waited in the condition, except when the
            # loop stops on its first operand: then after the loop.
            self.emit(1, "let mut i: usize = 0;")
            self.emit(1, f"while {self.boolean('i < n', 1)} && done({self.token(f't{D - 1}')}) {{")
        d = 2
        if r.random() < 0.3:
            self.filler(d)
        if loop == "short":
            # t{D-1} was waited by the condition: refill it first.
            self.issue(f"t{D - 1}", f"(i + {D - 1}) % n", f"(i + {D - 1}) % {R}", d)
        self.wait("t0", d)
        self.compute(f"i % {R}", d)
        for j in range(D - 1):
            self.emit(d, f"t{j} = {self.token(f't{j + 1}')};")
        self.issue(f"t{D - 1}", f"(i + {D}) % n", f"(i + {D}) % {R}", d)
        if loop != "for":
            self.emit(d, f"i += {self.usize('1', d)};")
        self.emit(1, "}")
        for j in range(D):
            self.wait(f"t{j}", 1, in_loop=False)
        if r.random() < 0.3:
            self.filler(1, late=True)

    def stream(self):
        """Copies into new buffers, waited where the buffer is used: under a
        borrow, in a `let`, into a store."""
        r = self.r
        loop = r.choice(["for", "while"])
        self.emit(1, f"let n = {self.usize('tiles.len()', 1, 1)};")
        self.emit(1, f"let mut t = transfer_async(tiles[{self.usize('0', 1)}], {VMEM});", "I")
        if loop == "for":
            self.emit(1, f"for i in {self.usize('0', 1)}..{self.usize('n', 1)} {{")
        else:
            self.emit(1, "let mut i: usize = 0;")
            self.emit(1, f"while {self.boolean('i < n', 1)} {{")
        self.emit(2, f"let next = transfer_async(tiles[{self.usize('(i + 1) % n', 2)}], {VMEM});", "I")
        use = self.pick(("borrow", 3), ("let", 1), ("store", 1), ("scaled", 1), ("tuple", 1))
        tok = self.token("t", "pass_p")
        if use == "borrow":
            self.emit(2, f"mma(acc, &wait({tok}), w);", "W")
        elif use == "let":
            self.emit(2, f"let x = wait({tok});", "W")
            self.emit(2, "mma(acc, &x, w);")
        elif use == "store":
            self.emit(2, f"store(&wait({tok}), &mut out[{self.usize('i', 2)}]);", "W")
        elif use == "scaled":
            self.emit(2, f"mma(acc, &relu(&scale(&wait({tok}), {self.pick(('HALF', 1), ('0.25', 1), ('(0.5 * 0.5)', 1))})), w);", "W")
        else:
            self.emit(2, f"let pair = (wait({tok}), {self.usize('i', 2)});", "W")
            self.emit(2, "mma(acc, &pair.0, w);")
        self.emit(2, "t = next;")
        if loop == "while":
            self.emit(2, f"i += {self.usize('1', 2)};")
        self.emit(1, "}")
        self.emit(1, f"mma(acc, &wait({self.token('t', 'pass_p')}), w);", "W")

    def pair(self):
        """Two copies carried in a tuple through helpers that take tuples."""
        self.sizes.add(2)
        self.R = 2
        self.emit(1, f"let mut slots = zeros::<f32, [2, 8, 8]>({VMEM});")
        self.emit(1, "let a = transfer_async_into(tiles[0], &mut slots[0]);", "I")
        self.emit(1, "let b = transfer_async_into(tiles[1], &mut slots[1]);", "I")
        if self.r.random() < 0.5:
            self.emit(1, "let p = swap2((a, b));")
            self.emit(1, "wait(p.1);", "W")
            self.compute("0", 1, at="0")
            self.emit(1, "wait(p.0);", "W")
            self.compute("1", 1, at="1")
        else:
            self.emit(1, "let p = (a, b);")
            self.emit(1, "both(p);", "W")
            self.emit(1, "read_pair((&slots[0], &slots[1]), acc, w);", "C")

    def source(self):
        kind = self.r.choice(["ring", "ring", "ring", "stream", "pair"])
        getattr(self, kind)()
        text = "\n".join(self.lines)
        return (f"#[allow(unused_variables)]\nfn {self.name}({SIG}) on Topology::TensorCore {{\n{text}\n}}\n",
                kind)


def program(rnd, idx, helpers):
    k = Kernel(rnd, f"k{idx}", helpers)
    src, kind = k.source()
    what = "none"
    if rnd.random() < 0.5:
        src, what = gen.mutate(rnd, src)
    return src, k.sizes, f"typed {kind} {what}"


# Forms the type system allows that no target lowers (vxc checks them; the
# VIR lowering reports E0206), and moves out of a Vec's elements to be kept
# (E6014): one file per batch, checked for coverage, never run.
UNLOWERED = f"""
fn cover_assignments(v: &mut Vec<{TILE}>, u: {TILE}, flag: bool) {{
  let mut pr = (0, flag);
  pr.0 = 2;
  let mut k = 0;
  {{
    let rk = &mut k;
    *rk = 1;
  }}
  v[0] = u;
}}

fn cover_moves_out(v: &mut Vec<{TILE}>, u: &Vec<{TILE}>) {{
  v[0] = u[1];
  let _p = (u[0], 0);
}}
"""


def main():
    seed, count, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    per = 20
    if "--per-file" in sys.argv:
        per = int(sys.argv[sys.argv.index("--per-file") + 1])
    first = 0
    if "--first" in sys.argv:
        first = int(sys.argv[sys.argv.index("--first") + 1])
    rnd = random.Random(seed * 7919 + 1)
    os.makedirs(out, exist_ok=True)
    made = 0
    f = 0
    with open(os.path.join(out, f"typed{seed}_unlowered.vx"), "w") as fh:
        fh.write(UNLOWERED)
    while made < count:
        n = min(per, count - made)
        bodies, sizes, notes = [], set(), []
        for j in range(n):
            src, sz, note = program(rnd, first + made + j, f)
            bodies.append(src)
            sizes |= sz
            notes.append(f"// k{first + made + j}: {note}")
        text = ("\n".join(notes) + "\n" + gen.BASE_HELPERS + HELPERS + scalar_helpers(rnd, f) + gen.slot_helpers(sizes) +
                ring_helpers(sizes) + "\n" + "\n".join(bodies))
        with open(os.path.join(out, f"typed{seed}_{f}.vx"), "w") as fh:
            fh.write(text)
        made += n
        f += 1


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Generates one program twice: in Vx, and mirrored into Rust with tokens as
move-only structs, for the checker benchmark (bench/checker.sh). Both have
the same functions, loops, branches, ring slots and token hand-offs; Rust's
borrow checker does the work vxc's ownership checker does (minus the
path-sensitivity and slot arithmetic Rust cannot express).

usage: gen_checker.py LINES OUT.vx OUT.rs [--seed N]
"""
import argparse
import random

VX_KERNELS = [
    # canonical double-buffered stream
    """fn stream_{k}(tiles: &Vec<Tensor<f32, [128, 128]>>) on Topology::TensorCore {{
  let mut inflight = transfer_async(tiles[0], Memory::VMEM);
  for i in 1..tiles.len() {{
    let next = transfer_async(tiles[i], Memory::VMEM);
    let cur = wait(inflight);
    matmul_acc(cur);
    inflight = next;
  }}
  matmul_acc(wait(inflight));
}}
""",
    # two-slot ring
    """fn ring_{k}(tiles: &Vec<Tensor<f32, [128, 128]>>,
          acc: &mut Pinned<Tensor<f32, [128, 128]>, Memory::VMEM>,
          w: &Pinned<Tensor<f32, [128, 128]>, Memory::VMEM>) on Topology::TensorCore {{
  let mut slots = zeros::<f32, [{s}, 128, 128]>(Memory::VMEM);
  let n = tiles.len();
  let mut t = transfer_async_into(tiles[0], &mut slots[0]);
  for i in 0..n {{
    wait(t);
    t = transfer_async_into(tiles[(i + 1) % n], &mut slots[(i + 1) % {s}]);
    mma(acc, &slots[i % {s}], w);
  }}
  wait(t);
}}
""",
    # branches and hand-off to a callee
    """fn consume_{k}(t: Token<Tensor<f32, [128, 128]>, Memory::VMEM>) on Topology::TensorCore {{
  matmul_acc(wait(t));
}}
fn branch_{k}(tiles: &Vec<Tensor<f32, [128, 128]>>, flag: bool, n: usize) on Topology::TensorCore {{
  let t = transfer_async(tiles[0], Memory::VMEM);
  if flag {{
    consume_{k}(t);
  }} else {{
    let x = wait(t);
    if n > 3 {{
      matmul_acc(x);
    }} else {{
      load_weights(&x);
    }}
  }}
}}
""",
]

RS_PRELUDE = """#![allow(dead_code, unused_variables, unused_mut, non_snake_case)]
pub struct Tensor { pub v: f32 }
pub struct Pinned { pub v: f32 }
pub struct Token { pub v: f32 }
pub fn transfer_async(src: &Tensor) -> Token { Token { v: src.v } }
pub fn transfer_async_into(src: &Tensor, dst: &mut Pinned) -> Token { dst.v = src.v; Token { v: 0.0 } }
pub fn wait(t: Token) -> Pinned { Pinned { v: t.v } }
pub fn matmul_acc(x: Pinned) {}
pub fn load_weights(x: &Pinned) {}
pub fn mma(acc: &mut Pinned, a: &Pinned, w: &Pinned) { acc.v += a.v * w.v; }
pub fn zeros(n: usize) -> Vec<Pinned> { (0..n).map(|_| Pinned { v: 0.0 }).collect() }
"""

RS_KERNELS = [
    """pub fn stream_{k}(tiles: &Vec<Tensor>) {{
    let mut inflight = transfer_async(&tiles[0]);
    for i in 1..tiles.len() {{
        let next = transfer_async(&tiles[i]);
        let cur = wait(inflight);
        matmul_acc(cur);
        inflight = next;
    }}
    matmul_acc(wait(inflight));
}}
""",
    """pub fn ring_{k}(tiles: &Vec<Tensor>,
              acc: &mut Pinned,
              w: &Pinned) {{
    let mut slots = zeros({s});
    let n = tiles.len();
    let mut t = transfer_async_into(&tiles[0], &mut slots[0]);
    for i in 0..n {{
        wait(t);
        t = transfer_async_into(&tiles[(i + 1) % n], &mut slots[(i + 1) % {s}]);
        mma(acc, &slots[i % {s}], w);
    }}
    wait(t);
}}
""",
    """pub fn consume_{k}(t: Token) {{
    matmul_acc(wait(t));
}}
pub fn branch_{k}(tiles: &Vec<Tensor>, flag: bool, n: usize) {{
    let t = transfer_async(&tiles[0]);
    if flag {{
        consume_{k}(t);
    }} else {{
        let x = wait(t);
        if n > 3 {{
            matmul_acc(x);
        }} else {{
            load_weights(&x);
        }}
    }}
}}
""",
]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("lines", type=int)
    p.add_argument("vx")
    p.add_argument("rs")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    rng = random.Random(a.seed)
    vx, rs = [], [RS_PRELUDE]
    lines, k = 0, 0
    while lines < a.lines:
        which = rng.randrange(len(VX_KERNELS))
        slots = rng.choice([2, 3, 4])
        text = VX_KERNELS[which].format(k=k, s=slots)
        vx.append(text)
        rs.append(RS_KERNELS[which].format(k=k, s=slots))
        lines += text.count("\n")
        k += 1
    open(a.vx, "w").write("".join(vx))
    open(a.rs, "w").write("".join(rs))
    print(f"{lines} lines of Vx, {k} kernels")


if __name__ == "__main__":
    main()

#!/usr/bin/env bash
# A grid whose instances the checker could not prove apart (E6010 left
# undecided) is an error by default; allowed (`#[allow(unproved)]`), the cpu
# target checks it at run time: every access of HBM an instance makes, in
# the function or in a helper it calls, is logged, and one that overlaps
# another instance's access (one of them a write) traps naming both
# instances — column blocks of one row-major tensor (strided runs) included,
# element stores too. Copies made at once on the grid's workers keep their
# token checks. A grid of more than 2^64 instances traps.
# (`--solver-rlimit=1` makes every question undecided.)
source "$(dirname "$0")/lib.bash"
cat > "$TMP/k.vx" <<'VX'
const BM: usize = 8;

fn put(x: &Pinned<Tensor<f32, [BM, 8]>, Memory::VMEM>, c: &mut Tensor<f32, [BM, 8]>) on Topology::TensorCore {
  store(x, c);
}

#[allow(unproved)]
fn columns(a: &Tensor<f32, [m, 16]>, c: &mut Tensor<f32, [m, 16]>, x: usize) on Topology::TensorCore {
  parallel (i, j) in [m / BM, 2] {
    let t = transfer(block::<[BM, 8]>(a, i * BM, j * 8), Memory::VMEM);
    store(&t, block_mut::<[BM, 8]>(c, i * BM, (j * x) % 2 * 8));
  }
}

#[allow(unproved)]
fn neighbour(_a: &Tensor<f32, [m, 8]>, c: &mut Tensor<f32, [m, 8]>, x: usize) on Topology::TensorCore {
  parallel i in [m / BM] {
    let t = transfer_async(block::<[BM, 8]>(c, (i + x) % (m / BM) * BM, 0), Memory::VMEM);
    let u = wait(t);
    store(&u, block_mut::<[BM, 8]>(c, i * BM, 0));
  }
}

#[allow(unproved)]
fn through_a_helper(a: &Tensor<f32, [m, 8]>, c: &mut Tensor<f32, [m, 8]>, x: usize) on Topology::TensorCore {
  parallel i in [m / BM] {
    let t = transfer(block::<[BM, 8]>(a, i * BM, 0), Memory::VMEM);
    put(&t, block_mut::<[BM, 8]>(c, i * x * BM, 0));
  }
}

#[allow(unproved)]
fn elements(c: &mut Tensor<f32, [m]>, x: usize) on Topology::TensorCore {
  parallel i in [m] {
    c[i * x] = 1.0;
  }
}

VX
# Denied without the attribute: an error, nothing is built.
sed 's/^#\[allow(unproved)\]$//' "$TMP/k.vx" > "$TMP/denied.vx"
expect_status 1 "$VXC" build "$TMP/denied.vx" --solver-rlimit=1 --entry columns --emit=exe -o "$TMP/denied"
contains "$ERR" "error[W6900]"
[ ! -e "$TMP/denied" ] || fail "an undecided grid was built"

run() { "$VXC" run "$TMP/k.vx" --target cpu --solver-rlimit=1 --arg m=32 "$@"; }
race="the grid's instances race (the run-time check of an unproved E6010)"
# Adjacent column blocks: their byte ranges interleave, their runs do not.
expect_status 0 run --entry columns --arg x=1
expect_status 1 run --entry columns --arg x=0
# Instances run in no order: either may be the one that traps.
contains "$ERR" "runtime trap: instance (0, "
contains "$ERR" "of the grid writes memory that instance (0, "
contains "$ERR" ") writes: $race at "
contains "$ERR" "k.vx:11:5"
# A read of a block another instance writes; the copy is made on the worker.
expect_status 0 run --entry neighbour --arg x=0
expect_status 1 run --entry neighbour --arg x=1
contains "$ERR" "memory that instance"
contains "$ERR" "$race"
# Through a helper the grid calls.
expect_status 0 run --entry through_a_helper --arg x=1
expect_status 1 run --entry through_a_helper --arg x=0
contains "$ERR" ") writes: $race at "
contains "$ERR" "k.vx:4:3"
# Element stores.
expect_status 0 run --entry elements --arg x=1
expect_status 1 run --entry elements --arg x=0
contains "$ERR" "$race at "
contains "$ERR" "k.vx:35:5"

cat > "$TMP/huge.vx" <<'VX'
const BM: usize = 8;
const HUGE: usize = 4611686018427387904;

// 4 x 2^62 instances (2^64 in all).
fn huge(a: &Tensor<f32, [m, 16]>, c: &mut Tensor<f32, [m, 16]>) on Topology::TensorCore {
  parallel (i, j) in [m / BM, HUGE] {
    if j == 0 {
      let x = transfer(block::<[BM, 16]>(a, i * BM, 0), Memory::VMEM);
      store(&x, block_mut::<[BM, 16]>(c, i * BM, 0));
    }
  }
}
VX
expect_status 1 "$VXC" run "$TMP/huge.vx" --target cpu --arg m=32
contains "$ERR" "runtime trap: a grid of more than 2^64 instances at "
contains "$ERR" "huge.vx:6:3"
# The b200 layer says where too (it said "at a `parallel` grid").
expect_status 1 "$VXC" run "$TMP/huge.vx" --target b200 --interpret --arg m=32
contains "$ERR" "runtime trap: a grid of more than 2^64 instances at "
contains "$ERR" "huge.vx:6:3"
echo "ok"

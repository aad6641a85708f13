#!/usr/bin/env bash
# A function the checker cannot prove is an error by default (W6900 denied);
# allowed, it is built for the cpu target with run-time token checks, which
# trap at the Vx line: a read before wait, a token waited twice, a token
# dropped. (`--solver-rlimit=1` makes every question undecided.)
source "$(dirname "$0")/lib.bash"
cat > "$TMP/k.vx" <<'VX'
#[allow(unproved)]
fn stale(tiles: &Vec<Tensor<f32, [8, 8]>>, out: &mut Tensor<f32, [8, 8]>, x: usize) on Topology::TensorCore {
  let mut slots = zeros::<f32, [2, 8, 8]>(Memory::VMEM);
  let t = transfer_async_into(tiles[0], &mut slots[0]);
  store(&slots[x % 2], out);
  wait(t);
}

#[allow(unproved)]
fn twice(tiles: &Vec<Tensor<f32, [8, 8]>>, x: usize) on Topology::TensorCore {
  let mut slots = zeros::<f32, [2, 8, 8]>(Memory::VMEM);
  let t = transfer_async_into(tiles[0], &mut slots[0]);
  wait(t);
  if x == 3 { wait(t); }
}

#[allow(unproved)]
fn dropped(tiles: &Vec<Tensor<f32, [8, 8]>>, x: usize) on Topology::TensorCore {
  let mut slots = zeros::<f32, [2, 8, 8]>(Memory::VMEM);
  let t = transfer_async_into(tiles[0], &mut slots[0]);
  if x == 3 { wait(t); }
}
VX
# Denied without the attribute: an error, nothing is built.
sed 's/^#\[allow(unproved)\]$//' "$TMP/k.vx" > "$TMP/denied.vx"
expect_status 1 "$VXC" build "$TMP/denied.vx" --solver-rlimit=1 -o "$TMP/denied.o"
contains "$ERR" "error[W6900]"
contains "$ERR" '`#[deny(unproved)]` on by default'
[ ! -e "$TMP/denied.o" ] || fail "an undecided program was built"

run() { "$VXC" run "$TMP/k.vx" --solver-rlimit=1 --arg tiles=2 "$@"; }
expect_status 0 run --entry stale --arg x=1
expect_status 1 run --entry stale --arg x=0
contains "$ERR" "runtime trap: read before wait"
contains "$ERR" "k.vx:5:"
expect_status 0 run --entry twice --arg x=2
expect_status 1 run --entry twice --arg x=3
contains "$ERR" "runtime trap: a token waited twice"
contains "$ERR" "k.vx:14:"
expect_status 0 run --entry dropped --arg x=3
expect_status 1 run --entry dropped --arg x=2
contains "$ERR" "runtime trap: a token dropped without wait"
contains "$ERR" "k.vx:20:"
echo "ok"

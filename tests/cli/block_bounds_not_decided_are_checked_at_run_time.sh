#!/usr/bin/env bash
# A block whose bounds the checker proves is built with no check; one it
# refutes is E6009; one it cannot decide (here: `--solver-rlimit=1` makes
# every question undecided) is not an error but is checked when the block
# is made, and one out of bounds stops the program with its line — never a
# read past the tensor — on the cpu and tpu targets.
source "$(dirname "$0")/lib.bash"
cat > "$TMP/k.vx" <<'VX'
fn f(a: &Tensor<f32, [m, 8]>, out: &mut Tensor<f32, [8, 8]>, i: usize, j: usize) on Topology::TensorCore {
  if i < 4 && j < 4 && m >= 8 {
    let t = transfer(block::<[8, 8]>(a, i * j, 0), Memory::VMEM);
    store(&t, out);
  }
}
VX
# Decided: the guard does not keep i * j + 8 within m = 8, so it is refuted.
expect_status 1 "$VXC" check "$TMP/k.vx"
contains "$ERR" "error[E6009]"
contains "$ERR" "z3 counterexample"
# Undecided: accepted, and the block is checked.
expect_status 0 "$VXC" check --solver-rlimit=1 "$TMP/k.vx"
expect_status 0 "$VXC" build --solver-rlimit=1 --emit=mlir -o - "$TMP/k.vx"
contains "$OUT" "{checked}"
for t in cpu tpu; do
  expect_status 0 "$VXC" run --solver-rlimit=1 --target $t "$TMP/k.vx" --entry f --arg m=16 --arg i=1 --arg j=3
  contains "$OUT" "checksum out"
  expect_status 1 "$VXC" run --solver-rlimit=1 --target $t "$TMP/k.vx" --entry f --arg m=8 --arg i=3 --arg j=3
  contains "$ERR" "block out of bounds"
  contains "$ERR" "k.vx:3:22"
done
# Proved: with the guard that keeps it inside, no check is left.
sed -i 's/m >= 8/i * j + 8 <= m/' "$TMP/k.vx"
expect_status 0 "$VXC" build --emit=mlir -o - "$TMP/k.vx"
case "$OUT" in *"{checked}"*) fail "a proved block is still checked: $OUT";; esac
echo ok

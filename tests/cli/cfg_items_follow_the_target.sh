# `#[cfg(target = ...)]` picks items per target on check, build and run: one
# file holds a tile size per target, each build is checked as built (the
# b200 variant alone is too large for b200), and `--const` sets every
# variant of a constant.
. "$(dirname "$0")/lib.bash" "$@"
cat > "$TMP/k.vx" <<'VX'
#[cfg(target = "b200")]
const BM: usize = 512;
#[cfg(not(target = "b200"))]
const BM: usize = 16;

#[cfg(any(target = "cpu", target = "tpu"))]
fn which() -> usize { BM }
#[cfg(all(not(target = "cpu"), not(target = "tpu")))]
fn which() -> usize { BM + 1 }

fn f(a: &Tensor<f32, [BM, 128]>, out: &mut Tensor<f32, [BM, 128]>) on Topology::TensorCore {
  let v = transfer(a, Memory::VMEM);
  let y = scale(v, 2.0);
  store(&y, out);
}
VX
K=$TMP/k.vx
expect_status 0 "$VXC" run "$K" --entry which
contains "$OUT" "result = 16"
expect_status 0 "$VXC" run "$K" --entry which --target tpu
contains "$OUT" "result = 16"
# The whole program is checked as built for b200, so running any entry
# there reports the b200 tile that does not fit.
expect_status 1 "$VXC" run "$K" --entry which --target b200 --interpret
contains "$ERR" "error[E6007]"
expect_status 0 "$VXC" build "$K" --emit=mlir -o -
contains "$OUT" "16x128"
# Checked as built: 512 x 128 f32 is 256 KiB, more than b200's shared memory.
expect_status 0 "$VXC" check "$K"
expect_status 0 "$VXC" check "$K" --target h100
expect_status 1 "$VXC" check "$K" --target b200
contains "$ERR" "error[E6007]"
# `--const` sets both variants: b200 now fits.
expect_status 0 "$VXC" check "$K" --target b200 --const BM=64
expect_status 0 "$VXC" run "$K" --entry which --target b200 --interpret --const BM=8
contains "$OUT" "result = 9"
expect_status 0 "$VXC" run "$K" --entry which --const BM=8
contains "$OUT" "result = 8"
# A function that is not built for the target is not there to run.
expect_status 2 "$VXC" run "$K" --entry nothere
# `--const` sets the variant the target keeps: another target's may have
# another type (the value was checked against every variant), and a const
# no variant of which is kept is a usage error saying so.
cat > "$TMP/types.vx" <<'VX'
#[cfg(target = "tpu")]
const S: f32 = 0.5;
#[cfg(not(target = "tpu"))]
const S: usize = 2;
#[cfg(target = "b200")]
const ONLY_B200: usize = 1;
fn k(x: &Tensor<f32, [8, 8]>, out: &mut Tensor<f32, [8, 8]>) on Topology::TensorCore {
  let v = transfer(x, Memory::VMEM);
  store(&v, out);
}
VX
expect_status 0 "$VXC" check "$TMP/types.vx" --target tpu --const S=1.5
expect_status 0 "$VXC" check "$TMP/types.vx" --const S=3
expect_status 2 "$VXC" check "$TMP/types.vx" --const S=1.5
contains "$ERR" "is not a valid \`usize\`"
expect_status 2 "$VXC" check "$TMP/types.vx" --const ONLY_B200=2
contains "$ERR" "\`const ONLY_B200\` is not part of the program for target \`cpu\` (its \`#[cfg]\` leaves it out)"
expect_status 0 "$VXC" check "$TMP/types.vx" --target b200 --const ONLY_B200=2
echo ok

# `--const NAME=VALUE` on check, build and run sets a `const` item's value,
# in shapes and in code, on every target, and each build is checked as
# built (an override that makes the footprint too large is E6007). Bad
# overrides are usage errors that say which and why.
. "$(dirname "$0")/lib.bash" "$@"
cat > "$TMP/k.vx" <<'VX'
const BM: usize = 8;
const SCALE: f32 = 0.5;
const OFF: i64 = 3;
const ON: bool = true;
fn f(a: &Tensor<f32, [BM, 128]>, out: &mut Tensor<f32, [BM, 128]>) on Topology::TensorCore {
  let v = transfer(a, Memory::VMEM);
  let y = scale(v, SCALE);
  store(&y, out);
}
fn g(n: i64) -> i64 {
  let mut r = n;
  if ON {
    r = n + OFF;
  }
  r
}
VX
K=$TMP/k.vx
expect_status 0 "$VXC" check "$K" --const BM=16 --const SCALE=-2.5 --const OFF=-7 --const ON=false
# In code: cpu and tpu agree.
expect_status 0 "$VXC" run "$K" --entry g --arg n=1
contains "$OUT" "result = 4"
expect_status 0 "$VXC" run "$K" --entry g --arg n=1 --const OFF=-7
contains "$OUT" "result = -6"
expect_status 0 "$VXC" run "$K" --entry g --arg n=1 --const ON=false
contains "$OUT" "result = 1"
expect_status 0 "$VXC" run "$K" --entry g --arg n=1 --target tpu --const OFF=40
contains "$OUT" "result = 41"
# In shapes: the built program has the overridden extent.
expect_status 0 "$VXC" build "$K" --emit=mlir -o - --const BM=4
contains "$OUT" "4x128"
expect_status 0 "$VXC" build "$K" --emit=mlir -o -
contains "$OUT" "8x128"
# Constants computed from an overridden one follow it, in shapes too.
cat > "$TMP/arith.vx" <<'VX'
const BM: usize = 8;
const BK: usize = BM / 2;
fn h(a: &Tensor<f32, [2 * BM, BK + 4]>, out: &mut Tensor<f32, [2 * BM, BK + 4]>) on Topology::TensorCore {
  let v = transfer(a, Memory::VMEM);
  let y = scale(v, 2.0);
  store(&y, out);
}
VX
expect_status 0 "$VXC" build "$TMP/arith.vx" --emit=mlir -o -
contains "$OUT" "16x8"
expect_status 0 "$VXC" build "$TMP/arith.vx" --emit=mlir -o - --const BM=32
contains "$OUT" "64x20"
for t in cpu tpu; do
  expect_status 0 "$VXC" run "$TMP/arith.vx" --entry h --target $t --const BM=16
  contains "$OUT" "checksum"
done
expect_status 0 "$VXC" run "$TMP/arith.vx" --entry h --target b200 --interpret --const BM=16
expect_status 1 "$VXC" check "$TMP/arith.vx" --const BM=18446744073709551615
contains "$ERR" "error[E0208]: this dimension computes"
a=$("$VXC" run "$K" --entry f | grep '^checksum')
b=$("$VXC" run "$K" --entry f --const SCALE=1.5 | grep '^checksum')
[ "$a" != "$b" ] || fail "--const SCALE did not change the result"
# Checked as built: 512 rows x 128 f32 = 256 KiB is more than b200's shared memory.
expect_status 0 "$VXC" check "$K" --target b200
expect_status 1 "$VXC" check "$K" --target b200 --const BM=512
contains "$ERR" "error[E6007]"
# Usage errors.
expect_status 2 "$VXC" check "$K" --const BN=16
contains "$ERR" "there is no \`const BN\`; did you mean \`BM\`?"
expect_status 2 "$VXC" build "$K" --const f=1
contains "$ERR" "\`f\` is a function, not a \`const\`"
expect_status 2 "$VXC" run "$K" --entry g --const BM=-1
contains "$ERR" "\`-1\` is not a valid \`usize\` (the type of \`const BM\`; written as a Vx literal"
expect_status 2 "$VXC" check "$K" --const ON=2
contains "$ERR" "\`2\` is not a valid \`bool\`"
expect_status 2 "$VXC" check "$K" --const OFF=9223372036854775808
contains "$ERR" "is not a valid \`i64\`"
expect_status 0 "$VXC" check "$K" --const OFF=-9223372036854775807
# Values are Vx literals, as the source writes them: radix prefixes and `_`
# in integers, Vx's float syntax (an integer too), and nothing else
# (strtod's hexadecimal, blanks, `.5`, `inf`; a suffix).
for v in 0x10 0b10000 1_6; do expect_status 0 "$VXC" check "$K" --const BM=$v; done
for v in 2 2.5 1e-3 2.5E+4 1_000.0 -0.5; do expect_status 0 "$VXC" check "$K" --const SCALE=$v; done
for v in 0x 16usize ' 16' 0o7; do
  expect_status 2 "$VXC" check "$K" --const "BM=$v"
  contains "$ERR" "written as a Vx literal without a suffix"
done
for v in 0x10 .5 5. ' 2' inf nan 1e 1e_ 2.5f32; do
  expect_status 2 "$VXC" check "$K" --const "SCALE=$v"
  contains "$ERR" "is not a valid \`f32\`"
done
# A float that would be an infinity in the const's type: a usage error
# naming the flag, not E0200 at the source's literal.
expect_status 2 "$VXC" check "$K" --const SCALE=1e39
contains "$ERR" "\`1e39\` does not fit in \`f32\` (the type of \`const SCALE\`): it would be an infinity"
expect_status 0 "$VXC" check "$K" --const SCALE=-3.4e38
expect_status 2 "$VXC" check "$K" --const BM
contains "$ERR" "expected NAME=VALUE"
expect_status 2 "$VXC" check "$K" --const BM=1 --const BM=2
contains "$ERR" "is given twice"
echo ok

# `vxc run --compare=TARGET` without `--tolerance` derives one from the
# documented error bounds of the entry's operations (docs/compute.md
# "Precision"): 0 where both targets compute bit for bit (elementwise,
# reductions), K x 2^-24 for an f32 sum of K products in another order (K
# through the loops, from the run's extents), K x 2^-11 more for tf32
# operands on the GPUs; none where a trip count is not known before the run.
. "$(dirname "$0")/lib.bash" "$@"
cd "$TMP"
python3 - <<'PY' || fail "cannot write the inputs"
import struct
def npy(name, rows, cols, f):
    head = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (rows, cols)
    head += " " * ((64 - (10 + len(head) + 1) % 64) % 64) + "\n"
    data = struct.pack("<%df" % (rows * cols), *(f(i, j) for i in range(rows) for j in range(cols)))
    open(name, "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode() + data)
# Values f32 sums round (and tf32 products): the targets differ in the last bits.
npy("a.npy", 128, 256, lambda i, j: ((i * 37 + j * 11) % 101) / 7.3 - 6.0)
npy("b.npy", 256, 128, lambda i, j: ((i * 13 + j * 29) % 89) / 9.7 - 4.5)
npy("c.npy", 128, 128, lambda i, j: 0.0)
npy("x.npy", 64, 128, lambda i, j: ((i * 7 + j * 5) % 23) / 3.1 - 3.0)
# Infinities and NaNs that both targets pass through unchanged.
npy("inf.npy", 4, 4, lambda i, j: [float("inf"), -float("inf"), float("nan"), 2.5][j])
PY
G=$ROOT/examples/gemm_rowmajor.vx
IN="--input a=a.npy --input b=b.npy --input c=c.npy"

# Elementwise work and reductions: bit for bit, so the tolerance is 0.
expect_status 0 "$VXC" run "$ROOT/examples/softmax.vx" --entry softmax --input x=x.npy --compare=tpu
contains "$OUT" "derived tolerance 0 of each output's largest magnitude (every operation is computed bit for bit"
contains "$OUT" "compare out: max_abs = 0, max_rel = 0 (vs tpu)"

# Outputs equal element for element, infinities and NaNs included, agree
# at tolerance 0 (an infinite largest magnitude made the bound 0 x inf).
cat > copy.vx <<'VX'
fn copy(x: &Tensor<f32, [m, 4]>, y: &mut Tensor<f32, [m, 4]>) on Topology::TensorCore {
  parallel i in [m] {
    let v = transfer(block::<[1, 4]>(x, i, 0), Memory::VMEM);
    store(&v, block_mut::<[1, 4]>(y, i, 0));
  }
}
VX
expect_status 0 "$VXC" run copy.vx --input x=inf.npy --compare=tpu
contains "$OUT" "compare y: max_abs = 0, max_rel = 0 (vs tpu)"

# A GEMM with k = 256 (two chunks of 128 through the loop and its tail).
# shellcheck disable=SC2086
expect_status 0 "$VXC" run "$G" --entry gemm $IN --compare=tpu
contains "$OUT" "derived tolerance 1.52588e-05"
contains "$OUT" "f32 sums of 256 products in another order: K x 2^-24 = 1.53e-05"
# A program whose `#[cfg]` constants differ per target (ring2.vx: T = 64 on
# b200, 128 elsewhere) computes other shapes there: a usage error naming
# both shapes (it was an internal compiler error), and with the constant
# set, one program to compare.
expect_status 2 "$VXC" run "$ROOT/examples/ring2.vx" --target b200 --interpret --compare=cpu --arg tiles=2
contains "$ERR" "cannot compare: \`out\` is (64, 64) on this target and (128, 128) on \`cpu\`"
expect_status 0 "$VXC" run "$ROOT/examples/ring2.vx" --target b200 --interpret --compare=cpu --arg tiles=2 --const T=64 --tolerance 1e-3
# The extents in decimal, as the run reads them: `0256` is 256 (it was read
# as octal 174 for the tolerance alone, which came out half the bound).
expect_status 0 "$VXC" run "$G" --entry gemm --arg m=128 --arg n=128 --arg k=0256 --compare=tpu
contains "$OUT" "f32 sums of 256 products in another order: K x 2^-24 = 1.53e-05"
# shellcheck disable=SC2086
expect_status 0 "$VXC" run "$G" --entry gemm $IN --compare=h100
contains "$OUT" "tf32 operands on the tensor cores (K = 256): K x 2^-11 = 0.125"
case "$OUT" in *"more than the derived tolerance"*) fail "h100 outside its derived tolerance: $OUT" ;; esac

# A `--tolerance` still overrides it (and these values differ on h100).
# shellcheck disable=SC2086
expect_status 1 "$VXC" run "$G" --entry gemm $IN --compare=h100 --tolerance 1e-7
contains "$OUT" "max_abs is more than the tolerance 1e-07"

# A trip count only the run knows: no derived tolerance, and no verdict.
cat >w.vx <<'VX'
fn acc(a: &Tensor<f32, [8, 8]>, b: &Tensor<f32, [8, 8]>, out: &mut Tensor<f32, [8, 8]>, n: usize) on Topology::TensorCore {
  let x = transfer(a, Memory::VMEM);
  let y = transfer(b, Memory::VMEM);
  let mut c = zeros::<f32, [8, 8]>(Memory::VMEM);
  let mut i = 0;
  while i < n {
    mma(&mut c, &x, &y);
    i = i + 1;
  }
  store(&c, out);
}
VX
expect_status 0 "$VXC" run w.vx --arg n=3 --compare=tpu
contains "$OUT" "compare: no tolerance derived (a \`while\` loop's trip count is not known before the run): pass \`--tolerance REL\`"
echo ok

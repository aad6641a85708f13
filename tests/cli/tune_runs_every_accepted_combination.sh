# `vxc tune` checks, builds and runs every combination of the `--const`
# lists, sorts the ones that ran by time (tpu: simulated cycles), lists the
# rejected ones with the checker's reason, and prints the winner as a
# `--const` line that `vxc build` takes.
. "$(dirname "$0")/lib.bash" "$@"
cat > "$TMP/k.vx" <<'VX'
const BM: usize = 128;
const SCALE: f32 = 1.0;
fn k(tiles: &Vec<Tensor<f32, [BM, 128]>>, out: &mut Vec<Tensor<f32, [BM, 128]>>) on Topology::TensorCore {
  for i in 0..tiles.len() {
    let v = wait(transfer_async(tiles[i], Memory::VMEM));
    let y = scale(v, SCALE);
    store(&y, &mut out[i]);
  }
}
VX
K=$TMP/k.vx
# tpu: cycles grow with the tile; 300000 rows is over the 128 MiB of VMEM.
# (BM is the outputs' shape too: combinations of other shapes compute other
# things, and are not compared.)
expect_status 0 "$VXC" tune "$K" --target tpu --const BM=128,300000,32,64 --const SCALE=1.0,1.001 \
  --arg tiles=2 --arg out=2 -o "$TMP/best.txt"
table=$(printf '%s\n' "$OUT" | sed -n '2,7p' | awk '{print $1}' | tr '\n' ' ')
[ "$table" = "32 32 64 64 128 128 " ] || fail "rows not sorted by cycles: $table; output: $OUT"
printf '%s\n' "$OUT" | head -1 | grep -q '^BM  *SCALE  *cycles$' || fail "no table header: $OUT"
contains "$OUT" "rejected:"
contains "$OUT" "--const BM=300000 --const SCALE=1.0: error[E6007]: on-chip footprint of \`k\`"
contains "$OUT" "best: --const BM=32 --const SCALE=1.0"
[ "$(cat "$TMP/best.txt")" = "--const BM=32 --const SCALE=1.0" ] || fail "-o wrote: $(cat "$TMP/best.txt")"
contains "$ERR" "8 combinations"
# Combinations compute what the program as written computes: one whose
# outputs differ from its (a tile that leaves a loop empty computes nothing
# and is the fastest) is rejected, not ranked.
expect_status 0 "$VXC" tune "$K" --target tpu --const SCALE=1.0,3.0,1.001 --arg tiles=2 --arg out=2
contains "$OUT" "--const SCALE=3.0: its outputs differ from those of the program as written (its declared constants) (0.667 of their largest magnitude, more than --tolerance 0.01)"
table=$(printf '%s\n' "$OUT" | sed -n '2,3p' | awk '{print $1}' | sort | tr '\n' ' ')
[ "$table" = "1.0 1.001 " ] || fail "the ranked combinations: $table; output: $OUT"
# Even where the combinations that compute nothing are the most: a grid of
# `m / BM` instances is empty for both tiles larger than m.
cat > "$TMP/g.vx" <<'VX'
const BM: usize = 8;
fn g(a: &Tensor<f32, [m, 16]>, c: &mut Tensor<f32, [m, 16]>) on Topology::TensorCore {
  parallel i in [m / BM] {
    let x = transfer(block::<[BM, 16]>(a, i * BM, 0), Memory::VMEM);
    store(&scale(&x, 2.0), block_mut::<[BM, 16]>(c, i * BM, 0));
  }
}
VX
expect_status 0 "$VXC" tune "$TMP/g.vx" --target tpu --const BM=8,64,128 --arg m=32
contains "$OUT" "--const BM=64: its outputs differ from those of the program as written"
contains "$OUT" "--const BM=128: its outputs differ from those of the program as written"
contains "$OUT" "best: --const BM=8"
# Where the program as written does not run (a tile of 0 rows: `m / BM`
# traps), the combinations are compared with each other.
sed 's/const BM: usize = 8;/const BM: usize = 0;/' "$TMP/g.vx" > "$TMP/g0.vx"
expect_status 0 "$VXC" tune "$TMP/g0.vx" --target tpu --const BM=8,16 --arg m=32
contains "$ERR" "note: the program as written (its declared constants) did not run"
contains "$OUT" "best: --const BM=16"
expect_status 0 "$VXC" tune "$K" --target tpu --const SCALE=1.0,3.0 --arg tiles=2 --arg out=2 --tolerance 1
contains "$OUT" "best: --const SCALE="
expect_status 2 "$VXC" tune "$K" --target tpu --const SCALE=1.0,3.0 --tolerance -1
contains "$ERR" "\`--tolerance\` must be a non-negative number"
# The winner's line is what `vxc build` and `vxc run` take.
# shellcheck disable=SC2046
expect_status 0 "$VXC" build "$K" --target tpu -o "$TMP/k.vxdma" $(cat "$TMP/best.txt")
# shellcheck disable=SC2046
expect_status 0 "$VXC" run "$K" --target tpu --arg tiles=2 --arg out=2 $(cat "$TMP/best.txt")
# cpu: wall-clock times, best of --repeat runs.
expect_status 0 "$VXC" tune "$K" --const BM=8,16 --arg tiles=4 --arg out=4 --repeat 2
printf '%s\n' "$OUT" | head -1 | grep -q '^BM  *time_us$' || fail "no cpu table header: $OUT"
contains "$OUT" "best: --const BM="
# A usage error of one combination (an input whose shape fits another
# tile) rejects that combination; the sweep goes on.
python3 - "$TMP/t8.npy" <<'PY'
import struct, sys
head = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 8, 128), }"
head += " " * ((64 - (10 + len(head) + 1) % 64) % 64) + "\n"
with open(sys.argv[1], "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode() + b"\0" * (4 * 2 * 8 * 128))
PY
expect_status 0 "$VXC" tune "$K" --const BM=8,16 --input "tiles=$TMP/t8.npy" --arg out=2 --repeat 1
contains "$OUT" "--const BM=16: \`vxc run\` refused it: error: \`--input tiles=$TMP/t8.npy\`"
contains "$OUT" "best: --const BM=8"
# Nothing accepted: exit 1.
expect_status 1 "$VXC" tune "$K" --target tpu --const BM=300000,400000 --arg tiles=1 --arg out=1
contains "$OUT" "no combination ran"
# Usage errors: stop before or at the first run.
# The output is checked before the sweep: never the input, always writable.
expect_status 2 "$VXC" tune "$K" --target tpu --const BM=8,16 -o "$K"
contains "$ERR" "is the input file"
expect_status 2 "$VXC" tune "$K" --target tpu --const BM=8,16 -o "$TMP/no/such/folder/best"
contains "$ERR" "cannot write"
expect_status 2 "$VXC" tune "$K" --target tpu --const BM=8,8
contains "$ERR" "is listed twice"
expect_status 2 "$VXC" tune "$K"
contains "$ERR" "needs at least one"
expect_status 2 "$VXC" tune "$K" --const BM=1,2 --const BM=3
contains "$ERR" "given twice"
expect_status 2 "$VXC" tune "$K" --const BM=1,,2
contains "$ERR" "an empty value"
expect_status 2 "$VXC" tune "$K" --const BM=1,2,3 --const SCALE=1.0,2.0 --max-combinations 5
contains "$ERR" "more than 5 combinations"
expect_status 2 "$VXC" tune "$K" --const BX=1,2
contains "$ERR" "there is no \`const BX\`; did you mean \`BM\`?"
contains "$ERR" "nothing was tuned"
expect_status 2 "$VXC" tune "$K" --const BM=1 --repeat 0
# A name no constant has, an entry that is not there: said before the sweep
# (no combination is run, none is listed).
expect_status 2 "$VXC" tune "$K" --target tpu --const BX=1,2,3
contains "$ERR" "there is no \`const BX\`"
case "$ERR" in *"[1/3]"*) fail "an unknown --const name was found only by the sweep: $ERR";; esac
expect_status 2 "$VXC" tune "$K" --target tpu --const BM=8,16 --entry nope
contains "$ERR" "no function \`nope\`"
case "$ERR" in *"[1/2]"*) fail "a missing entry was found only by the sweep: $ERR";; esac
expect_status 0 "$VXC" help tune
contains "$OUT" "Usage: vxc tune"
echo ok

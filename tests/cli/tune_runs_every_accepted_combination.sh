# `vxc tune` checks, builds and runs every combination of the `--const`
# lists, sorts the ones that ran by time (tpu: simulated cycles), lists the
# rejected ones with the checker's reason, and prints the winner as a
# `--const` line that `vxc build` takes.
. "$(dirname "$0")/lib.bash" "$@"
cat > "$TMP/k.vx" <<'VX'
const BM: usize = 128;
const SCALE: f32 = 2.0;
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
expect_status 0 "$VXC" tune "$K" --target tpu --const BM=128,300000,32,64 --const SCALE=1.0,3.0 \
  --arg tiles=2 --arg out=2 -o "$TMP/best.txt"
table=$(printf '%s\n' "$OUT" | sed -n '2,7p' | awk '{print $1}' | tr '\n' ' ')
[ "$table" = "32 32 64 64 128 128 " ] || fail "rows not sorted by cycles: $table; output: $OUT"
printf '%s\n' "$OUT" | head -1 | grep -q '^BM  *SCALE  *cycles$' || fail "no table header: $OUT"
contains "$OUT" "rejected:"
contains "$OUT" "--const BM=300000 --const SCALE=1.0: error[E6007]: on-chip footprint of \`k\`"
contains "$OUT" "best: --const BM=32 --const SCALE=1.0"
[ "$(cat "$TMP/best.txt")" = "--const BM=32 --const SCALE=1.0" ] || fail "-o wrote: $(cat "$TMP/best.txt")"
contains "$ERR" "8 combinations"
# The winner's line is what `vxc build` and `vxc run` take.
# shellcheck disable=SC2046
expect_status 0 "$VXC" build "$K" --target tpu -o "$TMP/k.vxdma" $(cat "$TMP/best.txt")
# shellcheck disable=SC2046
expect_status 0 "$VXC" run "$K" --target tpu --arg tiles=2 --arg out=2 $(cat "$TMP/best.txt")
# cpu: wall-clock times, best of --repeat runs.
expect_status 0 "$VXC" tune "$K" --const BM=8,16 --arg tiles=4 --arg out=4 --repeat 2
printf '%s\n' "$OUT" | head -1 | grep -q '^BM  *time_us$' || fail "no cpu table header: $OUT"
contains "$OUT" "best: --const BM="
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
expect_status 0 "$VXC" help tune
contains "$OUT" "Usage: vxc tune"
echo ok

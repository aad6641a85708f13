# `vxc run --target tpu` prints a profile after the totals: stalls per Vx
# line, copy time split up, utilisation and a hint; `--trace` and
# `--timeline` write vxsim's timeline without a separate vxsim step. The
# profile's hint on ring2 points at the deeper ring, which is faster.
. "$(dirname "$0")/lib.bash" "$@"
expect_status 0 "$VXC" run --target tpu "$ROOT/examples/ring2.vx" --arg tiles=8 \
  --trace "$TMP/t.json" --timeline "$TMP/t.svg"
contains "$OUT" "profile:"
contains "$OUT" "  waiting for copies: "
contains "$OUT" "    ring2.vx:20 "
contains "$OUT" "cycles stalled in 8 waits"
contains "$OUT" "per copy 0 cycles queued (engine or link busy), 121 moving data, 500 latency"
contains "$OUT" "  utilisation: HBM link "
contains "$OUT" "  hint: latency-bound: "
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["traceEvents"]' "$TMP/t.json" ||
  fail "--trace did not write a trace"
grep -q '<svg' "$TMP/t.svg" || fail "--timeline did not write an SVG"
# Latency and transfer in different shades: one latency bar per copy.
[ "$(grep -c 'latency: 500 cycles</title>' "$TMP/t.svg")" = 11 ] || fail "the SVG does not show each copy's latency"
grep -q '>dma latency</text>' "$TMP/t.svg" || fail "the SVG's legend has no latency entry"
c2=$(sed -n 's/^cycles = //p' <<<"$OUT")
expect_status 0 "$VXC" run --target tpu "$ROOT/examples/ring3.vx" --arg tiles=8
c3=$(sed -n 's/^cycles = //p' <<<"$OUT")
[ "$c3" -lt "$c2" ] || fail "ring3 ($c3 cycles) is not faster than ring2 ($c2)"
# Timelines are vxsim's: other targets say so.
expect_status 2 "$VXC" run "$ROOT/examples/ring2.vx" --trace "$TMP/x.json"
contains "$ERR" "\`--trace\` and \`--timeline\` record vxsim's timeline: \`--target tpu\`"
# vxsim prints the same profile with --profile.
expect_status 0 "$VXC" build --target tpu "$ROOT/examples/ring2.vx" -o "$TMP/r.vxdma"
VXSIM=$(dirname "$VXC")/../sim/vxsim
if [ -x "$VXSIM" ]; then
  expect_status 0 "$VXSIM" "$TMP/r.vxdma" --arg tiles_len=8 --profile
  contains "$OUT" "  hint: latency-bound: "
  contains "$OUT" "    ring2.vx:20 "
fi
# Most stall cycles at a blocking `store`: the profile names the operation
# per line, and the hint names that store and `store_async`, not a ring.
cat > "$TMP/stores.vx" <<'VX'
// Every result goes out through a blocking `store`: the core waits for
// each write-back, which a ring of reads cannot hide.
fn write_back(x: &Vec<Tensor<f32, [128, 128]>>, w: &Tensor<f32, [128, 128]>, out: &mut Vec<Tensor<f32, [128, 128]>>) on Topology::TensorCore {
  let wv = transfer(w, Memory::VMEM);
  let mut inflight = transfer_async(x[0], Memory::VMEM);
  for i in 1..x.len() {
    let next = transfer_async(x[i], Memory::VMEM);
    let cur = wait(inflight);
    let mut acc = zeros::<f32, [128, 128]>(Memory::VMEM);
    mma(&mut acc, &cur, &wv);
    store(&acc, &mut out[i - 1]);
    inflight = next;
  }
  let last = wait(inflight);
  store(&last, &mut out[0]);
}
VX
expect_status 0 "$VXC" run --target tpu "$TMP/stores.vx" --arg x=8 --arg out=8
contains "$OUT" "    stores.vx:11 "
contains "$OUT" "cycles stalled in 7 waits (a blocking \`store\`)"
contains "$OUT" "  hint: blocked on stores: "
contains "$OUT" "at the one at stores.vx:11; start it with \`store_async\`"
case "$OUT" in *"deeper ring) hides"*) fail "the hint for blocking stores suggests a deeper ring: $OUT";; esac
# A scalar argument the tpu's signed registers cannot hold, and one that is
# no number, are told apart.
expect_status 2 "$VXC" run --target tpu "$ROOT/examples/early_exit.vx" --entry early_exit --arg limit=18446744073709551615
contains "$ERR" "on target tpu a \`usize\` must be below 2^63 (the scalar unit is signed)"
for bad in abc 2.5 -1; do
  expect_status 2 "$VXC" run --target tpu "$ROOT/examples/early_exit.vx" --entry early_exit --arg "limit=$bad"
  contains "$ERR" "\`$bad\` is not a valid \`usize\`"
done
echo ok

# `vxc test-ui` runs `//@ run:` tests: blessed checksums and results must
# match, outputs within `//@ run-tolerance:` of the blessed .npy; each way a
# run-pass test can be wrong fails with a message that says how.
. "$(dirname "$0")/lib.bash" "$@"
D=$TMP/t
mkdir -p "$D"
cp "$ROOT/tests/ui/run/stream_out_checksums_are_blessed.vx" "$ROOT/tests/ui/run/stream_out_checksums_are_blessed.run.stdout" "$D/"
cp -r "$ROOT/tests/ui/run/outputs_within_a_tolerance".* "$D/"
expect_status 0 "$VXC" test-ui "$D"
contains "$OUT" "test-ui: 2 passed, 0 failed"

# A checksum that differs.
sed -i 's/^checksum out = 0x5/checksum out = 0x6/' "$D/stream_out_checksums_are_blessed.run.stdout"
expect_status 1 "$VXC" test-ui "$D/stream_out_checksums_are_blessed.vx"
contains "$OUT" "the runs print"
contains "$OUT" "(run with --bless to update)"
# --bless repairs it.
expect_status 0 "$VXC" test-ui --bless "$D/stream_out_checksums_are_blessed.vx"
expect_status 0 "$VXC" test-ui "$D/stream_out_checksums_are_blessed.vx"

# An output outside the tolerance: the blessed array changed by 1e-3 in one element.
python3 - "$D/outputs_within_a_tolerance.run/1/out.npy" <<'PY'
import struct, sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
hl = struct.unpack("<H", b[8:10])[0]
at = 10 + hl + 4 * 5
v = struct.unpack("<f", b[at:at + 4])[0]
b[at:at + 4] = struct.pack("<f", v + 1e-3 * max(1.0, abs(v)))
open(p, "wb").write(bytes(b))
PY
expect_status 1 "$VXC" test-ui "$D/outputs_within_a_tolerance.vx"
contains "$OUT" "out.npy: element 5 is"
contains "$OUT" "> 1e-06)"

# No blessed output yet.
cp "$D/stream_out_checksums_are_blessed.vx" "$D/fresh.vx"
expect_status 1 "$VXC" test-ui "$D/fresh.vx"
contains "$OUT" "no fresh.run.stdout (run with --bless)"

# A run that fails (an unknown entry) is a failure with vxc run's message.
sed 's/^\/\/@ run: --seed 1 --arg tiles=3$/\/\/@ run: --entry nope/' "$D/fresh.vx" >"$D/badrun.vx"
expect_status 1 "$VXC" test-ui "$D/badrun.vx"
contains "$OUT" "\`vxc run\` for \`//@ run: --entry nope\` exited with status 2"

# A run-pass test must check clean; a tolerance needs a run; headers are checked.
printf '//@ run: --arg tiles=1\nfn f() {\n  let x = 1;\n  x = 2; //~ ERROR E0205\n}\n' >"$D/errors.vx"
expect_status 1 "$VXC" test-ui "$D/errors.vx"
contains "$OUT" "a run-pass test (\`//@ run:\`) must check without errors"
printf '//@ run-tolerance: 0.5\nfn f() {}\n' >"$D/tol.vx"
expect_status 1 "$VXC" test-ui "$D/tol.vx"
contains "$OUT" "\`//@ run-tolerance:\` without a \`//@ run:\` header"
printf '//@ run: x\n//@ run-tolerance: lots\nfn f() {}\n' >"$D/badtol.vx"
expect_status 1 "$VXC" test-ui "$D/badtol.vx"
contains "$OUT" "\`//@ run-tolerance:\` takes a number from 0 to 1, not \`lots\`"
printf '# Doc\n\n```vx\n//@ run: --arg tiles=1\nfn f() {}\n```\n' >"$D/doc.md"
expect_status 1 "$VXC" test-ui "$D/doc.md"
contains "$OUT" "\`//@ run\` is for .vx test files, not for blocks in Markdown"
echo ok

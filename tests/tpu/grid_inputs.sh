#!/usr/bin/env bash
# Run-time extents from `--input` shapes on the tpu target: the arrays' shapes
# give m, n and k, the kernel computes C = A @ B on them (checked against a
# reference computed here), the cpu target agrees byte for byte, and shapes
# that disagree with each other or with `--arg` are usage errors.
#   grid_inputs.sh VXC REPO
set -u
VXC=$1 REPO=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# A: 256 x 128, B: 128 x 384, C: 256 x 384 (inout: zero in, the product out).
python3 - "$TMP" <<'PY' || fail "cannot write the inputs"
import struct, sys
def npy(path, shape, values):
    dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
    head = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % dims
    head += " " * ((64 - (10 + len(head) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode())
        f.write(struct.pack("<%df" % len(values), *values))
d = sys.argv[1]
m, k, n = 256, 128, 384
npy(d + "/a.npy", (m, k), [((i * 3 + j) % 7 - 3) / 4.0 for i in range(m) for j in range(k)])
npy(d + "/b.npy", (k, n), [((i + 5 * j) % 5 - 2) / 2.0 for i in range(k) for j in range(n)])
npy(d + "/c.npy", (m, n), [0.0] * (m * n))
npy(d + "/b_short.npy", (64, n), [0.0] * (64 * n))
PY

IN=(--input "a=$TMP/a.npy" --input "b=$TMP/b.npy" --input "c=$TMP/c.npy")
mkdir -p "$TMP/tpu" "$TMP/cpu"
"$VXC" run "$REPO/examples/gemm_rowmajor.vx" --target tpu "${IN[@]}" --output "$TMP/tpu" >"$TMP/tpu.txt" ||
  fail "the tpu run exited $?: $(cat "$TMP/tpu.txt")"
"$VXC" run "$REPO/examples/gemm_rowmajor.vx" --target cpu "${IN[@]}" --output "$TMP/cpu" >"$TMP/cpu.txt" ||
  fail "the cpu run exited $?"
cmp -s "$TMP/tpu/c.npy" "$TMP/cpu/c.npy" || fail "tpu and cpu outputs differ"
[ "$(grep '^checksum' "$TMP/tpu.txt")" = "$(grep '^checksum' "$TMP/cpu.txt")" ] || fail "checksums differ"
python3 - "$TMP/tpu/c.npy" <<'PY' || fail "C is not A @ B"
import struct, sys
data = open(sys.argv[1], "rb").read()
hl = struct.unpack("<H", data[8:10])[0]
assert "(256, 384)" in data[10:10 + hl].decode(), data[10:10 + hl]
c = struct.unpack("<%df" % (256 * 384), data[10 + hl:])
a = lambda i, j: ((i * 3 + j) % 7 - 3) / 4.0
b = lambda i, j: ((i + 5 * j) % 5 - 2) / 2.0
for i in range(0, 256, 37):
    for j in range(0, 384, 41):
        want = sum(a(i, t) * b(t, j) for t in range(128))
        assert c[i * 384 + j] == want, (i, j, c[i * 384 + j], want)
PY

# Shapes that disagree: B's rows are not A's columns; an --arg against a shape.
"$VXC" run "$REPO/examples/gemm_rowmajor.vx" --target tpu --input "a=$TMP/a.npy" --input "b=$TMP/b_short.npy" \
  >/dev/null 2>"$TMP/err" && fail "disagreeing shapes ran"
grep -q "\`k\` = 128" "$TMP/err" || fail "the error does not name the extent: $(cat "$TMP/err")"
"$VXC" run "$REPO/examples/gemm_rowmajor.vx" --target tpu --arg m=128 --input "a=$TMP/a.npy" \
  >/dev/null 2>"$TMP/err" && fail "an --arg against a shape ran"
grep -q "(128, 128)" "$TMP/err" || fail "the error does not give the expected shape: $(cat "$TMP/err")"
echo "ok: extents from --input shapes on tpu, the cpu target's output, usage errors"

#!/usr/bin/env bash
# On-chip compute (tests/run/compute.vx) on cpu, tpu, b200 and h100 (both
# interpreted)
# against a reference computed here in double precision with Python's math
# module, within what the element type can hold: f32 results within a few
# units in the last place, bf16 ones within bf16's 2^-8.
#   compute_matches_a_reference.sh VXC REPO
set -u
VXC=$1 REPO=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
K=$REPO/tests/run/compute.vx

python3 - "$TMP" <<'PY' || fail "cannot write the input"
import struct, sys
vals = [((m * 16 + n) * 37 % 61 - 30) / 10.0 for m in range(8) for n in range(16)]  # in [-3, 3]
head = "{'descr': '<f4', 'fortran_order': False, 'shape': (8, 16), }"
head += " " * ((64 - (10 + len(head) + 1) % 64) % 64) + "\n"
with open(sys.argv[1] + "/a.npy", "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode())
    f.write(struct.pack("<128f", *vals))
PY

for target in cpu tpu b200 h100; do
  extra=
  case $target in b200 | h100) extra=--interpret ;; esac
  for entry in unary into binary clamps reduce reduce_bf16 casts transposes; do
    out="$TMP/$target/$entry"
    mkdir -p "$out"
    # shellcheck disable=SC2086
    "$VXC" run "$K" --entry "$entry" --target "$target" $extra --input "a=$TMP/a.npy" --output "$out" \
      >"$TMP/log" 2>&1 || fail "$entry on $target: $(cat "$TMP/log")"
  done
done

python3 - "$TMP" <<'PY' || exit 1
import math, os, struct, sys
d = sys.argv[1]
def load(path):
    raw = open(path, "rb").read()
    n = struct.unpack("<H", raw[8:10])[0]
    head = raw[10:10 + n].decode()
    assert "'<f4'" in head, head
    body = raw[10 + n:]
    return list(struct.unpack("<%df" % (len(body) // 4), body))
def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]
def bf16(v):
    b = struct.unpack("<I", struct.pack("<f", v))[0]
    b = (b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000  # round to nearest even
    return struct.unpack("<f", struct.pack("<I", b))[0]
a = [f32(((m * 16 + n) * 37 % 61 - 30) / 10.0) for m in range(8) for n in range(16)]
ab = [bf16(v) for v in a]
rows = lambda xs, c: [xs[i * c:(i + 1) * c] for i in range(len(xs) // c)]
cmax = [max(a[i * 16 + j] for i in range(8)) for j in range(16)]
want = {
    ("unary", "e"): ([math.exp(x) for x in a], 4e-7),
    ("unary", "l"): ([math.log(f32(math.exp(x))) for x in a], 4e-7),
    ("unary", "s"): ([math.sqrt(abs(x)) for x in a], 4e-7),
    ("unary", "r"): ([1 / math.sqrt(f32(math.exp(x))) for x in a], 4e-7),
    ("unary", "t"): ([math.tanh(x) for x in a], 4e-7),
    ("unary", "b"): ([abs(x) for x in a], 0),
    ("unary", "n"): ([-x for x in a], 0),
    ("into", "e"): ([math.exp(x) for x in a], 4e-7),
    ("into", "f"): ([-2.5] * 128, 0),
    ("into", "c"): (a, 0),
    ("binary", "hi"): ([abs(x) for x in a], 0),
    ("binary", "lo"): ([-abs(x) for x in a], 0),
    ("binary", "q"): ([(x - max(r)) / (abs(x) + max(r)) for r in rows(a, 16) for x in r], 1e-6),
    ("binary", "sc"): ([x * x - x for x in a], 2e-6),  # cancellation near x = 1
    ("clamps", "cl"): ([min(max(x, -f32(max(r) * 0.5)), f32(max(r) * 0.5)) for r in rows(a, 16) for x in r], 0),
    ("clamps", "cr"): ([max(min(f32(cmax[j] * 0.25), a[i * 16 + j]), -f32(cmax[j] * 0.25))
                        for i in range(8) for j in range(16)], 0),
    ("reduce", "mx"): ([max(r) for r in rows(a, 16)], 0),
    ("reduce", "sm"): ([sum(r) for r in rows(a, 16)], 1e-6),
    ("reduce_bf16", "mx"): ([max(r) for r in rows(ab, 16)], 0),
    ("reduce_bf16", "sm"): ([sum(r) for r in rows(ab, 16)], 2 ** -8),
    ("reduce_bf16", "e"): ([math.exp(x) for x in ab], 2 ** -8),
    ("casts", "b"): (ab, 0),
    ("transposes", "t"): ([a[r * 16 + c] for c in range(16) for r in range(8)], 0),
    ("casts", "f"): (ab, 0),
}
bad = 0
for target in ("cpu", "tpu", "b200", "h100"):
    before = bad
    for (entry, name), (ref, rel) in sorted(want.items()):
        got = load(os.path.join(d, target, entry, name + ".npy"))
        if len(got) != len(ref):
            print("FAIL: %s %s.%s has %d elements, want %d" % (target, entry, name, len(got), len(ref)))
            bad += 1
            continue
        # Sums are compared against the sum of magnitudes: f32 adds round.
        scale = [sum(abs(x) for x in r) for r in rows(a if "bf16" not in entry else ab, 16)] if name == "sm" else None
        for i, (g, w) in enumerate(zip(got, ref)):
            tol = rel * (scale[i] if scale else abs(w)) + (1e-30 if rel else 0)
            if abs(g - w) > tol:
                print("FAIL: %s %s.%s[%d] = %r, reference %r (tolerance %g)" % (target, entry, name, i, g, w, tol))
                bad += 1
                break
    if bad == before:
        print("ok %s: %d outputs within tolerance" % (target, len(want)))
sys.exit(1 if bad else 0)
PY

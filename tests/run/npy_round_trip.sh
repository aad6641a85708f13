#!/usr/bin/env bash
# `vxc run --input NAME=FILE.npy` and `--output DIR` on every target: the
# arrays written here go in, the kernel's outputs come back as .npy, and
# they hold what the kernel computes on those inputs (checked against a
# reference computed here). Bad inputs are usage errors that name the
# parameter and the shape.
#   npy_round_trip.sh VXC REPO
set -u
VXC=$1 REPO=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# out = sum_i tiles[i] @ w, with 64x64 tiles on every target (`--const T=64`).
cp "$REPO/examples/stream_out.vx" "$TMP/s.vx"

# tiles: (3, 64, 64) f4; w: (64, 64) f8 (NumPy's default), a permutation
# times two, so out[m][n] = 2 * sum_i tiles[i][m][(n + 63) % 64].
python3 - "$TMP" <<'PY' || fail "cannot write the inputs"
import struct, sys
def npy(path, descr, shape, values):
    fmt = {"<f4": "f", "<f8": "d", "<f2": "e"}[descr]
    dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
    head = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, dims)
    head += " " * ((64 - (10 + len(head) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode())
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))
d = sys.argv[1]
tiles = [((i * 7 + m * 3 + n) % 17 - 8) / 4.0 for i in range(3) for m in range(64) for n in range(64)]
npy(d + "/tiles.npy", "<f4", (3, 64, 64), tiles)
w = [2.0 if n == (k + 1) % 64 else 0.0 for k in range(64) for n in range(64)]
npy(d + "/w.npy", "<f8", (64, 64), w)
npy(d + "/w_f2.npy", "<f2", (64, 64), w)
npy(d + "/bad_shape.npy", "<f4", (64, 32), [0.0] * (64 * 32))
npy(d + "/flat.npy", "<f4", (4096,), [0.0] * 4096)
with open(d + "/not.npy", "wb") as f:
    f.write(b"plain text")
# Shapes that are no tuple of sizes: a negative size, an unclosed tuple.
def raw(path, shape_text, count):
    head = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % shape_text
    head += " " * ((64 - (10 + len(head) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode())
        f.write(b"\0" * 4 * count)
raw(d + "/negative.npy", "(-64, 64)", 4096)
raw(d + "/unclosed.npy", "(64, 64,", 4096)
# Headers NumPy reads otherwise or not at all: the dict is parsed as the
# Python literal it is (a key given twice means its last value, as NumPy
# reads it: a substring search took the first and read a Fortran-order
# array as C order, transposed).
def header(path, text, count):
    head = text + " " * ((64 - (10 + len(text) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode())
        f.write(b"\0" * 4 * count)
header(d + "/dupkey.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (64, 64), 'fortran_order': True}", 4096)
header(d + "/junk.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (64, 64), } junk", 4096)
header(d + "/extrakey.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (64, 64), 'bogus': 1}", 4096)
header(d + "/nofortran.npy", "{'descr': '<f4', 'shape': (64, 64)}", 4096)
header(d + "/spaced.npy", "{ 'shape' : (64,64) , \"descr\":'<f4','fortran_order':False }", 4096)
PY

# FILE holds out = 2 * sum_i tiles[i][m][(n + 63) % 64], exactly.
check_out() {
  python3 - "$1" <<'PY' || fail "$1: wrong contents"
import struct, sys
data = open(sys.argv[1], "rb").read()
assert data[:6] == b"\x93NUMPY", "no magic"
hl = struct.unpack("<H", data[8:10])[0]
head = data[10:10 + hl].decode()
assert "'<f4'" in head and "(64, 64)" in head, head
vals = struct.unpack("<4096f", data[10 + hl:])
tile = lambda i, m, n: ((i * 7 + m * 3 + n) % 17 - 8) / 4.0
for m in range(64):
    for n in range(64):
        want = 2 * sum(tile(i, m, (n + 63) % 64) for i in range(3))
        got = vals[m * 64 + n]
        assert got == want, "out[%d][%d] = %r, expected %r" % (m, n, got, want)
PY
}

IN=(--input "tiles=$TMP/tiles.npy" --input "w=$TMP/w.npy")
for t in cpu tpu b200 h100; do
  extra=()
  case $t in b200|h100) extra=(--interpret) ;; esac
  mkdir -p "$TMP/$t"
  "$VXC" run --target $t "${extra[@]}" "$TMP/s.vx" --const T=64 "${IN[@]}" --output "$TMP/$t" >"$TMP/$t.log" 2>&1 ||
    fail "$t: $(cat "$TMP/$t.log")"
  [ -f "$TMP/$t/out.npy" ] || fail "$t: no out.npy"
  check_out "$TMP/$t/out.npy"
  # The output goes back in: round trip (w from the first run's out).
  "$VXC" run --target $t "${extra[@]}" "$TMP/s.vx" --const T=64 --input "w=$TMP/$t/out.npy" --arg tiles=2 >/dev/null 2>&1 ||
    fail "$t: an output of vxc run does not go back in as an input"
done
# The same inputs give the same checksum on every target.
for t in tpu b200 h100; do
  a=$(grep '^checksum' "$TMP/cpu.log") b=$(grep '^checksum' "$TMP/$t.log")
  [ "$a" = "$b" ] || fail "cpu and $t disagree: $a / $b"
done
# An f2 array of the same values gives the same result.
"$VXC" run "$TMP/s.vx" --const T=64 --input "tiles=$TMP/tiles.npy" --input "w=$TMP/w_f2.npy" >"$TMP/f2.log" 2>&1 ||
  fail "f2 input: $(cat "$TMP/f2.log")"
[ "$(grep '^checksum' "$TMP/f2.log")" = "$(grep '^checksum' "$TMP/cpu.log")" ] || fail "an f2 input changes the result"
# --compare passes the inputs to both targets (tpu is now one of them).
"$VXC" run "$TMP/s.vx" --const T=64 "${IN[@]}" --compare=tpu >"$TMP/cmp.log" 2>&1 || fail "compare: $(cat "$TMP/cmp.log")"
grep -q '^compare out: max_abs = 0, max_rel = 0 (vs tpu)$' "$TMP/cmp.log" || fail "compare: $(cat "$TMP/cmp.log")"

# Usage errors (exit 2) that say what is wrong.
expect_error() {  # PATTERN ARGS...
  local pattern=$1
  shift
  "$VXC" run "$TMP/s.vx" --const T=64 "$@" >"$TMP/err.log" 2>&1
  local rc=$?
  [ $rc -eq 2 ] || fail "$*: exit $rc, expected 2: $(cat "$TMP/err.log")"
  grep -qF -- "$pattern" "$TMP/err.log" || fail "$*: expected \`$pattern\` in: $(cat "$TMP/err.log")"
}
for t in cpu tpu; do
  expect_error '`w` takes an array of shape (64, 64); `'"$TMP"'/bad_shape.npy` holds (64, 32)' --target $t --input "w=$TMP/bad_shape.npy"
  expect_error '`w` takes an array of shape (64, 64); `'"$TMP"'/flat.npy` holds (4096,)' --target $t --input "w=$TMP/flat.npy"
  expect_error '`tiles` takes an array of shape (n, 64, 64)' --target $t --input "tiles=$TMP/w.npy"
  expect_error 'holds 3 tensors, but `--arg tiles=5` says 5' --target $t --input "tiles=$TMP/tiles.npy" --arg tiles=5
  expect_error 'has no parameter `ww`; did you mean `w`?' --target $t --input "ww=$TMP/w.npy"
  expect_error 'is not a NumPy array this version reads: no .npy magic' --target $t --input "w=$TMP/not.npy"
  expect_error 'cannot read' --target $t --input "w=$TMP/missing.npy"
  expect_error 'expected NAME=FILE.npy' --target $t --input "w"
  expect_error 'shape `(-64, 64)` holds something other than sizes' --target $t --input "w=$TMP/negative.npy"
  expect_error 'the header key `shape` has no value it can read: a bracket is not closed' --target $t --input "w=$TMP/unclosed.npy"
  expect_error 'this version reads: Fortran order' --target $t --input "w=$TMP/dupkey.npy"
  expect_error 'this version reads: text after the header dict' --target $t --input "w=$TMP/junk.npy"
  expect_error 'the header key `bogus`' --target $t --input "w=$TMP/extrakey.npy"
  expect_error 'the header has no `fortran_order`' --target $t --input "w=$TMP/nofortran.npy"
  "$VXC" run --target $t "$TMP/s.vx" --const T=64 --input "w=$TMP/spaced.npy" --arg tiles=1 >"$TMP/sp.log" 2>&1 ||
    fail "$t: a header in another spacing and key order: $(cat "$TMP/sp.log")"
  # A Vec's length by value, as the harness reads it.
  "$VXC" run --target $t "$TMP/s.vx" --const T=64 --input "tiles=$TMP/tiles.npy" --arg tiles=03 >"$TMP/v.log" 2>&1 ||
    fail "$t: --arg tiles=03 with 3 tiles: $(cat "$TMP/v.log")"
  expect_error 'a Vec'"'"'s length must be a non-negative integer' --target $t --arg "tiles= 3"
  # A folder or a device is no array, and is not read forever.
  expect_error 'it is not a regular file' --target $t --input "w=$TMP"
  expect_error 'it is not a regular file' --target $t --input "w=/dev/zero"
done
expect_error 'option `--input` needs a value' --input
expect_error '`--arg tiles` is given twice' --arg tiles=2 --arg tiles=3
expect_error '`--input w` is given twice' --input "w=$TMP/w.npy" --input "w=$TMP/w_f2.npy"
expect_error '`--tolerance` bounds the errors of `--compare=TARGET`' --tolerance 1e-3
for bad in abc -1 nan 1e400 ''; do
  expect_error '`--tolerance` must be a non-negative number' --compare=tpu --tolerance "$bad"
done
# Equal outputs pass any tolerance (tests/run/cuda_interpret.sh has tf32
# outputs that fail one).
"$VXC" run "$TMP/s.vx" --const T=64 "${IN[@]}" --compare=tpu --tolerance 0 >"$TMP/cmp.log" 2>&1 || fail "--tolerance 0: $(cat "$TMP/cmp.log")"
# Run-time extents: an extent given in decimal with a leading zero is that
# number (the program read it as octal), and one whose buffers would be
# larger than `vxc run` allocates is a usage error, not a crash.
python3 - "$TMP" <<'PY' || fail "cannot write the rows input"
import struct, sys
head = "{'descr': '<f4', 'fortran_order': False, 'shape': (16, 256), }"
head += " " * ((64 - (10 + len(head) + 1) % 64) % 64) + "\n"
with open(sys.argv[1] + "/rows16.npy", "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode())
    f.write(struct.pack("<4096f", *[(i % 7) / 8.0 for i in range(4096)]))
PY
for t in cpu b200; do
  extra=()
  [ $t = b200 ] && extra=(--interpret)
  "$VXC" run --target $t "${extra[@]}" "$REPO/examples/rows.vx" --arg m=016 --input "x=$TMP/rows16.npy" >"$TMP/rows.log" 2>&1 ||
    fail "$t: m=016: $(cat "$TMP/rows.log")"
  "$VXC" run --target $t "${extra[@]}" "$REPO/examples/rows.vx" --arg m=16 --input "x=$TMP/rows16.npy" >"$TMP/rows2.log" 2>&1 ||
    fail "$t: m=16: $(cat "$TMP/rows2.log")"
  [ "$(grep '^checksum' "$TMP/rows.log")" = "$(grep '^checksum' "$TMP/rows2.log")" ] || fail "$t: m=016 is not m=16"
  # Extents not given take the harness's 128 (a buffer of m x 128 counts
  # them; it was not checked at all, and the harness's product threw or
  # wrapped).
  "$VXC" run --target $t "${extra[@]}" "$REPO/examples/gemm_rowmajor.vx" --arg m=144115188075855872 >"$TMP/big.log" 2>&1
  rc=$?
  [ $rc -eq 2 ] || fail "$t: m=2^57, k by default: exit $rc, expected 2: $(cat "$TMP/big.log")"
  grep -qF '(m = 144115188075855872, k = 128 by default): more than `vxc run` allocates' "$TMP/big.log" || fail "$t: m=2^57: $(cat "$TMP/big.log")"
  for m in 16777216 4611686018427387904 18446744073709551615 " 16" " -1"; do
    "$VXC" run --target $t "${extra[@]}" "$REPO/examples/rows.vx" --arg "m=$m" >"$TMP/big.log" 2>&1
    rc=$?
    [ $rc -eq 2 ] || fail "$t: m=$m: exit $rc, expected 2: $(cat "$TMP/big.log")"
    grep -qE 'more than `vxc run` allocates \(2\^31 elements\)|is not a valid|expected a non-negative integer' "$TMP/big.log" || fail "$t: m=$m: $(cat "$TMP/big.log")"
  done
done
echo "ok: .npy in and out on cpu, tpu, b200 and h100 (interpreted)"

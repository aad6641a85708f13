# Grids and blocks on b200 and h100 under the interpreter (docs/b200.md
# "Blocks and tensor maps", "Grids"), against the cpu target:
#  1. examples/gemm_rowmajor.vx and examples/rows.vx agree with cpu within
#     the tf32 tolerance (K x 2^-11 of the output's scale) at shapes with
#     m, n and k unequal, k one BK (the ring's first slot only) and two,
#     one instance and several, each under two copy schedules (1 and 7, and
#     the latest, 0) and 1 to 4 CTAs. Their checked-in consts build for
#     b200 (E6007 counts 201 KiB). The cpu target's BK is 128 and b200's 32,
#     so k is a multiple of 128 unless both get `--const BK=32`;
#  2. docs/language/builtins/block.vx and block_mut.vx check on b200 and
#     h100 and agree with cpu;
#  3. a read of a block copy's destination before its wait, and a write of
#     a block being stored, built with --unchecked, stop at the checker's line.
#   cuda_grid_agrees_with_cpu.sh VXC REPO
set -u
VXC=$1 REPO=$2
fail() { echo "FAIL: $*" >&2; exit 1; }

G=$REPO/examples/gemm_rowmajor.vx
R=$REPO/examples/rows.vx
for f in "$G" "$R"; do
  for t in b200 h100; do
    out=$("$VXC" check --target "$t" "$f" 2>&1) || fail "$f does not check for $t at its consts:
$out"
  done
done
echo "ok both examples check for b200 and h100 at their consts"

# ---- 1. the grid examples agree with cpu ----
agree() {  # FILE TOLERANCE ARGS...
  local file=$1 tol=$2 out cmp
  shift 2
  for run in "b200 1 3" "b200 0 2" "h100 7 4" "h100 0 1"; do
    local t s ctas
    read -r t s ctas <<<"$run"
    out=$(VX_CTAS=$ctas "$VXC" run "$file" --target "$t" --interpret --schedule-seed "$s" --compare=cpu \
      --tolerance "$tol" "$@" 2>&1) || fail "$(basename "$file") $* --target $t --schedule-seed $s ($ctas CTAs):
$out"
    cmp=$(grep '^compare ' <<<"$out") || fail "$(basename "$file") $* --target $t: no comparison:
$out"
  done
  echo "ok $(basename "$file") $*: $cmp"
}
# tf32 products: K x 2^-11 of the output's scale.
agree "$G" 0.125 --seed 3 --arg m=256 --arg n=384 --arg k=256
agree "$G" 0.25 --seed 4 --arg m=384 --arg n=128 --arg k=512
agree "$G" 0.015625 --seed 5 --const BK=32 --arg m=128 --arg n=256 --arg k=32
agree "$G" 0.03125 --seed 6 --const BK=32 --arg m=256 --arg n=128 --arg k=64
agree "$G" 0.0625 --seed 7 --arg m=128 --arg n=128 --arg k=128
agree "$R" 1e-6 --seed 8 --arg m=24
agree "$R" 1e-6 --seed 9 --arg m=8
agree "$R" 1e-6 --seed 10 --arg m=128

# Operands tf32 rounds (not vx_fill's exact multiples of 1/8): within the
# tolerance, and not exact. The .npy files are written without numpy.
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
python3 - "$TMP" <<'EOF' || fail "writing the .npy inputs"
import struct, sys
def save(name, rows, cols, f):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (rows, cols)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    data = struct.pack("<%df" % (rows * cols), *(f(i, j) for i in range(rows) for j in range(cols)))
    with open(sys.argv[1] + "/" + name, "wb") as out:
        out.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data)
save("a.npy", 256, 256, lambda i, j: ((i * 37 + j * 11) % 101) / 7.3 - 6.0)
save("b.npy", 256, 128, lambda i, j: ((i * 13 + j * 29) % 89) / 9.7 - 4.5)
save("c.npy", 256, 128, lambda i, j: 0.0)
EOF
in="--input a=$TMP/a.npy --input b=$TMP/b.npy --input c=$TMP/c.npy"
for t in b200 h100; do
  # shellcheck disable=SC2086
  out=$("$VXC" run "$G" --target "$t" --interpret --compare=cpu --tolerance 0.125 $in 2>&1) ||
    fail "gemm_rowmajor with tf32-rounded operands on $t:
$out"
  # shellcheck disable=SC2086
  "$VXC" run "$G" --target "$t" --interpret --compare=cpu --tolerance 1e-7 $in >/dev/null 2>&1 &&
    fail "gemm_rowmajor on $t: exact to 1e-7 on operands tf32 rounds (tf32 not modelled)"
  echo "ok gemm_rowmajor with tf32-rounded operands on $t: $(grep '^compare' <<<"$out")"
done

# ---- 2. the builtin docs' blocks ----
for f in block block_mut; do
  d=$REPO/docs/language/builtins/$f.vx
  for t in b200 h100; do
    out=$("$VXC" check --target "$t" "$d" 2>&1) || fail "$f.vx does not check for $t:
$out"
  done
done
agree "$REPO/docs/language/builtins/block.vx" 1e-6 --arg m=96 --arg k=64
agree "$REPO/docs/language/builtins/block_mut.vx" 1e-6 --arg m=160

# ---- 3. hazards of block copies stop at the checker's line ----
Z=$REPO/tests/run/cuda_block_hazards.vx
hazard() {  # ENTRY WHAT LINE COPYLINE
  local out
  for t in b200 h100; do
    out=$("$VXC" run "$Z" --entry "$1" --target "$t" --interpret --schedule-seed 0 --unchecked --arg m=128 2>&1)
    [ $? -eq 1 ] || fail "$1 on $t: expected exit status 1 (a trap):
$out"
    grep -qF "runtime trap: $2 (the copy started at $Z:$4:" <<<"$out" && grep -qE "runtime trap: .* at $Z:$3:[0-9]+$" <<<"$out" ||
      fail "$1 on $t: expected \"$2\" at line $3 (copy at line $4), got:
$out"
  done
  echo "ok hazard $1: line $3"
}
hazard reads_a_landing_block "read of memory a copy is still landing in" 8 7
hazard overwrites_a_block_being_stored "write of memory a copy in flight is reading" 18 17
echo "all agree"

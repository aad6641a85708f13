# The b200 and h100 targets under the interpreter (docs/b200.md), against
# the cpu target:
#  1. every example runs with `--interpret` on b200 and h100, under two copy
#     schedules and with --sync-baseline, and prints the cpu target's
#     checksums. Examples whose 128x128 f32 tiles do not fit the 201 KiB of
#     shared memory (E6007 on b200) run with their tiles shrunk to 64x64 on
#     every target;
#     tf32 products of inexact operands stay within a tolerance derived
#     from K, and 16-bit operands agree exactly;
#  2. every hazard program the checker rejects with E6004/E6005, built with
#     the hidden --unchecked flag, stops under the interpreter at the line
#     the checker named, with the copy's line.
#   cuda_interpret.sh VXC REPO
set -u
VXC=$1 REPO=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# FILE as checked in: this repository's files fit b200 at their checked-in
# tile sizes (per-target consts, no edits). The shared examples
# (../shared/examples, not this project's to change) that do not are run
# on a copy with 64x64 tiles, and say so.
fit() {
  if "$VXC" check --target b200 "$1" 2>&1 | grep -q 'E6007'; then
    case $(cd "$(dirname "$1")" && pwd)/ in
      "$(cd "$REPO" && pwd)"/*) fail "$1: its checked-in tile sizes do not fit b200 (E6007)" ;;
    esac
    local dir
    dir=$TMP/$(echo "$1" | md5sum | cut -c1-8)
    mkdir -p "$dir"
    sed -e 's/128, 128/64, 64/g; s/128, 16/64, 16/g' "$1" >"$dir/$(basename "$1")"
    echo "note: $1 (a shared example) does not fit b200 as written: run with 64x64 tiles" >&2
    echo "$dir/$(basename "$1")"
  else
    echo "$1"
  fi
}

# `--const NAME=VALUE` for each const FILE sets for b200/h100 only (an item
# under `#[cfg(any(target = "b200", ...))]`): the cpu reference run
# computes with the GPU's tile sizes, so both compute the same thing.
gpu_consts() {
  awk '/^#\[cfg\(/ { gpu = ($0 ~ /b200/ && $0 !~ /not\(/); next }
       gpu && /^const [A-Za-z_0-9]+: [a-z0-9]+ = [^;]+;/ {
         n = $0; sub(/^const /, "", n); v = n; sub(/:.*/, "", n); sub(/^[^=]*= */, "", v); sub(/;.*/, "", v)
         printf "--const %s=%s ", n, v
       }
       { gpu = 0 }' "$1"
}

# ---- 1. results agree with the cpu target ----
agree() {  # FILE ENTRY ARGS...
  local file=$1 entry=$2
  shift 2
  local src
  src=$(fit "$file") || exit 1
  local want got
  # shellcheck disable=SC2046
  want=$("$VXC" run "$src" --entry "$entry" $(gpu_consts "$src") "$@" | grep -E '^(checksum|result) ') ||
    fail "$file $entry $*: the cpu run failed"
  [ -n "$want" ] || fail "$file $entry $*: the cpu run printed no checksum"
  for run in "b200 1" "b200 7" "h100 3" "b200 1 --sync-baseline"; do
    local t s extra
    read -r t s extra <<<"$run"
    # shellcheck disable=SC2086
    got=$("$VXC" run "$src" --entry "$entry" --target "$t" --interpret --schedule-seed "$s" $extra "$@" 2>&1 |
      grep -E '^(checksum|result|error)') || fail "$file $entry $* --target $t: no output"
    [ "$got" = "$want" ] || fail "$file $entry $* --target $t --interpret --schedule-seed $s $extra printed
$got
the cpu target printed
$want"
  done
  echo "ok $(basename "$src") $entry $*: $want"
}

E=$REPO/examples
agree "$E/stream.vx" stream --seed 0 --arg tiles=8
agree "$E/stream.vx" stream --seed 7 --arg tiles=1
agree "$E/stream_out.vx" stream_out --seed 1 --arg tiles=5
agree "$E/ring2.vx" ring2 --seed 2 --arg tiles=5
agree "$E/ring3.vx" ring3 --seed 4 --arg tiles=6
agree "$E/gemm.vx" gemm --seed 6 --arg a=6 --arg b=6 --arg c=4 --arg kt=3
agree "$E/project.vx" project --seed 12 --arg tiles=7
agree "$E/epilogue.vx" epilogue --seed 9 --arg x=3
agree "$E/early_exit.vx" early_exit --seed 14 --arg tiles=8 --arg limit=6
agree "$E/early_exit.vx" early_exit --seed 15 --arg tiles=5 --arg limit=0
agree "$REPO/tests/run/early_exits.vx" returned_tokens --arg tiles=5 --arg k=3
agree "$REPO/tests/run/early_exits.vx" ring2_break --seed 2 --arg tiles=5
agree "$REPO/tests/run/early_exits.vx" inner_break --arg tiles=5 --arg k=2
for f in "$REPO"/../shared/examples/ok/*.vx; do
  [ -f "$f" ] || continue
  entry=$(grep -oE '^fn [A-Za-z_0-9]+' "$f" | tail -1 | cut -c4-)
  agree "$f" "$entry" --seed 3 --arg tiles=4
done

# `--compare=cpu` reads both runs' .npy outputs: vx_fill's values are exact
# in tf32 and keep every sum exact, so the tensor cores give 0 and 0.
g=$(fit "$E/gemm.vx") || exit 1
# shellcheck disable=SC2046
out=$("$VXC" run "$g" --target b200 --interpret --compare=cpu $(gpu_consts "$g") --arg a=4 --arg b=2 --arg c=4 --arg kt=2 --output "$TMP/npy") ||
  fail "--compare=cpu: $out"
grep -qx 'compare c: max_abs = 0, max_rel = 0 (vs cpu)' <<<"$out" || fail "--compare=cpu printed:
$out"
[ -f "$TMP/npy/c.npy" ] || fail "--output wrote no c.npy"
echo "ok --compare=cpu and --output"

# tf32: operands that are not exact in tf32 differ from the cpu target's f32
# products, within the tolerance derived from K (64 * 2^-11 of max|c|), and
# not within 1e-6 (the interpreter truncates operands as the tensor cores do).
for t in b200 h100; do
  out=$("$VXC" run "$REPO/tests/run/tf32_operands.vx" --target "$t" --interpret --compare=cpu --tolerance 0.03125 2>&1) ||
    fail "tf32_operands.vx --target $t: not within 64 * 2^-11:
$out"
  grep -qE '^compare c: max_abs = 0\.00[0-9]+, max_rel = ' <<<"$out" || fail "tf32_operands.vx --target $t printed:
$out"
  "$VXC" run "$REPO/tests/run/tf32_operands.vx" --target "$t" --interpret --compare=cpu --tolerance 1e-6 >/dev/null 2>&1 &&
    fail "tf32_operands.vx --target $t: exact to 1e-6 (tf32 operands not modelled)"
  echo "ok tf32 operands on $t: $(grep '^compare' <<<"$out")"
done

# 16-bit operands: f16 on b200/h100 and a bf16 copy everywhere agree with
# the cpu target's run of the bf16 copy.
m16=$TMP/mma_operand_types_bf16.vx
sed -e 's/\bf16\b/bf16/g' "$REPO/tests/run/mma_operand_types.vx" >"$m16"
want=$("$VXC" run "$m16" --seed 5 | grep '^checksum') || fail "mma_operand_types (bf16) on cpu"
for t in b200 h100; do
  for src in "$REPO/tests/run/mma_operand_types.vx" "$m16"; do
    got=$("$VXC" run "$src" --target "$t" --interpret --seed 5 2>&1 | grep -E '^(checksum|error)')
    [ "$got" = "$want" ] || fail "$src --target $t printed
$got
the cpu target printed (bf16)
$want"
  done
done
echo "ok f16 and bf16 operands on b200 and h100: $want"

# Every file of the repository with matrix work that `vxc check --target
# b200` accepts: its .cu compiles as the interpreter for both machines'
# tensor cores with no warnings (-Wall -Wextra -Werror).
CXX=${CXX:-c++}
n=0
for f in $(cd "$REPO" && { find tests examples docs -name '*.vx'; [ -d ../shared/examples ] && find ../shared/examples -name '*.vx'; } |
  xargs grep -lE '\b(mma|matmul_acc)\(' | sort); do
  "$VXC" check --target b200 "$REPO/$f" >/dev/null 2>&1 || continue
  "$VXC" build "$REPO/$f" --target b200 --emit=cu -o "$TMP/m.cu" >/dev/null 2>&1 || fail "emit $f"
  for sm in 100 90; do
    out=$("$CXX" -std=c++17 -fsyntax-only -Wall -Wextra -Werror -x c++ -DVX_CUDA_INTERPRET=1 -DVX_CUDA_SM=$sm \
      -I "$REPO/include" "$TMP/m.cu" 2>&1) || fail "$f (.cu, VX_CUDA_SM=$sm) does not compile cleanly:
$out"
  done
  n=$((n + 1))
done
[ "$n" -ge 20 ] || fail "only $n files with matrix work compiled"
echo "ok $n files with matrix work compile as the interpreter for sm_100 and sm_90"

# ---- 2. hazards stop at the checker's line ----
hazard() {  # FILE ENTRY WHAT LINE COPYLINE
  local file entry=$2 what=$3 line=$4 copy=$5 out
  file=$(fit "$1") || exit 1
  out=$("$VXC" run "$file" --entry "$entry" --target b200 --interpret --unchecked 2>&1)
  [ $? -eq 1 ] || fail "$file $entry: expected exit status 1 (a trap)"
  grep -qF "runtime trap: $what (the copy started at $file:$copy:" <<<"$out" &&
    grep -qE "runtime trap: .* at $file:$line:[0-9]+$" <<<"$out" ||
    fail "$file $entry: expected \"$what\" at line $line (copy at line $copy), got:
$out"
  echo "ok hazard $(basename "$file") $entry: line $line"
}
H=$REPO/tests/ui/check/hazards
hazard "$H/reads_before_wait.vx" stale_after_branch "read of memory a copy is still landing in" 11 6
hazard "$H/reads_before_wait.vx" moved_destination "read of memory a copy is still landing in" 19 18
hazard "$H/writes_to_an_in_flight_destination.vx" waw "write of memory a copy in flight is writing" 5 4
hazard "$H/writes_to_an_in_flight_destination.vx" mma_into_in_flight "write of memory a copy in flight is writing" 15 14
hazard "$H/writes_to_an_in_flight_source.vx" war "write of memory a copy in flight is reading" 3 2
hazard "$H/copies_within_one_ring_check_both_ends.vx" writes_the_source_of_a_copy_within_the_ring \
  "write of memory a copy in flight is reading" 6 5
hazard "$H/copies_within_one_ring_check_both_ends.vx" reads_the_destination_of_a_copy_within_the_ring \
  "read of memory a copy is still landing in" 14 13
hazard "$REPO/../shared/examples/bad/stale.vx" stale "read of memory a copy is still landing in" 6 5
hazard "$REPO/../shared/examples/bad/ring_alias.vx" ring_bad "read of memory a copy is still landing in" 11 10
echo "all agree"

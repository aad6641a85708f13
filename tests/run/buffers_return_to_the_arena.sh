#!/usr/bin/env bash
# On-chip buffers go back to the arena no later than the end of the block
# E6007 counted them in: programs that need their buffers freed at the end
# of an inner block run on cpu and tpu (128 MiB of VMEM) and on b200 under
# the interpreter (201 KiB), with the same checksums on cpu and tpu; on cpu a
# fragmented arena still holds what fits by count.
#   buffers_return_to_the_arena.sh VXC TEMPLATE
set -u
VXC=$1 TEMPLATE=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
sed 's/BIG/[1536, 128, 128]/g; s/TILE/[128, 128]/g; s/HOLE/[1000, 128, 128]/g; s/PART/[500, 128, 128]/g; s/REST/[1540, 128, 128]/g' \
  "$TEMPLATE" >"$TMP/big.vx"
sed 's/BIG/[48, 128, 8]/g; s/TILE/[128, 8]/g; s/HOLE/[25, 128, 8]/g; s/PART/[12, 128, 8]/g; s/REST/[38, 128, 8]/g' "$TEMPLATE" >"$TMP/small.vx"
args() {
  case $1 in
    blocks_in_a_loop) echo "--arg n=3" ;;
    copy_waited_in_a_block) echo "--arg x=2" ;;
  esac
}
run() {  # FILE ENTRY TARGET [OPTIONS]: prints the checksum line
  local file=$1 entry=$2 target=$3 out
  shift 3
  # shellcheck disable=SC2046  # args is a list of options
  out=$("$VXC" run "$file" --entry "$entry" --target "$target" "$@" $(args "$entry") 2>&1) ||
    fail "vxc run --target $target --entry $entry $*: $out"
  grep '^checksum' <<<"$out" || fail "$entry on $target printed no checksum: $out"
}
for entry in inner_block blocks_in_a_loop copy_waited_in_a_block; do
  cpu=$(run "$TMP/big.vx" "$entry" cpu)
  tpu=$(run "$TMP/big.vx" "$entry" tpu)
  [ "$cpu" = "$tpu" ] || fail "$entry: cpu printed $cpu, tpu $tpu"
  run "$TMP/small.vx" "$entry" b200 --interpret >/dev/null
  echo "ok $entry: $cpu"
done
"$VXC" check --target cpu "$TMP/big.vx" || fail "the cpu program does not check"
run "$TMP/big.vx" fragmented cpu >/dev/null
echo "ok fragmented on cpu"

# Differential test of one example on the tpu target: the checksums of
# `vxc run --target tpu`, of the same with --sync-baseline and of
# `vxc run --target cpu` must be the same lines; the asynchronous build must
# also take fewer simulated cycles than its baseline when copies and compute
# can overlap (OVERLAP=1).
#   differential.sh VXC FILE ENTRY 'ARGS' ['ARGS'...]
# Each ARGS is one run's `--seed`/`--arg` options.
set -u
VXC=$1 FILE=$2 ENTRY=$3
shift 3
fail() { echo "FAIL: $*" >&2; exit 1; }
cycles() { sed -n 's/^cycles = //p' <<<"$1"; }
for args in "$@"; do
  # shellcheck disable=SC2086  # ARGS is a list of options
  tpu=$("$VXC" run "$FILE" --entry "$ENTRY" --target tpu $args) || fail "vxc run --target tpu $FILE $args exited $?"
  sync=$("$VXC" run "$FILE" --entry "$ENTRY" --target tpu --sync-baseline $args) ||
    fail "vxc run --target tpu --sync-baseline $FILE $args exited $?"
  cpu=$("$VXC" run "$FILE" --entry "$ENTRY" --target cpu $args) || fail "vxc run --target cpu $FILE $args exited $?"
  want=$(grep '^checksum ' <<<"$cpu")
  [ -n "$want" ] || fail "the cpu target printed no checksum for $ENTRY $args"
  [ "$(grep '^checksum ' <<<"$tpu")" = "$want" ] || fail "$ENTRY $args: tpu printed
$tpu
the cpu target
$want"
  [ "$(grep '^checksum ' <<<"$sync")" = "$want" ] || fail "$ENTRY $args: tpu --sync-baseline printed
$sync
the cpu target
$want"
  [ "${OVERLAP:-0}" = 1 ] && { [ "$(cycles "$tpu")" -lt "$(cycles "$sync")" ] ||
    fail "$ENTRY $args: async $(cycles "$tpu") cycles, not fewer than the baseline's $(cycles "$sync")"; }
  echo "ok $ENTRY $args: $want (cycles: async $(cycles "$tpu"), baseline $(cycles "$sync"))"
done

# Differential test of one example: the checksums `vxc run` prints for the
# asynchronous build, for --sync-baseline, and from the reference
# implementation (Reference.cpp) must be the same lines.
#   differential.sh VXC REFERENCE FILE ENTRY 'ARGS' ['ARGS'...]
# Each ARGS is one run's `--seed`/`--arg` options.
set -u
VXC=$1 REF=$2 FILE=$3 ENTRY=$4
shift 4
fail() { echo "FAIL: $*" >&2; exit 1; }
for args in "$@"; do
  # shellcheck disable=SC2086  # ARGS is a list of options
  async=$("$VXC" run "$FILE" --entry "$ENTRY" $args) || fail "vxc run $FILE $args exited $?"
  sync=$("$VXC" run "$FILE" --entry "$ENTRY" --sync-baseline $args) || fail "vxc run --sync-baseline $FILE $args exited $?"
  want=$("$REF" "$ENTRY" $args) || fail "reference $ENTRY $args exited $?"
  async=$(grep '^checksum ' <<<"$async")
  sync=$(grep '^checksum ' <<<"$sync")
  [ -n "$want" ] || fail "the reference printed no checksum for $ENTRY"
  [ "$async" = "$want" ] || fail "$ENTRY $args: async run printed
$async
the reference
$want"
  [ "$sync" = "$want" ] || fail "$ENTRY $args: --sync-baseline run printed
$sync
the reference
$want"
  echo "ok $ENTRY $args: $want"
done

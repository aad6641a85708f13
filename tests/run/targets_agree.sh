# Differential test of a program without a reference implementation: the
# checksum (and `result`) lines `vxc run` prints on the cpu and tpu targets,
# asynchronous and with --sync-baseline, must be the same.
#   targets_agree.sh VXC FILE ENTRY 'ARGS' ['ARGS'...]
# Each ARGS is one run's `--seed`/`--arg` options.
set -u
VXC=$1 FILE=$2 ENTRY=$3
shift 3
fail() { echo "FAIL: $*" >&2; exit 1; }
for args in "$@"; do
  want=
  for target in cpu tpu; do
    for sync in "" --sync-baseline; do
      # shellcheck disable=SC2086  # ARGS is a list of options
      out=$("$VXC" run "$FILE" --entry "$ENTRY" --target $target $sync $args) ||
        fail "vxc run --target $target $sync $FILE --entry $ENTRY $args exited $?"
      got=$(grep -E '^(checksum|result) ' <<<"$out")
      [ -n "$got" ] || fail "$ENTRY $args: --target $target $sync printed no checksum"
      if [ -z "$want" ]; then
        want=$got
      elif [ "$got" != "$want" ]; then
        fail "$ENTRY $args: --target $target $sync printed
$got
the cpu target
$want"
      fi
    done
  done
  echo "ok $ENTRY $args: $want"
done

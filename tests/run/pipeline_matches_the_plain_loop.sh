# The pipeline form computes what the loop it stands for computes
# (docs/pipeline.md): each `p_NAME` of pipeline.vx prints the checksums of its
# `plain_NAME` twin (run on the cpu target) on cpu and tpu at depths 1 to 4,
# for trip counts of 0, 1, fewer than the copies in flight, and more; and on
# the b200 and h100 interpreters at depth 3.
#   pipeline_matches_the_plain_loop.sh VXC FILE
set -u
VXC=$1 FILE=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
sums() { grep -E '^checksum ' | sed -E 's/^checksum [^=]+= //'; }
check() {  # NAME 'ARGS' TARGETS...
  local name=$1 args=$2
  shift 2
  local want got
  # shellcheck disable=SC2086  # ARGS is a list of options
  want=$("$VXC" run "$FILE" --entry "plain_$name" --target cpu $args | sums) || fail "plain_$name $args"
  [ -n "$want" ] || fail "plain_$name $args printed no checksum"
  for run in "$@"; do
    local target=${run%%@*} depth=${run##*@}
    local extra=
    case $target in b200 | h100) extra=--interpret ;; esac
    # shellcheck disable=SC2086
    got=$("$VXC" run "$FILE" --entry "p_$name" --target "$target" $extra --const D="$depth" $args | sums) ||
      fail "p_$name --target $target --const D=$depth $args exited with an error"
    [ "$got" = "$want" ] || fail "p_$name --target $target --const D=$depth $args printed
$got
the plain loop
$want"
  done
  echo "ok $name $args"
}
every="cpu@1 cpu@2 cpu@3 cpu@4 tpu@1 tpu@2 tpu@3 tpu@4"
for args in "--arg tiles=3 --arg lo=0 --arg hi=0" "--arg tiles=3 --arg lo=2 --arg hi=3" \
            "--arg tiles=4 --arg lo=1 --arg hi=3" "--arg tiles=8 --arg lo=0 --arg hi=7" \
            "--arg tiles=5 --arg lo=4 --arg hi=2"; do
  # shellcheck disable=SC2086  # a list of runs
  check stream "$args" $every
done
check stream "--arg tiles=6 --arg lo=1 --arg hi=6" b200@3 h100@2
for args in "--arg a=6 --arg w=2 --arg skip=2" "--arg a=2 --arg w=3 --arg skip=9" "--arg a=1 --arg w=1 --arg skip=0"; do
  # shellcheck disable=SC2086
  check mixed "$args" $every
done
for args in "--arg m=128 --arg n=128 --arg k=32" "--arg m=128 --arg n=192 --arg k=160"; do
  # shellcheck disable=SC2086
  check gemm "$args" $every
done
check gemm "--arg m=128 --arg n=64 --arg k=128" b200@3 h100@3

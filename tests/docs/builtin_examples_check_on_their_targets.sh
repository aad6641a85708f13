#!/usr/bin/env bash
# Every builtin has an example (docs/language/builtins/NAME.vx) that checks
# clean on every target the table gives it, with the target's legality pass.
#   builtin_examples_check_on_their_targets.sh VXC VX_BUILTINS_DOC SOURCE_DIR
set -euo pipefail
vxc=$1
tool=$2
src=$3
n=0
fail=0
for example in "$src"/docs/language/builtins/*.vx; do
  name=$(basename "$example" .vx)
  targets=$("$tool" --targets "$name") || { echo "FAIL $example: \`$name\` is not a builtin"; fail=1; continue; }
  [ -n "$targets" ] || { echo "FAIL $example: \`$name\` is on no target"; fail=1; continue; }
  for t in $targets; do
    n=$((n + 1))
    if ! out=$("$vxc" check --target "$t" "$example" 2>&1) || [ -n "$out" ]; then
      echo "FAIL $example on $t:"
      echo "$out"
      fail=1
    fi
  done
done
echo "$n checks of builtin examples"
exit "$fail"

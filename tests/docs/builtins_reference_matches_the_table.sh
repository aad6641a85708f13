#!/usr/bin/env bash
# docs/language/builtins.md is what vx-builtins-doc writes from the table of
# builtins, the prelude and the examples: the committed page must not differ.
#   builtins_reference_matches_the_table.sh VX_BUILTINS_DOC SOURCE_DIR
set -euo pipefail
tool=$1
src=$2
want=$(mktemp)
trap 'rm -f "$want"' EXIT
"$tool" "$src/stdlib/prelude.vx" "$src/docs/language/builtins" > "$want"
if ! diff -u "$src/docs/language/builtins.md" "$want"; then
  echo "docs/language/builtins.md differs from what the table gives (above); regenerate it:"
  echo "  build/src/target/vx-builtins-doc stdlib/prelude.vx docs/language/builtins > docs/language/builtins.md"
  exit 1
fi
echo "ok: docs/language/builtins.md matches the table"

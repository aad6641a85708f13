#!/usr/bin/env bash
# The main job: install every dependency, build, then check the canonical
# example (examples/stream.vx) and show what the compiler reports for a broken
# variant of it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
VXC=build/src/driver/vxc
echo "== vxc check examples/stream.vx"
"$VXC" check examples/stream.vx
echo "   clean: no diagnostics"
echo "== vxc check tests/examples/bad/syntax.vx (expected to fail)"
if "$VXC" check --color=never tests/examples/bad/syntax.vx; then
  echo "error: a broken program was accepted" >&2
  exit 1
fi
echo "== main job done"

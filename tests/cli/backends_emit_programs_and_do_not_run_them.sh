#!/usr/bin/env bash
# The backends emit programs; the driver runs them and reports. No source of
# src/codegen/ includes the simulator, and the tpu backend's unit tests (which
# link the backend alone) contain no simulator code.
source "$(dirname "$0")/lib.bash"
if grep -rn '#include "sim/' "$ROOT/src/codegen"; then
  fail "a backend includes the simulator (above)"
fi
TESTS=$(dirname "$VXC")/../../tests/vx_codegen_tpu_tests
[ -x "$TESTS" ] || fail "vx_codegen_tpu_tests not found at $TESTS"
if nm -C "$TESTS" | grep -q " vx::sim::"; then
  fail "the tpu backend links the simulator"
fi
echo "ok"

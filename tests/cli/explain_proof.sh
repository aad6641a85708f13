# `--explain-proof` prints the solver queries (SMT-LIB) with their verdicts.
. "$(dirname "$0")/lib.bash" "$@"
expect_status 1 "$VXC" check --explain-proof "$ROOT/tests/examples/bad/ring_alias.vx"
contains "$OUT" "(check-sat) ; sat"
contains "$OUT" "(declare-const |i| Int)"
expect_status 0 "$VXC" check --explain-proof "$ROOT/tests/examples/ok/ring2.vx"
contains "$OUT" "(check-sat) ; unsat"
expect_status 2 "$VXC" check --solver-rlimit=abc "$ROOT/tests/examples/ok/ring2.vx"
contains "$ERR" "takes a whole number from 1 to 999999999"
echo ok

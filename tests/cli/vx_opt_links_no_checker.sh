#!/usr/bin/env bash
# vx-opt (the dialect's mlir-opt) depends on the dialect and the target
# tables only: not on the checker, the parser or the solver layer. Its direct
# shared-library dependencies have neither Z3 nor ANTLR (Debian's
# libLLVM-16 itself links Z3, which `ldd` would show through it), and no
# symbol of vx::check, vx::smt or vx::parse is in it.
source "$(dirname "$0")/lib.bash"
OPT=$(dirname "$VXC")/../dialect/vx-opt
[ -x "$OPT" ] || fail "vx-opt not found next to $VXC"
NEEDED=$(readelf -d "$OPT" | grep NEEDED)
case "$NEEDED" in *libz3*) fail "vx-opt links libz3 directly: $NEEDED";; esac
case "$NEEDED" in *antlr4*) fail "vx-opt links the ANTLR runtime: $NEEDED";; esac
if nm -C "$OPT" | grep -q "vx::check::\|vx::smt::\|vx::parse::"; then
  fail "vx-opt contains code of the checker, the solver layer or the parser"
fi
echo "ok"

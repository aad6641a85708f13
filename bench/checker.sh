#!/usr/bin/env bash
# Checker benchmark: `vxc check` on a generated 100k-line program with tokens,
# loops, branches and ring slots, side by side (one run) with
# `rustc --emit=metadata` on the same program mirrored into Rust (tokens as
# move-only structs). Prints throughput, solver share, queries and cache hit
# rate, and the speed ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
LINES=${1:-100000}
bash scripts/build.sh >/dev/null
VXC=build/src/driver/vxc
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
python3 bench/gen_checker.py "$LINES" "$TMP/prog.vx" "$TMP/prog.rs"
now() { date +%s.%N; }
t0=$(now)
"$VXC" check --stats "$TMP/prog.vx" 2> "$TMP/vxc.stats"
t1=$(now)
if command -v rustc >/dev/null; then
  rustc --edition 2021 --crate-type lib --emit=metadata -o "$TMP/prog.rmeta" "$TMP/prog.rs"
  t2=$(now)
else
  t2=""
fi
cat "$TMP/vxc.stats"
python3 - "$t0" "$t1" "$t2" "$LINES" <<'PY'
import sys
t0, t1 = float(sys.argv[1]), float(sys.argv[2])
lines = int(sys.argv[4])
vxc = t1 - t0
print(f"vxc check:             {vxc:7.2f} s  {lines / vxc:9.0f} lines/s")
if sys.argv[3]:
    rust = float(sys.argv[3]) - t1
    print(f"rustc --emit=metadata: {rust:7.2f} s  {lines / rust:9.0f} lines/s")
    print(f"vxc is {rust / vxc:.2f}x faster than rustc (target >= 7x, issue 23)")
else:
    print("rustc not found: no comparison")
PY

#!/usr/bin/env bash
# `dbg(x)` (language.md §5) prints the same lines, in program order, on cpu,
# tpu (vxsim) and the b200 and h100 interpreters: the expected text is
# written here, and `dbg` returns its argument (the output is the program's
# without it).
#   dbg_prints_the_same_lines_on_every_target.sh VXC REPO
set -u
VXC=$1 REPO=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cp "$REPO/tests/run/dbg.vx" "$TMP/dbg.vx"
cd "$TMP" || exit 1

cat >want <<'TXT'
dbg.vx:6: transfer(a, Memory::VMEM) = f32[4, 8] {0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, ...} sum 124
dbg.vx:8: &w = bf16[16] {0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, ...} sum 30
dbg.vx:9: n * 3 + 1 = 10
dbg.vx:10: total > 10 = false
dbg.vx:11: -7i64 = -7
dbg.vx:12: 4000000000u32 = 4000000000
dbg.vx:13: 0.1 = 0.1
dbg.vx:15: i = 0
dbg.vx:15: i = 1
dbg.vx:15: i = 2
dbg.vx:18: &r = f32[4, 1] {1.75, 3.75, 5.75, 7.75} sum 19
dbg.vx:20: &y = f32[4, 8] {1.75, 1.75, 1.75, 1.75, 1.75, 1.75, 1.75, 1.75, ...} sum 152
TXT

python3 - <<'PY' || fail "cannot write the inputs"
import struct
def npy(path, descr, shape, data):
    head = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    head += " " * ((64 - (10 + len(head) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode() + data)
npy("a.npy", "<f4", "(4, 8)", struct.pack("<32f", *[i / 4 for i in range(32)]))
npy("v.npy", "<f4", "(16,)", struct.pack("<16f", *[i / 4 for i in range(16)]))  # exact in bf16
PY

for target in cpu tpu b200 h100; do
  extra=
  case $target in b200 | h100) extra=--interpret ;; esac
  # shellcheck disable=SC2086
  "$VXC" run dbg.vx --target "$target" $extra --arg n=3 --input a=a.npy --input v=v.npy \
    >"$target.out" 2>"$target.err" || fail "$target: $(cat "$target.err")"
  grep '^dbg\.vx:' "$target.err" >"$target.dbg"
  diff -u want "$target.dbg" >&2 || fail "$target prints other dbg lines"
  grep -q '^checksum out = ' "$target.out" || fail "$target printed no checksum: $(cat "$target.out")"
done
for target in tpu b200 h100; do
  diff <(grep '^checksum' cpu.out) <(grep '^checksum' "$target.out") >&2 || fail "$target's output differs from cpu's"
done
echo "ok: cpu, tpu, b200 and h100 print the same $(wc -l <want) dbg lines"

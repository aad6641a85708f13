#!/usr/bin/env bash
# vxsim's command line: exit statuses (0 ok, 2 bad program/usage, 3 fault),
# the output format, --check/--print, and the trace files.
#   vxsim_cli.sh VXSIM SOURCE_ROOT
. "$(dirname "$0")/../cli/lib.bash" "$@"
VXSIM=$1

DB=$ROOT/tests/tpu/stream_double_buffered.vxdma
BLK=$ROOT/tests/tpu/stream_blocking.vxdma

# A good run: checksum line format, totals, one busy line per unit.
expect_status 0 "$VXSIM" "$DB" --seed 3
echo "$OUT" | grep -Eq '^checksum out = 0x[0-9a-f]{16}$' || fail "checksum line format: $OUT"
contains "$OUT" "cycles = "
contains "$OUT" "busy dma3 = "
SUM_DB=$(echo "$OUT" | head -1)

# Same seed, blocking baseline: same checksum; another seed or n: another.
expect_status 0 "$VXSIM" "$BLK" --seed 3
[ "$(echo "$OUT" | head -1)" = "$SUM_DB" ] || fail "baseline checksum differs: $OUT vs $SUM_DB"
expect_status 0 "$VXSIM" "$DB" --seed 4
[ "$(echo "$OUT" | head -1)" != "$SUM_DB" ] || fail "seed does not change the checksum"
expect_status 0 "$VXSIM" "$DB" --seed 3 --arg n=5
[ "$(echo "$OUT" | head -1)" != "$SUM_DB" ] || fail "--arg n does not change the checksum"

# An SPMD program runs on every core (--cores N, or --set cores=N): the same
# checksum on 1 and on 2 cores, in fewer cycles on 2, each core's units
# reported; a program without .spmd runs on core 0 alone.
GRID=$ROOT/tests/tpu/spmd_tiles.vxdma
expect_status 0 "$VXSIM" "$GRID" --cores 1 --arg m=256
ONE=$OUT
expect_status 0 "$VXSIM" "$GRID" --arg m=256
TWO=$OUT
[ "$(echo "$ONE" | head -1)" = "$(echo "$TWO" | head -1)" ] || fail "1 and 2 cores differ: $ONE vs $TWO"
contains "$TWO" "busy core1.dma0 = "
cyc() { sed -n 's/^cycles = //p' <<<"$1"; }
[ "$(cyc "$TWO")" -lt "$(cyc "$ONE")" ] || fail "2 cores are not faster: $(cyc "$TWO") vs $(cyc "$ONE")"
expect_status 0 "$VXSIM" "$GRID" --set cores=4 --arg m=256 --profile
contains "$OUT" "busy core3.scalar = "
contains "$OUT" "cores: each halted at cycle: core0 "
expect_status 2 "$VXSIM" "$GRID" --cores 0
contains "$ERR" "\`cores\` must be in 1...64"
expect_status 0 "$VXSIM" "$DB" --seed 3 --cores 4
[ "$(echo "$OUT" | head -1)" = "$SUM_DB" ] || fail "a program without .spmd changed with --cores: $OUT"
contains "$OUT" "busy dma3 = "

# Malformed programs: exit 2, FILE:LINE:COL errors for every bad line.
printf '.vxdma 1\n  li r1, 2\n  frob r1\n  add r1, r1\n  halt\n' > "$TMP/bad.vxdma"
expect_status 2 "$VXSIM" "$TMP/bad.vxdma"
contains "$ERR" "$TMP/bad.vxdma:3:3: error: unknown opcode \`frob\`"
contains "$ERR" "$TMP/bad.vxdma:4:3: error: \`add\` takes 3 operands"
expect_status 2 "$VXSIM" "$TMP/bad.vxdma" --check
head -c 3000 /dev/urandom > "$TMP/noise.vxdma"
expect_status 2 "$VXSIM" "$TMP/noise.vxdma"
expect_status 2 "$VXSIM" "$TMP/missing.vxdma"
contains "$ERR" "cannot read"

# Runtime faults: exit 3, the message names instruction and source.
printf '.vxdma 1\n.source "k.vx"\n.hbm a f32 [64] input\n.vmem v f32 [64]\n.loc 9:2\n  dma.start a, v, 256, sem0\n  halt\n' > "$TMP/fault.vxdma"
expect_status 3 "$VXSIM" "$TMP/fault.vxdma" --trace "$TMP/f.json"
contains "$ERR" "runtime fault (halt-with-dma-in-flight)"
contains "$ERR" "instruction 1: halt"
contains "$ERR" "$TMP/fault.vxdma:7, from Vx source k.vx:9:2"
[ -s "$TMP/f.json" ] || fail "no trace written for a faulting run"
printf '.vxdma 1\ntop:\n  jmp top\n' > "$TMP/loop.vxdma"
expect_status 3 "$VXSIM" "$TMP/loop.vxdma" --max-instructions 1000
contains "$ERR" "instruction-limit"

# Load errors: exit 2.
printf '.vxdma 1\n.param n\n.vmem v f32 [n]\n  halt\n' > "$TMP/param.vxdma"
expect_status 2 "$VXSIM" "$TMP/param.vxdma"
contains "$ERR" "parameter \`n\` has no value"
expect_status 0 "$VXSIM" "$TMP/param.vxdma" --arg n=4

# --print is canonical and stable; --check accepts it.
expect_status 0 "$VXSIM" "$DB" --print
echo "$OUT" > "$TMP/canon.vxdma"
expect_status 0 "$VXSIM" "$TMP/canon.vxdma" --print
[ "$OUT" = "$(cat "$TMP/canon.vxdma")" ] || fail "--print is not a fixed point"
expect_status 0 "$VXSIM" "$TMP/canon.vxdma" --check

# Config: a file, --set, and errors.
printf 'dma_engines = 1\n# comment\nhbm_gbps = 100\n' > "$TMP/m.cfg"
expect_status 0 "$VXSIM" "$DB" --config "$TMP/m.cfg"
contains "$OUT" "busy dma0"
case "$OUT" in *"busy dma1"*) fail "dma_engines = 1 still shows dma1";; esac
expect_status 0 "$VXSIM" --config "$TMP/m.cfg" --set dma_latency=7 --print-config
contains "$OUT" "dma_engines = 1"
contains "$OUT" "dma_latency = 7"
printf 'dma_engnes = 1\n' > "$TMP/typo.cfg"
expect_status 2 "$VXSIM" "$DB" --config "$TMP/typo.cfg"
contains "$ERR" "$TMP/typo.cfg:1: error: unknown machine parameter \`dma_engnes\`"

# Trace and timeline files.
expect_status 0 "$VXSIM" "$DB" --trace "$TMP/t.json" --timeline "$TMP/t.svg"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert any(e.get('ph')=='X' for e in d['traceEvents'])" "$TMP/t.json" \
  || fail "trace is not JSON with events"
head -c 4 "$TMP/t.svg" | grep -q '<svg' || fail "timeline is not an SVG"

# Usage errors.
expect_status 2 "$VXSIM"
expect_status 2 "$VXSIM" "$DB" --frobnicate
contains "$ERR" "unknown option"
expect_status 2 "$VXSIM" "$DB" --arg n
# A folder is no program or config file (it opens, and reads as nothing);
# an empty or unwritable trace path is refused before the run, a byte
# order mark is named.
expect_status 2 "$VXSIM" "$TMP"
contains "$ERR" "cannot read \`$TMP\`"
expect_status 2 "$VXSIM" "$DB" --config "$TMP"
contains "$ERR" "cannot read config file"
expect_status 2 "$VXSIM" "$DB" --trace ""
contains "$ERR" "--trace needs a file"
expect_status 2 "$VXSIM" "$DB" --timeline "$TMP/no/such/folder/t.svg"
contains "$ERR" "cannot write"
[ -z "$OUT" ] || fail "the run went ahead before its timeline path was found unwritable: $OUT"
printf '\xef\xbb\xbf' > "$TMP/bom.vxdma"
cat "$DB" >> "$TMP/bom.vxdma"
expect_status 2 "$VXSIM" "$TMP/bom.vxdma"
contains "$ERR" "byte order mark"
expect_status 2 "$VXSIM" "$DB" --check --print
contains "$ERR" "give one"
# Seeds are 0 to 2^64 - 1, as vxc's.
expect_status 0 "$VXSIM" "$DB" --seed 18446744073709551615
for bad in -1 18446744073709551616 x; do
  expect_status 2 "$VXSIM" "$DB" --seed "$bad"
  contains "$ERR" "--seed takes a whole number from 0 to 2^64 - 1"
done
expect_status 0 "$VXSIM" --help
expect_status 0 "$VXSIM" --version
contains "$OUT" ".vxdma format 1"
echo "ok"

#!/usr/bin/env bash
# Builds the .vxdma fuzzer with clang-14 into build-fuzz/ and runs it for
# SECONDS (default 60): the assembler on arbitrary bytes, the print/assemble
# round trip, and the simulator on whatever assembles. Exits non-zero on a
# crash, hang, leak, sanitizer report or broken round trip.
#   fuzz/run_vxdma.sh [SECONDS]      env: BUILD_DIR (build-fuzz), JOBS (2), FUZZ_ARGS
set -euo pipefail
cd "$(dirname "$0")/.."
. fuzz/common.bash "$@"
build_fuzzer vx_fuzz_vxdma

shopt -s nullglob
regressions=(fuzz/regressions-vxdma/*)
if [ ${#regressions[@]} -gt 0 ]; then
  echo "== replaying ${#regressions[@]} regression input(s)"
  "$FUZZER" -runs=1 "${regressions[@]}"
fi

CORPUS=$BUILD_DIR/fuzz-corpus-vxdma
ARTIFACTS=$BUILD_DIR/fuzz-artifacts-vxdma
mkdir -p "$CORPUS" "$ARTIFACTS"
for f in tests/tpu/*.vxdma; do
  cp "$f" "$CORPUS/seed-$(sha1sum "$f" | cut -c1-16).vxdma"
done

echo "== fuzzing for ${SECONDS_TO_RUN}s (corpus: $CORPUS, crashes: $ARTIFACTS/)"
# shellcheck disable=SC2086
"$FUZZER" "$CORPUS" -dict=fuzz/vxdma.dict -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
  -max_total_time="$SECONDS_TO_RUN" -print_final_stats=1 \
  -artifact_prefix="$ARTIFACTS/" ${FUZZ_ARGS:-}

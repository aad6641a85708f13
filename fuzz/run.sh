#!/usr/bin/env bash
# Builds the libFuzzer target with clang-14 into build-fuzz/ and fuzzes the
# whole `vxc check` pipeline for SECONDS (default 60). Exits non-zero when
# the fuzzer finds a crash, hang, leak or sanitizer report, or when a saved
# regression (fuzz/regressions/) fails again.
#   fuzz/run.sh [SECONDS]        env: BUILD_DIR (build-fuzz), JOBS (2), FUZZ_ARGS
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_TO_RUN=${1:-60}
BUILD_DIR=${BUILD_DIR:-build-fuzz}
JOBS=${JOBS:-2}

if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  CXX=clang++-14 cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DVXC_FUZZ=ON -DPython3_EXECUTABLE=/usr/bin/python3
fi
ninja -C "$BUILD_DIR" -j"$JOBS" vx_fuzz_parse
FUZZER=$BUILD_DIR/fuzz/vx_fuzz_parse

# Known crashers first: each must now run clean.
shopt -s nullglob
regressions=(fuzz/regressions/*)
if [ ${#regressions[@]} -gt 0 ]; then
  echo "== replaying ${#regressions[@]} regression input(s)"
  "$FUZZER" -runs=1 "${regressions[@]}"
fi

# The working corpus lives in the (ignored) build dir and grows across runs;
# it is re-seeded from the repository's .vx files every time.
CORPUS=$BUILD_DIR/fuzz-corpus
ARTIFACTS=$BUILD_DIR/fuzz-artifacts
mkdir -p "$CORPUS" "$ARTIFACTS"
while IFS= read -r -d '' f; do
  cp "$f" "$CORPUS/seed-$(sha1sum "$f" | cut -c1-16).vx"
done < <(find tests examples docs/errors ../shared/examples -name '*.vx' -print0 2>/dev/null)

echo "== fuzzing for ${SECONDS_TO_RUN}s (corpus: $CORPUS, crashes: $ARTIFACTS/)"
# shellcheck disable=SC2086
"$FUZZER" "$CORPUS" -dict=fuzz/vx.dict -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -max_total_time="$SECONDS_TO_RUN" -print_final_stats=1 \
  -artifact_prefix="$ARTIFACTS/" ${FUZZ_ARGS:-}

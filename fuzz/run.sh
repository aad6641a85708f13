#!/usr/bin/env bash
# Builds the libFuzzer target with clang-14 into build-fuzz/ and fuzzes the
# whole `vxc check` pipeline for SECONDS (default 60). Exits non-zero when
# the fuzzer finds a crash, hang, leak or sanitizer report (saved under
# build-fuzz/fuzz-artifacts/), or when a reproducer in fuzz/regressions/
# still fails.
#   fuzz/run.sh [SECONDS]        env: BUILD_DIR (build-fuzz), JOBS (2), FUZZ_ARGS
set -euo pipefail
cd "$(dirname "$0")/.."
. fuzz/common.bash "$@"
build_fuzzer vx_fuzz_parse

# Saved reproducers first, each under the same limits as the fuzzing run. A
# failure does not stop the fuzzing below, but the script exits non-zero.
# A hang is a run past the checker's own backstops (30 s per function, 20 s
# per solver query; docs/checker.md): correct inputs that take seconds under
# ASan on a loaded machine are not hangs, so the limit is 45 s.
# The limit is coreutils' timeout: libFuzzer's own SIGALRM check may land
# on a helper thread and miss a slow input.
shopt -s nullglob
status=0
for r in fuzz/regressions/*.vx; do
  if timeout 45 "$FUZZER" -runs=1 -rss_limit_mb=2048 "$r" > "$BUILD_DIR/regression.log" 2>&1; then
    echo "== regression ok: $r"
  else
    echo "== REGRESSION FAILS: $r (log: $BUILD_DIR/regression.log)"
    grep -E 'ERROR|SUMMARY' "$BUILD_DIR/regression.log" | head -3 || echo "   (killed after 45 s)"
    status=1
  fi
done

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
"$FUZZER" "$CORPUS" -dict=fuzz/vx.dict -max_len=65536 -timeout=45 -rss_limit_mb=2048 \
  -max_total_time="$SECONDS_TO_RUN" -print_final_stats=1 \
  -artifact_prefix="$ARTIFACTS/" ${FUZZ_ARGS:-} || status=$?
exit "$status"

#!/usr/bin/env bash
# Builds the language-server fuzzer with clang-14 into build-fuzz/ and runs it
# for SECONDS (default 60): arbitrary client input, framed or as a delimited
# transcript; every reply must be framed JSON. Exits non-zero on a crash,
# hang, leak or sanitizer report.
#   fuzz/run_lsp.sh [SECONDS]        env: BUILD_DIR (build-fuzz), JOBS (2), FUZZ_ARGS
set -euo pipefail
cd "$(dirname "$0")/.."
. fuzz/common.bash "$@"
build_fuzzer vx_fuzz_lsp

CORPUS=$BUILD_DIR/fuzz-corpus-lsp
ARTIFACTS=$BUILD_DIR/fuzz-artifacts-lsp
mkdir -p "$CORPUS" "$ARTIFACTS"
# Seeds: each transcript as it is (delimited, first byte odd) and framed
# (first byte even), one frame per `---`-separated body.
for f in tests/lit/lsp/*.test; do
  name=$(sha1sum "$f" | cut -c1-16)
  { printf '1'; grep -v '^#' "$f"; } > "$CORPUS/seed-$name-delimited"
  python3 - "$f" "$CORPUS/seed-$name-framed" <<'PY'
import sys
text = "".join(l for l in open(sys.argv[1]) if not l.startswith("#"))
with open(sys.argv[2], "wb") as out:
    out.write(b"0")
    for body in text.split("\n---\n"):
        b = body.strip().encode()
        if b:
            out.write(b"Content-Length: %d\r\n\r\n" % len(b) + b)
PY
done

echo "== fuzzing for ${SECONDS_TO_RUN}s (corpus: $CORPUS, crashes: $ARTIFACTS/)"
# shellcheck disable=SC2086
"$FUZZER" "$CORPUS" -dict=fuzz/lsp.dict -max_len=16384 -timeout=20 -rss_limit_mb=2048 \
  -max_total_time="$SECONDS_TO_RUN" -print_final_stats=1 \
  -artifact_prefix="$ARTIFACTS/" ${FUZZ_ARGS:-}

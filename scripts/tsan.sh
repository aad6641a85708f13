#!/usr/bin/env bash
# ThreadSanitizer over the language server's threads (docs/lsp.md: the
# message thread, the checker, legality, progress): builds vxc with
# -fsanitize=thread into build-tsan/ and runs the LSP tests that drive an
# editor session and a short bench/lsp.py against it. Any report fails it.
# Not part of CI (a second full build); run it after changing src/lsp/.
#   scripts/tsan.sh        env: BUILD_DIR (build-tsan), JOBS (2)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD_DIR=${BUILD_DIR:-build-tsan}
JOBS=${JOBS:-2}
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVXC_JEMALLOC=OFF \
    -DCMAKE_CXX_FLAGS="-fsanitize=thread -fno-omit-frame-pointer" -DCMAKE_C_FLAGS="-fsanitize=thread" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=thread" \
    -DPython3_EXECUTABLE=/usr/bin/python3
fi
ninja -C "$BUILD_DIR" -j"$JOBS" vxc
VXC=$(cd "$BUILD_DIR" && pwd)/src/driver/vxc
REPORTS=$(mktemp -d)
export TSAN_OPTIONS="halt_on_error=0 log_path=$REPORTS/tsan suppressions=$ROOT/scripts/tsan.supp"
status=0
python3 tests/lsp/burst_of_edits.py "$VXC" "$ROOT" || status=1
python3 tests/lsp/newer_text_cancels_a_long_check.py "$VXC" "$ROOT" || status=1
bash tests/cli/lsp_session_over_stdio.sh "$VXC" "$ROOT" || status=1
bash tests/lsp/neovim_session.sh "$VXC" "$ROOT" || [ $? = 77 ] || status=1
python3 bench/lsp.py --vxc "$VXC" --lines 1000 --edits 40 --queries 20 --sync-edits 0 --no-slow || status=1
shopt -s nullglob
reports=("$REPORTS"/*)
if [ ${#reports[@]} -gt 0 ]; then
  echo "== ${#reports[@]} ThreadSanitizer report(s):"
  for r in "${reports[@]}"; do head -60 "$r"; done
  status=1
fi
rm -rf "$REPORTS"
echo "== tsan: $([ "$status" = 0 ] && echo passed || echo FAILED)"
exit "$status"

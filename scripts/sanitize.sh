#!/usr/bin/env bash
# The sanitizer stage of CI: builds vxc with AddressSanitizer, LeakSanitizer
# and UndefinedBehaviorSanitizer into build-asan/ (-DVXC_SANITIZE=ON), runs the
# whole ctest suite with it, then replays every input of the repository (.vx
# files, fuzz regressions and corpora, .vxdma programs) through the sanitized
# `vxc check`, `vxc lsp` and vxsim (scripts/replay.py).
#
# Any sanitizer report fails it. UBSan does not recover and every report
# aborts the process (SIGABRT, never the exit status 1 that many tests expect
# for "errors reported"), so the test or replay that ran it fails. Reports a
# test might not notice fail the stage too: ASan and LSan write each report
# under BUILD_DIR/sanitizer-reports/, which must stay empty (gcc's UBSan
# runtime, loaded next to ASan's, ignores log_path and prints to stderr), and
# the output ctest kept of every test must not hold one.
#   scripts/sanitize.sh [CTEST ARGS...]    env: BUILD_DIR (build-asan), JOBS (2)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD_DIR=${BUILD_DIR:-build-asan}
JOBS=${JOBS:-2}
stage_start=$SECONDS

# -O1 -g1: what the sanitizers' documentation recommends (fast enough,
# stack traces with lines), and quicker to compile than -O2 -g
# (docs/testing.md gives the figures).
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVXC_SANITIZE=ON \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" -DPython3_EXECUTABLE=/usr/bin/python3
fi
ninja -C "$BUILD_DIR" -j"$JOBS"
build_done=$SECONDS

BUILD_ABS=$(cd "$BUILD_DIR" && pwd)
REPORTS=$BUILD_ABS/sanitizer-reports
rm -rf "$REPORTS"
mkdir -p "$REPORTS"
# log_path: ASan's and LSan's reports go to files (asan.PID), checked below.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:halt_on_error=1:check_initialization_order=1:strict_init_order=1:detect_stack_use_after_return=1:log_path=$REPORTS/asan"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:abort_on_error=1"
# No leak needs a suppression today; scripts/lsan.supp, when there is one,
# says why for each entry.
if [ -f scripts/lsan.supp ]; then
  export LSAN_OPTIONS="suppressions=$ROOT/scripts/lsan.supp:print_suppressions=0"
fi

status=0
echo "== ctest with sanitizers ($BUILD_DIR)"
(cd "$BUILD_DIR" && ctest --output-on-failure -j"$JOBS" "$@") || status=1
ctest_done=$SECONDS

echo "== replay through the sanitized vxc check, vxc lsp and vxsim"
python3 scripts/replay.py --vxc "$BUILD_ABS/src/driver/vxc" --vxsim "$BUILD_ABS/src/sim/vxsim" \
  --jobs "$JOBS" || status=1
replay_done=$SECONDS

# Every test's output, passing ones included, as ctest kept it (with the
# failed index checks of _GLIBCXX_ASSERTIONS).
if grep -nE "ERROR: (Address|Leak)Sanitizer|runtime error:|UndefinedBehaviorSanitizer|: Assertion '" \
    "$BUILD_DIR/Testing/Temporary/LastTest.log"; then
  echo "== a sanitizer report in the output of a test (above; $BUILD_DIR/Testing/Temporary/LastTest.log)"
  status=1
fi
shopt -s nullglob
reports=("$REPORTS"/*)
if [ ${#reports[@]} -gt 0 ]; then
  echo "== ${#reports[@]} sanitizer report(s):"
  for r in "${reports[@]}"; do
    echo "---- $r"
    head -80 "$r"
  done
  status=1
fi
echo "== sanitizer stage: build $((build_done - stage_start)) s, ctest $((ctest_done - build_done)) s," \
  "replay $((replay_done - ctest_done)) s; $([ "$status" = 0 ] && echo passed || echo FAILED)"
exit "$status"

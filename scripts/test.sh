#!/usr/bin/env bash
# Builds (if needed) and runs the whole test suite under ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
cd "${BUILD_DIR:-build}"
ctest --output-on-failure -j2 "$@"

#!/usr/bin/env bash
# The Python package (python/): installed with pip from the repository into
# a fresh virtual environment (Debian's NumPy and setuptools, nothing
# downloaded), then its tests (python/tests) run against the installed copy
# with the vxc under test.
#   install_and_test.sh VXC REPO
set -u
VXC=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") REPO=$(cd "$2" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)
"$PY" -c 'import numpy' 2>/dev/null || fail "$PY has no NumPy (scripts/install-deps.sh installs python3-numpy)"
"$PY" -m venv --system-site-packages "$TMP/venv" >"$TMP/venv.log" 2>&1 || fail "venv: $(cat "$TMP/venv.log")"
# From a copy: setuptools builds in the source folder it is given.
cp -r "$REPO/python" "$TMP/src"
"$TMP/venv/bin/pip" install --quiet --no-index --no-build-isolation --no-deps "$TMP/src" >"$TMP/pip.log" 2>&1 ||
  fail "pip install: $(cat "$TMP/pip.log")"
# ml_dtypes, for bf16 arrays: the wheel scripts/install-deps.sh fetched from
# PyPI (nothing is downloaded here). Without it the bf16 tests are skipped,
# and say so.
WHEELS=${VXC_WHEELS:-/opt/vxc/wheels}
if ls "$WHEELS"/ml_dtypes-*.whl >/dev/null 2>&1; then
  "$TMP/venv/bin/pip" install --quiet --no-index --no-deps "$WHEELS"/ml_dtypes-*.whl >"$TMP/pip.log" 2>&1 ||
    fail "pip install ml_dtypes: $(cat "$TMP/pip.log")"
else
  echo "note: no ml_dtypes wheel in $WHEELS: the bf16 tests are skipped (scripts/install-deps.sh fetches it)"
fi
cd "$TMP"
where=$("$TMP/venv/bin/python" -c 'import vx; print(vx.__file__)') || fail "the installed package does not import"
case "$where" in "$TMP/venv/"*) ;; *) fail "vx was imported from $where, not from the installed copy" ;; esac
VXC=$VXC VX_REPO=$REPO "$TMP/venv/bin/python" -m unittest discover -s "$REPO/python/tests" -v 2>&1 | tee "$TMP/test.log"
grep -q '^OK$' "$TMP/test.log" || fail "the Python tests failed"

#!/usr/bin/env bash
# `import vx` in a Python without NumPy (a pyenv build, a bare venv) says
# what is missing and how to install it, instead of a bare
# ModuleNotFoundError from inside the package.
#   a_python_without_numpy_says_so.sh REPO
set -u
REPO=$(cd "$1" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)
# A virtual environment without the system's packages: no NumPy in it.
"$PY" -m venv --without-pip "$TMP/bare" >"$TMP/venv.log" 2>&1 || fail "venv: $(cat "$TMP/venv.log")"
"$TMP/bare/bin/python" -c 'import numpy' 2>/dev/null && fail "the bare venv has NumPy"
out=$(cd "$TMP" && PYTHONPATH="$REPO/python" "$TMP/bare/bin/python" -c 'import vx' 2>&1) && fail "import vx succeeded"
grep -q "ImportError: the vx package passes NumPy arrays, and this Python ($TMP/bare/bin/python) has no NumPy" <<<"$out" ||
  fail "no clear message: $out"
grep -q -- "-m pip install numpy" <<<"$out" || fail "no way to install it: $out"
echo "ok: $(tail -1 <<<"$out")"

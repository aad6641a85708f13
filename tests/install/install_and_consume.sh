#!/usr/bin/env bash
# Installs vxc from the build tree into a fresh prefix, then builds and runs
# tests/install/consumer against it with find_package(vxc): the kernel is
# built by vx_add_kernel for cpu (linked, checked against a C++ loop) and for
# tpu (run on the installed vxsim). The installed vxc finds its runtime
# headers in PREFIX/include, not in the source tree.
#   install_and_consume.sh BUILD_DIR SOURCE_DIR
set -u
BUILD=$1 SRC=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
P=$TMP/prefix
cmake --install "$BUILD" --prefix "$P" >"$TMP/install.log" 2>&1 || fail "install: $(cat "$TMP/install.log")"
for f in bin/vxc bin/vxsim bin/vx-opt include/vx/runtime.h include/vx/cuda/runtime.h lib/cmake/vxc/vxcConfig.cmake \
         lib/cmake/vxc/vxcConfigVersion.cmake share/doc/vxc/errors/E6004.md \
         share/nvim/site/pack/vxc/start/vxc/plugin/vxc.lua share/nvim/site/pack/vxc/start/vxc/ftdetect/vx.vim \
         share/nvim/site/pack/vxc/start/vxc/syntax/vx.vim share/vxc/python/pyproject.toml \
         share/vxc/python/vx/__init__.py; do
  [ -e "$P/$f" ] || fail "the install has no $f"
done
"$P/bin/vxc" --version | grep -q '^vxc ' || fail "the installed vxc does not run"
grep -q "python3 -m pip install $P/share/vxc/python" "$TMP/install.log" ||
  fail "the install does not print the Python package's command: $(cat "$TMP/install.log")"
# The installed Python package imports and finds the installed vxc.
PY=
for py in python3 /usr/bin/python3; do
  if "$py" -c "import numpy" 2>/dev/null; then PY=$py; break; fi
done
if [ -n "$PY" ]; then
  (cd "$TMP" && PYTHONPATH="$P/share/vxc/python" PATH="$P/bin:$PATH" VXC= "$PY" -c "import vx, os; print(vx.__file__)") \
    >"$TMP/py.log" 2>&1 || fail "the installed Python package does not import: $(cat "$TMP/py.log")"
  grep -q "$P/share/vxc/python/vx/__init__.py" "$TMP/py.log" || fail "imported another vx: $(cat "$TMP/py.log")"
else
  echo "SKIP: no NumPy for python3: the installed Python package is not imported"
fi
# Neovim, started with the installed prefix as its data folder, loads the
# plugin by itself: `.vx` files get the filetype.
if command -v nvim >/dev/null; then
  echo 'fn f() {}' > "$TMP/a.vx"
  XDG_DATA_DIRS="$P/share" HOME="$TMP" nvim --headless -u NORC -i NONE \
    -c 'redir! > '"$TMP"'/ft.txt' -c 'echo &filetype' -c 'redir END' -c 'qa!' "$TMP/a.vx" >/dev/null 2>&1
  grep -q vx "$TMP/ft.txt" || fail "nvim does not load the installed plugin: filetype '$(cat "$TMP/ft.txt" 2>/dev/null)'"
else
  echo "SKIP: no nvim: the installed Neovim plugin is not loaded"
fi

# The installed vxc compiles against PREFIX/include (the compiler's -I).
cat >"$TMP/cxx" <<SH
#!/bin/sh
echo "\$@" >>"$TMP/args"
exec g++ "\$@"
SH
chmod +x "$TMP/cxx"
(unset VXC_INCLUDE; CXX=$TMP/cxx "$P/bin/vxc" build "$SRC/tests/install/consumer/kernels/accumulate.vx" -o "$TMP/a.o") ||
  fail "the installed vxc cannot build"
grep -q -- "-I $P/include" "$TMP/args" || fail "the installed vxc does not use PREFIX/include: $(cat "$TMP/args")"

# The consumer project, configured, built and run against the prefix.
cp -r "$SRC/tests/install/consumer" "$TMP/consumer"
(unset VXC_INCLUDE
 cmake -S "$TMP/consumer" -B "$TMP/cb" -G Ninja -DCMAKE_PREFIX_PATH="$P" >"$TMP/configure.log" 2>&1) ||
  fail "configure: $(cat "$TMP/configure.log")"
(unset VXC_INCLUDE; cmake --build "$TMP/cb" >"$TMP/build.log" 2>&1) || fail "build: $(cat "$TMP/build.log")"
"$TMP/cb/consumer" >"$TMP/run.log" 2>&1 || fail "run: $(cat "$TMP/run.log")"
grep -q 'consumer ok' "$TMP/run.log" || fail "run: $(cat "$TMP/run.log")"
grep -q "vxc=$P/bin/vxc" "$TMP/cb/paths.txt" || fail "find_package(vxc) found another vxc: $(cat "$TMP/cb/paths.txt")"
VXDMA=$(sed -n 's/^vxdma=//p' "$TMP/cb/paths.txt")
[ -f "$VXDMA" ] || fail "vx_add_kernel did not write the tpu program ($VXDMA)"
"$P/bin/vxsim" "$VXDMA" --arg tiles_len=3 >"$TMP/sim.log" 2>&1 || fail "vxsim: $(cat "$TMP/sim.log")"
grep -q '^checksum out = 0x' "$TMP/sim.log" || fail "vxsim: $(cat "$TMP/sim.log")"

# Editing the kernel rebuilds it and the program (the dependency is real).
sleep 1
sed -i 's/matmul_acc(wait(inflight));$/matmul_acc(wait(inflight)); \/\/ edited/' "$TMP/consumer/kernels/accumulate.vx"
(unset VXC_INCLUDE; cmake --build "$TMP/cb" >"$TMP/rebuild.log" 2>&1) || fail "rebuild: $(cat "$TMP/rebuild.log")"
grep -q 'vxc: kernels/accumulate.vx for cpu' "$TMP/rebuild.log" || fail "an edited kernel was not rebuilt: $(cat "$TMP/rebuild.log")"
grep -q 'Linking CXX executable consumer' "$TMP/rebuild.log" || fail "the program was not relinked: $(cat "$TMP/rebuild.log")"
# A wrong vx_add_kernel call is a configure error that says why.
mkdir -p "$TMP/bad"
cat >"$TMP/bad/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(bad LANGUAGES CXX)
find_package(vxc REQUIRED)
vx_add_kernel(TARGET k SOURCES k.vx TARGETS gpu)
CM
cmake -S "$TMP/bad" -B "$TMP/bad/b" -G Ninja -DCMAKE_PREFIX_PATH="$P" >"$TMP/bad.log" 2>&1 && fail "an unknown target configured"
grep -q 'unknown target `gpu` (cpu, tpu, b200, h100)' "$TMP/bad.log" || fail "$(cat "$TMP/bad.log")"
echo "ok: installed to a prefix; the out-of-tree consumer builds, links and runs the kernel on cpu and tpu"

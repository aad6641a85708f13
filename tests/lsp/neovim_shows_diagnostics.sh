# Neovim's own LSP client against `vxc lsp`: the diagnostics appear where
# `vxc check` puts them, an edit in the buffer clears them, and the server
# exits 0 on the client's shutdown. Skipped (status 77) without `nvim`.
#   neovim_shows_diagnostics.sh VXC SOURCE_ROOT
set -u
VXC=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
ROOT=$(cd "$2" && pwd)
if ! command -v nvim >/dev/null; then
  echo "SKIP: nvim is not installed (scripts/install-deps.sh installs neovim)"
  exit 77
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cat > "$TMP/k.vx" <<'VX'
fn f(x: &Vec<Tensor<f32, [128, 128]>>) on Topology::TensorCore {
  let t = transfer_async(x[0], Memory::VMEM);
}
VX
cd "$TMP"
export XDG_CACHE_HOME=$TMP/cache XDG_CONFIG_HOME=$TMP/config XDG_DATA_HOME=$TMP/data XDG_STATE_HOME=$TMP/state
OUT=$TMP/seen VXC=$VXC timeout 60 nvim --headless -u NONE -i NONE -n \
  -c "luafile $ROOT/tests/lsp/neovim_shows_diagnostics.lua" k.vx > "$TMP/nvim.log" 2>&1
status=$?
cat "$TMP/seen" 2>/dev/null
expected='W0001 1:6 unused variable: `t`
E6003 2:0 transfer token `t` is dropped without `wait`; the DMA may not have completed
after the edit: 0 diagnostics
server exit 0'
if [ "$status" != 0 ] || [ "$(cat "$TMP/seen" 2>/dev/null)" != "$expected" ]; then
  echo "FAIL: nvim exited $status; expected:"
  echo "$expected"
  echo "--- nvim output:"
  cat "$TMP/nvim.log"
  exit 1
fi
echo ok

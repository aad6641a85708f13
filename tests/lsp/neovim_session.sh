# Neovim's own LSP client against `vxc lsp`, started by editors/nvim's
# plugin for a `.vx` buffer (filetype detection included): the diagnostics
# appear where `vxc check` puts them, an edit in the buffer clears them,
# hover on a token shows its state, go to definition finds a local's
# binding, the plugin's inlay hints show the token states at line ends, and
# the server exits 0 on the client's shutdown. Skipped (status 77) without
# `nvim`.
#   neovim_session.sh VXC SOURCE_ROOT
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
cat > "$TMP/init.vim" <<VIM
set rtp^=$ROOT/editors/nvim
let g:vxc_cmd = ['$VXC', 'lsp']
let g:vxc_target = 'tpu'
filetype on
syntax on
VIM
cd "$TMP"
export XDG_CACHE_HOME=$TMP/cache XDG_CONFIG_HOME=$TMP/config XDG_DATA_HOME=$TMP/data XDG_STATE_HOME=$TMP/state
OUT=$TMP/seen timeout 90 nvim --headless -u "$TMP/init.vim" -i NONE -n \
  -c "luafile $ROOT/tests/lsp/neovim_session.lua" k.vx > "$TMP/nvim.log" 2>&1
status=$?
cat "$TMP/seen" 2>/dev/null
expected='filetype vx
W0001 1:6 unused variable: `t`
E6003 2:0 transfer token `t` is dropped without `wait`; the DMA may not have completed
after the edit: 0 diagnostics
hover: before this statement: in flight: from `x[0]` (started at line 2)
definition: 1:6
hints: 1 ⟵ t in flight: from `x[0]` | 2 ⟵ t waited
server exit 0'
if [ "$status" != 0 ] || [ "$(cat "$TMP/seen" 2>/dev/null)" != "$expected" ]; then
  echo "FAIL: nvim exited $status; expected:"
  echo "$expected"
  echo "--- nvim output:"
  cat "$TMP/nvim.log"
  exit 1
fi
echo ok

#!/usr/bin/env bash
# editors/nvim: Neovim (or Vim) gives .vx files the filetype `vx` and
# highlights keywords, builtins, memory spaces and comments. Skipped,
# visibly, without nvim.
#   vim_knows_vx_files.sh SOURCE_DIR
set -euo pipefail
src=$1
if ! command -v nvim >/dev/null; then
  echo "SKIP: no nvim on PATH"
  exit 77
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# Line 3 of examples/stream.vx: `fn stream(tiles : &Vec<...>) ... on Topology::TensorCore {`;
# line 4: `  let mut inflight = transfer_async(tiles[0], Memory::VMEM);`.
nvim --headless --clean -u NONE \
  --cmd "set rtp^=$src/editors/nvim" --cmd "filetype on" --cmd "syntax on" \
  -c "edit $src/examples/stream.vx" \
  -c "let r = [&filetype, synIDattr(synID(3, 1, 1), 'name'), synIDattr(synID(4, 3, 1), 'name'), synIDattr(synID(4, 22, 1), 'name'), synIDattr(synID(4, 47, 1), 'name'), synIDattr(synID(1, 1, 1), 'name')]" \
  -c "call writefile([join(r, ' ')], '$out')" -c "qa!" >/dev/null 2>&1
got=$(cat "$out")
want="vx vxKeyword vxKeyword vxBuiltin vxMemory vxLineComment"
if [ "$got" != "$want" ]; then
  echo "FAIL: got '$got', want '$want'"
  exit 1
fi
echo "ok: $got"

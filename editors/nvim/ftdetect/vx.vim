" Vx sources: *.vx files get filetype `vx` (syntax/vx.vim; in Neovim,
" plugin/vxc.lua starts `vxc lsp` for them). See docs/editors.md.
autocmd BufRead,BufNewFile *.vx setfiletype vx

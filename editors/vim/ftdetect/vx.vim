" Vx sources: *.vx files get filetype `vx` (syntax/vx.vim, and `vxc lsp`
" through docs/lsp.md's FileType autocommand).
autocmd BufRead,BufNewFile *.vx setfiletype vx

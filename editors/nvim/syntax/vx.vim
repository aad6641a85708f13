" Vim syntax file for Vx (docs/language/syntax.md).
" Keywords from grammar/VxLexer.g4; builtins from src/target/Builtins.def.
if exists("b:current_syntax")
  finish
endif

syn keyword vxKeyword as break const continue else extern fn for if in let mut on parallel return while
syn keyword vxBoolean true false
syn keyword vxType i32 i64 u32 u64 usize f16 bf16 f32 f64 bool void
syn keyword vxType Tensor Vec Pinned Token
syn keyword vxBuiltin transfer transfer_async transfer_async_into wait store store_async zeros
syn keyword vxBuiltin matmul_acc load_weights store_acc mma relu scale
syn match vxMemory "\<Memory::\(HBM\|VMEM\|SMEM\|TMEM\)\>"
syn match vxTopology "\<Topology::[A-Za-z]\+\>"
syn match vxNumber "\<\d[0-9_]*\(\.\d[0-9_]*\)\?\([eE][+-]\?\d\+\)\?\(i32\|i64\|u32\|u64\|usize\|f32\|f64\)\?\>"
syn match vxNumber "\<0x[0-9a-fA-F_]\+\(i32\|i64\|u32\|u64\|usize\)\?\>"
syn match vxAttribute "#\[[^\]]*\]"
syn region vxString start=+"+ skip=+\\\\\|\\"+ end=+"+
syn keyword vxTodo contained TODO FIXME XXX
syn match vxLineComment "//.*$" contains=vxTodo
syn region vxBlockComment start="/\*" end="\*/" contains=vxBlockComment,vxTodo

hi def link vxKeyword Keyword
hi def link vxBoolean Boolean
hi def link vxType Type
hi def link vxBuiltin Function
hi def link vxMemory Constant
hi def link vxTopology Constant
hi def link vxNumber Number
hi def link vxAttribute PreProc
hi def link vxString String
hi def link vxTodo Todo
hi def link vxLineComment Comment
hi def link vxBlockComment Comment

let b:current_syntax = "vx"

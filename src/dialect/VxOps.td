// The `vx` dialect (VIR): the one mid-level IR every backend lowers from.
// Ops mirror the language's builtins (docs/language/builtins.md); types keep
// shapes, element types and memory spaces so that backends and passes never
// look back at source. docs/dialect.md describes every op and pass.
#ifndef VX_OPS_TD
#define VX_OPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Vx_Dialect : Dialect {
  let name = "vx";
  let summary = "Vx: tensors, memory spaces, async copies returning linear tokens";
  let cppNamespace = "::vx::dialect";
  let useDefaultTypePrinterParser = 1;
  let useFoldAPI = kEmitFoldAdaptorFolder;
  let extraClassDeclaration = [{
    void registerTypes();
  }];
}

//===--------------------------------------------------------------------===//
// Types
//===--------------------------------------------------------------------===//

class Vx_Type<string name, string typeMnemonic> : TypeDef<Vx_Dialect, name> {
  let mnemonic = typeMnemonic;
}

def Vx_MemSpaceParam : AttrParameter<"::vx::dialect::MemorySpace", "memory space">;

def Vx_TensorType : Vx_Type<"Tensor", "tensor"> {
  let summary = "a dense row-major tensor in HBM, named by reference";
  let description = [{
    `!vx.tensor<128x128xf32>`: a tensor parameter, an element of a `Vec`, or a
    sub-tensor or block of one. Values of this type are places, never copies.
    `?` is a run-time extent (`!vx.tensor<?x?xf32>`), known from the
    function's `index` arguments (grid.md §1).
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape, "::mlir::Type":$elementType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getNumElements() const;
  }];
}

def Vx_VecType : Vx_Type<"Vec", "vec"> {
  let summary = "a runtime-length sequence in HBM";
  let description = [{ `!vx.vec<!vx.tensor<128x128xf32>>` }];
  let parameters = (ins "::mlir::Type":$elementType);
  let assemblyFormat = "`<` $elementType `>`";
}

def Vx_PinnedType : Vx_Type<"Pinned", "pinned"> {
  let summary = "a tensor resident in a memory space";
  let description = [{
    `!vx.pinned<2x128x128xf32, vmem>`: an on-chip buffer. Values are
    references to the buffer: ops that write it (`vx.mma`,
    `vx.transfer_async_into`) write through the reference.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape, "::mlir::Type":$elementType,
                        Vx_MemSpaceParam:$space);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getNumElements() const;
  }];
}

def Vx_TokenType : Vx_Type<"Token", "token"> {
  let summary = "an in-flight transfer (linear)";
  let description = [{
    `!vx.token<128x128xf32, vmem>` will leave a `!vx.pinned<128x128xf32, vmem>`;
    `!vx.token<vmem>` (from `transfer_async_into`, `store_async`) leaves
    nothing. Consumed by exactly one `vx.wait` on every path.
  }];
  // elementType is `none` for a token that carries no buffer.
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape, "::mlir::Type":$elementType,
                        Vx_MemSpaceParam:$space);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    bool isVoid() const { return getElementType().isa<::mlir::NoneType>(); }
    // The buffer `vx.wait` yields; null for a void token.
    PinnedType getPayload() const;
  }];
}

def Vx_AnyTensor : AnyTypeOf<[Vx_TensorType, Vx_PinnedType]>;

//===--------------------------------------------------------------------===//
// Ops
//===--------------------------------------------------------------------===//

class Vx_Op<string mnemonic, list<Trait> traits = []> : Op<Vx_Dialect, mnemonic, traits>;

// ---- Vec and views ----

def Vx_VecLenOp : Vx_Op<"vec_len", [Pure]> {
  let summary = "number of elements of a Vec (`v.len()`)";
  let arguments = (ins Vx_VecType:$vec);
  let results = (outs Index:$len);
  let assemblyFormat = "$vec attr-dict `:` qualified(type($vec))";
}

def Vx_VecGetOp : Vx_Op<"vec_get", [Pure]> {
  let summary = "element `i` of a Vec (`tiles[i]`), bounds-checked at run time";
  let arguments = (ins Vx_VecType:$vec, Index:$index);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$vec `[` $index `]` attr-dict `:` qualified(type($vec)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Vx_SlotOp : Vx_Op<"slot", [Pure]> {
  let summary = "a view of sub-tensor `i` along the leading dimension (`slots[i % 2]`)";
  let description = [{
    `%s = vx.slot %slots[%i] : !vx.pinned<2x128x128xf32, vmem> -> !vx.pinned<128x128xf32, vmem>`.
    The view aliases its base; the index is bounds-checked at run time.
  }];
  let arguments = (ins Vx_AnyTensor:$base, Index:$index);
  let results = (outs Vx_AnyTensor:$result);
  let assemblyFormat = "$base `[` $index `]` attr-dict `:` qualified(type($base)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Vx_BlockOp : Vx_Op<"block"> {
  let summary = "a strided view of rows `row..row+R`, columns `col..col+C` of a 2-D HBM tensor";
  let description = [{
    `%b = vx.block %a[%r, %c] of %m x %k : !vx.tensor<?x?xf32> -> !vx.tensor<64x32xf32>`
    (grid.md §2). `%m` and `%k` are the source's extents (constants for a
    static shape, its run-time extents otherwise); the view's rows are `%k`
    elements apart (the source's own row stride, for a view of a view). With
    `checked`, a block that does not fit in `%m x %k` traps with its line:
    the checker could not prove its bounds (E6009). A place, like `vx.slot`.
  }];
  let arguments = (ins Vx_TensorType:$src, Index:$row, Index:$col, Index:$rows, Index:$cols, UnitAttr:$checked);
  let results = (outs Vx_TensorType:$result);
  let assemblyFormat = "$src `[` $row `,` $col `]` `of` $rows `x` $cols attr-dict `:` qualified(type($src)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Vx_ParallelOp : Vx_Op<"parallel", [SingleBlockImplicitTerminator<"GridEndOp">]> {
  let summary = "the launch grid: its body once per index tuple, every instance concurrently";
  let description = [{
    `"vx.parallel"(%e0, %e1) ({ ^bb0(%i: index, %j: index): ... }) : (index, index) -> ()`
    (grid.md §3): one block argument per extent. Instances share nothing but
    HBM (the checker proved their writes disjoint, E6010) and the scalars of
    the code around; each has its own on-chip memory, matrix unit and tokens.
    The body ends with `vx.grid_end`.
  }];
  let arguments = (ins Variadic<Index>:$extents);
  let regions = (region SizedRegion<1>:$body);
  let hasVerifier = 1;
}

def Vx_GridEndOp : Vx_Op<"grid_end", [Terminator, HasParent<"ParallelOp">, Pure]> {
  let summary = "the end of an instance of a `vx.parallel` grid";
  let assemblyFormat = "attr-dict";
}

def Vx_LoadElemOp : Vx_Op<"load_elem"> {
  let summary = "reads element `i` of a 1-D tensor";
  let arguments = (ins Vx_AnyTensor:$base, Index:$index);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$base `[` $index `]` attr-dict `:` qualified(type($base)) `->` type($result)";
  let hasVerifier = 1;
}

def Vx_StoreElemOp : Vx_Op<"store_elem"> {
  let summary = "writes element `i` of a 1-D tensor";
  let arguments = (ins AnyType:$value, Vx_AnyTensor:$base, Index:$index);
  let assemblyFormat = "$value `,` $base `[` $index `]` attr-dict `:` type($value) `,` qualified(type($base))";
  let hasVerifier = 1;
}

// ---- placeholders ----

def Vx_UndefOp : Vx_Op<"undef", [Pure]> {
  let summary = "a placeholder that no path reads";
  let description = [{
    `%r = vx.undef : !vx.token<128x128xf32, vmem>`. What a function that
    returns early carries as its return value on the paths that have not
    returned yet (docs/dialect.md, Early exits): it fills a loop's or a
    branch's result where the value does not exist, and is never an operand
    of anything but a yield, a loop's condition or the function's return on
    such a path.
  }];
  let results = (outs AnyType:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
}

// ---- transfers and tokens ----

def Vx_TransferOp : Vx_Op<"transfer"> {
  let summary = "blocking copy into a new buffer in a memory space";
  let arguments = (ins Vx_AnyTensor:$src);
  let results = (outs Vx_PinnedType:$result);
  let assemblyFormat = "$src attr-dict `:` qualified(type($src)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Vx_TransferIntoOp : Vx_Op<"transfer_into"> {
  let summary = "blocking copy into an existing buffer (the baseline of transfer_async_into)";
  let arguments = (ins Vx_AnyTensor:$src, Vx_PinnedType:$dst);
  let assemblyFormat = "$src `,` $dst attr-dict `:` qualified(type($src)) `,` qualified(type($dst))";
  let hasVerifier = 1;
}

def Vx_TransferAsyncOp : Vx_Op<"transfer_async"> {
  let summary = "starts a copy into a new buffer; returns its token";
  let arguments = (ins Vx_AnyTensor:$src);
  let results = (outs Vx_TokenType:$token);
  let assemblyFormat = "$src attr-dict `:` qualified(type($src)) `->` qualified(type($token))";
  let hasVerifier = 1;
}

def Vx_TransferAsyncIntoOp : Vx_Op<"transfer_async_into"> {
  let summary = "starts a copy into an existing buffer or ring slot; returns a void token";
  let arguments = (ins Vx_AnyTensor:$src, Vx_PinnedType:$dst);
  let results = (outs Vx_TokenType:$token);
  let assemblyFormat = "$src `,` $dst attr-dict `:` qualified(type($src)) `,` qualified(type($dst)) `->` qualified(type($token))";
  let hasVerifier = 1;
}

def Vx_WaitOp : Vx_Op<"wait"> {
  let summary = "blocks until a transfer completes; consumes the token";
  let arguments = (ins Vx_TokenType:$token);
  let results = (outs Optional<Vx_PinnedType>:$result);
  let assemblyFormat = "$token attr-dict `:` qualified(type($token)) (`->` qualified(type($result))^)?";
  let hasVerifier = 1;
}

def Vx_ReadyOp : Vx_Op<"ready"> {
  let summary = "an already-complete token (what --sync-baseline leaves)";
  let arguments = (ins Optional<Vx_PinnedType>:$value);
  let results = (outs Vx_TokenType:$token);
  let assemblyFormat = "($value^ `:` qualified(type($value)))? attr-dict `->` qualified(type($token))";
  let hasVerifier = 1;
}

def Vx_StoreOp : Vx_Op<"store"> {
  let summary = "blocking write-back of a buffer to HBM";
  let arguments = (ins Vx_PinnedType:$src, Vx_TensorType:$dst);
  let assemblyFormat = "$src `,` $dst attr-dict `:` qualified(type($src)) `,` qualified(type($dst))";
  let hasVerifier = 1;
}

def Vx_StoreAsyncOp : Vx_Op<"store_async"> {
  let summary = "starts a write-back to HBM; returns a void HBM token";
  let arguments = (ins Vx_PinnedType:$src, Vx_TensorType:$dst);
  let results = (outs Vx_TokenType:$token);
  let assemblyFormat = "$src `,` $dst attr-dict `:` qualified(type($src)) `,` qualified(type($dst)) `->` qualified(type($token))";
  let hasVerifier = 1;
}

def Vx_ZerosOp : Vx_Op<"zeros"> {
  let summary = "a new zero-filled buffer";
  let results = (outs Vx_PinnedType:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
}

// ---- the matrix unit ----

def Vx_MatmulAccOp : Vx_Op<"matmul_acc"> {
  let summary = "ACC += x @ W (W: latched weights, identity until load_weights)";
  let arguments = (ins Vx_PinnedType:$x);
  let assemblyFormat = "$x attr-dict `:` qualified(type($x))";
  let hasVerifier = 1;
}

def Vx_LoadWeightsOp : Vx_Op<"load_weights"> {
  let summary = "latches W in the matrix unit";
  let arguments = (ins Vx_PinnedType:$w);
  let assemblyFormat = "$w attr-dict `:` qualified(type($w))";
  let hasVerifier = 1;
}

def Vx_StoreAccOp : Vx_Op<"store_acc"> {
  let summary = "writes ACC to an HBM tensor, then zeroes it";
  let arguments = (ins Vx_TensorType:$dst);
  let assemblyFormat = "$dst attr-dict `:` qualified(type($dst))";
  let hasVerifier = 1;
}

def Vx_MmaOp : Vx_Op<"mma"> {
  let summary = "acc += a @ b on explicit buffers";
  let arguments = (ins Vx_PinnedType:$acc, Vx_PinnedType:$a, Vx_PinnedType:$b);
  let assemblyFormat = "$acc `,` $a `,` $b attr-dict `:` qualified(type($acc)) `,` qualified(type($a)) `,` qualified(type($b))";
  let hasVerifier = 1;
}

// ---- elementwise ----

class Vx_BinaryOp<string mnemonic, string what>
    : Vx_Op<mnemonic, [AllTypesMatch<["lhs", "rhs", "result"]>]> {
  let summary = "elementwise " # what # " of two VMEM buffers of one shape";
  let arguments = (ins Vx_PinnedType:$lhs, Vx_PinnedType:$rhs);
  let results = (outs Vx_PinnedType:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}
def Vx_AddOp : Vx_BinaryOp<"add", "sum">;
def Vx_SubOp : Vx_BinaryOp<"sub", "difference">;
def Vx_MulOp : Vx_BinaryOp<"mul", "product">;

def Vx_ScaleOp : Vx_Op<"scale", [AllTypesMatch<["x", "result"]>]> {
  let summary = "elementwise x * s";
  let arguments = (ins Vx_PinnedType:$x, F32:$factor);
  let results = (outs Vx_PinnedType:$result);
  let assemblyFormat = "$x `,` $factor attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def Vx_ScaleIntoOp : Vx_Op<"scale_into", [AllTypesMatch<["y", "x"]>]> {
  let summary = "y = x * s elementwise, into an existing buffer";
  let arguments = (ins Vx_PinnedType:$y, Vx_PinnedType:$x, F32:$factor);
  let assemblyFormat = "$y `,` $x `,` $factor attr-dict `:` qualified(type($y))";
  let hasVerifier = 1;
}

// ---- on-chip compute (compute.md): reads borrow, `_into` forms write ----

def Vx_BroadcastOp : Vx_Op<"broadcast"> {
  let summary = "elementwise lhs op rhs (add, sub, mul, div, max, min), each side the [R, C] result's shape, its column [R, 1] or its row [1, C]";
  let arguments = (ins StrAttr:$op, Vx_PinnedType:$lhs, Vx_PinnedType:$rhs);
  let results = (outs Vx_PinnedType:$result);
  let assemblyFormat = "$op $lhs `,` $rhs attr-dict `:` qualified(type($lhs)) `,` qualified(type($rhs)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Vx_CastOp : Vx_Op<"cast"> {
  let summary = "x converted to the result's element type, rounded to nearest even";
  let arguments = (ins Vx_PinnedType:$x);
  let results = (outs Vx_PinnedType:$result);
  let assemblyFormat = "$x attr-dict `:` qualified(type($x)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Vx_TransposeOp : Vx_Op<"transpose"> {
  let summary = "the transpose of a 2-D on-chip tensor: result[c, r] = x[r, c]";
  let arguments = (ins Vx_PinnedType:$x);
  let results = (outs Vx_PinnedType:$result);
  let assemblyFormat = "$x attr-dict `:` qualified(type($x)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Vx_UnaryOp : Vx_Op<"unary", [AllTypesMatch<["x", "result"]>]> {
  let summary = "elementwise fn(x) into a new buffer; fn is a row of src/target/Unary.def";
  let arguments = (ins StrAttr:$fn, Vx_PinnedType:$x);
  let results = (outs Vx_PinnedType:$result);
  let assemblyFormat = "$fn $x attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def Vx_UnaryIntoOp : Vx_Op<"unary_into", [AllTypesMatch<["dst", "x"]>]> {
  let summary = "dst = fn(x) elementwise; allocates nothing";
  let arguments = (ins StrAttr:$fn, Vx_PinnedType:$dst, Vx_PinnedType:$x);
  let assemblyFormat = "$fn $dst `,` $x attr-dict `:` qualified(type($dst))";
  let hasVerifier = 1;
}

def Vx_FillOp : Vx_Op<"fill"> {
  let summary = "sets every element of dst to value";
  let arguments = (ins Vx_PinnedType:$dst, F32:$value);
  let assemblyFormat = "$dst `,` $value attr-dict `:` qualified(type($dst))";
  let hasVerifier = 1;
}

def Vx_CopyIntoOp : Vx_Op<"copy_into", [AllTypesMatch<["dst", "x"]>]> {
  let summary = "dst = x between on-chip buffers of one type";
  let arguments = (ins Vx_PinnedType:$dst, Vx_PinnedType:$x);
  let assemblyFormat = "$dst `,` $x attr-dict `:` qualified(type($dst))";
  let hasVerifier = 1;
}

def Vx_RowReduceOp : Vx_Op<"row_reduce"> {
  let summary = "the max or sum of each row of x [R, C], as a column [R, 1]";
  let arguments = (ins StrAttr:$kind, Vx_PinnedType:$x);
  let results = (outs Vx_PinnedType:$result);
  let assemblyFormat = "$kind $x attr-dict `:` qualified(type($x)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

// ---- debugging (language.md §5) ----

def Vx_DbgOp : Vx_Op<"dbg"> {
  let summary = "prints `label = value` in program order: a scalar (kind int, uint, bool, float) or an on-chip tensor (kind tensor: its element type, shape, first elements and sum)";
  let arguments = (ins StrAttr:$label, StrAttr:$kind, AnyType:$x);
  let assemblyFormat = "$label $kind $x attr-dict `:` type($x)";
  let hasVerifier = 1;
}

#endif  // VX_OPS_TD

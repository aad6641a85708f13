// Calls of builtins (Builtins.def) become their vx op. Result types come from
// the checked call's type, so shapes and memory spaces are the checker's.
#include "dialect/LowerHirImpl.h"

namespace vx::dialect {

mlir::Value dimValue(Lower& l, hir::TypeId dim, mlir::Location at) {
  const hir::TypeTable& tt = l.types();
  hir::TypeId d = tt.resolve(dim);
  if (tt.kind(d) == hir::TyKind::Dim) return l.b.create<mlir::arith::ConstantIndexOp>(at, static_cast<int64_t>(tt.get(d).value));
  if (tt.kind(d) == hir::TyKind::Extent && l.curFn.valid())
    for (const hir::Function::ExtentParam& e : l.prog.fn(l.curFn).extents)
      if (e.type == d && l.bound[e.local.index] && l.locals[e.local.index].size() == 1) return l.locals[e.local.index][0];
  return {};
}

namespace {

// `dbg`'s prefix, `file:line: <expression>`: the argument as written, its
// runs of white space one space each.
std::string dbgLabel(Lower& l, base::Span call, base::Span arg) {
  if (!call.valid()) return "?: <expression>";
  const base::SourceFile& f = l.sources.file(call.file);
  std::string text;
  if (arg.valid() && arg.file.index == call.file.index && arg.end <= f.text().size())
    for (char c : f.text().substr(arg.begin, arg.end - arg.begin)) {
      bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r';
      if (!space) text += c;
      else if (!text.empty() && text.back() != ' ') text += ' ';
    }
  return f.path() + ":" + std::to_string(f.lineCol(call.begin).line) + ": " + text;
}

// How `dbg` prints a value of HIR type `t` (DbgOp's kinds).
const char* dbgKind(Lower& l, hir::TypeId t) {
  const hir::TypeTable& tt = l.types();
  t = derefAll(tt, t);
  if (tt.kind(t) == hir::TyKind::Pinned) return "tensor";
  if (tt.kind(t) == hir::TyKind::Bool) return "bool";
  if (tt.isFloat(t)) return "float";
  return isUnsignedInt(tt, t) ? "uint" : "int";
}

}  // namespace

Vals lowerBuiltin(Lower& l, hir::ExprId id, const hir::Expr& call, const hir::Function& fn) {
  mlir::Location at = loc(l, call.span);
  llvm::SmallVector<mlir::Value, 3> args;
  for (uint32_t i = 0; i < call.args.count; ++i) {
    Vals v = lowerExpr(l, l.prog.arg(call, i));
    args.append(v.begin(), v.end());  // memory-space arguments lower to nothing
  }
  llvm::SmallVector<mlir::Type, 1> results;
  if (l.failed || !lowerType(l, call.type, results, call.span)) return {};
  mlir::Type r = results.empty() ? mlir::Type() : results[0];
  auto need = [&](size_t n) {
    if (args.size() == n) return true;
    unsupported(l, call.span, fn.name, "unexpected arguments");
    return false;
  };
  auto one = [](mlir::Value v) { return Vals{v}; };
  switch (fn.builtin) {
    case hir::Builtin::None: break;
    case hir::Builtin::Transfer:
      if (!need(1)) return {};
      return one(l.b.create<TransferOp>(at, r, args[0]));
    case hir::Builtin::TransferAsync:
      if (!need(1)) return {};
      return one(l.b.create<TransferAsyncOp>(at, r, args[0]));
    case hir::Builtin::TransferAsyncInto:
      if (!need(2)) return {};
      return one(l.b.create<TransferAsyncIntoOp>(at, r, args[0], args[1]));
    case hir::Builtin::Wait: {
      if (!need(1)) return {};
      auto w = l.b.create<WaitOp>(at, r ? mlir::TypeRange{r} : mlir::TypeRange{}, args[0]);
      return r ? Vals{w.getResult()} : Vals{};
    }
    case hir::Builtin::Store:
      if (!need(2)) return {};
      l.b.create<StoreOp>(at, args[0], args[1]);
      return {};
    case hir::Builtin::StoreAsync:
      if (!need(2)) return {};
      return one(l.b.create<StoreAsyncOp>(at, r, args[0], args[1]));
    case hir::Builtin::Block:
    case hir::Builtin::BlockMut: {
      if (!need(3)) return {};
      // The source's extents: the view's row stride and its bounds.
      hir::TypeId src = derefAll(l.types(), l.prog.expr(l.prog.arg(call, 0)).type);
      hir::TypeId shape = l.types().resolve(l.types().get(src).b);
      mlir::Value rows = dimValue(l, l.types().elem(shape, 0), at), cols = dimValue(l, l.types().elem(shape, 1), at);
      if (!rows || !cols) {
        unsupported(l, call.span, fn.name, "the source's extents are not known here");
        return {};
      }
      auto op = l.b.create<BlockOp>(at, r, args[0], args[1], args[2], rows, cols);
      if (!l.prog.provedBlocks.count(id.index)) op.setCheckedAttr(l.b.getUnitAttr());
      return one(op);
    }
    case hir::Builtin::Zeros:
      if (!need(0)) return {};
      return one(l.b.create<ZerosOp>(at, r));
    case hir::Builtin::MatmulAcc:
      if (!need(1)) return {};
      l.b.create<MatmulAccOp>(at, args[0]);
      return {};
    case hir::Builtin::LoadWeights:
      if (!need(1)) return {};
      l.b.create<LoadWeightsOp>(at, args[0]);
      return {};
    case hir::Builtin::StoreAcc:
      if (!need(1)) return {};
      l.b.create<StoreAccOp>(at, args[0]);
      return {};
    case hir::Builtin::Mma:
      if (!need(3)) return {};
      l.b.create<MmaOp>(at, args[0], args[1], args[2]);
      return {};
    case hir::Builtin::Scale:
      if (!need(2)) return {};
      return one(l.b.create<ScaleOp>(at, r, args[0], args[1]));
    case hir::Builtin::ScaleInto:
      if (!need(3)) return {};
      l.b.create<ScaleIntoOp>(at, args[0], args[1], args[2]);
      return {};
    case hir::Builtin::Exp:
    case hir::Builtin::Log:
    case hir::Builtin::Sqrt:
    case hir::Builtin::Rsqrt:
    case hir::Builtin::Tanh:
    case hir::Builtin::Abs:
    case hir::Builtin::Neg:
    case hir::Builtin::Relu:
      if (!need(1)) return {};
      return one(l.b.create<UnaryOp>(at, r, target::info(*target::unaryOf(fn.builtin)).name, args[0]));
    case hir::Builtin::ExpInto:
    case hir::Builtin::LogInto:
    case hir::Builtin::SqrtInto:
    case hir::Builtin::RsqrtInto:
    case hir::Builtin::TanhInto:
    case hir::Builtin::AbsInto:
    case hir::Builtin::NegInto:
    case hir::Builtin::ReluInto:
      if (!need(2)) return {};
      l.b.create<UnaryIntoOp>(at, target::info(*target::unaryOf(fn.builtin)).name, args[0], args[1]);
      return {};
    case hir::Builtin::Fill:
      if (!need(2)) return {};
      l.b.create<FillOp>(at, args[0], args[1]);
      return {};
    case hir::Builtin::CopyInto:
      if (!need(2)) return {};
      l.b.create<CopyIntoOp>(at, args[0], args[1]);
      return {};
    case hir::Builtin::Transpose:
      if (!need(1)) return {};
      return one(l.b.create<TransposeOp>(at, r, args[0]));
    case hir::Builtin::Cast:
      if (!need(1)) return {};
      return one(l.b.create<CastOp>(at, r, args[0]));
    case hir::Builtin::Max:
    case hir::Builtin::Min:
      if (!need(2)) return {};
      return one(l.b.create<BroadcastOp>(at, r, fn.builtin == hir::Builtin::Max ? "max" : "min", args[0], args[1]));
    case hir::Builtin::RowMax:
    case hir::Builtin::RowSum:
      if (!need(1)) return {};
      return one(l.b.create<RowReduceOp>(at, r, fn.builtin == hir::Builtin::RowMax ? "max" : "sum", args[0]));
    case hir::Builtin::Dbg: {
      if (!need(1)) return {};
      const hir::Expr& x = l.prog.expr(l.prog.arg(call, 0));
      l.b.create<DbgOp>(at, dbgLabel(l, call.span, x.span), dbgKind(l, x.type), args[0]);
      return one(args[0]);
    }
  }
  unsupported(l, call.span, fn.name, "not a builtin this lowering knows");
  return {};
}

}  // namespace vx::dialect

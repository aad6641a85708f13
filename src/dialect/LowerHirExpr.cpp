// Expressions: scalars to arith, places to vx views, calls to func.call or to
// the builtin's vx op. Rust's integer semantics (trapping overflow, `as`
// wrapping) are the backend's: arith ops carry `vx.unsigned` for the sign.
#include <stdexcept>

#include "dialect/LowerHirImpl.h"

namespace vx::dialect {

using hir::ExprKind;
using hir::TyKind;
using hir::TypeId;
namespace arith = mlir::arith;

namespace {

bool isIndex(mlir::Value v) { return v.getType().isIndex(); }

mlir::Value constantOf(Lower& l, const hir::Expr& e, mlir::Location at) {
  mlir::Type t = lowerOne(l, e.type, e.span);
  if (!t) return {};
  if (t.isIndex()) return l.b.create<arith::ConstantIndexOp>(at, static_cast<int64_t>(e.value));
  if (auto ft = t.dyn_cast<mlir::FloatType>()) {
    double v = e.kind == ExprKind::Float ? e.fvalue : static_cast<double>(e.value);
    return l.b.create<arith::ConstantOp>(at, l.b.getFloatAttr(ft, v));
  }
  return l.b.create<arith::ConstantOp>(at, l.b.getIntegerAttr(t, static_cast<int64_t>(e.value)));
}

// Rust `as` between numbers and from bool.
mlir::Value castScalar(Lower& l, mlir::Value v, TypeId from, TypeId to, mlir::Location at) {
  const hir::TypeTable& tt = l.types();
  mlir::Type target = lowerOne(l, to, {});
  mlir::Type source = v.getType();
  if (!target || source == target) return v;
  bool fromUnsigned = isUnsignedInt(tt, from) || source.isInteger(1);
  bool toUnsigned = isUnsignedInt(tt, to);
  auto intWidth = [](mlir::Type t) { return t.isIndex() ? 64u : t.getIntOrFloatBitWidth(); };
  if (source.isa<mlir::FloatType>() && target.isa<mlir::FloatType>()) {
    if (source.getIntOrFloatBitWidth() < target.getIntOrFloatBitWidth())
      return l.b.create<arith::ExtFOp>(at, target, v);
    return l.b.create<arith::TruncFOp>(at, target, v);
  }
  if (source.isa<mlir::FloatType>()) {  // float -> int saturates (backend)
    mlir::Type viaT = target.isIndex() ? l.b.getI64Type() : target;
    mlir::Value r = toUnsigned ? l.b.create<arith::FPToUIOp>(at, viaT, v).getResult()
                               : l.b.create<arith::FPToSIOp>(at, viaT, v).getResult();
    return target.isIndex() ? l.b.create<arith::IndexCastUIOp>(at, target, r).getResult() : r;
  }
  if (target.isa<mlir::FloatType>()) {
    if (source.isIndex()) v = l.b.create<arith::IndexCastUIOp>(at, l.b.getI64Type(), v);
    if (fromUnsigned) return l.b.create<arith::UIToFPOp>(at, target, v);
    return l.b.create<arith::SIToFPOp>(at, target, v);
  }
  if (source.isIndex() || target.isIndex()) {
    if (fromUnsigned || source.isIndex()) return l.b.create<arith::IndexCastUIOp>(at, target, v);
    return l.b.create<arith::IndexCastOp>(at, target, v);
  }
  if (intWidth(source) < intWidth(target)) {
    if (fromUnsigned) return l.b.create<arith::ExtUIOp>(at, target, v);
    return l.b.create<arith::ExtSIOp>(at, target, v);
  }
  if (intWidth(source) > intWidth(target)) return l.b.create<arith::TruncIOp>(at, target, v);
  return v;
}

arith::CmpIPredicate intPredicate(ast::Op op, bool isUnsigned) {
  switch (op) {
    case ast::Op::Eq: return arith::CmpIPredicate::eq;
    case ast::Op::Ne: return arith::CmpIPredicate::ne;
    case ast::Op::Lt: return isUnsigned ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt;
    case ast::Op::Gt: return isUnsigned ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt;
    case ast::Op::Le: return isUnsigned ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle;
    default: return isUnsigned ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge;
  }
}

arith::CmpFPredicate floatPredicate(ast::Op op) {
  switch (op) {
    case ast::Op::Eq: return arith::CmpFPredicate::OEQ;
    case ast::Op::Ne: return arith::CmpFPredicate::UNE;  // NaN != NaN, as in Rust
    case ast::Op::Lt: return arith::CmpFPredicate::OLT;
    case ast::Op::Gt: return arith::CmpFPredicate::OGT;
    case ast::Op::Le: return arith::CmpFPredicate::OLE;
    default: return arith::CmpFPredicate::OGE;
  }
}

// `a && b` / `a || b` evaluate `b` only when needed.
mlir::Value shortCircuit(Lower& l, const hir::Expr& e, mlir::Location at) {
  mlir::Value a = lowerValue(l, e.a);
  if (!a) return {};
  auto ifOp = l.b.create<mlir::scf::IfOp>(at, mlir::TypeRange{l.b.getI1Type()}, a, /*withElseRegion=*/true);
  mlir::OpBuilder::InsertionGuard guard(l.b);
  bool isAnd = e.op == ast::Op::And;
  l.b.setInsertionPointToStart(isAnd ? ifOp.thenBlock() : ifOp.elseBlock());
  mlir::Value rhs = lowerValue(l, e.b);
  if (!rhs) rhs = l.b.create<arith::ConstantIntOp>(at, 0, 1);
  l.b.create<mlir::scf::YieldOp>(at, rhs);
  l.b.setInsertionPointToStart(isAnd ? ifOp.elseBlock() : ifOp.thenBlock());
  mlir::Value constant = l.b.create<arith::ConstantIntOp>(at, isAnd ? 0 : 1, 1);
  l.b.create<mlir::scf::YieldOp>(at, constant);
  return ifOp.getResult(0);
}

mlir::Value lowerBinary(Lower& l, const hir::Expr& e, mlir::Location at) {
  const hir::TypeTable& tt = l.types();
  if (e.op == ast::Op::And || e.op == ast::Op::Or) return shortCircuit(l, e, at);
  mlir::Value a = lowerValue(l, e.a), b = lowerValue(l, e.b);
  if (!a || !b) return {};
  if (a.getType().isa<PinnedType>()) {
    mlir::Type r = lowerOne(l, e.type, e.span);
    if (!r) return {};
    if (a.getType() != r || b.getType() != r || e.op == ast::Op::Div)
      return l.b.create<BroadcastOp>(at, r,
                                     e.op == ast::Op::Add   ? "add"
                                     : e.op == ast::Op::Sub ? "sub"
                                     : e.op == ast::Op::Mul ? "mul"
                                                            : "div",
                                     a, b);
    switch (e.op) {
      case ast::Op::Add: return l.b.create<AddOp>(at, r, a, b);
      case ast::Op::Sub: return l.b.create<SubOp>(at, r, a, b);
      default: return l.b.create<MulOp>(at, r, a, b);
    }
  }
  return scalarBinary(l, e.op, a, b, derefAll(tt, l.prog.expr(e.a).type), at);
}

Vals lowerIndex(Lower& l, const hir::Expr& e, mlir::Location at) {
  const hir::TypeTable& tt = l.types();
  mlir::Value base = lowerValue(l, e.a);
  mlir::Value idx = lowerValue(l, e.b);
  if (!base || !idx) return {};
  idx = toIndex(l, idx, l.prog.expr(e.b).type, at);
  mlir::Type r = lowerOne(l, e.type, e.span);
  if (!r) return {};
  if (base.getType().isa<VecType>()) return {l.b.create<VecGetOp>(at, r, base, idx)};
  if (tt.kind(derefAll(tt, e.type)) == TyKind::Tensor || tt.kind(derefAll(tt, e.type)) == TyKind::Pinned) {
    // A slot's place is its index times the slot's size, which VIR's slot
    // takes from the leading extent: a run-time one is not in the type.
    if (auto bt = base.getType().dyn_cast<TensorType>(); bt && mlir::ShapedType::isDynamic(bt.getShape()[0])) {
      unsupported(l, e.span, "an index along a run-time leading extent",
                  "the leading extent of this tensor is a run-time extent; index a tensor whose leading extent is "
                  "fixed (`[2, m, k]`), or pass a `Vec` of tensors");
      return {};
    }
    // The tpu target's slots are places at constant byte strides: a slot
    // with run-time extents has none (cpu and the GPU targets divide the
    // tensor's run-time size by its fixed leading extent).
    if (auto rt = r.dyn_cast<TensorType>(); rt && l.target == "tpu" && llvm::any_of(rt.getShape(), mlir::ShapedType::isDynamic)) {
      unsupported(l, e.span, "an index into a tensor with run-time extents",
                  "the slots of this tensor have run-time extents, and tpu slots are constant strides; take a "
                  "`block::<[R, C]>` of the tensor instead, or pass a `Vec` of fixed-shape tensors");
      return {};
    }
    return {l.b.create<SlotOp>(at, r, base, idx)};
  }
  return {l.b.create<LoadElemOp>(at, r, base, idx)};
}

Vals lowerCall(Lower& l, hir::ExprId id, const hir::Expr& e, mlir::Location at) {
  const hir::Function& fn = l.prog.fn(e.fn);
  if (fn.builtin != hir::Builtin::None) return lowerBuiltin(l, id, e, fn);
  mlir::func::FuncOp callee = l.fns[e.fn.index];
  if (!callee) {
    if (fn.isExtern) unsupported(l, e.span, "extern fn " + fn.name, "only builtins may be declared `extern`");
    l.failed = true;  // otherwise its signature was reported
    return {};
  }
  llvm::SmallVector<mlir::Value> args;
  mlir::FunctionType sig = callee.getFunctionType();
  for (uint32_t i = 0; i < e.args.count; ++i) {
    Vals v = lowerExpr(l, l.prog.arg(e, i));
    // A tensor whose extents are fixed here passed where the callee takes
    // run-time extents (`[16, 32]` for `[r, 32]`): VIR has no conversion
    // between the two, so it is refused here rather than left to fail the
    // verifier (once per call: after it, the lowering has failed and
    // what follows is not lowered).
    for (size_t k = 0; k < v.size() && !l.failed; ++k) {
      size_t at = args.size() + k;
      if (v[k] && at < sig.getNumInputs() && v[k].getType() != sig.getInput(at)) {
        unsupported(l, l.prog.expr(l.prog.arg(e, i)).span, "a fixed-extent tensor passed for run-time extents",
                    "this argument's extents are fixed, the parameter's are run-time extents; declare the "
                    "parameter with the fixed extents, or pass a tensor whose extents are run-time ones");
        break;
      }
    }
    args.append(v.begin(), v.end());
  }
  if (l.failed) return {};
  auto call = l.b.create<mlir::func::CallOp>(at, callee, args);
  return Vals(call.getResults().begin(), call.getResults().end());
}

}  // namespace

mlir::Value toIndex(Lower& l, mlir::Value v, TypeId t, mlir::Location at) {
  if (isIndex(v)) return v;
  if (isUnsignedInt(l.types(), t) || v.getType().isInteger(1)) return l.b.create<arith::IndexCastUIOp>(at, l.b.getIndexType(), v);
  return l.b.create<arith::IndexCastOp>(at, l.b.getIndexType(), v);
}

mlir::Value fromIndex(Lower& l, mlir::Value v, TypeId t, mlir::Location at) {
  mlir::Type target = lowerOne(l, t, {});
  if (!target || target.isIndex()) return v;
  return l.b.create<arith::IndexCastOp>(at, target, v);
}

mlir::Value scalarBinary(Lower& l, ast::Op op, mlir::Value a, mlir::Value b, TypeId t, mlir::Location at) {
  const hir::TypeTable& tt = l.types();
  bool isCompare = op == ast::Op::Eq || op == ast::Op::Ne || op == ast::Op::Lt || op == ast::Op::Gt ||
                   op == ast::Op::Le || op == ast::Op::Ge;
  bool isUnsigned = isUnsignedInt(tt, t);
  if (a.getType().isa<mlir::FloatType>()) {
    if (isCompare) return l.b.create<arith::CmpFOp>(at, floatPredicate(op), a, b);
    switch (op) {
      case ast::Op::Add: case ast::Op::AddAssign: return l.b.create<arith::AddFOp>(at, a, b);
      case ast::Op::Sub: case ast::Op::SubAssign: return l.b.create<arith::SubFOp>(at, a, b);
      case ast::Op::Mul: case ast::Op::MulAssign: return l.b.create<arith::MulFOp>(at, a, b);
      case ast::Op::Div: case ast::Op::DivAssign: return l.b.create<arith::DivFOp>(at, a, b);
      default: return l.b.create<arith::RemFOp>(at, a, b);
    }
  }
  if (isCompare) return l.b.create<arith::CmpIOp>(at, intPredicate(op, isUnsigned), a, b);
  mlir::Operation* r = nullptr;
  switch (op) {
    case ast::Op::Add: case ast::Op::AddAssign: r = l.b.create<arith::AddIOp>(at, a, b); break;
    case ast::Op::Sub: case ast::Op::SubAssign: r = l.b.create<arith::SubIOp>(at, a, b); break;
    case ast::Op::Mul: case ast::Op::MulAssign: r = l.b.create<arith::MulIOp>(at, a, b); break;
    case ast::Op::Div: case ast::Op::DivAssign:
      r = isUnsigned ? l.b.create<arith::DivUIOp>(at, a, b).getOperation()
                     : l.b.create<arith::DivSIOp>(at, a, b).getOperation();
      break;
    default:
      r = isUnsigned ? l.b.create<arith::RemUIOp>(at, a, b).getOperation()
                     : l.b.create<arith::RemSIOp>(at, a, b).getOperation();
  }
  if (isUnsigned) r->setAttr(kUnsignedAttr, l.b.getUnitAttr());
  return r->getResult(0);
}

mlir::Value lowerValue(Lower& l, hir::ExprId id) {
  Vals v = lowerExpr(l, id);
  if (v.size() == 1) return v[0];
  if (!l.failed) unsupported(l, l.prog.expr(id).span, "tuple", "a single value is needed here");
  return {};
}

Vals lowerExpr(Lower& l, hir::ExprId id) {
  const hir::Expr& e = l.prog.expr(id);
  const hir::TypeTable& tt = l.types();
  mlir::Location at = loc(l, e.span);
  auto one = [](mlir::Value v) { return v ? Vals{v} : Vals{}; };
  switch (e.kind) {
    case ExprKind::Error:
      unsupported(l, e.span, "error", "this expression did not type-check");
      return {};
    case ExprKind::Int:
    case ExprKind::Float: return one(constantOf(l, e, at));
    case ExprKind::Bool: return {l.b.create<arith::ConstantIntOp>(at, e.value ? 1 : 0, 1)};
    case ExprKind::Local:
      // Every local gets its value where it is declared (`let` has an
      // initializer, parameters and loop variables are bound on entry) and
      // is visible only after that, so a read of an unbound one is a bug
      // here, not in the program.
      if (!l.bound[e.local.index])
        throw std::logic_error("HIR -> VIR: `" + l.prog.local(e.local).name +
                               "` is read before its declaration was lowered");
      return l.locals[e.local.index];
    case ExprKind::Const: return lowerExpr(l, l.prog.consts[e.constant.index].value);
    case ExprKind::MemConst:
    case ExprKind::TopoConst:
    case ExprKind::Unit: return {};
    case ExprKind::Tuple: {
      Vals all;
      for (uint32_t i = 0; i < e.args.count; ++i) {
        Vals v = lowerExpr(l, l.prog.arg(e, i));
        all.append(v.begin(), v.end());
      }
      return all;
    }
    case ExprKind::Call: return lowerCall(l, id, e, at);
    case ExprKind::Len: {
      mlir::Value v = lowerValue(l, e.a);
      if (!v) return {};
      return {l.b.create<VecLenOp>(at, l.b.getIndexType(), v)};
    }
    case ExprKind::Field: {
      Vals whole = lowerExpr(l, e.a);
      TypeId tup = derefAll(tt, l.prog.expr(e.a).type);
      unsigned offset = 0;
      for (uint32_t i = 0; i < e.value; ++i) offset += flatCount(l, tt.elem(tup, i));
      unsigned n = flatCount(l, tt.elem(tup, static_cast<uint32_t>(e.value)));
      if (l.failed || offset + n > whole.size()) return {};
      return Vals(whole.begin() + offset, whole.begin() + offset + n);
    }
    case ExprKind::Index: return lowerIndex(l, e, at);
    case ExprKind::Unary: {
      // A negated integer literal is the constant itself: `-2147483648`
      // as an `i32` is the type's lowest value, which negating the literal
      // (itself out of range) would trap on.
      if (const hir::Expr& x = l.prog.expr(e.a); e.op == ast::Op::Neg && x.kind == ExprKind::Int) {
        mlir::Type ty = lowerOne(l, e.type, e.span);
        if (!ty) return {};
        if (ty.isIntOrIndex()) {
          unsigned bits = ty.isIndex() ? 64 : ty.getIntOrFloatBitWidth();
          llvm::APInt value(bits, x.value);
          return {l.b.create<arith::ConstantOp>(at, l.b.getIntegerAttr(ty, -value))};
        }
      }
      mlir::Value v = lowerValue(l, e.a);
      if (!v) return {};
      if (e.op == ast::Op::Not) {
        mlir::Value t = l.b.create<arith::ConstantIntOp>(at, 1, 1);
        return {l.b.create<arith::XOrIOp>(at, v, t)};
      }
      if (v.getType().isa<mlir::FloatType>()) return {l.b.create<arith::NegFOp>(at, v)};
      mlir::Value zero = l.b.create<arith::ConstantOp>(at, l.b.getIntegerAttr(v.getType(), 0));
      return {scalarBinary(l, ast::Op::Sub, zero, v, e.type, at)};  // traps on MIN
    }
    case ExprKind::Borrow:
    case ExprKind::Deref: return lowerExpr(l, e.a);  // buffers are references in VIR
    case ExprKind::Cast: {
      mlir::Value v = lowerValue(l, e.a);
      if (!v) return {};
      return one(castScalar(l, v, derefAll(tt, l.prog.expr(e.a).type), e.type, at));
    }
    case ExprKind::Binary: return one(lowerBinary(l, e, at));
  }
  return {};
}

}  // namespace vx::dialect

// HIR types -> MLIR types. Buffers (HBM tensors, Vecs, pinned buffers) are
// references in VIR, so `&T`, `&mut T` and `T` lower alike; `usize` is
// `index`; u32/u64 are signless i32/i64 (ops carry the sign, see LowerHir.h).
#include "dialect/LowerHirImpl.h"

namespace vx::dialect {

using hir::TyKind;
using hir::TypeId;

TypeId derefAll(const hir::TypeTable& tt, TypeId t) {
  t = tt.resolve(t);
  while (tt.kind(t) == TyKind::Ref) t = tt.resolve(tt.get(t).a);
  return t;
}

bool isUnsignedInt(const hir::TypeTable& tt, TypeId t) {
  t = tt.resolve(t);
  if (tt.kind(t) != TyKind::Int) return false;
  auto k = static_cast<hir::IntKind>(tt.get(t).sub);
  return k == hir::IntKind::U32 || k == hir::IntKind::U64 || k == hir::IntKind::Usize;
}

namespace {

mlir::Type scalarType(Lower& l, TypeId t) {
  const hir::TypeTable& tt = l.types();
  const hir::TyData& d = tt.get(t);
  if (d.kind == TyKind::Bool) return l.b.getI1Type();
  if (d.kind == TyKind::Int) {
    switch (static_cast<hir::IntKind>(d.sub)) {
      case hir::IntKind::I32:
      case hir::IntKind::U32: return l.b.getI32Type();
      case hir::IntKind::I64:
      case hir::IntKind::U64: return l.b.getI64Type();
      case hir::IntKind::Usize: return l.b.getIndexType();
    }
  }
  if (d.kind == TyKind::Float) {
    switch (static_cast<hir::FloatKind>(d.sub)) {
      case hir::FloatKind::F16: return l.b.getF16Type();
      case hir::FloatKind::Bf16: return l.b.getBF16Type();
      case hir::FloatKind::F32: return l.b.getF32Type();
      case hir::FloatKind::F64: return l.b.getF64Type();
    }
  }
  return {};
}

// Shape and element of a `Tensor<E, [d...]>`; false if it is not one.
bool tensorParts(Lower& l, TypeId t, llvm::SmallVectorImpl<int64_t>& shape, mlir::Type& elem, bool dynamic = false) {
  const hir::TypeTable& tt = l.types();
  t = tt.resolve(t);
  if (tt.kind(t) != TyKind::Tensor) return false;
  elem = scalarType(l, tt.resolve(tt.get(t).a));
  TypeId s = tt.resolve(tt.get(t).b);
  if (!elem || tt.kind(s) != TyKind::Shape) return false;
  for (uint32_t i = 0; i < tt.count(s); ++i) {
    TypeId d = tt.resolve(tt.elem(s, i));
    if (dynamic && tt.kind(d) == TyKind::Extent) {
      shape.push_back(mlir::ShapedType::kDynamic);  // a run-time extent
      continue;
    }
    if (tt.kind(d) != TyKind::Dim || tt.get(d).value == 0) return false;
    shape.push_back(static_cast<int64_t>(tt.get(d).value));
  }
  return true;
}

MemorySpace spaceOf(Lower& l, TypeId m) {
  const hir::TypeTable& tt = l.types();
  switch (static_cast<hir::MemSpace>(tt.get(tt.resolve(m)).sub)) {
    case hir::MemSpace::HBM: return MemorySpace::HBM;
    case hir::MemSpace::VMEM: return MemorySpace::VMEM;
    case hir::MemSpace::SMEM: return MemorySpace::SMEM;
    case hir::MemSpace::TMEM: return MemorySpace::TMEM;
  }
  return MemorySpace::HBM;
}

}  // namespace

bool lowerType(Lower& l, TypeId t, llvm::SmallVectorImpl<mlir::Type>& out, base::Span at) {
  const hir::TypeTable& tt = l.types();
  t = tt.resolve(t);
  const hir::TyData& d = tt.get(t);
  llvm::SmallVector<int64_t> shape;
  mlir::Type elem;
  switch (d.kind) {
    case TyKind::Void:
    case TyKind::Shape:
    case TyKind::Dim:
    case TyKind::Extent:
    case TyKind::Mem:
    case TyKind::Topo: return true;  // compile-time only
    case TyKind::Bool:
    case TyKind::Int:
    case TyKind::Float: out.push_back(scalarType(l, t)); return true;
    case TyKind::Tuple:
      for (uint32_t i = 0; i < tt.count(t); ++i)
        if (!lowerType(l, tt.elem(t, i), out, at)) return false;
      return true;
    case TyKind::Ref: {
      TypeId inner = tt.resolve(d.a);
      // A shared borrow of a copy value is the value; a mutable one would
      // need a place in memory that scalars do not have in VIR.
      if (d.sub == 1 && tt.kind(inner) != TyKind::Tensor && tt.kind(inner) != TyKind::Vec &&
          tt.kind(inner) != TyKind::Pinned)
        break;
      return lowerType(l, inner, out, at);
    }
    case TyKind::Tensor:
      if (!tensorParts(l, t, shape, elem, /*dynamic=*/true)) break;
      out.push_back(TensorType::get(&l.ctx, shape, elem));
      return true;
    case TyKind::Vec: {
      llvm::SmallVector<mlir::Type, 1> inner;
      TypeId e = tt.resolve(d.a);
      if (tt.kind(e) != TyKind::Tensor || !lowerType(l, e, inner, at)) break;
      out.push_back(VecType::get(&l.ctx, inner[0]));
      return true;
    }
    case TyKind::Pinned:
      if (!tensorParts(l, d.a, shape, elem)) break;
      out.push_back(PinnedType::get(&l.ctx, shape, elem, spaceOf(l, d.b)));
      return true;
    case TyKind::Token: {
      TypeId inner = tt.resolve(d.a);
      if (tt.kind(inner) == TyKind::Void) {
        out.push_back(TokenType::get(&l.ctx, {}, mlir::NoneType::get(&l.ctx), spaceOf(l, d.b)));
        return true;
      }
      if (!tensorParts(l, inner, shape, elem)) break;
      out.push_back(TokenType::get(&l.ctx, shape, elem, spaceOf(l, d.b)));
      return true;
    }
    case TyKind::Error:
    case TyKind::Var:
    case TyKind::IntVar:
    case TyKind::FloatVar: break;
  }
  unsupported(l, at, tt.print(t), "VIR has no representation for values of this type");
  return false;
}

mlir::Type lowerOne(Lower& l, TypeId t, base::Span at) {
  llvm::SmallVector<mlir::Type, 2> ts;
  if (!lowerType(l, t, ts, at)) return {};
  if (ts.size() != 1) {
    unsupported(l, at, l.types().print(t), "a single value is needed here");
    return {};
  }
  return ts[0];
}

unsigned flatCount(Lower& l, TypeId t) {
  llvm::SmallVector<mlir::Type, 2> ts;
  lowerType(l, t, ts, {});
  return static_cast<unsigned>(ts.size());
}

}  // namespace vx::dialect

// Op verifiers: the invariants the language's types guarantee, checked again
// on VIR so that hand-written IR (lit tests) and passes cannot break them.
#include "dialect/VxDialect.h"
#include "target/Target.h"

namespace vx::dialect {

namespace {

struct Shaped {
  llvm::ArrayRef<int64_t> shape;
  mlir::Type elem;
  MemorySpace space = MemorySpace::HBM;
};

Shaped shaped(mlir::Type t) {
  if (auto x = t.dyn_cast<TensorType>()) return {x.getShape(), x.getElementType(), MemorySpace::HBM};
  if (auto x = t.dyn_cast<PinnedType>()) return {x.getShape(), x.getElementType(), x.getSpace()};
  return {};
}

bool sameData(mlir::Type a, mlir::Type b) {
  Shaped x = shaped(a), y = shaped(b);
  return x.shape == y.shape && x.elem == y.elem;
}

mlir::LogicalResult needVmem(mlir::Operation* op, mlir::Type t, llvm::StringRef what) {
  if (shaped(t).space != MemorySpace::VMEM)
    return op->emitOpError() << what << " must be in vmem, found " << t;
  return mlir::success();
}

mlir::LogicalResult needRank(mlir::Operation* op, mlir::Type t, size_t rank, llvm::StringRef what) {
  if (shaped(t).shape.size() != rank)
    return op->emitOpError() << what << " must have rank " << rank << ", found " << t;
  return mlir::success();
}

}  // namespace

mlir::LogicalResult VecGetOp::verify() {
  if (getVec().getType().cast<VecType>().getElementType() != getResult().getType())
    return emitOpError("result type must be the Vec's element type");
  return mlir::success();
}

mlir::LogicalResult SlotOp::verify() {
  Shaped b = shaped(getBase().getType()), r = shaped(getResult().getType());
  if (b.shape.size() < 2) return emitOpError("base must have rank >= 2; index a 1-D tensor with vx.load_elem");
  if (getBase().getType().getTypeID() != getResult().getType().getTypeID() || b.elem != r.elem ||
      b.space != r.space || b.shape.drop_front() != r.shape)
    return emitOpError() << "result must be the base without its leading dimension, found "
                         << getResult().getType();
  return mlir::success();
}

mlir::LogicalResult BlockOp::verify() {
  Shaped b = shaped(getSrc().getType()), r = shaped(getResult().getType());
  if (b.shape.size() != 2 || r.shape.size() != 2) return emitOpError("source and block must have rank 2");
  if (b.elem != r.elem) return emitOpError("the block must have the source's element type");
  for (int64_t d : r.shape)
    if (mlir::ShapedType::isDynamic(d)) return emitOpError("a block has a static shape");
  return mlir::success();
}

mlir::LogicalResult ParallelOp::verify() {
  if (getExtents().empty()) return emitOpError("a grid has at least one extent");
  mlir::Block& body = getBody().front();
  if (body.getNumArguments() != getExtents().size())
    return emitOpError("one block argument per extent, found ") << body.getNumArguments();
  for (mlir::BlockArgument a : body.getArguments())
    if (!a.getType().isIndex()) return emitOpError("the instance's indices are `index`");
  return mlir::success();
}

mlir::LogicalResult LoadElemOp::verify() {
  Shaped b = shaped(getBase().getType());
  if (b.shape.size() != 1) return emitOpError("base must have rank 1");
  if (b.elem != getResult().getType()) return emitOpError("result must be the element type");
  return mlir::success();
}

mlir::LogicalResult StoreElemOp::verify() {
  Shaped b = shaped(getBase().getType());
  if (b.shape.size() != 1) return emitOpError("base must have rank 1");
  if (b.elem != getValue().getType()) return emitOpError("value must have the element type");
  return mlir::success();
}

mlir::LogicalResult TransferOp::verify() {
  if (!sameData(getSrc().getType(), getResult().getType()))
    return emitOpError("source and result must have one shape and element type");
  return mlir::success();
}

mlir::LogicalResult TransferIntoOp::verify() {
  if (!sameData(getSrc().getType(), getDst().getType()))
    return emitOpError("source and destination must have one shape and element type");
  return mlir::success();
}

mlir::LogicalResult TransferAsyncOp::verify() {
  TokenType t = getToken().getType().cast<TokenType>();
  if (t.isVoid() || !sameData(getSrc().getType(), t.getPayload()))
    return emitOpError("the token must carry a buffer of the source's shape and element type");
  return mlir::success();
}

mlir::LogicalResult TransferAsyncIntoOp::verify() {
  TokenType t = getToken().getType().cast<TokenType>();
  if (!t.isVoid()) return emitOpError("the token of a copy into an existing buffer carries no buffer");
  if (!sameData(getSrc().getType(), getDst().getType()))
    return emitOpError("source and destination must have one shape and element type");
  if (t.getSpace() != getDst().getType().cast<PinnedType>().getSpace())
    return emitOpError("the token's memory space must be the destination's");
  return mlir::success();
}

mlir::LogicalResult WaitOp::verify() {
  TokenType t = getToken().getType().cast<TokenType>();
  if (t.isVoid() != !getResult()) return emitOpError("has a result exactly when its token carries a buffer");
  if (getResult() && getResult().getType() != t.getPayload())
    return emitOpError() << "result must be " << t.getPayload();
  return mlir::success();
}

mlir::LogicalResult ReadyOp::verify() {
  TokenType t = getToken().getType().cast<TokenType>();
  if (t.isVoid() != !getValue()) return emitOpError("takes a buffer exactly when its token carries one");
  if (getValue() && getValue().getType() != t.getPayload())
    return emitOpError() << "value must be " << t.getPayload();
  return mlir::success();
}

mlir::LogicalResult StoreOp::verify() {
  if (!sameData(getSrc().getType(), getDst().getType()))
    return emitOpError("source and destination must have one shape and element type");
  return mlir::success();
}

mlir::LogicalResult StoreAsyncOp::verify() {
  TokenType t = getToken().getType().cast<TokenType>();
  if (!t.isVoid() || t.getSpace() != MemorySpace::HBM) return emitOpError("returns a `!vx.token<hbm>`");
  if (!sameData(getSrc().getType(), getDst().getType()))
    return emitOpError("source and destination must have one shape and element type");
  return mlir::success();
}

mlir::LogicalResult MatmulAccOp::verify() {
  if (failed(needRank(*this, getX().getType(), 2, "x"))) return mlir::failure();
  return needVmem(*this, getX().getType(), "x");
}

mlir::LogicalResult LoadWeightsOp::verify() {
  if (failed(needRank(*this, getW().getType(), 2, "w"))) return mlir::failure();
  return needVmem(*this, getW().getType(), "w");
}

mlir::LogicalResult StoreAccOp::verify() {
  if (failed(needRank(*this, getDst().getType(), 2, "dst"))) return mlir::failure();
  if (!shaped(getDst().getType()).elem.isF32()) return emitOpError("dst must hold f32");
  return mlir::success();
}

mlir::LogicalResult MmaOp::verify() {
  for (auto [v, n] : {std::pair{getAcc(), "acc"}, {getA(), "a"}, {getB(), "b"}})
    if (failed(needRank(*this, v.getType(), 2, n)) || failed(needVmem(*this, v.getType(), n)))
      return mlir::failure();
  Shaped acc = shaped(getAcc().getType()), a = shaped(getA().getType()), b = shaped(getB().getType());
  if (!acc.elem.isF32()) return emitOpError("acc must hold f32");
  if (a.elem != b.elem) return emitOpError("a and b must have one element type");
  if (a.shape[0] != acc.shape[0] || b.shape[1] != acc.shape[1] || a.shape[1] != b.shape[0])
    return emitOpError("shapes must be acc[R, N] += a[R, K] @ b[K, N]");
  return mlir::success();
}

namespace {
mlir::LogicalResult verifyElementwise(mlir::Operation* op) {
  mlir::Type r = op->getResult(0).getType();
  for (mlir::Value v : op->getOperands())
    if (v.getType().isa<PinnedType>() && v.getType() != r)
      return op->emitOpError("operands and result must have one type");
  return needVmem(op, r, "result");
}
}  // namespace

mlir::LogicalResult AddOp::verify() { return verifyElementwise(*this); }
mlir::LogicalResult SubOp::verify() { return verifyElementwise(*this); }
mlir::LogicalResult MulOp::verify() { return verifyElementwise(*this); }
mlir::LogicalResult ScaleOp::verify() { return verifyElementwise(*this); }
mlir::LogicalResult ScaleIntoOp::verify() { return needVmem(*this, getY().getType(), "y"); }

namespace {
mlir::LogicalResult needUnaryFn(mlir::Operation* op, llvm::StringRef fn) {
  if (!target::unaryByName(std::string_view(fn.data(), fn.size())))
    return op->emitOpError("`") << fn << "` is not a unary function of src/target/Unary.def";
  return mlir::success();
}
}  // namespace

BroadcastSide broadcastSide(mlir::Type operand, mlir::Type result) {
  if (operand == result) return BroadcastSide::Whole;
  Shaped o = shaped(operand), r = shaped(result);
  return o.shape[0] == r.shape[0] && o.shape[1] == 1 ? BroadcastSide::Column : BroadcastSide::Row;
}

mlir::LogicalResult BroadcastOp::verify() {
  if (getOp() != "add" && getOp() != "sub" && getOp() != "mul" && getOp() != "div" && getOp() != "max" &&
      getOp() != "min")
    return emitOpError("op must be add, sub, mul, div, max or min");
  for (auto [v, n] : {std::pair{getLhs(), "lhs"}, {getRhs(), "rhs"}, {getResult(), "result"}})
    if (failed(needRank(*this, v.getType(), 2, n)) || failed(needVmem(*this, v.getType(), n))) return mlir::failure();
  Shaped r = shaped(getResult().getType());
  for (mlir::Value v : {getLhs(), getRhs()}) {
    Shaped x = shaped(v.getType());
    bool ok = x.elem == r.elem && ((x.shape[0] == r.shape[0] && (x.shape[1] == r.shape[1] || x.shape[1] == 1)) ||
                                   (x.shape[0] == 1 && x.shape[1] == r.shape[1]));
    if (!ok) return emitOpError("each operand must be the result's shape, its column [R, 1] or its row [1, C]");
  }
  return mlir::success();
}

mlir::LogicalResult CastOp::verify() {
  if (failed(needVmem(*this, getX().getType(), "x")) || failed(needVmem(*this, getResult().getType(), "result")))
    return mlir::failure();
  if (shaped(getX().getType()).shape != shaped(getResult().getType()).shape)
    return emitOpError("x and the result must have one shape");
  return mlir::success();
}

mlir::LogicalResult TransposeOp::verify() {
  if (failed(needRank(*this, getX().getType(), 2, "x")) || failed(needVmem(*this, getX().getType(), "x")) ||
      failed(needRank(*this, getResult().getType(), 2, "result")) ||
      failed(needVmem(*this, getResult().getType(), "result")))
    return mlir::failure();
  Shaped x = shaped(getX().getType()), r = shaped(getResult().getType());
  if (x.elem != r.elem || x.shape[0] != r.shape[1] || x.shape[1] != r.shape[0])
    return emitOpError("the result must be x [R, C] as [C, R] of x's element type");
  return mlir::success();
}

mlir::LogicalResult UnaryOp::verify() {
  if (failed(needUnaryFn(*this, getFn()))) return mlir::failure();
  return verifyElementwise(*this);
}
mlir::LogicalResult UnaryIntoOp::verify() {
  if (failed(needUnaryFn(*this, getFn()))) return mlir::failure();
  return needVmem(*this, getDst().getType(), "dst");
}
mlir::LogicalResult FillOp::verify() { return needVmem(*this, getDst().getType(), "dst"); }
mlir::LogicalResult CopyIntoOp::verify() { return needVmem(*this, getDst().getType(), "dst"); }
mlir::LogicalResult RowReduceOp::verify() {
  if (getKind() != "max" && getKind() != "sum") return emitOpError("kind must be `max` or `sum`");
  if (failed(needRank(*this, getX().getType(), 2, "x")) || failed(needVmem(*this, getX().getType(), "x")) ||
      failed(needVmem(*this, getResult().getType(), "result")))
    return mlir::failure();
  Shaped x = shaped(getX().getType()), r = shaped(getResult().getType());
  if (r.elem != x.elem || r.shape.size() != 2 || r.shape[0] != x.shape[0] || r.shape[1] != 1)
    return emitOpError("the result must be x's rows as one column: [R, 1] of x's element type");
  return mlir::success();
}

std::string dbgTypeText(mlir::Type pinned) {
  Shaped s = shaped(pinned);
  mlir::Type e = s.elem;
  std::string text = !e                ? "?"
                     : e.isF32()       ? "f32"
                     : e.isF64()       ? "f64"
                     : e.isBF16()      ? "bf16"
                     : e.isF16()       ? "f16"
                     : e.isInteger(32) ? "i32"
                     : e.isInteger(64) ? "i64"
                                       : "?";
  text += "[";
  for (size_t i = 0; i < s.shape.size(); ++i) text += (i ? ", " : "") + std::to_string(s.shape[i]);
  return text + "]";
}

mlir::LogicalResult DbgOp::verify() {
  mlir::Type t = getX().getType();
  llvm::StringRef k = getKind();
  if (k == "tensor") {
    if (!t.isa<PinnedType>()) return emitOpError("kind `tensor` prints an on-chip buffer");
    return mlir::success();
  }
  if (k == "float") return t.isa<mlir::FloatType>() ? mlir::success() : emitOpError("kind `float` prints a float");
  if (k == "int" || k == "uint" || k == "bool")
    return t.isa<mlir::IntegerType, mlir::IndexType>() ? mlir::success()
                                                        : emitOpError("kind `" + k + "` prints an integer");
  return emitOpError("kind must be int, uint, bool, float or tensor");
}

}  // namespace vx::dialect

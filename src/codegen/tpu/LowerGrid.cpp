// grid.md on the tpu target: blocks of HBM tensors as strided views (copied
// with dma.strided), and the launch grid as an SPMD loop: every core runs
// the program and takes instances core.id, core.id + core.count, ...
#include "codegen/tpu/LowerImpl.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace vx::codegen::tpu {

using isa::Op;
using namespace vx::dialect;

namespace {

// Traps (block out of bounds) unless lo + size <= limit. Indices are
// unsigned (at most 2^63 - 1 on this target), so limit - size cannot wrap.
void checkFits(Lowering& l, const Val& lo, int64_t size, const Val& limit) {
  int trap = l.trap(TrapKind::BlockOutOfBounds);
  if (lo.isConst && limit.isConst) {
    if (lo.c < 0 || size > limit.c || lo.c > limit.c - size) l.emit(Op::Jmp, {Lbl(trap)});
    return;
  }
  // An offset at or past 2^63 is a negative register: out of bounds too.
  if (!lo.nonneg) {
    if (lo.isConst) {
      if (lo.c < 0) l.emit(Op::Jmp, {Lbl(trap)});
    } else {
      l.emit(Op::Blt, {R(l.reg(lo)), XI(0), Lbl(trap)});
    }
  }
  int room = l.fresh();
  if (limit.isConst) l.emit(Op::Li, {R(room), I(limit.c - size)});
  else l.emit(Op::Sub, {R(room), R(l.reg(limit)), XI(size)});
  l.emit(Op::Blt, {R(room), l.x(lo), Lbl(trap)});
}

// place.off / offVreg += idx * stride (a stride in bytes: constant or register).
void addScaled(Lowering& l, Val& place, const Val& idx, int64_t strideC, int strideVreg) {
  if (idx.isConst && strideVreg < 0) {
    place.off += idx.c * strideC;
    return;
  }
  if (idx.isConst && idx.c == 0) return;
  int t = l.fresh();
  l.emit(Op::Mul, {R(t), R(l.reg(idx)), strideVreg >= 0 ? XR(strideVreg) : XI(strideC)});
  if (place.offVreg >= 0) {
    int sum = l.fresh();
    l.emit(Op::Add, {R(sum), R(place.offVreg), XR(t)});
    t = sum;
  }
  place.offVreg = t;
}

// Whether `op`'s region, or a function it calls, uses the matrix unit's
// state across instructions (weights latched, an accumulator filled).
bool usesMatrixState(mlir::ModuleOp module, mlir::Operation* op, llvm::DenseSet<mlir::Operation*>& seen) {
  bool found = false;
  op->walk([&](mlir::Operation* x) {
    if (found) return;
    if (mlir::isa<LoadWeightsOp, MatmulAccOp, StoreAccOp>(x)) found = true;
    if (auto call = mlir::dyn_cast<mlir::func::CallOp>(x))
      if (auto f = module.lookupSymbol<mlir::func::FuncOp>(call.getCallee()); f && seen.insert(f.getOperation()).second)
        found = usesMatrixState(module, f.getOperation(), seen);
  });
  return found;
}

}  // namespace

MOp strideOp(const Val& v) { return v.strideVreg >= 0 ? XR(v.strideVreg) : XI(v.strideC); }

MInstr& startCopy(Lowering& l, const Val& src, const Val& dst, int64_t bytes, const Val& token) {
  if (src.viewRows == 0 && dst.viewRows == 0)
    return l.emit(Op::DmaStart, {l.memOp(src), l.memOp(dst), XI(bytes), l.semOp(token)});
  const Val& view = src.viewRows ? src : dst;
  const int64_t rowBytes = view.viewRowBytes;
  return l.emit(Op::DmaStrided, {l.memOp(src), l.memOp(dst), XI(view.viewRows), XI(rowBytes),
                                 src.viewRows ? strideOp(src) : XI(rowBytes), dst.viewRows ? strideOp(dst) : XI(rowBytes),
                                 l.semOp(token)});
}

void lowerBlockView(Lowering& l, BlockOp b) {
  mlir::Location at = b.getLoc();
  Val src = l.lookup(b.getSrc()), r = l.lookup(b.getRow()), c = l.lookup(b.getCol());
  Val rows = l.lookup(b.getRows()), cols = l.lookup(b.getCols());
  isa::DType dt;
  int64_t eb;
  if (l.failed || !tensorInfo(l, b.getResult().getType(), at, dt, eb)) return;
  llvm::ArrayRef<int64_t> shape = b.getResult().getType().cast<TensorType>().getShape();
  if (shape.size() != 2 || shape[0] < 1 || shape[1] < 1)
    return l.fail(at, "a block that is not [R, C]", "blocks are two-dimensional with static sizes");
  const int64_t bRows = shape[0], bCols = shape[1];
  if (b.getChecked()) {  // the checker could not prove it in bounds (E6009)
    checkFits(l, r, bRows, rows);
    checkFits(l, c, bCols, cols);
  }
  Val v = src;
  // The row stride in bytes: the source view's, else a row of the source.
  if (src.viewRows == 0) {
    v.strideVreg = -1;
    if (cols.isConst) {
      v.strideC = cols.c * eb;
    } else {
      v.strideVreg = l.fresh();
      l.emit(Op::Mul, {R(v.strideVreg), R(l.reg(cols)), XI(eb)});
    }
  }
  addScaled(l, v, r, v.strideC, v.strideVreg);
  addScaled(l, v, c, eb, -1);
  v.viewRows = bRows;
  v.viewRowBytes = bCols * eb;
  // One row, or rows that follow each other: a contiguous place.
  if (bRows == 1 || (v.strideVreg < 0 && v.strideC == bCols * eb)) {
    v.viewRows = v.viewRowBytes = v.strideC = 0;
    v.strideVreg = -1;
  }
  l.define(b.getResult(), v);
}

Val stridedRow(Lowering& l, const Val& view, const Val& idx, int64_t rows) {
  int trap = l.trap(TrapKind::IndexOutOfBounds);
  if (idx.isConst) {
    if (idx.c < 0 || idx.c >= rows) l.emit(Op::Jmp, {Lbl(trap)});
  } else {
    int i = l.reg(idx);
    if (!idx.nonneg) l.emit(Op::Blt, {R(i), XI(0), Lbl(trap)});
    if (!(idx.nonneg && idx.ub >= 0 && idx.ub <= rows)) l.emit(Op::Bge, {R(i), XI(rows), Lbl(trap)});
  }
  Val v = view;
  addScaled(l, v, idx, view.strideC, view.strideVreg);
  v.viewRows = v.viewRowBytes = v.strideC = 0;
  v.strideVreg = -1;
  return v;
}

// for (inst = core.id; inst < e0 * e1 * ...; inst += core.count) { the
// instance (i, j, ...) of `inst`, the last index fastest, as on the cpu }.
void lowerParallel(Lowering& l, ParallelOp p) {
  mlir::Location at = p.getLoc();
  if (l.spmd || l.inGrid || !l.loopStack.empty())
    return l.fail(at, "a grid that is not the one statement of its kind in the kernel's body",
                  "the cores run the kernel's body once; a grid is its top-level statement (E0209)");
  l.spmd = true;
  std::vector<Val> ext;
  for (mlir::Value v : p.getExtents()) ext.push_back(l.lookup(v));
  if (l.failed) return;
  // An extent at or past 2^63 (a negative register) traps, as every
  // unsigned value there does; so does a product past 2^63, like `*`.
  for (const Val& e : ext) {
    if (e.nonneg || (e.isConst && e.c >= 0)) continue;
    if (e.isConst) l.emit(Op::Jmp, {Lbl(l.trap(TrapKind::IntegerOverflow))});
    else l.emit(Op::Blt, {R(l.reg(e)), XI(0), Lbl(l.trap(TrapKind::IntegerOverflow))});
  }
  Val total = ext[0];
  for (size_t d = 1; d < ext.size(); ++d) {
    const Val& e = ext[d];
    if (total.isConst && e.isConst && total.c >= 0 && e.c >= 0 &&
        (e.c == 0 || total.c <= INT64_MAX / e.c)) {
      total.c *= e.c;
      continue;
    }
    int a = l.reg(total), b = l.reg(e), prod = l.fresh();
    int trap = l.trap(TrapKind::IntegerOverflow), ok = l.newLabel();
    l.emit(Op::Mul, {R(prod), R(a), XR(b)});
    l.emit(Op::Beq, {R(a), XI(0), Lbl(ok)});
    int q = l.fresh();
    l.emit(Op::Blt, {R(prod), XI(0), Lbl(trap)});
    l.emit(Op::Div, {R(q), R(prod), XR(a)});
    l.emit(Op::Bne, {R(q), XR(b), Lbl(trap)});
    l.bind(ok);
    total = Val{};
    total.kind = Val::Kind::Int;
    total.vreg = prod;
    total.nonneg = true;
  }
  // Extents in registers once: every instance divides by them.
  std::vector<MOp> by;
  for (const Val& e : ext) by.push_back(e.isConst ? XI(e.c) : XR(l.reg(e)));
  MOp bound = l.x(total);
  int core = l.fresh(), count = l.fresh(), inst = l.fresh();
  l.emit(Op::CoreId, {R(core)});
  l.emit(Op::CoreCount, {R(count)});
  l.emit(Op::Mov, {R(inst), XR(core)});
  int id = startLoop(l);
  int top = l.newLabel(), exit = l.newLabel();
  mlir::Block& body = p.getBody().front();
  l.emit(Op::Bge, {R(inst), bound, Lbl(exit)});
  std::vector<std::pair<mlir::Value, Val>> saved = hoist(l, p.getOperation(), body);
  if (l.failed) return;
  l.setLoc(at);
  head(l, id, top);
  l.loopStack.push_back(id);
  l.inGrid = true;
  // vxsim's race detector tells instances apart by this, not by core.
  l.emit(Op::GridInstance, {XR(inst)});
  llvm::DenseSet<mlir::Operation*> seen;
  if (usesMatrixState(l.module, p.getOperation(), seen)) l.emit(Op::MxuReset, {});  // each instance has its own unit
  int q = inst;
  for (size_t d = ext.size(); d-- > 0;) {
    Val idx;
    idx.kind = Val::Kind::Int;
    idx.nonneg = true;
    idx.belowMax = true;
    if (ext[d].isConst) idx.ub = ext[d].c;
    if (d == 0) {
      idx.vreg = q;
    } else {
      idx.vreg = l.fresh();
      l.emit(Op::Rem, {R(idx.vreg), R(q), by[d]});
      int next = l.fresh();
      l.emit(Op::Div, {R(next), R(q), by[d]});
      q = next;
    }
    l.define(body.getArgument(static_cast<unsigned>(d)), idx);
  }
  l.lowerBlock(body);
  if (l.failed) return;
  l.setLoc(at);
  l.emit(Op::Add, {R(inst), R(inst), XR(count)});
  countTrip(l, id);
  l.emit(Op::Blt, {R(inst), bound, Lbl(top)});
  l.inGrid = false;
  l.loopStack.pop_back();
  for (mlir::Operation& op : body.without_terminator()) l.hoisted.erase(&op);
  for (auto& [v, x] : saved) l.define(v, x);
  l.bind(exit);
}

}  // namespace vx::codegen::tpu

// vx ops -> DMA, matrix-unit and vector-unit instructions. Every on-chip
// buffer an op makes is a site (placed later); every token gets a semaphore
// site; both are "born" at the instruction that first writes them.
#include "codegen/tpu/LowerImpl.h"

namespace vx::codegen::tpu {

using isa::Op;
using isa::OperandKind;
using namespace vx::dialect;

namespace {

constexpr int64_t kMxuDim = 128;      // vxsim's mxu_dim
constexpr int64_t kAccRows = 2048;    // vxsim's acc_rows
constexpr int64_t kMaxTileDim = isa::kMaxTileDim;

mlir::Type elementOf(mlir::Type t) {
  if (auto x = t.dyn_cast<TensorType>()) return x.getElementType();
  if (auto x = t.dyn_cast<PinnedType>()) return x.getElementType();
  if (auto x = t.dyn_cast<TokenType>()) return x.getElementType();
  return {};
}

llvm::ArrayRef<int64_t> shapeOf(mlir::Type t) {
  if (auto x = t.dyn_cast<TensorType>()) return x.getShape();
  if (auto x = t.dyn_cast<PinnedType>()) return x.getShape();
  if (auto x = t.dyn_cast<TokenType>()) return x.getShape();
  return {};
}

// -1 for a shape with run-time extents.
int64_t elements(mlir::Type t) {
  int64_t n = 1;
  for (int64_t d : shapeOf(t)) {
    if (d < 0) return -1;
    n *= d;
  }
  return n;
}

// Copies move whole tensors of known size: a tensor with run-time extents
// moves in blocks.
bool staticCopy(Lowering& l, mlir::Operation* op) {
  for (mlir::Type t : op->getOperandTypes())
    if (elements(t) < 0 && !t.isa<TokenType>()) {
      l.fail(op->getLoc(), "a copy of a whole tensor with run-time extents",
             "its size is known only at run time; copy blocks of it (`block::<[R, C]>(...)`)");
      return false;
    }
  return true;
}

std::string elemName(mlir::Type e) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << e;
  return os.str();
}

// The pseudo value `v` is born at the last instruction emitted.
void born(Lowering& l, int pseudo, std::initializer_list<int> sites) {
  MInstr& in = l.m.code.back();
  in.pdefs.push_back(pseudo);
  for (int s : sites) {
    if (s < 0) continue;
    l.m.sites[s].root = pseudo;
    l.m.sites[s].defInstr = static_cast<int>(l.m.code.size() - 1);
  }
}

void uses(Lowering& l, std::initializer_list<const Val*> vals) {
  MInstr& in = l.m.code.back();
  for (const Val* v : vals)
    if (v->pseudo >= 0) in.puses.push_back(v->pseudo);
}

bool onChip(Lowering& l, const Val& v) { return v.buffer >= 0 && l.m.buffers[v.buffer].space != isa::Space::Hbm; }

// A compute operand must be a VMEM tile.
bool needVmem(Lowering& l, const Val& v, mlir::Location at) {
  if (v.kind == Val::Kind::Place && v.buffer >= 0 && l.m.buffers[v.buffer].space == isa::Space::Vmem) return true;
  l.fail(at, "compute on a buffer outside Memory::VMEM",
         "the TensorCore's vector and matrix units read and write VMEM only");
  return false;
}

bool dimsFit(Lowering& l, mlir::Type t, mlir::Location at) {
  auto [r, c] = tileDims(t);
  if (r <= kMaxTileDim && c <= kMaxTileDim) return true;
  l.fail(at, "a tile of " + std::to_string(r) + " x " + std::to_string(c) + " elements",
         "a vector or matrix instruction takes at most 2^20 rows and 2^20 columns");
  return false;
}

// A semaphore site plus the token's pseudo value, for a DMA about to start.
Val newToken(Lowering& l, bool rotating, const std::string& what) {
  Val t;
  t.kind = Val::Kind::Token;
  t.semSite = l.newSite(Site::Kind::Semaphore, -1, 1, what, rotating);
  t.semVreg = l.m.sites[t.semSite].semVreg;
  t.pseudo = l.newPseudo();
  return t;
}

// dma.start + dma.wait on a semaphore of its own: a blocking copy. `fresh`:
// the destination is a new buffer, born by this copy.
void blockingCopy(Lowering& l, const Val& src, const Val& dst, int64_t bytes, const std::string& what, bool fresh) {
  Val t = newToken(l, false, what);
  startCopy(l, src, dst, bytes, t);
  uses(l, {&src});
  if (!fresh) uses(l, {&dst});
  born(l, t.pseudo, {t.semSite});
  if (fresh) born(l, dst.pseudo, {dst.site});
  l.emit(Op::DmaWait, {l.semOp(t)});
  uses(l, {&t, &dst});
}

// A temporary VMEM f32 buffer of `bytes` for the matrix unit's results.
Val stage(Lowering& l, int64_t bytes, const std::string& what) {
  Val s;
  s.kind = Val::Kind::Place;
  s.buffer = l.arena(isa::Space::Vmem, isa::DType::F32);
  s.site = l.newSite(Site::Kind::Memory, s.buffer, bytes, what, false);
  s.pseudo = l.newPseudo();
  return s;
}

// The byte offset idx * stride, after a trap unless 0 <= idx < limit: a
// constant (returned), or a new register (offVreg). A Vec's limit is its
// length, so the product stays inside its HBM buffer and cannot wrap.
int64_t checkedIndexBytes(Lowering& l, const Val& idx, int64_t stride, const Val& limit, int& offVreg) {
  auto trap = [&] { return Lbl(l.trap(TrapKind::IndexOutOfBounds)); };
  if (idx.isConst) {
    if (idx.c < 0 || idx.c > INT64_MAX / stride || (limit.isConst && idx.c >= limit.c)) {
      l.emit(Op::Jmp, {trap()});
      return 0;
    }
    if (!limit.isConst) l.emit(Op::Blt, {R(l.reg(limit)), XI(idx.c + 1), trap()});
    return idx.c * stride;
  }
  int r = l.reg(idx);
  if (!idx.nonneg) l.emit(Op::Blt, {R(r), XI(0), trap()});
  if (!limit.isConst) l.emit(Op::Bge, {R(r), XR(l.reg(limit)), trap()});
  else if (!(idx.nonneg && idx.ub >= 0 && idx.ub <= limit.c)) l.emit(Op::Bge, {R(r), XI(limit.c), trap()});
  offVreg = l.fresh();
  l.emit(Op::Mul, {R(offVreg), R(r), XI(stride)});
  return 0;
}

Val lengthOf(const Val& vec) {
  Val n;
  n.kind = Val::Kind::Int;
  n.param = vec.vreg >= 0 ? -1 : vec.lenParam;
  n.vreg = vec.vreg;  // a Vec's length, once loaded (loops load it before their first trip)
  n.nonneg = true;
  return n;
}

void lowerView(Lowering& l, mlir::Operation* op) {
  mlir::Location at = op->getLoc();
  if (auto g = mlir::dyn_cast<VecGetOp>(op)) {
    Val vec = l.lookup(g.getVec()), idx = l.lookup(g.getIndex());
    if (l.failed) return;
    Val p;
    p.kind = Val::Kind::Place;
    p.buffer = vec.buffer;
    p.off = checkedIndexBytes(l, idx, vec.elemBytes, lengthOf(vec), p.offVreg);
    l.define(g.getResult(), p);
    return;
  }
  auto s = mlir::cast<SlotOp>(op);
  Val base = l.lookup(s.getBase()), idx = l.lookup(s.getIndex());
  isa::DType dt;
  int64_t eb;
  if (l.failed || !tensorInfo(l, s.getResult().getType(), at, dt, eb)) return;
  if (base.viewRows > 0) {  // a row of a block
    l.define(s.getResult(), stridedRow(l, base, idx, shapeOf(s.getBase().getType())[0]));
    return;
  }
  int64_t slice = elements(s.getResult().getType()) * eb;
  int64_t dim0 = shapeOf(s.getBase().getType())[0];
  if (slice < 0 || dim0 < 0)  // run-time extents (the lowering to VIR refuses them first)
    return l.fail(at, "an index into a tensor with run-time extents", "tpu slots are constant strides");
  Val v = base, limit;
  limit.kind = Val::Kind::Int;
  limit.isConst = true;
  limit.c = dim0;
  int r = -1;
  v.off += checkedIndexBytes(l, idx, slice, limit, r);
  if (r >= 0 && base.offVreg >= 0) l.emit(Op::Add, {R(r), R(r), XR(base.offVreg)});
  if (r >= 0) v.offVreg = r;
  l.define(s.getResult(), v);  // a view: same buffer, same liveness variable
}

void lowerTransfer(Lowering& l, mlir::Operation* op) {
  mlir::Location at = op->getLoc();
  if (!staticCopy(l, op)) return;
  if (auto t = mlir::dyn_cast<TransferOp>(op)) {
    Val src = l.lookup(t.getSrc());
    isa::DType dt;
    int64_t eb;
    if (l.failed || !tensorInfo(l, t.getResult().getType(), at, dt, eb)) return;
    Val dst = newBuffer(l, t.getResult().getType(), at, "transfer");
    if (l.failed) return;
    blockingCopy(l, src, dst, elements(t.getResult().getType()) * eb, "transfer", true);
    l.define(t.getResult(), dst);
    return;
  }
  if (auto t = mlir::dyn_cast<TransferIntoOp>(op)) {
    Val src = l.lookup(t.getSrc()), dst = l.lookup(t.getDst());
    isa::DType dt;
    int64_t eb;
    if (l.failed || !tensorInfo(l, t.getDst().getType(), at, dt, eb)) return;
    blockingCopy(l, src, dst, elements(t.getDst().getType()) * eb, "transfer_into", false);
    return;
  }
  if (auto t = mlir::dyn_cast<StoreOp>(op)) {
    Val src = l.lookup(t.getSrc()), dst = l.lookup(t.getDst());
    isa::DType dt;
    int64_t eb;
    if (l.failed || !tensorInfo(l, t.getDst().getType(), at, dt, eb)) return;
    if (elementOf(t.getSrc().getType()) != elementOf(t.getDst().getType()))
      return l.fail(at, "a store that converts element types", "a DMA copies bytes; convert in VMEM first");
    blockingCopy(l, src, dst, elements(t.getDst().getType()) * eb, "store", false);
    return;
  }
  // The asynchronous copies: a semaphore site that rotates in loops.
  Val src, dst, tok;
  int64_t bytes = 0;
  isa::DType dt;
  int64_t eb;
  if (auto t = mlir::dyn_cast<TransferAsyncOp>(op)) {
    src = l.lookup(t.getSrc());
    mlir::Type payload = t.getToken().getType().cast<TokenType>().getPayload();
    if (l.failed || !tensorInfo(l, payload, at, dt, eb)) return;
    tok = newToken(l, true, "transfer_async");
    dst = newBuffer(l, payload, at, "transfer_async");
    if (l.failed) return;
    bytes = elements(payload) * eb;
    tok.hasPayload = true;
    tok.buffer = dst.buffer;
    tok.site = dst.site;
    tok.off = dst.off;
    tok.offVreg = dst.offVreg;
    startCopy(l, src, dst, bytes, tok);
    uses(l, {&src});
    born(l, tok.pseudo, {tok.semSite, dst.site});
    if (onChip(l, src)) l.edge(src.pseudo, tok.pseudo, Edge::Kind::Pin);
    l.define(t.getToken(), tok);
    return;
  }
  mlir::Value result;
  if (auto t = mlir::dyn_cast<TransferAsyncIntoOp>(op)) {
    src = l.lookup(t.getSrc());
    dst = l.lookup(t.getDst());
    if (l.failed || !tensorInfo(l, t.getDst().getType(), at, dt, eb)) return;
    bytes = elements(t.getDst().getType()) * eb;
    tok = newToken(l, true, "transfer_async_into");
    result = t.getToken();
  } else {
    auto s = mlir::cast<StoreAsyncOp>(op);
    src = l.lookup(s.getSrc());
    dst = l.lookup(s.getDst());
    if (l.failed || !tensorInfo(l, s.getDst().getType(), at, dt, eb)) return;
    if (elementOf(s.getSrc().getType()) != elementOf(s.getDst().getType()))
      return l.fail(at, "a store that converts element types", "a DMA copies bytes; convert in VMEM first");
    bytes = elements(s.getDst().getType()) * eb;
    tok = newToken(l, true, "store_async");
    result = s.getToken();
  }
  startCopy(l, src, dst, bytes, tok);
  uses(l, {&src, &dst});
  born(l, tok.pseudo, {tok.semSite});
  // The token keeps both ends of its DMA allocated until it is waited.
  if (onChip(l, src)) l.edge(src.pseudo, tok.pseudo, Edge::Kind::Pin);
  if (onChip(l, dst)) l.edge(dst.pseudo, tok.pseudo, Edge::Kind::Pin);
  l.define(result, tok);
}

void lowerWait(Lowering& l, WaitOp w) {
  Val tok = l.lookup(w.getToken());
  if (l.failed) return;
  if (tok.ready) l.marker();
  else l.emit(Op::DmaWait, {l.semOp(tok)});
  uses(l, {&tok});
  if (tok.pseudo >= 0) l.m.code.back().pkills.push_back(tok.pseudo);
  if (!w.getResult()) return;
  Val p;
  p.kind = Val::Kind::Place;
  p.buffer = tok.buffer;
  p.site = tok.site;
  p.off = tok.off;
  p.offVreg = tok.offVreg;
  p.pseudo = l.newPseudo();
  l.m.code.back().pdefs.push_back(p.pseudo);
  l.edge(tok.pseudo, p.pseudo, Edge::Kind::Payload);
  l.define(w.getResult(), p);
}

void lowerReady(Lowering& l, ReadyOp r) {
  Val t;
  t.kind = Val::Kind::Token;
  t.ready = true;
  t.pseudo = l.newPseudo();
  l.marker();
  if (r.getValue()) {
    Val v = l.lookup(r.getValue());
    if (l.failed) return;
    t.hasPayload = true;
    t.buffer = v.buffer;
    t.site = v.site;
    t.off = v.off;
    t.offVreg = v.offVreg;
    uses(l, {&v});
    l.edge(v.pseudo, t.pseudo, Edge::Kind::Pin);
  }
  l.m.code.back().pdefs.push_back(t.pseudo);
  l.define(r.getToken(), t);
}

void lowerMatrix(Lowering& l, mlir::Operation* op) {
  mlir::Location at = op->getLoc();
  if (auto w = mlir::dyn_cast<LoadWeightsOp>(op)) {
    Val v = l.lookup(w.getW());
    auto [k, n] = tileDims(w.getW().getType());
    if (l.failed || !needVmem(l, v, at)) return;
    if (k > kMxuDim || n > kMxuDim)
      return l.fail(at, "weights of " + std::to_string(k) + " x " + std::to_string(n),
                    "the matrix unit latches at most 128 x 128 weights");
    if (l.latched && *l.latched != std::make_pair(k, n))
      return l.fail(at, "weights of two shapes in one kernel",
                    "the accumulator's columns follow the weights; latch one shape");
    l.latched = std::make_pair(k, n);
    l.weightsSure = true;
    if (!l.firstImplicit) l.firstImplicit = at;
    l.emit(Op::MxuLatch, {l.memOp(v, OperandKind::Tile), Dims(k, n)});
    uses(l, {&v});
    return;
  }
  if (auto mm = mlir::dyn_cast<MatmulAccOp>(op)) {
    Val v = l.lookup(mm.getX());
    auto [rows, k] = tileDims(mm.getX().getType());
    if (l.failed || !needVmem(l, v, at)) return;
    if (rows > kAccRows)
      return l.fail(at, "matmul_acc of " + std::to_string(rows) + " rows", "the accumulator holds 2048 rows");
    if (l.accRows >= 0 && l.accRows != rows)
      return l.fail(at, "matmul_acc on tiles of two row counts", "the accumulator keeps one shape");
    l.accRows = rows;
    l.matmulKs.push_back({k, at, l.weightsSure});
    if (!l.firstImplicit) l.firstImplicit = at;
    l.emit(Op::MxuMatmul, {l.memOp(v, OperandKind::Tile), Dims(rows, k)});
    uses(l, {&v});
    // A grid instance's matrix unit is its own: the kernel's accumulator is
    // never the result of a kernel with a grid (the cpu target's neither).
    if (!l.hasOutputs && !l.inGrid) {
      if (l.accFlag < 0) l.accFlag = l.smemWord("acc_used");
      l.emit(Op::StSmem, {Word(l.accFlag), XI(1)});
    }
    return;
  }
  if (auto s = mlir::dyn_cast<StoreAccOp>(op)) {
    Val dst = l.lookup(s.getDst());
    auto [rows, n] = tileDims(s.getDst().getType());
    if (l.failed || !staticCopy(l, op) || !dimsFit(l, s.getDst().getType(), at)) return;
    if (rows > kAccRows) return l.fail(at, "store_acc of " + std::to_string(rows) + " rows", "the accumulator holds 2048 rows");
    l.storeNs.push_back({n, at, l.weightsSure});
    if (!l.firstImplicit) l.firstImplicit = at;
    int64_t bytes = rows * n * 4;
    Val st = stage(l, bytes, "store_acc");
    Val t = newToken(l, false, "store_acc");
    l.emit(Op::MxuPop, {l.memOp(st, OperandKind::Tile), Dims(rows, n)});
    born(l, st.pseudo, {st.site, t.semSite});
    startCopy(l, st, dst, bytes, t);
    uses(l, {&st});
    l.emit(Op::DmaWait, {l.semOp(t)});
    uses(l, {&st});
    return;
  }
  auto mma = mlir::cast<MmaOp>(op);
  Val acc = l.lookup(mma.getAcc()), a = l.lookup(mma.getA()), b = l.lookup(mma.getB());
  auto [rows, n] = tileDims(mma.getAcc().getType());
  auto [k, n2] = tileDims(mma.getB().getType());
  if (l.failed || !needVmem(l, acc, at) || !needVmem(l, a, at) || !needVmem(l, b, at)) return;
  if (k > kMxuDim || n2 > kMxuDim || rows > kAccRows)
    return l.fail(at, "mma of " + std::to_string(rows) + " x " + std::to_string(k) + " by " + std::to_string(k) + " x " +
                          std::to_string(n2),
                  "the matrix unit takes at most 128 x 128 weights and 2048 rows");
  if (!l.firstMma) l.firstMma = at;
  // acc += a @ b: latch b, multiply into the (empty) accumulator, pop, add.
  Val st = stage(l, rows * n * 4, "mma");
  l.emit(Op::MxuLatch, {l.memOp(b, OperandKind::Tile), Dims(k, n2)});
  uses(l, {&b});
  l.emit(Op::MxuMatmul, {l.memOp(a, OperandKind::Tile), Dims(rows, k)});
  uses(l, {&a});
  l.emit(Op::MxuPop, {l.memOp(st, OperandKind::Tile), Dims(rows, n)});
  born(l, st.pseudo, {st.site});
  l.emit(Op::VecAdd, {l.memOp(acc, OperandKind::Tile), l.memOp(acc, OperandKind::Tile), l.memOp(st, OperandKind::Tile),
                      Dims(rows, n)});
  uses(l, {&acc, &st});
}

void lowerElementwise(Lowering& l, mlir::Operation* op) {
  mlir::Location at = op->getLoc();
  mlir::Type t = op->getResult(0).getType();
  std::vector<Val> in;
  for (mlir::Value v : op->getOperands()) in.push_back(l.lookup(v));
  if (l.failed || !dimsFit(l, t, at)) return;
  auto [r, c] = tileDims(t);
  if (mlir::isa<ZerosOp>(op)) {
    Val dst = newBuffer(l, t, at, "zeros");
    if (l.failed || !needVmem(l, dst, at)) return;
    l.emit(Op::VecZero, {l.memOp(dst, OperandKind::Tile), Dims(r, c)});
    born(l, dst.pseudo, {dst.site});
    l.define(op->getResult(0), dst);
    return;
  }
  for (const Val& v : in)
    if (v.kind == Val::Kind::Place && !needVmem(l, v, at)) return;
  std::string what = op->getName().stripDialect().str();
  Val dst = newBuffer(l, t, at, what);
  if (l.failed) return;
  MOp d = l.memOp(dst, OperandKind::Tile);
  if (mlir::isa<AddOp, SubOp, MulOp>(op)) {
    Op o = mlir::isa<AddOp>(op) ? Op::VecAdd : mlir::isa<SubOp>(op) ? Op::VecSub : Op::VecMul;
    l.emit(o, {d, l.memOp(in[0], OperandKind::Tile), l.memOp(in[1], OperandKind::Tile), Dims(r, c)});
  } else {
    if (in[1].kind != Val::Kind::Float || !in[1].isConst)
      return l.fail(at, "scale by a factor known only at run time",
                    "`vec.scale` takes its factor as an immediate; the tpu target has no scalar float unit");
    l.emit(Op::VecScale, {d, l.memOp(in[0], OperandKind::Tile), Flt(static_cast<float>(in[1].f)), Dims(r, c)});
  }
  uses(l, {&in[0]});
  if (in.size() > 1) uses(l, {&in[1]});
  born(l, dst.pseudo, {dst.site});
  l.define(op->getResult(0), dst);
}

Op unaryOpcode(target::UnaryFn f) {
  switch (f) {
    case target::UnaryFn::Exp: return Op::VecExp;
    case target::UnaryFn::Log: return Op::VecLog;
    case target::UnaryFn::Sqrt: return Op::VecSqrt;
    case target::UnaryFn::Rsqrt: return Op::VecRsqrt;
    case target::UnaryFn::Tanh: return Op::VecTanh;
    case target::UnaryFn::Abs: return Op::VecAbs;
    case target::UnaryFn::Neg: return Op::VecNeg;
    case target::UnaryFn::Relu: return Op::VecRelu;
  }
  return Op::Nop;
}

// `a op b` with one side broadcast: the broadcast side is the instruction's
// b; `+` and `*` commute exactly, `-` with a broadcast left side is `rsub`.
void lowerBroadcast(Lowering& l, BroadcastOp op) {
  mlir::Location at = op->getLoc();
  mlir::Type t = op.getResult().getType();
  Val lhs = l.lookup(op.getLhs()), rhs = l.lookup(op.getRhs());
  if (l.failed || !dimsFit(l, t, at) || !needVmem(l, lhs, at) || !needVmem(l, rhs, at)) return;
  auto [r, c] = tileDims(t);
  BroadcastSide ml = broadcastSide(op.getLhs().getType(), t), mr = broadcastSide(op.getRhs().getType(), t);
  bool swap = mr == BroadcastSide::Whole && ml != BroadcastSide::Whole;  // the left side is the broadcast one
  const Val& full = swap ? rhs : lhs;
  const Val& part = swap ? lhs : rhs;
  BroadcastSide side = swap ? ml : mr;  // Whole: `/` of two whole tiles
  bool col = side == BroadcastSide::Column;
  std::string k = op.getOp().str();
  Op o = k == "max" ? (side == BroadcastSide::Whole ? Op::VecMax
                      : col                         ? (swap ? Op::VecRmaxCol : Op::VecMaxCol)
                                                    : (swap ? Op::VecRmaxRow : Op::VecMaxRow))
         : k == "min" ? (side == BroadcastSide::Whole ? Op::VecMin
                         : col                         ? (swap ? Op::VecRminCol : Op::VecMinCol)
                                                       : (swap ? Op::VecRminRow : Op::VecMinRow))
         : side == BroadcastSide::Whole   ? Op::VecDiv
         : k == "add" ? (col ? Op::VecAddCol : Op::VecAddRow)
         : k == "mul" ? (col ? Op::VecMulCol : Op::VecMulRow)
         : k == "div" ? (swap ? (col ? Op::VecRdivCol : Op::VecRdivRow) : (col ? Op::VecDivCol : Op::VecDivRow))
         : swap       ? (col ? Op::VecRsubCol : Op::VecRsubRow)
                      : (col ? Op::VecSubCol : Op::VecSubRow);
  Val dst = newBuffer(l, t, at, "broadcast " + k);
  if (l.failed) return;
  l.emit(o, {l.memOp(dst, OperandKind::Tile), l.memOp(full, OperandKind::Tile), l.memOp(part, OperandKind::Tile),
             Dims(r, c)});
  uses(l, {&lhs, &rhs});
  born(l, dst.pseudo, {dst.site});
  l.define(op.getResult(), dst);
}

// `dbg(x)`: a `.dbg` text and one `dbg.*` instruction. A tile is read as
// any operand; a float prints its value, which the tpu knows only as a
// constant (no scalar float unit).
void lowerDbg(Lowering& l, DbgOp op) {
  mlir::Location at = op->getLoc();
  Val x = l.lookup(op.getX());
  if (l.failed) return;
  llvm::StringRef k = op.getKind();
  isa::DbgText text{op.getLabel().str(), k == "tensor" ? dbgTypeText(op.getX().getType()) : ""};
  auto index = static_cast<int64_t>(l.m.dbgs.size());
  if (k == "tensor") {
    mlir::Type t = op.getX().getType();
    if (!needVmem(l, x, at) || !dimsFit(l, t, at)) return;
    auto [r, c] = tileDims(t);
    l.m.dbgs.push_back(std::move(text));
    l.emit(Op::DbgTile, {I(index), l.memOp(x, OperandKind::Tile), Dims(r, c)});
    uses(l, {&x});
    return;
  }
  if (k == "float") {
    if (x.kind != Val::Kind::Float || !x.isConst)
      return l.fail(at, "`dbg` of a float known only at run time",
                    "the tpu target has no scalar float unit: its floats are constants of the program");
    l.m.dbgs.push_back(std::move(text));
    l.emit(Op::DbgFloat, {I(index), Flt(static_cast<float>(x.f))});
    return;
  }
  l.m.dbgs.push_back(std::move(text));
  mlir::Type t = op.getX().getType();
  unsigned width = t.isIndex() ? 64 : t.getIntOrFloatBitWidth();
  if (k == "uint" && width < 64) {
    // Registers hold narrower integers sign-extended: print the low bits.
    const int64_t mask = (int64_t{1} << width) - 1;
    if (x.isConst) {
      x.c &= mask;
    } else {
      int r = l.fresh();
      l.emit(Op::And, {R(r), R(l.reg(x)), XI(mask)});
      x = Val{};
      x.kind = Val::Kind::Int;
      x.vreg = r;
    }
  }
  l.emit(k == "uint" ? Op::DbgUint : k == "bool" ? Op::DbgBool : Op::DbgInt, {I(index), l.x(x)});
}

// On-chip compute (compute.md): each builtin is one vector instruction.
// Reads are uses of the operand's buffer; `_into` forms, `fill` and
// `copy_into` write an existing buffer, so they define none.
void lowerCompute(Lowering& l, mlir::Operation* op) {
  mlir::Location at = op->getLoc();
  std::vector<Val> in;
  for (mlir::Value v : op->getOperands()) in.push_back(l.lookup(v));
  if (l.failed) return;
  for (const Val& v : in)
    if (v.kind == Val::Kind::Place && !needVmem(l, v, at)) return;
  mlir::Type src = op->getOperand(0).getType();  // the [R, C] processed: x, or the `_into` destination
  if (!dimsFit(l, src, at)) return;
  auto [r, c] = tileDims(src);
  auto fresh = [&](Op o, const std::string& what) {
    Val dst = newBuffer(l, op->getResult(0).getType(), at, what);
    if (l.failed) return;
    l.emit(o, {l.memOp(dst, OperandKind::Tile), l.memOp(in[0], OperandKind::Tile), Dims(r, c)});
    uses(l, {&in[0]});
    born(l, dst.pseudo, {dst.site});
    l.define(op->getResult(0), dst);
  };
  if (auto u = mlir::dyn_cast<UnaryOp>(op))
    return fresh(unaryOpcode(*target::unaryByName(u.getFn().str())), u.getFn().str());
  if (mlir::isa<CastOp>(op)) return fresh(Op::VecCopy, "cast");
  if (mlir::isa<TransposeOp>(op)) return fresh(Op::VecTranspose, "transpose");  // vec.copy converts between f32 and bf16
  if (auto rr = mlir::dyn_cast<RowReduceOp>(op))
    return fresh(rr.getKind() == "max" ? Op::VecRowMax : Op::VecRowSum, "row_" + rr.getKind().str());
  if (auto u = mlir::dyn_cast<UnaryIntoOp>(op)) {
    l.emit(unaryOpcode(*target::unaryByName(u.getFn().str())),
           {l.memOp(in[0], OperandKind::Tile), l.memOp(in[1], OperandKind::Tile), Dims(r, c)});
    uses(l, {&in[0], &in[1]});
    return;
  }
  if (auto s = mlir::dyn_cast<ScaleIntoOp>(op)) {
    if (in[2].kind != Val::Kind::Float || !in[2].isConst)
      return l.fail(at, "scale by a factor known only at run time",
                    "`vec.scale` takes its factor as an immediate; the tpu target has no scalar float unit");
    l.emit(Op::VecScale, {l.memOp(in[0], OperandKind::Tile), l.memOp(in[1], OperandKind::Tile),
                          Flt(static_cast<float>(in[2].f)), Dims(r, c)});
    uses(l, {&in[0], &in[1]});
    return;
  }
  if (mlir::isa<CopyIntoOp>(op)) {
    l.emit(Op::VecCopy, {l.memOp(in[0], OperandKind::Tile), l.memOp(in[1], OperandKind::Tile), Dims(r, c)});
    uses(l, {&in[0], &in[1]});
    return;
  }
  // fill
  if (in[1].kind != Val::Kind::Float || !in[1].isConst)
    return l.fail(at, "fill with a value known only at run time",
                  "`vec.fill` takes its value as an immediate; the tpu target has no scalar float unit");
  l.emit(Op::VecFill, {l.memOp(in[0], OperandKind::Tile), Flt(static_cast<float>(in[1].f)), Dims(r, c)});
  uses(l, {&in[0]});
}

}  // namespace

bool tensorInfo(Lowering& l, mlir::Type t, mlir::Location at, isa::DType& dtype, int64_t& bytes) {
  mlir::Type e = elementOf(t);
  if (e && e.isF32()) {
    dtype = isa::DType::F32;
    bytes = 4;
    return true;
  }
  if (e && e.isBF16()) {
    dtype = isa::DType::Bf16;
    bytes = 2;
    return true;
  }
  l.fail(at, "Tensor<" + (e ? elemName(e) : std::string("?")) + ", _>",
         "the TensorCore's memories hold f32 and bf16 tensors");
  return false;
}

std::pair<int64_t, int64_t> tileDims(mlir::Type t) {
  llvm::ArrayRef<int64_t> s = shapeOf(t);
  if (s.empty()) return {1, 1};
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < s.size(); ++i) rows *= s[i];
  return {rows, s.back()};
}

Val newBuffer(Lowering& l, mlir::Type t, mlir::Location at, const std::string& what) {
  auto p = t.dyn_cast<PinnedType>();
  isa::DType dt;
  int64_t eb;
  if (!p || !tensorInfo(l, t, at, dt, eb)) return {};
  isa::Space sp = isa::Space::Vmem;
  switch (p.getSpace()) {
    case MemorySpace::VMEM: sp = isa::Space::Vmem; break;
    case MemorySpace::SMEM: sp = isa::Space::Smem; break;
    case MemorySpace::HBM:
      l.fail(at, "a new buffer in Memory::HBM", "the tpu program's HBM holds the kernel's parameters only");
      return {};
    case MemorySpace::TMEM:
      l.fail(at, "Memory::TMEM", "the TensorCore has no tensor memory");
      return {};
  }
  Val v;
  v.kind = Val::Kind::Place;
  v.buffer = l.arena(sp, dt);
  v.site = l.newSite(Site::Kind::Memory, v.buffer, p.getNumElements() * eb, what, true);
  v.offVreg = l.m.sites[v.site].offVreg;
  v.pseudo = l.newPseudo();
  return v;
}

void lowerVxOp(Lowering& l, mlir::Operation* op) {
  mlir::Location at = op->getLoc();
  if (auto n = mlir::dyn_cast<VecLenOp>(op)) {
    l.define(n.getLen(), lengthOf(l.lookup(n.getVec())));
    return;
  }
  if (auto u = mlir::dyn_cast<UndefOp>(op)) {
    Val v;
    v.undef = true;
    l.define(u.getResult(), v);
    return;
  }
  if (mlir::isa<VecGetOp, SlotOp>(op)) return lowerView(l, op);
  if (auto b = mlir::dyn_cast<BlockOp>(op)) return lowerBlockView(l, b);
  if (mlir::isa<LoadElemOp, StoreElemOp>(op))
    return l.fail(at, "tensor element access",
                  "the TensorCore's scalar unit reads SMEM words, not tensor elements; use whole-tile operations");
  if (mlir::isa<TransferOp, TransferIntoOp, TransferAsyncOp, TransferAsyncIntoOp, StoreOp, StoreAsyncOp>(op))
    return lowerTransfer(l, op);
  if (auto w = mlir::dyn_cast<WaitOp>(op)) return lowerWait(l, w);
  if (auto r = mlir::dyn_cast<ReadyOp>(op)) return lowerReady(l, r);
  if (mlir::isa<LoadWeightsOp, MatmulAccOp, StoreAccOp, MmaOp>(op)) return lowerMatrix(l, op);
  if (mlir::isa<ZerosOp, AddOp, SubOp, MulOp, ScaleOp>(op)) return lowerElementwise(l, op);
  if (mlir::isa<UnaryOp, UnaryIntoOp, ScaleIntoOp, FillOp, CopyIntoOp, RowReduceOp, CastOp, TransposeOp>(op))
    return lowerCompute(l, op);
  if (auto b = mlir::dyn_cast<BroadcastOp>(op)) return lowerBroadcast(l, b);
  if (auto d = mlir::dyn_cast<DbgOp>(op)) return lowerDbg(l, d);
  l.fail(at, op->getName().getStringRef().str(), "the tpu lowering has no rule for this operation");
}

}  // namespace vx::codegen::tpu

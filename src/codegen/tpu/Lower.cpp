// VIR -> machine IR: emission helpers, structured control flow as scalar
// loops and branches, merges as parallel register moves, calls inlined (the
// TensorCore has no call instruction).
#include <set>

#include <cctype>

#include "codegen/tpu/LowerImpl.h"
#include "diag/DiagKinds.h"
#include "dialect/LowerHir.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace vx::codegen::tpu {

using isa::Op;

int Lowering::fresh() { return addVreg(m, loc, span); }

MInstr& Lowering::emit(Op op, std::initializer_list<MOp> ops) {
  MInstr in;
  in.op = op;
  in.loc = loc;
  for (const MOp& o : ops) in.ops[in.n++] = o;
  m.code.push_back(std::move(in));
  return m.code.back();
}

MInstr& Lowering::marker() {
  MInstr in;
  in.marker = true;
  in.loc = loc;
  m.code.push_back(std::move(in));
  return m.code.back();
}

void Lowering::bind(int label) { marker().label = label; }

void Lowering::edge(int from, int to, Edge::Kind k, int backLoop) {
  if (from < 0 || to < 0) return;
  m.edges.push_back({from, to, k, backLoop});
}

void Lowering::setLoc(mlir::Location at) {
  span = dialect::spanOf(at, file);
  loc = {};
  auto visit = [&](mlir::Location l, auto& self) -> void {
    if (loc.known()) return;
    if (auto f = l.dyn_cast<mlir::FileLineColLoc>()) {
      loc = {f.getLine(), f.getColumn()};
    } else if (auto fused = l.dyn_cast<mlir::FusedLoc>()) {
      for (mlir::Location sub : fused.getLocations()) self(sub, self);
    } else if (auto named = l.dyn_cast<mlir::NameLoc>()) {
      self(named.getChildLoc(), self);
    }
  };
  visit(at, visit);
}

void Lowering::fail(mlir::Location at, const std::string& what, const std::string& why) {
  if (failed) return;
  failed = true;
  diag::Diagnostic d = diag::UnavailableOnTarget(what, "tpu");
  base::Span s = dialect::spanOf(at, file);
  if (s.valid()) d.primary(s, why);
  else d.note(why);
  d.note("docs/tpu/lowering.md lists what the tpu target lowers");
  sink.emit(std::move(d));
}

int Lowering::reg(const Val& v) {
  if (v.vreg >= 0) return v.vreg;
  int r = fresh();
  if (v.param >= 0) emit(Op::LdParam, {R(r), Prm(v.param)});
  else emit(Op::Li, {R(r), I(v.c)});
  return r;
}

MOp Lowering::x(const Val& v) { return v.isConst ? XI(v.c) : XR(reg(v)); }

MOp Lowering::memOp(const Val& p, isa::OperandKind kind) const {
  MOp o;
  o.kind = kind;
  o.buffer = p.buffer;
  o.site = p.site;
  o.imm = p.off;
  o.vreg = p.offVreg;
  return o;
}

MOp Lowering::semOp(const Val& t) const {
  MOp o;
  o.kind = isa::OperandKind::Sem;
  o.vreg = t.semVreg;
  o.site = t.semSite;
  o.imm = t.semImm;
  return o;
}

int32_t Lowering::arena(isa::Space space, isa::DType dtype) {
  int si = space == isa::Space::Vmem ? 0 : 1, di = dtype == isa::DType::F32 ? 0 : 1;
  if (arenas[si][di] >= 0) return arenas[si][di];
  MBuffer b;
  b.name = takeName(std::string(si ? "smem" : "vmem") + (di ? "_bf16" : ""));
  b.space = space;
  b.dtype = dtype;
  b.arena = true;
  arenas[si][di] = static_cast<int32_t>(m.buffers.size());
  m.buffers.push_back(b);
  return arenas[si][di];
}

std::string Lowering::takeName(std::string want) {
  auto reserved = [](const std::string& n) {
    for (std::string pre : {"r", "sem"})
      if (n.size() > pre.size() && n.compare(0, pre.size(), pre) == 0 &&
          n.find_first_not_of("0123456789", pre.size()) == std::string::npos)
        return true;
    return false;
  };
  // A component of a tuple parameter is named `p.0`: the program's names
  // are identifiers.
  for (char& c : want)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  if (want.empty() || std::isdigit(static_cast<unsigned char>(want[0]))) want = "p" + want;
  while (reserved(want) || usedNames.count(want)) want += "_";
  usedNames.insert(want);
  return want;
}

int32_t Lowering::smemWord(const std::string& name) {
  MBuffer b;
  b.name = takeName(name);
  b.space = isa::Space::Smem;
  b.dtype = isa::DType::I64;
  b.shape = {isa::Dim{1, -1}};
  m.buffers.push_back(b);
  return static_cast<int32_t>(m.buffers.size() - 1);
}

int Lowering::newSite(Site::Kind kind, int32_t buffer, int64_t bytes, const std::string& what, bool rotating) {
  Site s;
  s.kind = kind;
  s.buffer = buffer;
  s.bytes = bytes;
  s.loc = loc;
  s.span = span;
  s.what = what;
  int id = static_cast<int>(m.sites.size());
  if (rotating && currentLoop() >= 0) {
    // slot = trips % k, computed at the loop's head once k is known.
    s.loop = currentLoop();
    s.slotVreg = fresh();
    m.rotOwner[s.slotVreg] = id;
    if (kind == Site::Kind::Memory) {
      s.offVreg = fresh();
      m.rotOwner[s.offVreg] = id;
      emit(Op::Mul, {R(s.offVreg), R(s.slotVreg), XI(bytes)}).rotSite = id;
    } else {
      s.semVreg = fresh();
      m.rotOwner[s.semVreg] = id;
      m.rotBase[s.semVreg] = id;
      emit(Op::Add, {R(s.semVreg), R(s.slotVreg), XI(0, id)}).rotSite = id;
    }
  }
  m.sites.push_back(s);
  return id;
}

int Lowering::trap(TrapKind kind) {
  auto key = std::make_tuple(kind, loc.line, loc.col);
  auto it = trapLabels.find(key);
  if (it != trapLabels.end()) return it->second;
  int label = newLabel();
  trapLabels[key] = label;
  return label;
}

Val Lowering::lookup(mlir::Value v) {
  auto it = vals->find(v);
  if (it != vals->end()) return it->second;
  // Only a value whose definition failed to lower is missing.
  if (!failed) fail(v.getLoc(), "this value", "its definition has no lowering");
  return {};
}

// ---- merges ----

Val Lowering::incoming(mlir::Value v, mlir::Operation* at) {
  Val x = lookup(v);
  if (!v.getType().isa<dialect::TokenType>()) return x;
  // A token a wait consumed before `at` is carried only on a path that never
  // reads it again (the checker's E6002): nothing to move, and no edge that
  // would keep its buffer and semaphore live. (A call may take it by
  // reference, which VIR does not tell apart, so only waits count.)
  for (mlir::Operation* user : v.getUsers())
    if (mlir::isa<dialect::WaitOp>(user) && dominance.properlyDominates(user, at)) {
      Val u;
      u.undef = true;
      return u;
    }
  return x;
}

bool Lowering::tokensReady() {
  if (tokensReady_ < 0) {
    tokensReady_ = 1;
    module.walk([&](mlir::Operation* op) {
      if (mlir::isa<dialect::TransferAsyncOp, dialect::TransferAsyncIntoOp, dialect::StoreAsyncOp>(op))
        tokensReady_ = 0;
    });
  }
  return tokensReady_ == 1;
}

// A merge none of whose sources so far has a value: registers from the type.
// Tokens are in flight unless --sync-baseline made every one of them ready.
Val Lowering::mergedOfType(mlir::Type t, mlir::Location at) {
  Val v;
  auto buffer = [&](mlir::Type payload, dialect::MemorySpace space) {
    isa::DType dt;
    int64_t eb;
    if (!tensorInfo(*this, payload, at, dt, eb)) return -1;
    if (space != dialect::MemorySpace::VMEM && space != dialect::MemorySpace::SMEM) return -1;
    return static_cast<int>(arena(space == dialect::MemorySpace::VMEM ? isa::Space::Vmem : isa::Space::Smem, dt));
  };
  if (t.isIntOrIndex()) {
    v.kind = Val::Kind::Int;
    v.vreg = fresh();
    return v;
  }
  if (auto k = t.dyn_cast<dialect::TokenType>()) {
    v.kind = Val::Kind::Token;
    v.ready = tokensReady();
    v.hasPayload = !k.isVoid();
    if (v.hasPayload && (v.buffer = buffer(k.getPayload(), k.getSpace())) < 0) return failedMerge(t, at);
    if (!v.ready) v.semVreg = fresh();
    if (v.hasPayload) v.offVreg = fresh();
    v.pseudo = newPseudo();
    return v;
  }
  if (auto p = t.dyn_cast<dialect::PinnedType>()) {
    v.kind = Val::Kind::Place;
    if ((v.buffer = buffer(p, p.getSpace())) < 0) return failedMerge(t, at);
    v.offVreg = fresh();
    v.pseudo = newPseudo();
    return v;
  }
  return failedMerge(t, at);
}

Val Lowering::failedMerge(mlir::Type t, mlir::Location at) {
  std::string type;
  llvm::raw_string_ostream os(type);
  os << t;
  bool hbm = t.isa<dialect::TensorType>();
  fail(at, hbm ? "a tensor in HBM that only some paths define" : "a value that only some paths define",
       "which buffer it is (" + os.str() + ") depends on a path lowered after this merge");
  return {};
}

Val Lowering::mergedLike(const Val& p, mlir::Type t, mlir::Location at) {
  if (p.undef) return mergedOfType(t, at);
  Val v;
  v.kind = p.kind;
  switch (p.kind) {
    case Val::Kind::None: return v;
    case Val::Kind::Int: v.vreg = fresh(); return v;
    case Val::Kind::Float:
      fail(at, "a float that a loop or branch changes",
           "the tpu target has no scalar floating-point unit: only constants compute");
      return v;
    case Val::Kind::Vec: return p;
    case Val::Kind::Place:
      v.buffer = p.buffer;
      v.offVreg = fresh();
      if (m.buffers[p.buffer].space != isa::Space::Hbm) v.pseudo = newPseudo();
      // A block: its geometry is the type's; a stride known only at run
      // time is merged like the offset.
      v.viewRows = p.viewRows;
      v.viewRowBytes = p.viewRowBytes;
      v.strideC = p.strideC;
      if (p.strideVreg >= 0) v.strideVreg = fresh();
      return v;
    case Val::Kind::Token:
      v.ready = p.ready;
      v.hasPayload = p.hasPayload;
      v.buffer = p.buffer;
      if (!p.ready) v.semVreg = fresh();
      if (p.hasPayload) v.offVreg = fresh();
      v.pseudo = newPseudo();
      return v;
  }
  return v;
}

namespace {

struct Move {
  int dst = -1;
  int src = -1;  // register, or -1
  int64_t imm = 0;
  int site = -1;
  int param = -1;
};

}  // namespace

void Lowering::moves(const std::vector<Val>& dst, const std::vector<Val>& src, mlir::Location at, int backLoop) {
  if (failed) return;
  std::vector<Move> mv;
  MInstr copy;
  copy.marker = true;
  copy.loc = loc;
  const size_t firstEdge = m.edges.size();
  auto place = [&](int d, const Val& s) {
    Move x;
    x.dst = d;
    x.src = s.offVreg;
    x.imm = s.off;
    x.site = s.site;
    mv.push_back(x);
  };
  for (size_t i = 0; i < dst.size() && i < src.size(); ++i) {
    const Val& d = dst[i];
    if (d.undef) {
      if (src[i].undef) continue;
      fail(at, "a value that only some paths define",
           "its registers take the shape of the first path lowered, which has none (vx.undef)");
      return;
    }
    // An undefined source: zero into the merge's registers, so that they are
    // defined on every path (liveness stops here, as for a real source).
    Val zero;
    if (src[i].undef) {
      zero.kind = d.kind;
      zero.buffer = d.buffer;
      zero.ready = d.ready;
      zero.hasPayload = d.hasPayload;
      zero.isConst = true;
    }
    const Val& s = src[i].undef ? zero : src[i];
    bool same = d.kind == s.kind && d.buffer == s.buffer && d.ready == s.ready && d.hasPayload == s.hasPayload &&
                d.viewRows == s.viewRows && d.viewRowBytes == s.viewRowBytes &&
                (d.strideVreg >= 0 || (s.strideVreg < 0 && s.strideC == d.strideC));
    if (!same) {
      fail(at, "a merge of values in different buffers",
           d.kind == Val::Kind::Token && d.ready != s.ready
               ? "a token here is ready on one path and in flight on another"
               : "the values merged here live in different buffers (one register cannot address both)");
      return;
    }
    switch (d.kind) {
      case Val::Kind::None:
      case Val::Kind::Float:
      case Val::Kind::Vec: break;
      case Val::Kind::Int: {
        Move x;
        x.dst = d.vreg;
        x.src = s.vreg;
        x.imm = s.c;
        x.param = s.param;
        mv.push_back(x);
        break;
      }
      case Val::Kind::Place: {
        place(d.offVreg, s);
        if (d.strideVreg < 0) break;
        Move x;
        x.dst = d.strideVreg;
        x.src = s.strideVreg;
        x.imm = s.strideVreg >= 0 ? 0 : s.strideC;
        mv.push_back(x);
        break;
      }
      case Val::Kind::Token: {
        if (!d.ready) {
          Move x;
          x.dst = d.semVreg;
          x.src = s.semVreg;
          x.imm = s.semVreg >= 0 ? 0 : s.semImm;
          x.site = s.semVreg >= 0 ? -1 : s.semSite;
          mv.push_back(x);
        }
        if (d.hasPayload) place(d.offVreg, s);
        break;
      }
    }
    if (d.pseudo >= 0) {
      if (s.pseudo >= 0) copy.puses.push_back(s.pseudo);
      copy.pdefs.push_back(d.pseudo);
      edge(s.pseudo, d.pseudo, Edge::Kind::Copy, backLoop);
    }
  }
  m.code.push_back(std::move(copy));
  for (size_t e = firstEdge; e < m.edges.size(); ++e) m.edges[e].at = static_cast<int>(m.code.size() - 1);
  // Parallel assignment: a source that another move overwrites is read into
  // a temporary first.
  std::set<int> dsts;
  for (const Move& x : mv) dsts.insert(x.dst);
  for (Move& x : mv) {
    if (x.src < 0 || x.src == x.dst || !dsts.count(x.src)) continue;
    int t = fresh();
    emit(Op::Mov, {R(t), XR(x.src)});
    x.src = t;
  }
  for (const Move& x : mv) {
    if (x.src >= 0 && x.imm == 0 && x.site < 0) {
      if (x.src != x.dst) emit(Op::Mov, {R(x.dst), XR(x.src)});
    } else if (x.src >= 0) {
      emit(Op::Add, {R(x.dst), R(x.src), XI(x.imm, x.site)});
    } else if (x.param >= 0) {
      emit(Op::LdParam, {R(x.dst), Prm(x.param)});
    } else {
      emit(Op::Li, {R(x.dst), I(x.imm, x.site)});
    }
  }
}

// ---- control flow ----

namespace {

std::vector<Val> yields(Lowering& l, mlir::Block& b) {
  std::vector<Val> out;
  mlir::Operation* term = b.getTerminator();
  for (mlir::Value v : term->getOperands()) out.push_back(l.incoming(v, term));
  return out;
}

}  // namespace

// A loop's trip counter: instances of sites in the loop rotate on it (or on
// `iv`, when it counts trips from a non-negative start).
int startLoop(Lowering& l, int iv) {
  int id = static_cast<int>(l.m.loops.size());
  l.m.loops.push_back({l.currentLoop(), l.fresh(), -1});
  l.m.loops[id].slotBase = iv >= 0 ? iv : l.m.loops[id].tripVreg;
  l.emit(Op::Li, {R(l.m.loops[id].tripVreg), I(0)}).tripLoop = id;
  return id;
}

// The loop's head: where slot numbers are computed each trip.
void head(Lowering& l, int id, int label) {
  l.bind(label);
  l.marker().hubLoop = id;
}

void countTrip(Lowering& l, int id) {
  int t = l.m.loops[id].tripVreg;
  l.emit(Op::Add, {R(t), R(t), XI(1)}).tripLoop = id;
}

// Loop-invariant code motion for the scalar code of a loop body: the
// top-level arith ops (and `len()`) whose operands come from outside the
// loop, and the `.param` values the body reads, go to the preheader, which
// runs only when the loop makes at least one trip. The one change a person
// can see: a trapping operation traps at the same line, before the trip's
// other work instead of during it.
// Returns the values to restore after the loop (parameters now in registers).
std::vector<std::pair<mlir::Value, Val>> hoist(Lowering& l, mlir::Operation* loop, mlir::Block& body) {
  mlir::Region* region = &loop->getRegion(0);
  auto outside = [&](mlir::Value v) { return !region->isAncestor(v.getParentRegion()); };
  std::vector<std::pair<mlir::Value, Val>> saved;
  loop->walk([&](mlir::Operation* op) {
    if (op == loop) return;  // its bounds are loaded already
    for (mlir::Value v : op->getOperands()) {
      if (!outside(v) || !l.vals->count(v)) continue;
      Val& x = (*l.vals)[v];
      if (x.kind == Val::Kind::Int && x.param >= 0) {
        saved.push_back({v, x});
        int r = l.reg(x);
        x.param = -1;
        x.vreg = r;
      } else if (x.kind == Val::Kind::Vec && x.vreg < 0) {  // its length, for bounds checks
        saved.push_back({v, x});
        x.vreg = l.fresh();
        l.emit(Op::LdParam, {R(x.vreg), Prm(x.lenParam)});
      }
    }
  });
  // An op that may trap (`+ - *` overflow, `/ %` by zero or MIN / -1)
  // moves only while nothing before it in the body may trap or be seen
  // (a `dbg`, a store, a copy, a branch): the first trip would have run it
  // first, so a trap comes at the same point, with the same output before
  // it, as on the other targets. Ops that cannot trap move from anywhere.
  auto mayTrap = [](mlir::Operation& op) {
    return mlir::isa<mlir::arith::AddIOp, mlir::arith::SubIOp, mlir::arith::MulIOp, mlir::arith::DivSIOp,
                     mlir::arith::DivUIOp, mlir::arith::RemSIOp, mlir::arith::RemUIOp, mlir::arith::CeilDivSIOp,
                     mlir::arith::CeilDivUIOp, mlir::arith::FloorDivSIOp>(op);
  };
  bool quiet = true;  // nothing before may trap or be seen
  for (mlir::Operation& op : body.without_terminator()) {
    llvm::StringRef ns = op.getDialect() ? op.getDialect()->getNamespace() : "";
    bool pure = !op.getNumRegions() && (ns == "arith" || mlir::isa<dialect::VecLenOp>(op));
    bool invariant = pure;
    for (mlir::Value v : op.getOperands())
      invariant = invariant && (outside(v) || l.hoisted.count(v.getDefiningOp()));
    if (invariant && (quiet || !mayTrap(op))) {
      l.lowerOp(&op);
      l.hoisted.insert(&op);
      continue;
    }
    if (!pure || mayTrap(op)) quiet = false;
  }
  return saved;
}

namespace {

void lowerFor(Lowering& l, mlir::scf::ForOp f) {
  mlir::Location at = f.getLoc();
  Val lb = l.lookup(f.getLowerBound()), ub = l.lookup(f.getUpperBound()), step = l.lookup(f.getStep());
  std::vector<Val> inits, args;
  for (mlir::Value v : f.getInitArgs()) inits.push_back(l.lookup(v));
  for (size_t i = 0; i < inits.size(); ++i) args.push_back(l.mergedLike(inits[i], f.getRegionIterArgs()[i].getType(), at));
  if (l.failed) return;
  l.moves(args, inits, at, -1);
  int iv = l.fresh();
  if (lb.isConst) l.emit(Op::Li, {R(iv), I(lb.c)});
  else if (lb.param >= 0) l.emit(Op::LdParam, {R(iv), Prm(lb.param)});
  else l.emit(Op::Mov, {R(iv), XR(lb.vreg)});
  // An unsigned range whose bounds may be at or past 2^63 (`(y as usize)..1`
  // with y < 0: a negative register) compares unsigned: the induction
  // variable and the bound with their top bits flipped. Compared signed,
  // such a range ran trips it does not have, or skipped those it has.
  auto sure = [](const Val& b) { return b.nonneg || (b.isConst && b.c >= 0); };
  bool unsignedOrder = !f->hasAttr(dialect::kSignedRangeAttr) && !(sure(lb) && sure(ub));
  MOp bound = l.x(ub);  // loaded once, before the loop
  int flipped = -1;     // the induction variable, flipped, before each comparison
  if (unsignedOrder) {
    int fb = l.fresh();
    if (ub.isConst) l.emit(Op::Li, {R(fb), I(ub.c ^ INT64_MIN)});
    else l.emit(Op::Xor, {R(fb), R(l.reg(ub)), XI(INT64_MIN)});
    bound = XR(fb);
    flipped = l.fresh();
  }
  auto ivForCompare = [&]() {
    if (flipped < 0) return iv;
    l.emit(Op::Xor, {R(flipped), R(iv), XI(INT64_MIN)});
    return flipped;
  };
  MOp by = l.x(step);
  bool counts = step.isConst && step.c == 1 && (lb.nonneg || (lb.isConst && lb.c >= 0));
  int id = startLoop(l, counts ? iv : -1);
  int top = l.newLabel(), exit = l.newLabel();
  // Whether the body surely runs (constant bounds in their order).
  bool runs = lb.isConst && ub.isConst &&
              (unsignedOrder ? static_cast<uint64_t>(lb.c) < static_cast<uint64_t>(ub.c) : lb.c < ub.c);
  if (!runs) l.emit(Op::Bge, {R(ivForCompare()), bound, Lbl(exit)});
  std::vector<std::pair<mlir::Value, Val>> saved = hoist(l, f, *f.getBody());
  if (l.failed) return;
  l.setLoc(at);
  head(l, id, top);
  l.loopStack.push_back(id);
  Val ivVal;
  ivVal.kind = Val::Kind::Int;
  ivVal.vreg = iv;
  ivVal.nonneg = lb.nonneg || (lb.isConst && lb.c >= 0);
  ivVal.belowMax = step.isConst && step.c == 1 && !unsignedOrder;  // below its bound, itself at most INT64_MAX
  l.define(f.getInductionVar(), ivVal);
  for (size_t i = 0; i < args.size(); ++i) l.define(f.getRegionIterArgs()[i], args[i]);
  bool sureBefore = l.weightsSure;
  l.lowerBlock(*f.getBody());
  if (l.failed) return;
  // The body may not run, unless its bounds say it does.
  if (!runs) l.weightsSure = sureBefore;
  l.setLoc(at);
  l.moves(args, yields(l, *f.getBody()), at, id);
  l.emit(Op::Add, {R(iv), R(iv), by});
  countTrip(l, id);
  l.emit(Op::Blt, {R(ivForCompare()), bound, Lbl(top)});
  l.loopStack.pop_back();
  for (mlir::Operation& op : f.getBody()->without_terminator()) l.hoisted.erase(&op);
  for (auto& [v, x] : saved) l.define(v, x);
  l.bind(exit);
  for (size_t i = 0; i < args.size(); ++i) l.define(f.getResult(i), args[i]);
}

// Whether region block `b` of `op` yields a value known, before `op` is
// lowered, to have none on that path: made by vx.undef, or from outside `op`
// and undefined (or a token consumed) there.
bool yieldsUndef(Lowering& l, mlir::scf::IfOp op, mlir::Block& b) {
  mlir::Operation* term = b.getTerminator();
  for (mlir::Value v : term->getOperands()) {
    if (v.getDefiningOp<dialect::UndefOp>()) return true;
    if (!op->isAncestor(v.getParentRegion()->getParentOp()) && l.incoming(v, term).undef) return true;
  }
  return false;
}

void lowerIf(Lowering& l, mlir::scf::IfOp op) {
  mlir::Location at = op.getLoc();
  Val c = l.lookup(op.getCondition());
  if (l.failed) return;
  if (c.isConst) {  // only the branch taken
    mlir::Block* b = c.c ? op.thenBlock() : op.elseBlock();
    if (!b) return;
    l.lowerBlock(*b);
    if (l.failed) return;
    std::vector<Val> ys = yields(l, *b);
    for (size_t i = 0; i < ys.size(); ++i) l.define(op.getResult(i), ys[i]);
    return;
  }
  int r = l.reg(c);
  // The merge's registers take the shape of the branch lowered first: the
  // else branch, when only the then branch yields `vx.undef` (a function
  // that returns early, on the path that has not returned).
  bool elseFirst = op.elseBlock() && yieldsUndef(l, op, *op.thenBlock()) && !yieldsUndef(l, op, *op.elseBlock());
  mlir::Block* first = elseFirst ? op.elseBlock() : op.thenBlock();
  mlir::Block* second = elseFirst ? op.thenBlock() : op.elseBlock();
  int secondL = l.newLabel(), endL = l.newLabel();
  l.emit(elseFirst ? Op::Bnz : Op::Bz, {R(r), Lbl(secondL)});
  bool sureBefore = l.weightsSure;
  l.lowerBlock(*first);
  if (l.failed) return;
  bool sureFirst = l.weightsSure;
  l.weightsSure = sureBefore;
  l.setLoc(at);
  std::vector<Val> ys = yields(l, *first), results;
  for (size_t i = 0; i < ys.size(); ++i) results.push_back(l.mergedLike(ys[i], op.getResult(i).getType(), at));
  l.moves(results, ys, at, -1);
  if (second) {
    l.emit(Op::Jmp, {Lbl(endL)});
    l.bind(secondL);
    l.lowerBlock(*second);
    if (l.failed) return;
    l.setLoc(at);
    l.moves(results, yields(l, *second), at, -1);
    l.bind(endL);
  } else {
    l.bind(secondL);
  }
  l.weightsSure = l.weightsSure && sureFirst;
  for (size_t i = 0; i < results.size(); ++i) l.define(op.getResult(i), results[i]);
}

void lowerWhile(Lowering& l, mlir::scf::WhileOp w) {
  mlir::Location at = w.getLoc();
  std::vector<Val> inits, before, after;
  for (mlir::Value v : w.getInits()) inits.push_back(l.lookup(v));
  for (size_t i = 0; i < inits.size(); ++i) before.push_back(l.mergedLike(inits[i], w.getBeforeArguments()[i].getType(), at));
  if (l.failed) return;
  l.moves(before, inits, at, -1);
  int id = startLoop(l);
  int top = l.newLabel(), exit = l.newLabel();
  head(l, id, top);
  l.loopStack.push_back(id);
  for (size_t i = 0; i < before.size(); ++i) l.define(w.getBeforeArguments()[i], before[i]);
  l.lowerBlock(w.getBefore().front());
  if (l.failed) return;
  bool sureBefore = l.weightsSure;  // the condition's region runs at least once, the body maybe not
  mlir::scf::ConditionOp cond = w.getConditionOp();
  l.setLoc(cond.getLoc());
  Val c = l.lookup(cond.getCondition());
  std::vector<Val> cargs;
  for (mlir::Value v : cond.getArgs()) cargs.push_back(l.incoming(v, cond));
  for (size_t i = 0; i < cargs.size(); ++i) after.push_back(l.mergedLike(cargs[i], w.getAfterArguments()[i].getType(), at));
  l.moves(after, cargs, at, -1);
  if (l.failed) return;
  if (!c.isConst) l.emit(Op::Bz, {R(l.reg(c)), Lbl(exit)});
  else if (!c.c) l.emit(Op::Jmp, {Lbl(exit)});
  for (size_t i = 0; i < after.size(); ++i) l.define(w.getAfterArguments()[i], after[i]);
  l.lowerBlock(w.getAfter().front());
  if (l.failed) return;
  l.setLoc(at);
  l.moves(before, yields(l, w.getAfter().front()), at, id);
  countTrip(l, id);
  l.emit(Op::Jmp, {Lbl(top)});
  l.loopStack.pop_back();
  l.bind(exit);
  l.weightsSure = sureBefore;
  for (size_t i = 0; i < after.size(); ++i) l.define(w.getResult(i), after[i]);
}

}  // namespace

std::vector<Val> Lowering::inlineCall(mlir::func::FuncOp callee, const std::vector<Val>& args, mlir::Location at) {
  std::string name = callee.getName().str();
  if (callee.isExternal()) {
    fail(at, "call of " + name, "it has no body to lower");
    return {};
  }
  for (const std::string& c : callStack)
    if (c == name) {
      fail(at, "recursive call of " + name,
           "the tpu target inlines calls (the TensorCore has no call instruction), so recursion cannot lower");
      return {};
    }
  llvm::DenseMap<mlir::Value, Val> frame;
  auto* saved = vals;
  vals = &frame;
  mlir::Block& body = callee.getBody().front();
  for (unsigned i = 0; i < body.getNumArguments() && i < args.size(); ++i) define(body.getArgument(i), args[i]);
  callStack.push_back(name);
  lowerBlock(body);
  std::vector<Val> results;
  if (!failed) results = yields(*this, body);
  callStack.pop_back();
  vals = saved;
  return results;
}

void Lowering::lowerBlock(mlir::Block& block) {
  for (mlir::Operation& op : block.without_terminator()) {
    if (failed) return;
    if (!hoisted.count(&op)) lowerOp(&op);
  }
}

void Lowering::lowerOp(mlir::Operation* op) {
  setLoc(op->getLoc());
  if (auto f = mlir::dyn_cast<mlir::scf::ForOp>(op)) return lowerFor(*this, f);
  if (auto i = mlir::dyn_cast<mlir::scf::IfOp>(op)) return lowerIf(*this, i);
  if (auto w = mlir::dyn_cast<mlir::scf::WhileOp>(op)) return lowerWhile(*this, w);
  if (auto p = mlir::dyn_cast<dialect::ParallelOp>(op)) return lowerParallel(*this, p);
  if (auto call = mlir::dyn_cast<mlir::func::CallOp>(op)) {
    auto callee = module.lookupSymbol<mlir::func::FuncOp>(call.getCallee());
    if (!callee) return fail(op->getLoc(), "call of " + call.getCallee().str(), "no such function");
    std::vector<Val> args;
    for (mlir::Value v : call.getOperands()) args.push_back(lookup(v));
    std::vector<Val> results = inlineCall(callee, args, op->getLoc());
    for (size_t i = 0; i < results.size() && i < call.getNumResults(); ++i) define(call.getResult(i), results[i]);
    return;
  }
  llvm::StringRef ns = op->getDialect() ? op->getDialect()->getNamespace() : "";
  if (ns == "arith") return lowerArithOp(*this, op);
  if (ns == "vx") return lowerVxOp(*this, op);
  fail(op->getLoc(), op->getName().getStringRef().str(), "the tpu lowering has no rule for this operation");
}

}  // namespace vx::codegen::tpu

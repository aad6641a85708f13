// The kernel: the entry function's parameters as `.param`/`.hbm`
// declarations, its body (callees inlined), the epilogue (outputs, the
// accumulator, the result), trap stubs; then analysis and allocation, whose
// failures become diagnostics.

#include <map>

#include "codegen/tpu/LowerImpl.h"
#include "base/Text.h"
#include "diag/DiagKinds.h"
#include "dialect/LowerHir.h"
#include "dialect/VirImpl.h"

namespace vx::codegen::tpu {

using isa::Op;
using namespace vx::dialect;

namespace {

constexpr int64_t kMxuDim = 128;

// Why `f` cannot be an entry (tokens cross no program boundary); empty if it can.
std::string entryProblem(mlir::func::FuncOp f) {
  for (unsigned i = 0; i < f.getNumArguments(); ++i)
    if (f.getArgument(i).getType().isa<TokenType>()) {
      auto n = f.getArgAttrOfType<mlir::StringAttr>(i, "vx.name");
      return "parameter `" + (n ? n.getValue().str() : std::to_string(i)) + "` is a token";
    }
  auto results = f.getFunctionType().getResults();
  if (results.size() > 1 || (results.size() == 1 && scalarName(results[0], false).empty()))
    return "it returns buffers, tokens or a tuple";
  return {};
}

// A buffer's shape: its static dimensions, and its run-time extents by
// their `.param`s.
std::vector<isa::Dim> dims(llvm::ArrayRef<int64_t> shape, const std::vector<std::string>& extents,
                           const std::map<std::string, int>& extentParams) {
  std::vector<isa::Dim> out;
  for (size_t d = 0; d < shape.size(); ++d) {
    auto it = d < extents.size() ? extentParams.find(extents[d]) : extentParams.end();
    out.push_back(it != extentParams.end() ? isa::Dim{0, it->second} : isa::Dim{shape[d], -1});
  }
  return out;
}

// `vxc run`'s default for a run-time extent, as on the cpu target.
constexpr int64_t kDefaultExtent = 128;

}  // namespace

const char* trapWord(TrapKind k) {
  switch (k) {
#define TRAP(Kind, Word, Message) \
  case TrapKind::Kind: return Word;
#include "codegen/tpu/Traps.def"
#undef TRAP
  }
  return "";
}

const char* trapMessage(TrapKind k) {
  switch (k) {
#define TRAP(Kind, Word, Message) \
  case TrapKind::Kind: return Message;
#include "codegen/tpu/Traps.def"
#undef TRAP
  }
  return "";
}

std::optional<Kernel> lowerEntry(Lowering& l, mlir::func::FuncOp f, const LowerOptions& options) {
  Kernel k;
  l.entryName = f.getName().str();
  l.setLoc(f.getLoc());
  llvm::DenseMap<mlir::Value, Val> frame;
  l.vals = &frame;
  mlir::Block& body = f.getBody().front();
  struct Out {
    Val onChip;
    int32_t hbm;
    int64_t bytes;
  };
  std::vector<Out> copyOut;
  std::optional<mlir::Location> pinnedAt;  // the first parameter copied on chip
  // Run-time extents first: the tensors' shapes name their `.param`s.
  std::map<std::string, int> extentParams;
  for (unsigned i = 0; i < f.getNumArguments(); ++i) {
    auto nameAttr = f.getArgAttrOfType<mlir::StringAttr>(i, "vx.name");
    if (!f.getArgAttr(i, "vx.extent") || !nameAttr) continue;
    l.m.params.push_back({l.takeName(nameAttr.getValue().str()), kDefaultExtent});
    extentParams[nameAttr.getValue().str()] = static_cast<int>(l.m.params.size() - 1);
  }
  for (unsigned i = 0; i < f.getNumArguments() && !l.failed; ++i) {
    mlir::Type t = f.getArgument(i).getType();
    auto nameAttr = f.getArgAttrOfType<mlir::StringAttr>(i, "vx.name");
    KernelParam p;
    p.name = nameAttr ? nameAttr.getValue().str() : "a" + std::to_string(i);
    p.mut = f.getArgAttr(i, "vx.mut") != nullptr;
    Val v;
    mlir::Type shaped = t;
    if (auto vec = t.dyn_cast<VecType>()) shaped = vec.getElementType();
    bool buffer = shaped.isa<TensorType, PinnedType>();
    if (buffer) {
      isa::DType dt;
      int64_t eb;
      if (!tensorInfo(l, shaped, f.getLoc(), dt, eb)) break;
      MBuffer b;
      b.space = isa::Space::Hbm;
      b.dtype = dt;
      b.role = p.mut ? isa::Role::InOut : isa::Role::Input;
      b.name = l.takeName(p.name);
      llvm::ArrayRef<int64_t> shape =
          shaped.isa<TensorType>() ? shaped.cast<TensorType>().getShape() : shaped.cast<PinnedType>().getShape();
      if (auto names = f.getArgAttrOfType<mlir::ArrayAttr>(i, "vx.extents"))
        for (mlir::Attribute d : names) p.extents.push_back(d.cast<mlir::StringAttr>().getValue().str());
      b.shape = dims(shape, p.extents, extentParams);
      int64_t elems = 1;  // a Vec's tensors (static: E0201); run-time extents left out
      for (int64_t d : shape)
        if (!mlir::ShapedType::isDynamic(d)) elems *= d;
      p.type = dt == isa::DType::F32 ? "f32" : "bf16";
      l.hasOutputs |= p.mut;
      if (t.isa<VecType>()) {
        p.kind = KernelParam::Kind::Vec;
        p.param = l.takeName(p.name + "_len");
        l.m.params.push_back({p.param, 8});  // `vxc run`'s default length
        b.shape.insert(b.shape.begin(), isa::Dim{0, static_cast<int32_t>(l.m.params.size() - 1)});
        v.kind = Val::Kind::Vec;
        v.lenParam = static_cast<int>(l.m.params.size() - 1);
        v.elemBytes = elems * eb;
      } else {
        p.kind = t.isa<TensorType>() ? KernelParam::Kind::Tensor : KernelParam::Kind::Pinned;
        v.kind = Val::Kind::Place;
      }
      v.buffer = static_cast<int32_t>(l.m.buffers.size());
      l.m.buffers.push_back(b);
      k.outputs.push_back({p.mut ? v.buffer : -1, p.name});
      auto pinned = t.dyn_cast<PinnedType>();
      if (pinned && pinned.getSpace() != MemorySpace::HBM) {
        // On chip for the call: copied in before the body (and out after it).
        if (!pinnedAt) pinnedAt = f.getLoc();
        Val hbm = v;
        v = newBuffer(l, t, f.getLoc(), p.name);
        if (l.failed) break;
        Val tok;
        tok.kind = Val::Kind::Token;
        tok.semSite = l.newSite(Site::Kind::Semaphore, -1, 1, "parameter", false);
        tok.pseudo = l.newPseudo();
        l.emit(Op::DmaStart, {l.memOp(hbm), l.memOp(v), XI(elems * eb), l.semOp(tok)});
        MInstr& start = l.m.code.back();
        start.pdefs = {tok.pseudo, v.pseudo};
        l.m.sites[tok.semSite].root = tok.pseudo;
        l.m.sites[tok.semSite].defInstr = static_cast<int>(l.m.code.size() - 1);
        l.m.sites[v.site].root = v.pseudo;
        l.m.sites[v.site].defInstr = static_cast<int>(l.m.code.size() - 1);
        l.emit(Op::DmaWait, {l.semOp(tok)}).puses = {tok.pseudo};
        if (p.mut) copyOut.push_back({v, hbm.buffer, elems * eb});
      }
    } else if (t.isa<mlir::IntegerType, mlir::IndexType>()) {
      p.kind = KernelParam::Kind::Scalar;
      bool uns = f.getArgAttr(i, "vx.unsigned") != nullptr || t.isIndex();
      p.type = scalarName(t, uns);
      p.extent = f.getArgAttr(i, "vx.extent") != nullptr;
      auto known = extentParams.find(p.name);
      if (p.extent && known != extentParams.end()) {
        v.param = known->second;
        p.param = l.m.params[static_cast<size_t>(v.param)].name;
      } else {
        p.param = l.takeName(p.name);
        l.m.params.push_back({p.param, 0});
        v.param = static_cast<int>(l.m.params.size() - 1);
      }
      v.kind = Val::Kind::Int;
      v.nonneg = uns || t.isInteger(1);  // kernelArgs keeps unsigned values below 2^63
      if (t.isInteger(1)) v.ub = 2;
    } else if (t.isa<mlir::FloatType>()) {
      p.kind = KernelParam::Kind::Scalar;
      p.type = scalarName(t, false);
      v.kind = Val::Kind::Float;  // not a constant: any use is reported
    }
    k.params.push_back(p);
    l.define(f.getArgument(i), v);
  }
  if (l.failed) return std::nullopt;
  l.lowerBlock(body);
  if (l.failed) return std::nullopt;
  if (l.spmd && pinnedAt) {
    // Every core would copy it in (and out) for itself.
    l.fail(*pinnedAt, "an on-chip `Pinned` parameter of a kernel with a grid",
           "every core runs the kernel and would copy it in (and back) for itself; pass it as a `Tensor` in HBM");
    return std::nullopt;
  }

  // The matrix unit's shapes, now that every use is known.
  if (l.firstMma && l.firstImplicit) {
    l.fail(*l.firstMma, "mma next to matmul_acc, load_weights or store_acc",
           "both use the one matrix unit: `mma` latches its own weights and empties the accumulator");
    return std::nullopt;
  }
  int64_t wantK = l.latched ? l.latched->first : kMxuDim, wantN = l.latched ? l.latched->second : kMxuDim;
  for (const Lowering::MatmulUse& m : l.matmulKs) {
    if (m.k != wantK) {
      l.fail(m.at, "matmul_acc of a tile with " + std::to_string(m.k) + " columns",
             l.latched ? "the latched weights have " + std::to_string(wantK) + " rows"
                       : "without load_weights the weights are the 128 x 128 identity");
      return std::nullopt;
    }
    // On a path without load_weights (a branch that skips it, a loop that
    // may not run) the unit multiplies by the identity instead.
    if (!m.latchedOnEveryPath && l.latched && *l.latched != std::make_pair(kMxuDim, kMxuDim)) {
      l.fail(m.at, "matmul_acc that may run before load_weights",
             "on a path without load_weights the weights are the 128 x 128 identity, on the others the latched " +
                 std::to_string(l.latched->first) + " x " + std::to_string(l.latched->second) +
                 " weights; call load_weights before it on every path");
      return std::nullopt;
    }
  }
  for (const Lowering::MatmulUse& st : l.storeNs) {
    if (st.k != wantN) {
      l.fail(st.at, "store_acc to a tensor with " + std::to_string(st.k) + " columns",
             "the accumulator has the weights' " + std::to_string(wantN) + " columns");
      return std::nullopt;
    }
    if (!st.latchedOnEveryPath && l.latched && *l.latched != std::make_pair(kMxuDim, kMxuDim)) {
      l.fail(st.at, "store_acc that may run before load_weights",
             "on a path without load_weights the accumulator has the 128 x 128 identity's 128 columns, on the "
             "others the latched weights' " + std::to_string(wantN) + "; call load_weights before it on every path");
      return std::nullopt;
    }
  }

  // Epilogue.
  mlir::Operation* ret = body.getTerminator();
  l.setLoc(ret->getLoc());
  for (const Out& o : copyOut) {
    Val hbm;
    hbm.kind = Val::Kind::Place;
    hbm.buffer = o.hbm;
    Val tok;
    tok.kind = Val::Kind::Token;
    tok.semSite = l.newSite(Site::Kind::Semaphore, -1, 1, "parameter", false);
    tok.pseudo = l.newPseudo();
    l.emit(Op::DmaStart, {l.memOp(o.onChip), l.memOp(hbm), XI(o.bytes), l.semOp(tok)});
    l.m.code.back().puses = {o.onChip.pseudo};
    l.m.code.back().pdefs = {tok.pseudo};
    l.m.sites[tok.semSite].root = tok.pseudo;
    l.m.sites[tok.semSite].defInstr = static_cast<int>(l.m.code.size() - 1);
    l.emit(Op::DmaWait, {l.semOp(tok)}).puses = {tok.pseudo};
  }
  if (!l.hasOutputs && l.accFlag >= 0) {
    // The accumulator is the result, as `checksum acc` on the cpu target.
    MBuffer acc;
    acc.name = l.takeName("acc");
    acc.space = isa::Space::Hbm;
    acc.role = isa::Role::Output;
    acc.shape = {isa::Dim{l.accRows, -1}, isa::Dim{wantN, -1}};
    int32_t accBuf = static_cast<int32_t>(l.m.buffers.size());
    l.m.buffers.push_back(acc);
    int64_t bytes = l.accRows * wantN * 4;
    Val st;
    st.kind = Val::Kind::Place;
    st.buffer = l.arena(isa::Space::Vmem, isa::DType::F32);
    st.site = l.newSite(Site::Kind::Memory, st.buffer, bytes, "the accumulator", false);
    st.pseudo = l.newPseudo();
    Val tok;
    tok.semSite = l.newSite(Site::Kind::Semaphore, -1, 1, "the accumulator", false);
    Val hbm;
    hbm.buffer = accBuf;
    l.emit(Op::MxuPop, {l.memOp(st, isa::OperandKind::Tile), Dims(l.accRows, wantN)}).pdefs = {st.pseudo};
    for (int s : {st.site, tok.semSite}) {
      l.m.sites[s].root = st.pseudo;
      l.m.sites[s].defInstr = static_cast<int>(l.m.code.size() - 1);
    }
    l.emit(Op::DmaStart, {l.memOp(st), l.memOp(hbm), XI(bytes), l.semOp(tok)}).puses = {st.pseudo};
    l.emit(Op::DmaWait, {l.semOp(tok)}).puses = {st.pseudo};
    k.outputs.push_back({accBuf, "acc"});
    k.accBuffer = accBuf;
  }
  if (ret->getNumOperands() == 1) {
    Val r = l.lookup(ret->getOperand(0));
    bool isUnsigned = f.getResultAttr(0, "vx.unsigned") != nullptr || ret->getOperand(0).getType().isIndex();
    k.result = scalarName(ret->getOperand(0).getType(), isUnsigned);
    if (r.kind != Val::Kind::Int) {
      l.fail(ret->getLoc(), "a floating-point result", "results come back in a scalar (integer) register");
      return std::nullopt;
    }
    int r0 = l.fresh();
    l.m.fixedReg[r0] = 0;
    l.emit(Op::Mov, {R(r0), l.x(r)});
  }
  if (k.accBuffer >= 0) {
    int r1 = l.fresh();
    l.m.fixedReg[r1] = 1;
    l.emit(Op::LdSmem, {R(r1), Word(l.accFlag)});
  }
  l.emit(Op::Halt, {});
  for (MInstr& in : l.cold) l.m.code.push_back(std::move(in));

  // Trap stubs: each reads one word past a buffer named for the trap, so the
  // fault names it and the Vx line.
  for (auto& [key, label] : l.trapLabels) {
    auto [kind, line, col] = key;
    auto it = l.trapBuffers.find(kind);
    if (it == l.trapBuffers.end())
      it = l.trapBuffers.emplace(kind, l.smemWord(trapWord(kind))).first;
    l.loc = {line, col};
    l.bind(label);
    l.emit(Op::LdSmem, {R(l.fresh()), Word(it->second, 8)});
  }
  if (!l.trapLabels.empty()) l.emit(Op::Halt, {});

  // Rotation, registers, memory and semaphores.
  Liveness live = liveness(l.m);
  std::vector<std::vector<int>> sets = siteSets(l.m);
  int bad = chooseRotations(l.m, live, sets);
  if (bad >= 0) {
    const Site& s = l.m.sites[bad];
    diag::Diagnostic d = diag::UnavailableOnTarget(s.what + " kept live while it is started again without bound", "tpu");
    if (s.span.valid())
      d.primary(s.span, "one copy this starts stays in flight (or its buffer in use) while this line starts 16 more");
    d.note("each copy in flight needs its own buffer and semaphore, and the tpu target gives a transfer a fixed "
           "number of them, cycled in the order it starts copies");
    d.help("wait for each copy before this line has started many more (a token kept in a variable across the loop "
           "is the usual cause), or copy into the slots of a ring buffer with `transfer_async_into`");
    l.sink.emit(std::move(d));
    return std::nullopt;
  }
  dropUnusedRotation(l.m);
  live = liveness(l.m);
  AllocError e = allocate(l.m, live, sets, options.vmemBytes, options.smemBytes, k.program);
  // Too many live values: spill the longest-lived one near the failure.
  for (int spills = 0; e.kind == AllocError::Kind::Registers && spills < 256 && spillOne(l.m, live, e.vreg);
       ++spills) {
    live = liveness(l.m);
    e = allocate(l.m, live, sets, options.vmemBytes, options.smemBytes, k.program);
  }
  if (e.kind != AllocError::Kind::None) {
    diag::Diagnostic d;
    switch (e.kind) {
      case AllocError::Kind::None: break;
      case AllocError::Kind::Registers:
        d = diag::UnavailableOnTarget("more than 32 scalar values live at once", "tpu");
        if (e.span.valid()) d.primary(e.span, "this value finds no free register (r0-r31)");
        break;
      case AllocError::Kind::Semaphores:
        d = diag::UnavailableOnTarget("more than 32 transfers in flight at once", "tpu");
        if (e.span.valid()) d.primary(e.span, "this `" + e.detail + "` finds no free semaphore (sem0-sem31)");
        break;
      case AllocError::Kind::Memory: {
        std::string space = e.space == isa::Space::Vmem ? "Memory::VMEM" : "Memory::SMEM";
        d = diag::FootprintTooLarge(l.entryName, std::to_string(e.bytes), space, std::to_string(e.capacity), "tpu");
        if (e.span.valid()) d.primary(e.span, "this allocation brings the total to " + std::to_string(e.bytes) + " bytes");
        d.note("the tpu target places buffers by their live ranges, plus staging for the matrix unit's results");
        d.help("use smaller tiles or fewer ring slots, or free buffers (end their scope) before allocating more");
        break;
      }
    }
    l.sink.emit(std::move(d));
    return std::nullopt;
  }
  k.program.kernel = l.entryName;
  k.program.sourceFile = options.sourceName;
  k.program.spmd = l.spmd;
  // Output buffers by their Program index (HBM buffers keep their order).
  int32_t hbmIndex = 0;
  std::vector<int32_t> hbmOf(l.m.buffers.size(), -1);
  for (size_t b = 0; b < l.m.buffers.size(); ++b)
    if (l.m.buffers[b].space == isa::Space::Hbm) hbmOf[b] = hbmIndex++;
  std::vector<std::pair<int32_t, std::string>> outs;
  for (auto& [buf, name] : k.outputs)
    if (buf >= 0) outs.push_back({hbmOf[buf], name});
  k.outputs = outs;
  if (k.accBuffer >= 0) k.accBuffer = hbmOf[k.accBuffer];
  for (auto& [kind, buf] : l.trapBuffers)
    k.traps.push_back({k.program.findBuffer(l.m.buffers[buf].name), trapMessage(kind)});
  return k;
}

std::optional<Kernel> lowerKernel(const dialect::Vir& vir, base::FileId file, const LowerOptions& options,
                                  diag::Sink& sink, std::string& usageError) {
  mlir::ModuleOp module = *vir.impl().module;
  mlir::func::FuncOp entry;
  std::string names;
  std::vector<std::string> all;
  unsigned count = 0;
  for (auto f : module.getOps<mlir::func::FuncOp>()) {
    std::string why = entryProblem(f);
    if (f.getName() == options.entry) {
      if (!why.empty()) {
        usageError = "`" + options.entry + "` cannot be an entry: " + why;
        return std::nullopt;
      }
      entry = f;
    }
    if (!why.empty()) continue;
    names += (names.empty() ? "`" : ", `") + f.getName().str() + "`";
    all.push_back(f.getName().str());
    if (options.entry.empty()) entry = f;
    ++count;
  }
  if (options.entry.empty() && count != 1) {
    usageError = count == 0 ? "the program has no function that can be an entry"
                            : "choose an entry with `--entry NAME` (one of " + names + ")";
    return std::nullopt;
  }
  if (!entry) {
    std::string close = base::closestMatch(options.entry, all);
    usageError = "no function `" + options.entry + "` to use as the entry" +
                 (!close.empty() ? "; did you mean `" + close + "`?"
                  : names.empty() ? "" : "; the entries are " + names);
    return std::nullopt;
  }
  Lowering l(module, file, sink);
  return lowerEntry(l, entry, options);
}

}  // namespace vx::codegen::tpu

// --target-legality: what a target lacks, reported as E0206 at the source
// location the lowering kept. Builtins, memory spaces and tensor element
// types per target come from the one table (src/target/), which Sema reads
// too, so `vxc check --target T` and this pass agree.
#include <set>

#include "target/Target.h"
#include "dialect/Passes.h"
#include "dialect/VxDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace vx::dialect {

namespace {

// The builtin an op implements; None for ops every target has.
target::Builtin builtinOf(mlir::Operation* op) {
  using B = target::Builtin;
  if (mlir::isa<TransferOp>(op)) return B::Transfer;
  if (mlir::isa<TransferAsyncOp>(op)) return B::TransferAsync;
  if (mlir::isa<TransferAsyncIntoOp, TransferIntoOp>(op)) return B::TransferAsyncInto;
  if (mlir::isa<WaitOp>(op)) return B::Wait;
  if (mlir::isa<StoreOp>(op)) return B::Store;
  if (mlir::isa<StoreAsyncOp>(op)) return B::StoreAsync;
  if (mlir::isa<ZerosOp>(op)) return B::Zeros;
  if (mlir::isa<BlockOp>(op)) return B::Block;  // block and block_mut: one op
  if (mlir::isa<MatmulAccOp>(op)) return B::MatmulAcc;
  if (mlir::isa<LoadWeightsOp>(op)) return B::LoadWeights;
  if (mlir::isa<StoreAccOp>(op)) return B::StoreAcc;
  if (mlir::isa<MmaOp>(op)) return B::Mma;
  if (mlir::isa<ScaleOp>(op)) return B::Scale;
  if (mlir::isa<ScaleIntoOp>(op)) return B::ScaleInto;
  if (auto u = mlir::dyn_cast<UnaryOp>(op)) return target::info(*target::unaryByName(u.getFn().str())).builtin;
  if (auto u = mlir::dyn_cast<UnaryIntoOp>(op)) return target::info(*target::unaryByName(u.getFn().str())).into;
  if (mlir::isa<FillOp>(op)) return B::Fill;
  if (mlir::isa<CastOp>(op)) return B::Cast;
  if (mlir::isa<TransposeOp>(op)) return B::Transpose;
  if (auto b = mlir::dyn_cast<BroadcastOp>(op))
    return b.getOp() == "max" ? B::Max : b.getOp() == "min" ? B::Min : B::None;  // operators: every target
  if (mlir::isa<CopyIntoOp>(op)) return B::CopyInto;
  if (auto r = mlir::dyn_cast<RowReduceOp>(op)) return r.getKind() == "max" ? B::RowMax : B::RowSum;
  if (mlir::isa<DbgOp>(op)) return B::Dbg;
  return B::None;
}

std::optional<target::ScalarKind> scalarOf(mlir::Type t) {
  using S = target::ScalarKind;
  if (t.isF32()) return S::F32;
  if (t.isF64()) return S::F64;
  if (t.isF16()) return S::F16;
  if (t.isBF16()) return S::Bf16;
  return std::nullopt;
}

std::string elemName(mlir::Type t) {
  if (t.isF32()) return "f32";
  if (t.isF64()) return "f64";
  if (t.isF16()) return "f16";
  if (t.isBF16()) return "bf16";
  // VIR's integers are signless: `u32` and `i32` are one type there.
  if (auto i = t.dyn_cast<mlir::IntegerType>(); i && i.isSignless() && i.getWidth() > 1)
    return "i" + std::to_string(i.getWidth()) + "/u" + std::to_string(i.getWidth());
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return os.str();
}

struct TargetLegalityPass : mlir::PassWrapper<TargetLegalityPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TargetLegalityPass)

  Option<std::string> target{*this, "target", llvm::cl::desc("cpu, tpu, b200 or h100"), llvm::cl::init("cpu")};
  LegalityHandler handler;

  TargetLegalityPass() = default;
  TargetLegalityPass(const TargetLegalityPass& other) : PassWrapper(other), handler(other.handler) {
    target = other.target;
  }

  llvm::StringRef getArgument() const override { return "target-legality"; }
  llvm::StringRef getDescription() const override {
    return "Report builtins, memory spaces and element types the target does not implement (E0206)";
  }

  void runOnOperation() override {
    std::optional<target::TargetKind> kind = target::targetByName(target);
    if (!kind) {
      getOperation().emitError() << "unknown target `" << target << "`";
      return signalPassFailure();
    }
    bool failed = false;
    // Each missing thing once, at its first use: one cause, one report.
    std::set<std::string> seen;
    auto report = [&](mlir::Location loc, const std::string& what) {
      if (!seen.insert(what).second) return;
      failed = true;
      if (handler)
        handler(loc, what);
      else
        mlir::emitError(loc) << "[E0206] `" << what << "` is not available on target `" << target << "`";
    };
    auto checkType = [&](mlir::Location loc, mlir::Type t) {
      mlir::Type elem;
      std::optional<MemorySpace> space;
      if (auto x = t.dyn_cast<PinnedType>()) elem = x.getElementType(), space = x.getSpace();
      if (auto x = t.dyn_cast<TokenType>()) elem = x.getElementType(), space = x.getSpace();
      if (auto x = t.dyn_cast<TensorType>()) elem = x.getElementType();
      if (auto x = t.dyn_cast<VecType>()) return;  // its element type is checked where used
      if (space) {
        std::optional<target::MemSpace> m = target::memSpaceByName(memorySpaceName(*space));
        if (m && !target::available(*m, *kind)) report(loc, "Memory::" + memorySpaceName(*space).str());
        // b200: tensor memory is the tensor cores' accumulator's, and the
        // CUDA layer allocates none for a program's buffers (it would put
        // them in the shared-memory arena, which E6007 did not count them
        // against).
        if (m == target::MemSpace::TMEM && *kind == target::TargetKind::B200)
          report(loc, "a buffer in Memory::TMEM (the CUDA layer places buffers in Memory::VMEM, shared memory)");
      }
      if (elem && !elem.isa<mlir::NoneType>()) {
        std::optional<target::ScalarKind> e = scalarOf(elem);
        if (!e || !target::tensorElementAvailable(*e, *kind)) report(loc, "Tensor<" + elemName(elem) + ", _>");
      }
    };
    getOperation().walk<mlir::WalkOrder::PreOrder>([&](mlir::Operation* op) {
      target::Builtin b = builtinOf(op);
      if (b != target::Builtin::None && !target::available(b, *kind)) report(op->getLoc(), target::info(b).name);
      for (mlir::Type t : op->getOperandTypes()) checkType(op->getLoc(), t);
      for (mlir::Type t : op->getResultTypes()) checkType(op->getLoc(), t);
      if (auto f = mlir::dyn_cast<mlir::func::FuncOp>(op))
        for (mlir::Type t : f.getArgumentTypes()) checkType(f.getLoc(), t);
    });
    if (failed) signalPassFailure();
  }
};

}  // namespace

std::unique_ptr<mlir::Pass> createTargetLegalityPass(std::string target, LegalityHandler handler) {
  auto p = std::make_unique<TargetLegalityPass>();
  p->target = target;
  p->handler = std::move(handler);
  return p;
}

void registerPasses() {
  mlir::registerPass([] { return createTargetLegalityPass(); });
  mlir::registerPass([] { return createSyncBaselinePass(); });
}

}  // namespace vx::dialect

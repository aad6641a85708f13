// --target-legality: what a target lacks, reported as E0206 at the source
// location the lowering kept. The table of builtins and memories is the
// checker's (stdlib/targets.txt), so `vxc check` and this pass agree; the
// element types a backend can store are this pass's own knowledge.
#include <set>

#include "check/Targets.h"
#include "dialect/Passes.h"
#include "dialect/VxDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace vx::dialect {

namespace {

// The builtin an op implements; empty for ops every target has.
llvm::StringRef builtinOf(mlir::Operation* op) {
  if (mlir::isa<TransferOp>(op)) return "transfer";
  if (mlir::isa<TransferAsyncOp>(op)) return "transfer_async";
  if (mlir::isa<TransferAsyncIntoOp, TransferIntoOp>(op)) return "transfer_async_into";
  if (mlir::isa<WaitOp>(op)) return "wait";
  if (mlir::isa<StoreOp>(op)) return "store";
  if (mlir::isa<StoreAsyncOp>(op)) return "store_async";
  if (mlir::isa<ZerosOp>(op)) return "zeros";
  if (mlir::isa<MatmulAccOp>(op)) return "matmul_acc";
  if (mlir::isa<LoadWeightsOp>(op)) return "load_weights";
  if (mlir::isa<StoreAccOp>(op)) return "store_acc";
  if (mlir::isa<MmaOp>(op)) return "mma";
  if (mlir::isa<ReluOp>(op)) return "relu";
  if (mlir::isa<ScaleOp>(op)) return "scale";
  return {};
}

std::string elemName(mlir::Type t) {
  if (t.isF32()) return "f32";
  if (t.isF64()) return "f64";
  if (t.isF16()) return "f16";
  if (t.isBF16()) return "bf16";
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
    bool known = false;
    check::Target table = check::loadTarget(target, known);
    if (!known) {
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
      if (space && !table.implements("Memory::" + memorySpaceName(*space).str()))
        report(loc, "Memory::" + memorySpaceName(*space).str());
      // The cpu runtime stores f32, f64 and bf16 tensors.
      if (elem && target == "cpu" && !elem.isa<mlir::NoneType>() && !elem.isF32() && !elem.isF64() &&
          !elem.isBF16())
        report(loc, "Tensor<" + elemName(elem) + ", _>");
    };
    getOperation().walk<mlir::WalkOrder::PreOrder>([&](mlir::Operation* op) {
      llvm::StringRef b = builtinOf(op);
      if (!b.empty() && !table.implements(b.str())) report(op->getLoc(), b.str());
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

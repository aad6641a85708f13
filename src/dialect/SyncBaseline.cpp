// --sync-baseline: the correctness oracle of every target (targets.md). Each
// asynchronous copy becomes its blocking form followed by a token that is
// already complete, so waits stay in place and the program keeps its shape.
#include "dialect/Passes.h"
#include "dialect/VxDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace vx::dialect {

namespace {

struct SyncBaselinePass : mlir::PassWrapper<SyncBaselinePass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SyncBaselinePass)
  llvm::StringRef getArgument() const override { return "sync-baseline"; }
  llvm::StringRef getDescription() const override {
    return "Lower every asynchronous copy to a blocking copy and an already-complete token";
  }

  void runOnOperation() override {
    llvm::SmallVector<mlir::Operation*> async;
    getOperation().walk([&](mlir::Operation* op) {
      if (mlir::isa<TransferAsyncOp, TransferAsyncIntoOp, StoreAsyncOp>(op)) async.push_back(op);
    });
    for (mlir::Operation* op : async) {
      mlir::OpBuilder b(op);
      mlir::Location loc = op->getLoc();
      mlir::Type tokenType = op->getResult(0).getType();
      mlir::Value ready;
      if (auto t = mlir::dyn_cast<TransferAsyncOp>(op)) {
        mlir::Value buf = b.create<TransferOp>(loc, tokenType.cast<TokenType>().getPayload(), t.getSrc());
        ready = b.create<ReadyOp>(loc, tokenType, buf);
      } else if (auto t = mlir::dyn_cast<TransferAsyncIntoOp>(op)) {
        b.create<TransferIntoOp>(loc, t.getSrc(), t.getDst());
        ready = b.create<ReadyOp>(loc, tokenType, mlir::Value());
      } else if (auto t = mlir::dyn_cast<StoreAsyncOp>(op)) {
        b.create<StoreOp>(loc, t.getSrc(), t.getDst());
        ready = b.create<ReadyOp>(loc, tokenType, mlir::Value());
      }
      op->getResult(0).replaceAllUsesWith(ready);
      op->erase();
    }
  }
};

}  // namespace

std::unique_ptr<mlir::Pass> createSyncBaselinePass() { return std::make_unique<SyncBaselinePass>(); }

}  // namespace vx::dialect

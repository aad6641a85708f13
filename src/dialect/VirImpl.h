// What a Vir holds: its own MLIRContext and the module. For backends.
#pragma once

#include "dialect/Vir.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

namespace vx::dialect {

struct Vir::Impl {
  // One thread lowers and checks a program: no locks in the uniquer.
  mlir::MLIRContext context{mlir::MLIRContext::Threading::DISABLED};
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

// Registers the dialects VIR uses (vx, func, scf, arith) in `context`.
void loadDialects(mlir::MLIRContext& context);

}  // namespace vx::dialect

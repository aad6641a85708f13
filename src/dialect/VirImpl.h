// What a Vir holds: its own MLIRContext and the module. For backends.
#pragma once

#include "dialect/Vir.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

namespace vx::dialect {

struct Vir::Impl {
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

// Registers the dialects VIR uses (vx, func, scf, arith) in `context`.
void loadDialects(mlir::MLIRContext& context);

}  // namespace vx::dialect

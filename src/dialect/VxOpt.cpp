// vx-opt: mlir-opt with the vx dialect (plus func, scf, arith) and its passes,
// for lit tests: `vx-opt --sync-baseline in.mlir`.
#include "dialect/Passes.h"
#include "dialect/VxDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char** argv) {
  mlir::DialectRegistry registry;
  registry.insert<vx::dialect::VxDialect, mlir::func::FuncDialect, mlir::scf::SCFDialect, mlir::arith::ArithDialect>();
  vx::dialect::registerPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, "vx optimizer driver\n", registry));
}

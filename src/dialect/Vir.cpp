// The driver's view of VIR: build (lower + passes), print.
#include "dialect/Vir.h"

#include "dialect/LowerHir.h"
#include "dialect/Passes.h"
#include "dialect/VirImpl.h"
#include "dialect/VxDialect.h"
#include "diag/DiagKinds.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"

namespace vx::dialect {

void loadDialects(mlir::MLIRContext& context) {
  context.loadDialect<VxDialect, mlir::func::FuncDialect, mlir::scf::SCFDialect, mlir::arith::ArithDialect>();
}

Vir::Vir(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Vir::~Vir() = default;

std::string Vir::print(bool debugInfo) const {
  std::string out;
  llvm::raw_string_ostream os(out);
  mlir::OpPrintingFlags flags;
  if (debugInfo) flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  impl_->module->print(os, flags);
  os << "\n";
  return os.str();
}

std::unique_ptr<Vir> buildVir(const hir::Program& program, const base::SourceMap& sources, base::FileId file,
                              const VirOptions& options, diag::Sink& sink) {
  auto impl = std::make_unique<Vir::Impl>();
  loadDialects(impl->context);
  // MLIR's own diagnostics (a verifier failure) mean a lowering bug: they
  // surface as internal errors, never as silence.
  std::string internal;
  mlir::ScopedDiagnosticHandler handler(&impl->context, [&](mlir::Diagnostic& d) {
    if (d.getSeverity() == mlir::DiagnosticSeverity::Error) internal += d.str() + "\n";
    return mlir::success();
  });
  impl->module = lowerHir(impl->context, program, sources, file, options.target, sink, options.locations);
  if (!impl->module) return nullptr;
  if (options.verify && mlir::failed(mlir::verify(*impl->module)))
    throw std::runtime_error("the lowered VIR does not verify:\n" + internal);
  mlir::PassManager pm(&impl->context);
  // The module was verified above (or is only read by the legality pass);
  // only a rewriting pass needs it verified again.
  pm.enableVerifier(options.syncBaseline);
  if (options.syncBaseline) pm.addPass(createSyncBaselinePass());
  bool illegal = false;
  pm.addPass(createTargetLegalityPass(options.target, [&](mlir::Location loc, const std::string& what) {
    illegal = true;
    diag::Diagnostic d = diag::UnavailableOnTarget(what, options.target);
    base::Span at = spanOf(loc, file);
    if (at.valid()) d.primary(at, "used here");
    sink.emit(std::move(d));
  }));
  if (mlir::failed(pm.run(*impl->module))) {
    if (illegal) return nullptr;
    throw std::runtime_error("a VIR pass failed:\n" + internal);
  }
  return std::make_unique<Vir>(std::move(impl));
}

}  // namespace vx::dialect

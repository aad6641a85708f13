// Passes over VIR. Registered under these names for vx-opt:
//   --sync-baseline           every async copy becomes blocking + a ready token
//   --target-legality=target=cpu|tpu|b200|h100
//                             reports what the target lacks (E0206)
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "mlir/IR/Location.h"
#include "mlir/Pass/Pass.h"

namespace vx::dialect {

std::unique_ptr<mlir::Pass> createSyncBaselinePass();

// Called once per unavailable thing: `what` as users write it
// (`transfer_async`, `Memory::SMEM`, `Tensor<i32, ...>`). Without a handler
// the pass emits an MLIR error carrying the code (vx-opt).
using LegalityHandler = std::function<void(mlir::Location, const std::string& what)>;
std::unique_ptr<mlir::Pass> createTargetLegalityPass(std::string target = "cpu",
                                                     LegalityHandler handler = nullptr);

// Makes the passes known to MlirOptMain.
void registerPasses();

}  // namespace vx::dialect

// The dialect object, memory-space spellings, and the generated op classes.
#include "dialect/VxDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

namespace vx::dialect {

llvm::StringRef memorySpaceKeyword(MemorySpace m) {
  switch (m) {
    case MemorySpace::HBM: return "hbm";
    case MemorySpace::VMEM: return "vmem";
    case MemorySpace::SMEM: return "smem";
    case MemorySpace::TMEM: return "tmem";
  }
  return "hbm";
}

llvm::StringRef memorySpaceName(MemorySpace m) {
  switch (m) {
    case MemorySpace::HBM: return "HBM";
    case MemorySpace::VMEM: return "VMEM";
    case MemorySpace::SMEM: return "SMEM";
    case MemorySpace::TMEM: return "TMEM";
  }
  return "HBM";
}

std::optional<MemorySpace> memorySpaceFromKeyword(llvm::StringRef s) {
  for (MemorySpace m : {MemorySpace::HBM, MemorySpace::VMEM, MemorySpace::SMEM, MemorySpace::TMEM})
    if (memorySpaceKeyword(m) == s) return m;
  return std::nullopt;
}

void VxDialect::initialize() {
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "dialect/VxOps.cpp.inc"
      >();
}

}  // namespace vx::dialect

#include "dialect/VxOpsDialect.cpp.inc"
#define GET_OP_CLASSES
#include "dialect/VxOps.cpp.inc"

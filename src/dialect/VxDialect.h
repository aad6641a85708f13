// The `vx` dialect's C++ API: dialect, types and ops generated from VxOps.td.
// Include only where MLIR is needed (src/dialect, src/codegen): MLIR headers
// are heavy; the driver talks to this phase through Vir.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "llvm/ADT/StringRef.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace vx::dialect {

// Memory spaces, spelled as in source (`Memory::VMEM`) and lower-case in
// types (`!vx.pinned<128xf32, vmem>`).
enum class MemorySpace : uint8_t { HBM, VMEM, SMEM, TMEM };
llvm::StringRef memorySpaceKeyword(MemorySpace m);  // "vmem"
llvm::StringRef memorySpaceName(MemorySpace m);     // "VMEM"
std::optional<MemorySpace> memorySpaceFromKeyword(llvm::StringRef s);

// The source name of a scalar VIR type ("f32", "u64", "usize", "bool") from
// the scalar table (target/ScalarTypes.def); "" if it is none. Integers are
// signless in VIR: `isUnsigned` (a `vx.unsigned` attribute) picks u32 over i32.
std::string scalarName(mlir::Type t, bool isUnsigned);

}  // namespace vx::dialect

#include "dialect/VxOpsDialect.h.inc"
#define GET_TYPEDEF_CLASSES
#include "dialect/VxOpsTypes.h.inc"
#define GET_OP_CLASSES
#include "dialect/VxOps.h.inc"

namespace vx::dialect {

// What a `vx.broadcast` operand is of its [R, C] result: the whole tile (0),
// its column [R, 1] (1) or its row [1, C] (2), as the runtimes number them.
enum class BroadcastSide : uint8_t { Whole, Column, Row };
BroadcastSide broadcastSide(mlir::Type operand, mlir::Type result);

// What `vx.dbg` prints before a tensor's elements: its element type and
// shape as Vx writes them (`f32[4, 8]`); every target prints the same.
std::string dbgTypeText(mlir::Type pinned);

}  // namespace vx::dialect

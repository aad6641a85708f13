// HIR -> VIR. One func.func per user function; structured control flow
// (scf.for / scf.while / scf.if) with mutable locals that a loop or branch
// assigns carried as iteration arguments and results, so the canonical
// program's `inflight` token is loop-carried; arith for scalars.
#pragma once

#include "base/Source.h"
#include "diag/Sink.h"
#include "hir/Hir.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace vx::dialect {

// Unsupported constructs (`&mut` of a scalar, a `Vec` of scalars, ...) are
// reported to `sink` (E0206 for target `target`); the module is null then.
mlir::OwningOpRef<mlir::ModuleOp> lowerHir(mlir::MLIRContext& context, const hir::Program& program,
                                           const base::SourceMap& sources, base::FileId file,
                                           const std::string& target, diag::Sink& sink,
                                           bool spanOnlyLocations = false);

// The source span an op's location names; invalid when it has none.
// Locations are FusedLoc of a FileLineColLoc and an `array<i32: begin,
// end>` of byte offsets; with `spanOnlyLocations` (a check that never prints
// the module or its line numbers), one FileLineColLoc in the file
// `kSpanLocFile` whose line and column are the begin and end offsets: one
// uniqued attribute per op instead of three.
base::Span spanOf(mlir::Location loc, base::FileId file);

// The attribute marking arith integer ops whose operands are unsigned
// (arith is signless; overflow checks and casts need the sign).
inline constexpr const char* kSpanLocFile = "<vx-span>";

inline constexpr const char* kUnsignedAttr = "vx.unsigned";

}  // namespace vx::dialect

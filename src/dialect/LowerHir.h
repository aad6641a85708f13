// HIR -> VIR. One func.func per user function; structured control flow
// (scf.for / scf.while / scf.if) with mutable locals that a loop or branch
// assigns carried as iteration arguments and results, so the canonical
// program's `inflight` token is loop-carried; arith for scalars.
#pragma once

#include "base/Source.h"
#include "dialect/Vir.h"
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
                                           Locations locations = Locations::Full);

// The source span an op's location names; invalid when it has none (and
// always with Locations::None).
base::Span spanOf(mlir::Location loc, base::FileId file);

// The file name of Locations::SpanOnly locations.
inline constexpr const char* kSpanLocFile = "<vx-span>";

// The attribute marking arith integer ops whose operands are unsigned
// (arith is signless; overflow checks and casts need the sign).
inline constexpr const char* kUnsignedAttr = "vx.unsigned";
// On an `scf.for` whose range is of a signed type (`i32`, `i64`): its
// bounds, `index` values, compare as signed (`-2..3` runs five trips). The
// cpu and CUDA code compares `index` unsigned otherwise (a `usize` range may
// pass 2^63); the tpu's registers compare signed always.
inline constexpr const char* kSignedRangeAttr = "vx.signed_range";

}  // namespace vx::dialect

// Shared state of the HIR -> VIR lowering (LowerHir*.cpp). A context object
// holds the data; behaviour lives in free functions, one file per construct.
#pragma once

#include <string>
#include <vector>

#include "dialect/LowerHir.h"
#include "dialect/VxDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace vx::dialect {

// A lowered value: tuples flatten to several MLIR values, `void` to none.
using Vals = llvm::SmallVector<mlir::Value, 2>;

struct Lower {
  mlir::MLIRContext& ctx;
  const hir::Program& prog;
  const base::SourceMap& sources;
  base::FileId file;
  std::string target;
  diag::Sink& sink;
  mlir::OpBuilder b;
  mlir::ModuleOp module;
  // Current SSA values of each local (by LocalId); `bound` says whether set.
  std::vector<Vals> locals;
  std::vector<bool> bound;
  std::vector<mlir::func::FuncOp> fns;  // by FnId; null for extern fns
  bool failed = false;

  Lower(mlir::MLIRContext& c, const hir::Program& p, const base::SourceMap& s, base::FileId f, std::string t,
        diag::Sink& k)
      : ctx(c), prog(p), sources(s), file(f), target(std::move(t)), sink(k), b(&c) {}
  const hir::TypeTable& types() const { return prog.types; }
};

// Reports a construct this lowering does not handle (E0206: "`what` is not
// available on target ...", with `why` as the label) and marks failure.
void unsupported(Lower& l, base::Span at, const std::string& what, const std::string& why);
mlir::Location loc(Lower& l, base::Span span);

// ---- types (LowerHirTypes.cpp) ----
// Appends the MLIR types of `t` (none for void, several for a tuple); false
// (and reported at `at`) when the type has no lowering.
bool lowerType(Lower& l, hir::TypeId t, llvm::SmallVectorImpl<mlir::Type>& out, base::Span at);
// The single MLIR type of a non-tuple, non-void type; null when unsupported.
mlir::Type lowerOne(Lower& l, hir::TypeId t, base::Span at);
// Strips references.
hir::TypeId derefAll(const hir::TypeTable& tt, hir::TypeId t);
bool isUnsignedInt(const hir::TypeTable& tt, hir::TypeId t);
// Number of MLIR values type `t` flattens to.
unsigned flatCount(Lower& l, hir::TypeId t);

// ---- expressions (LowerHirExpr.cpp) ----
Vals lowerExpr(Lower& l, hir::ExprId e);
// An expression of one value (scalars, buffers); null after an error.
mlir::Value lowerValue(Lower& l, hir::ExprId e);
// `a op b` on scalars of HIR type `t` (also used by `+=`).
mlir::Value scalarBinary(Lower& l, ast::Op op, mlir::Value a, mlir::Value b, hir::TypeId t, mlir::Location at);
// Integer/float/bool value converted to `index` (loop bounds, indices).
mlir::Value toIndex(Lower& l, mlir::Value v, hir::TypeId t, mlir::Location at);
mlir::Value fromIndex(Lower& l, mlir::Value v, hir::TypeId t, mlir::Location at);

// ---- builtin calls (LowerHirBuiltins.cpp) ----
Vals lowerBuiltin(Lower& l, const hir::Expr& call, const hir::Function& fn);

// ---- statements (LowerHirStmt.cpp) ----
void lowerBlock(Lower& l, hir::BlockId block);
// Lowers a function body; false after an error.
bool lowerFunction(Lower& l, hir::FnId id);

}  // namespace vx::dialect

// Shared state of the HIR -> VIR lowering (LowerHir*.cpp). A context object
// holds the data; behaviour lives in free functions, one file per construct.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "dialect/LowerHir.h"
#include "dialect/VxDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseMap.h"
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
  // The last source file a location named, and its name as an attribute.
  uint32_t locFile = UINT32_MAX;
  mlir::StringAttr locFileName;
  // Locations made so far, by span (one expression lowers to several ops).
  llvm::DenseMap<uint64_t, mlir::Location> locCache;
  Locations locations = Locations::Full;  // lowerHir's argument (LowerHir.h)

  // Early exits (LowerHirExits.cpp). Their flags and the return value are
  // slots of `locals` past the program's locals, so that loops and branches
  // carry them like any assigned local.
  struct LoopExits {
    uint32_t broke;      // i1: this loop's `break` ran
    uint32_t continued;  // i1: this trip's `continue` ran
    // Carried tokens and buffers: on a path that leaves the loop their
    // running value becomes `init` (vx.undef), and a `break` moves it to
    // `exit`, so that what leaves is never yielded into a next trip.
    struct Split {
      uint32_t local, exit;
      Vals init;
    };
    std::vector<Split> splits;
  };
  std::vector<LoopExits> loops;  // innermost last
  hir::FnId curFn;               // the function being lowered
  bool earlyReturn = false;      // the function being lowered returns early
  uint32_t returned = 0;         // i1 slot: a `return` ran
  uint32_t returnValue = 0;      // slot: what it returned
  Vals returnInit;               // placeholders of the return value
  std::vector<uint8_t> exitMemo;  // by StmtId: exitsOf, or kExitUnknown

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
Vals lowerBuiltin(Lower& l, hir::ExprId id, const hir::Expr& call, const hir::Function& fn);
// A dimension of a tensor type as an `index` value: a constant, or the
// current function's run-time extent.
mlir::Value dimValue(Lower& l, hir::TypeId dim, mlir::Location at);
// `parallel (i, j) in [e0, e1] { ... }` (LowerHirStmt.cpp).
void lowerParallel(Lower& l, const hir::Stmt& s, mlir::Location at);

// ---- statements (LowerHirStmt.cpp) ----
void lowerBlock(Lower& l, hir::BlockId block);
// Lowers a function body; false after an error.
bool lowerFunction(Lower& l, hir::FnId id);

// The locals (and exit slots) that the statements of a construct assign.
// `ownLoop`: `break`/`continue` at this level belong to the loop being
// lowered, not to `l.loops.back()`.
void collectAssigned(Lower& l, hir::BlockId b, std::set<uint32_t>& out, bool ownLoop);
void collectAssignedStmt(Lower& l, hir::StmtId id, std::set<uint32_t>& out, bool ownLoop);
// The locals a construct carries: assigned inside, bound before it.
struct Carried {
  std::vector<uint32_t> locals;
  llvm::SmallVector<mlir::Type> types;
  llvm::SmallVector<unsigned> sizes;
};
Carried carried(Lower& l, const std::set<uint32_t>& assigned);
Vals currentValues(Lower& l, const Carried& c);
void rebind(Lower& l, const Carried& c, mlir::ValueRange values);
// Places the builder in `block`, before the terminator the op builders add
// when a construct has no results.
void enter(Lower& l, mlir::Block* block);
// Ends `block` with `scf.yield yields` (replacing an implicit terminator).
void finish(Lower& l, mlir::Block* block, mlir::ValueRange yields, mlir::Location at);

// ---- early exits (LowerHirExits.cpp) ----
// What can leave a statement before its end: a bit set of kExit*. `break` and
// `continue` count up to their loop; `return` up to the function.
enum : uint8_t { kExitBreak = 1, kExitContinue = 2, kExitReturn = 4, kExitUnknown = 0xFF };
uint8_t exitsOf(Lower& l, hir::StmtId id);
uint8_t exitsOfBlock(Lower& l, hir::BlockId id);
// Whether `fn` has a `return` other than its body's last statement.
bool returnsEarly(Lower& l, const hir::Function& fn);
// A value of type `t` that no path reads: 0 for scalars, vx.undef for the
// rest (a local before any path has set it, a token after it was moved).
mlir::Value placeholder(Lower& l, mlir::Type t, mlir::Location at);

// Sets up the returned flag and the return value's placeholders at the
// function's entry; `results` are its result types.
void beginEarlyReturn(Lower& l, mlir::TypeRange results, mlir::Location at);
// The `i1` "something in `exits` ran": the rest of a block runs when it is false.
mlir::Value exitedFlag(Lower& l, uint8_t exits, mlir::Location at);
mlir::Value boolConstant(Lower& l, bool v, mlir::Location at);
// `break;`, `continue;`, `return e;` and a returning function's tail value.
void lowerExitStmt(Lower& l, const hir::Stmt& s, mlir::Location at);
void lowerReturnValue(Lower& l, hir::ExprId value);
// A `for` or `while` whose body may `break` or `return`.
void lowerExitLoop(Lower& l, const hir::Stmt& s, mlir::Location at);
// A trip of a loop body with the exits `exits`: its flags start false.
Lower::LoopExits beginTrip(Lower& l, uint8_t exits, mlir::Location at);
void endTrip(Lower& l, const Lower::LoopExits& own);

}  // namespace vx::dialect

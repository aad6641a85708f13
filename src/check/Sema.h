// Name resolution + type checking, one walk that lowers the AST to the typed
// HIR. `Sema` holds the data of the walk; behaviour lives in free functions
// split by construct (SemaItems, SemaTypes, SemaExpr, SemaCall, SemaStmt,
// Unify, Unused).
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ast/Ast.h"
#include "target/Target.h"
#include "diag/Sink.h"
#include "hir/Hir.h"

namespace vx::check {

// One parsed file plus its interner (the prelude and the user's file).
struct SourceUnit {
  const ast::Module* module;
  const ast::Interner* names;
  bool prelude;
  base::FileId file;  // where its spans point (the prelude is parsed once, checked in many source maps)
};

struct Scope {
  std::vector<std::pair<std::string, hir::LocalId>> bindings;
};

struct Sema {
  hir::Program& prog;
  diag::Sink& sink;
  target::TargetKind target;
  std::unordered_map<std::string, hir::FnId> fnByName;
  std::unordered_map<std::string, hir::ConstId> constByName;
  // The prelude's declaration of each builtin (by Builtin), which a user
  // item of the same name hides from fnByName but not from the forms the
  // compiler writes itself (the pipeline's waits and copies).
  std::unordered_map<uint32_t, hir::FnId> builtinFns;
  // Constants come in any order, as Rust's: while declareItems declares
  // them, a use of one not declared yet declares it first
  // (usePendingConst); `constsInProgress` are those being declared, so a
  // constant that uses itself is a cycle, not a recursion.
  std::unordered_map<std::string, const ast::Item*> pendingConsts;
  std::vector<std::string> constsInProgress;
  std::unordered_map<std::string, size_t> constInProgressAt;  // name -> its index in constsInProgress
  // The expressions of the constants a constant's value declared where it
  // used them ([first, end) each, nested ones inside): already settled, so
  // the constant's own pass over its expressions skips them (a chain of
  // constants each naming the next stays linear).
  std::vector<std::pair<uint32_t, uint32_t>> settledConstExprs;
  std::unordered_set<const ast::Item*> constItemsDone;
  // The folded value of each integer `const` (by ConstId index) that has one.
  std::unordered_map<uint32_t, __int128> constValues;

  // Per source unit being lowered.
  const ast::Module* m = nullptr;
  bool inPrelude = false;
  const ast::Interner* names = nullptr;
  base::FileId file;
  // Per function being checked.
  hir::FnId fn;
  std::vector<Scope> scopes;
  // Generic parameters in scope while lowering an extern fn's signature.
  std::vector<std::pair<std::string, hir::TypeId>> generics;
  int loopDepth = 0;
  // Run-time extents (grid.md §1): while a function's parameters are
  // lowered, the extents their shapes name, each made at its first use
  // (`extentsOpen`); in its body, the ones a shape's name may denote.
  std::vector<hir::Function::ExtentParam>* extents = nullptr;
  bool extentsOpen = false;
  uint32_t extentParam = 0, extentDim = 0;  // the parameter and dimension being lowered
  // Inside a `parallel` body (gridDepth > 0): the locals from
  // `fnFirstLocal` up to `gridFirstLocal` belong to the code around the
  // grid, which every instance shares.
  int gridDepth = 0;
  uint32_t gridFirstLocal = 0, fnFirstLocal = 0;
  // The expressions of the function's grid (its extents and body).
  uint32_t gridExprBegin = 0, gridExprEnd = 0;
  // The pipeline form (SemaPipeline.cpp, docs/pipeline.md): each copy the
  // loop pipelines binds its name to a ring (a local of the ring's type);
  // a use of the name is the ring's slot of the current trip,
  // `ring[k % depth]`. By the ring local's index.
  struct PipelineAlias {
    hir::LocalId var;  // the loop's variable
    uint64_t depth = 0;
    hir::TypeId slot;  // the copy's type: one slot
  };
  std::unordered_map<uint32_t, PipelineAlias> pipelineAliases;
  // The loopDepth of each pipelined loop whose body is being checked: a
  // `break` out of one, or a `return` inside any, would leave copies in flight.
  std::vector<int> pipelineLoops;
  // Where a local's value was placed in a memory space (the `Memory::X`
  // argument of the call that made it), for E0202's secondary label.
  std::unordered_map<uint32_t, base::Span> placement;

  // "A ... with a similar name exists" compares a name with every
  // candidate: thousands of unknown names among thousands of locals would
  // make a file's errors quadratic. Past this many comparisons in a
  // program, no more suggestions are looked for (the errors stay).
  static constexpr uint64_t kSuggestionBudget = 4'000'000;
  uint64_t suggestionWork = 0;
  bool maySuggest(size_t candidates) {
    if (suggestionWork + candidates > kSuggestionBudget) return false;
    suggestionWork += candidates;
    return true;
  }

  Sema(hir::Program& p, diag::Sink& s, target::TargetKind t) : prog(p), sink(s), target(t) {}

  hir::TypeTable& types() { return prog.types; }
  std::string name(ast::NameId id) const { return std::string(names->str(id)); }
  base::Span span(ast::Range r) const { return base::Span{file, r.begin, r.end}; }
  const hir::Function& currentFn() const { return prog.fns[fn.index]; }
};

// ---- entry point ----
// Checks `user` against the prelude and fills `prog`. Diagnostics go to sink.
void checkProgram(Sema& s, const SourceUnit& prelude, const SourceUnit& user);

// ---- items (SemaItems.cpp) ----
void declareItems(Sema& s, const SourceUnit& unit);
// A use (at `at`) of name `n` while constants are declared: declares the
// constant `n` first where it is one not declared yet. Cycle: it is being
// declared (it uses itself); the error is reported here.
enum class PendingConst : uint8_t { None, Declared, Cycle };
PendingConst usePendingConst(Sema& s, const std::string& n, base::Span at);
// Whether a tensor of `elem` and `shape` has at most 2^63 - 1 bytes (its
// static dimensions); else E0208 at `at`.
bool tensorSizeFits(Sema& s, hir::TypeId elem, hir::TypeId shape, base::Span at);
void checkBodies(Sema& s, const SourceUnit& unit);

// ---- types (SemaTypes.cpp) ----
// Lowers a written type; reports E0100/E0203/E0204 and returns the error type.
hir::TypeId lowerType(Sema& s, ast::TypeId t);

// ---- `#[cfg]` (SemaCfg.cpp) ----
// False when a `#[cfg(...)]` of the item is false for s.target; reports
// malformed predicates (E0001) and unknown names (E0100).
bool itemActive(Sema& s, const ast::Item& it);

// ---- compile-time integers (SemaConsts.cpp) ----
struct ConstFold {
  enum class Status : uint8_t { Ok, NotConstant, Failed } status = Status::Ok;
  __int128 value = 0;
  base::Span at;    // the operation that failed
  std::string why;  // "divides by zero", ...
};
// Folds an integer expression of a `const` initialiser exactly.
ConstFold foldConstInt(Sema& s, hir::ExprId e);
// Reports E0208 for a fold that failed (overflow, division by zero).
void reportConstFold(Sema& s, const ConstFold& f);
// A written dimension (`2 * BM`, `BN`) as a type, or the error type after E0100/E0208.
hir::TypeId lowerDimExpr(Sema& s, ast::TypeId dim);
// A shape dimension of `value` (`computed`: from constants, not a literal):
// an error (E0208) when it is 0.
hir::TypeId checkedDim(Sema& s, uint64_t value, base::Span at, bool computed);
// The run-time extent a dimension's name denotes (made in a parameter
// list); invalid when it denotes none.
hir::TypeId extentByName(Sema& s, const std::string& name, base::Span at);
// E0201 when `type` is an on-chip buffer or a token whose shape has
// run-time extents (on-chip buffers have static shapes); false then.
bool checkStaticOnChip(Sema& s, hir::TypeId type, base::Span at);

// ---- expressions (SemaExpr.cpp) ----
// `expected` may be invalid (no expectation). The result's type is unified
// with `expected` when given (reporting a mismatch at the expression).
hir::ExprId checkExpr(Sema& s, ast::ExprId e, hir::TypeId expected = {});
// True when the HIR expression denotes a place (local, index, field, deref).
bool isPlace(const hir::Program& p, hir::ExprId e);
// The local at the root of a place, if any.
hir::LocalId placeRoot(const hir::Program& p, hir::ExprId e);
// Creates an error expression covering `range`.
hir::ExprId errorExpr(Sema& s, base::Span span);

// ---- calls (SemaCall.cpp) ----
hir::ExprId checkCall(Sema& s, const ast::Expr& call, ast::Range range);
// The full type when `a op b` (or `max(a, b)`) broadcasts one side: both
// VMEM tensors of one element type, 2-D, one `[R, C]` and the other
// `[R, 1]` or `[1, C]`; else invalid.
hir::TypeId broadcastOf(hir::TypeTable& tt, hir::TypeId a, hir::TypeId b);
hir::ExprId checkMethodCall(Sema& s, const ast::Expr& call, ast::Range range);

// ---- statements (SemaStmt.cpp) ----
hir::BlockId checkBlock(Sema& s, ast::BlockId b, hir::TypeId expectedTail);
// The same for the block's statements from `first` on.
hir::BlockId checkBlockFrom(Sema& s, ast::BlockId b, uint32_t first, hir::TypeId expectedTail);

// ---- the pipeline form (SemaPipeline.cpp) ----
// `for k in pipeline(lo..hi, depth = D) { let x = transfer(src, M); ... }`:
// checks it and returns the statement it stands for, the ring, prologue,
// steady state and short-trip loop the checker then proves (docs/pipeline.md).
hir::StmtId checkPipeline(Sema& s, const ast::Stmt& st, base::Span span);
hir::LocalId declareLocal(Sema& s, const std::string& name, base::Span span, hir::TypeId type,
                          bool mut, bool param);
hir::LocalId lookupLocal(Sema& s, const std::string& name);
// The local whose own storage a write to `place` changes: its root, unless
// the write goes through a reference or a dereference (to what that points
// to: HBM, whose hazards are the ownership checker's).
hir::LocalId ownedRoot(const hir::Program& p, hir::ExprId place);
// Inside a `parallel` body: does `l` belong to the code around the grid?
bool outsideGrid(const Sema& s, hir::LocalId l);
// E0209 when a use of `l` inside a grid's body reaches a buffer or token of
// the code around it (each instance has its own).
void checkGridUse(Sema& s, hir::LocalId l, base::Span at);
// E0209 when a grid's body writes (or borrows mutably) a variable of the
// code around it, which every instance shares (HBM through a reference is
// the checker's business: E6010).
void checkGridWrite(Sema& s, hir::ExprId place, base::Span at);
// E0209 for calls to functions with a grid (launches, not callable).
void checkGridCalls(Sema& s);

// ---- unification (Unify.cpp) ----
// Unifies `found` with `expected`. On failure reports E0200 / E0201 / E0202 at
// `at` (with `context` as the label) and returns false. Types containing the
// error type unify silently.
bool unify(Sema& s, hir::TypeId expected, hir::TypeId found, base::Span at,
           const std::string& context = {}, hir::ExprId foundExpr = {});
// Unifies without reporting.
bool tryUnify(Sema& s, hir::TypeId a, hir::TypeId b);

// ---- lints (Unused.cpp) ----
void reportUnused(Sema& s, hir::FnId fn, uint32_t firstLocal);

}  // namespace vx::check

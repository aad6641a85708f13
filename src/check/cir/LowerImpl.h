// The lowering from HIR to the core IR (Lower.cpp: statements and scopes;
// LowerExpr.cpp: expressions and places). Private to cir/.
#pragma once

#include <unordered_map>
#include <unordered_set>

#include "check/cir/Cir.h"

namespace vx::check::cir {

struct Builder {
  const hir::Program& prog;
  const base::SourceMap& sources;
  Body& body;
  std::unordered_map<uint32_t, LocalId> localOf;  // HIR local -> core local
  BlockId cur;
  LoopId curLoop;
  // Locals bound in each open block, in order; the innermost last.
  std::vector<std::vector<LocalId>> scopes;
  std::vector<uint32_t> scopeIds;  // parallel to scopes
  uint32_t nextScope = 0;
  void openScope() {
    scopes.emplace_back();
    scopeIds.push_back(nextScope++);
  }
  void closeScope() {
    scopes.pop_back();
    scopeIds.pop_back();
  }
  // Temporaries of the statements being lowered: one scope per source
  // statement (and per right operand of `&&`/`||`), dropped at its end.
  std::vector<std::vector<LocalId>> temps;
  // The operands of a `let` initializer's extending borrows (`&v`, `&&v`,
  // `(&v, 1)`): their values live as long as the block, as in Rust.
  std::unordered_set<uint32_t> heldForBlock;
  struct OpenLoop {
    LoopId loop;
    size_t scopes;  // scopes open outside it
    size_t temps;   // temporary scopes open outside it
  };
  std::vector<OpenLoop> loops;

  const hir::TypeTable& types() const { return prog.types; }

  // ---- blocks ----
  BlockId newBlock();
  void emit(Stmt s);
  // Ends the current block; code after it goes into a new block that
  // nothing jumps to (after `return`, `break`, `continue`).
  void terminate(Terminator t);
  void gotoBlock(BlockId target, base::Span at);

  // ---- locals ----
  LocalId addLocal(Local l);
  LocalId newTemp(hir::TypeId type, base::Span span);
  LocalId bindSource(hir::LocalId l);  // a `let` or a `for` index: declared in the innermost scope
  Place placeOf(LocalId l, base::Span span) const;
  Place project(const Place& base, Proj p);

  // ---- scopes ----
  void beginTemps() { temps.emplace_back(); }
  void endTemps(base::Span stmt);
  // The same, but the scalar temporaries stay alive: a branch reads the
  // condition; each successor kills them (kill).
  std::vector<LocalId> endTempsKeepScalars(base::Span stmt);
  void kill(const std::vector<LocalId>& locals, base::Span at);
  // Drops and forgets the locals of scopes [from, end) and the temporaries
  // of temporary scopes [fromTemps, end): the end of a block, or an early
  // exit leaving them. The scopes stay open (the lowering goes on inside
  // them after an early exit).
  void dropScopes(size_t from, size_t fromTemps, base::Span at, DropHow how);

  // ---- statements (Lower.cpp) ----
  void lowerBlock(hir::BlockId b, bool fnBody);
  void lowerStmt(hir::StmtId s);
  void lowerLet(const hir::Stmt& st);
  void bindPattern(hir::PatId p, const Place& from);
  // A local of the innermost scope, live from here.
  LocalId scopeLocal(const Local& l);
  // Marks the temporaries a `let` initializer extends to its block.
  void markExtended(hir::ExprId e);
  void lowerAssign(const hir::Stmt& st);
  void lowerIf(const hir::Stmt& st);
  LoopId openLoop(LoopKind kind, hir::StmtId id, const hir::Stmt& st);
  void lowerWhile(hir::StmtId id, const hir::Stmt& st);
  void lowerFor(hir::StmtId id, const hir::Stmt& st);
  void lowerReturn(const hir::Stmt& st);
  void lowerBreak(const hir::Stmt& st);

  // ---- expressions (LowerExpr.cpp) ----
  // The value of `e` as an operand (a temporary where it is not a place
  // or a constant). Evaluation happens in the current block.
  Operand lowerOperand(hir::ExprId e);
  // Evaluates `e` into `dest`.
  void lowerInto(const Place& dest, hir::ExprId e);
  // The place a place expression denotes (its indices evaluated), with the
  // auto-dereferences of `v[i]` and `p.0` on references explicit.
  Place lowerPlace(hir::ExprId e);
  Place autoDeref(Place p);
  // The local an index operand is in (a temporary when it is not one).
  LocalId indexLocal(hir::ExprId e);
  // `block::<[R, C]>(a, r, c)`: the block projection of what `a` points to.
  Place lowerBlockPlace(hir::ExprId call);
  void lowerParallel(hir::StmtId id, const hir::Stmt& st);
  // A value evaluated once into a local of the enclosing scope (a range's
  // or a grid's bounds).
  Operand lowerBound(hir::ExprId e);
  bool isPlaceExpr(hir::ExprId e) const;
  // Moves or copies, by type.
  OperandKind useKind(hir::TypeId t) const;
  bool needsDrop(hir::TypeId t) const;  // tokens or buffers inside
  bool hasTokens(hir::TypeId t) const;
  bool isScalarType(hir::TypeId t) const;  // integers, floats, bools
  bool isScalarData(hir::TypeId t) const;  // scalars, and tuples of scalar data
  void addOperands(Stmt& s, const std::vector<Operand>& ops);
};

// `+=` -> `+`, and so on.
ast::Op arithmeticOf(ast::Op compound);

}  // namespace vx::check::cir

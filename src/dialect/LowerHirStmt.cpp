// Statements and structured control flow. A mutable local that a loop or a
// branch assigns, and that lives outside it, is carried: an scf.for/scf.while
// iteration argument or an scf.if result (the canonical program's `inflight`).
// After a statement that may exit early (LowerHirExits.cpp), the rest of its
// block runs under scf.if.
#include <set>

#include "dialect/LowerHirImpl.h"

namespace vx::dialect {

using hir::ExprKind;
using hir::StmtKind;

// `a = b;` or `let a = b;` where `b` is another local holding a token: a
// move, after which `b` holds a placeholder (vx.undef) until it is assigned
// again, so that no branch or trip carries a second name for one copy (the
// tpu target numbers a transfer's buffers by the copies that may still be
// waited). The moved local; invalid for any other statement.
namespace {

hir::LocalId movedToken(Lower& l, const hir::Stmt& s) {
  hir::ExprId from;
  if (s.kind == StmtKind::Assign && s.op == ast::Op::Assign && l.prog.expr(s.a).kind == ExprKind::Local) from = s.b;
  if (s.kind == StmtKind::Let) from = s.a;
  if (!from.valid()) return {};
  const hir::Expr& value = l.prog.expr(from);
  if (value.kind != ExprKind::Local || l.types().kind(l.types().resolve(value.type)) != hir::TyKind::Token) return {};
  if (s.kind == StmtKind::Assign && value.local.index == l.prog.expr(s.a).local.index) return {};
  return value.local;
}

// After `s` has been lowered: the local it moved a token out of holds
// placeholders.
void clearMoved(Lower& l, const hir::Stmt& s, mlir::Location at) {
  hir::LocalId moved = movedToken(l, s);
  if (!moved.valid() || l.failed) return;
  Vals none;
  for (mlir::Value x : l.locals[moved.index]) none.push_back(placeholder(l, x.getType(), at));
  l.locals[moved.index] = none;
}

}  // namespace

void collectAssignedStmt(Lower& l, hir::StmtId id, std::set<uint32_t>& out, bool ownLoop) {
  if (!id.valid()) return;
  const hir::Program& p = l.prog;
  const hir::Stmt& s = p.stmt(id);
  switch (s.kind) {
    case StmtKind::Assign:
      if (p.expr(s.a).kind == ExprKind::Local) out.insert(p.expr(s.a).local.index);
      // `a = b` with `b` a token moves it: `b` holds nothing afterwards.
      if (hir::LocalId m = movedToken(l, s); m.valid()) out.insert(m.index);
      break;
    case StmtKind::For:
    case StmtKind::While: collectAssigned(l, s.body, out, true); break;
    case StmtKind::Block: collectAssigned(l, s.body, out, ownLoop); break;
    case StmtKind::If:
      collectAssigned(l, s.body, out, ownLoop);
      collectAssignedStmt(l, s.elseStmt, out, ownLoop);
      break;
    case StmtKind::Return:
      if (l.earlyReturn) {
        out.insert(l.returned);
        out.insert(l.returnValue);
      }
      for (const Lower::LoopExits& loop : l.loops)
        for (const Lower::LoopExits::Split& x : loop.splits) out.insert(x.local);
      break;
    case StmtKind::Break:
      if (!ownLoop && !l.loops.empty()) {
        out.insert(l.loops.back().broke);
        for (const Lower::LoopExits::Split& x : l.loops.back().splits) {
          out.insert(x.local);
          out.insert(x.exit);
        }
      }
      break;
    case StmtKind::Continue:
      if (!ownLoop && !l.loops.empty()) out.insert(l.loops.back().continued);
      break;
    case StmtKind::Let:
      if (hir::LocalId m = movedToken(l, s); m.valid()) out.insert(m.index);
      break;
    case StmtKind::Expr:
    case StmtKind::Parallel: break;  // instances assign only their own locals (Sema, E0209)
  }
}

void collectAssigned(Lower& l, hir::BlockId b, std::set<uint32_t>& out, bool ownLoop) {
  const hir::Block& blk = l.prog.block(b);
  for (uint32_t i = 0; i < blk.stmts.count; ++i)
    collectAssignedStmt(l, hir::StmtId{l.prog.listAt(blk.stmts, i)}, out, ownLoop);
}

Carried carried(Lower& l, const std::set<uint32_t>& assigned) {
  Carried c;
  for (uint32_t id : assigned) {
    if (!l.bound[id]) continue;
    c.locals.push_back(id);
    c.sizes.push_back(static_cast<unsigned>(l.locals[id].size()));
    for (mlir::Value v : l.locals[id]) c.types.push_back(v.getType());
  }
  return c;
}

Vals currentValues(Lower& l, const Carried& c) {
  Vals all;
  for (uint32_t id : c.locals) all.append(l.locals[id].begin(), l.locals[id].end());
  return all;
}

void rebind(Lower& l, const Carried& c, mlir::ValueRange values) {
  unsigned at = 0;
  for (size_t i = 0; i < c.locals.size(); ++i) {
    l.locals[c.locals[i]] = Vals(values.begin() + at, values.begin() + at + c.sizes[i]);
    at += c.sizes[i];
  }
}

void enter(Lower& l, mlir::Block* block) {
  if (!block->empty() && block->back().hasTrait<mlir::OpTrait::IsTerminator>())
    l.b.setInsertionPoint(&block->back());
  else
    l.b.setInsertionPointToEnd(block);
}

void finish(Lower& l, mlir::Block* block, mlir::ValueRange yields, mlir::Location at) {
  if (!block->empty() && block->back().hasTrait<mlir::OpTrait::IsTerminator>()) block->back().erase();
  l.b.setInsertionPointToEnd(block);
  l.b.create<mlir::scf::YieldOp>(at, yields);
}

namespace {

// How many values pattern `id` binds (tuples flatten).
unsigned patternWidth(Lower& l, hir::PatId id) {
  const hir::Pat& p = l.prog.pat(id);
  if (p.kind == hir::PatKind::Bind) return flatCount(l, l.prog.local(p.local).type);
  unsigned n = 0;
  for (uint32_t i = 0; i < p.elems.count; ++i) n += patternWidth(l, hir::PatId{l.prog.listAt(p.elems, i)});
  return n;
}

void bindPattern(Lower& l, hir::PatId id, llvm::ArrayRef<mlir::Value> vals) {
  const hir::Pat& p = l.prog.pat(id);
  if (p.kind == hir::PatKind::Bind) {
    l.locals[p.local.index] = Vals(vals.begin(), vals.end());
    l.bound[p.local.index] = true;
    return;
  }
  size_t at = 0;
  for (uint32_t i = 0; i < p.elems.count; ++i) {
    hir::PatId sub{l.prog.listAt(p.elems, i)};
    unsigned n = patternWidth(l, sub);
    if (at + n > vals.size()) return;
    bindPattern(l, sub, vals.slice(at, n));
    at += n;
  }
}

void lowerStmt(Lower& l, hir::StmtId id);

void lowerAssign(Lower& l, const hir::Stmt& s, mlir::Location at) {
  const hir::Expr& place = l.prog.expr(s.a);
  if (place.kind == ExprKind::Local) {
    if (s.op == ast::Op::Assign) {
      Vals v = lowerExpr(l, s.b);
      if (l.failed) return;
      l.locals[place.local.index] = v;
      clearMoved(l, s, at);
      return;
    }
    mlir::Value rhs = lowerValue(l, s.b);
    if (!rhs || l.locals[place.local.index].size() != 1) return;
    l.locals[place.local.index] = {scalarBinary(l, s.op, l.locals[place.local.index][0], rhs, place.type, at)};
    return;
  }
  // `v[i] = x` on a 1-D tensor.
  if (place.kind == ExprKind::Index) {
    hir::TypeId baseTy = derefAll(l.types(), l.prog.expr(place.a).type);
    hir::TyKind k = l.types().kind(baseTy);
    if (k == hir::TyKind::Pinned || k == hir::TyKind::Tensor) {
      mlir::Value base = lowerValue(l, place.a), idx = lowerValue(l, place.b), rhs = lowerValue(l, s.b);
      if (!base || !idx || !rhs) return;
      idx = toIndex(l, idx, l.prog.expr(place.b).type, at);
      if (s.op != ast::Op::Assign) {
        mlir::Value cur = l.b.create<LoadElemOp>(at, rhs.getType(), base, idx);
        rhs = scalarBinary(l, s.op, cur, rhs, place.type, at);
      }
      if (rhs.getType().isa<PinnedType, TensorType>()) {
        unsupported(l, place.span, "assignment of a whole tensor", "copy it with `transfer` or `store`");
        return;
      }
      l.b.create<StoreElemOp>(at, rhs, base, idx);
      return;
    }
  }
  unsupported(l, place.span, "assignment to this place", "only locals and elements of 1-D tensors are assignable");
}

void lowerFor(Lower& l, const hir::Stmt& s, mlir::Location at) {
  mlir::Value lo = lowerValue(l, s.a), hi = lowerValue(l, s.b);
  if (!lo || !hi) return;
  hir::TypeId varTy = l.prog.local(s.var).type;
  lo = toIndex(l, lo, varTy, at);
  hi = toIndex(l, hi, varTy, at);
  std::set<uint32_t> assigned;
  collectAssigned(l, s.body, assigned, true);
  Carried c = carried(l, assigned);
  mlir::Value one = l.b.create<mlir::arith::ConstantIndexOp>(at, 1);
  auto loop = l.b.create<mlir::scf::ForOp>(at, lo, hi, one, currentValues(l, c));
  {
    hir::TypeId vt = l.types().resolve(varTy);
    if (l.types().kind(vt) == hir::TyKind::Int && !isUnsignedInt(l.types(), vt))
      loop->setAttr(kSignedRangeAttr, l.b.getUnitAttr());
  }
  {
    mlir::OpBuilder::InsertionGuard guard(l.b);
    mlir::Block* body = loop.getBody();
    enter(l, body);
    rebind(l, c, loop.getRegionIterArgs());
    l.locals[s.var.index] = {fromIndex(l, loop.getInductionVar(), varTy, at)};
    l.bound[s.var.index] = true;
    Lower::LoopExits own = beginTrip(l, exitsOfBlock(l, s.body), at);  // `continue` only
    lowerBlock(l, s.body);
    endTrip(l, own);
    if (l.failed) return;
    finish(l, body, currentValues(l, c), at);
  }
  rebind(l, c, loop.getResults());
}

void lowerWhile(Lower& l, const hir::Stmt& s, mlir::Location at) {
  std::set<uint32_t> assigned;
  collectAssigned(l, s.body, assigned, true);
  Carried c = carried(l, assigned);
  auto loop = l.b.create<mlir::scf::WhileOp>(at, c.types, currentValues(l, c));
  llvm::SmallVector<mlir::Location> locs(c.types.size(), at);
  mlir::OpBuilder::InsertionGuard guard(l.b);
  mlir::Block* before = l.b.createBlock(&loop.getBefore(), {}, c.types, locs);
  rebind(l, c, before->getArguments());
  mlir::Value cond = lowerValue(l, s.a);
  if (!cond) return;
  l.b.create<mlir::scf::ConditionOp>(at, cond, before->getArguments());
  mlir::Block* after = l.b.createBlock(&loop.getAfter(), {}, c.types, locs);
  rebind(l, c, after->getArguments());
  Lower::LoopExits own = beginTrip(l, exitsOfBlock(l, s.body), at);  // `continue` only
  lowerBlock(l, s.body);
  endTrip(l, own);
  if (l.failed) return;
  l.b.create<mlir::scf::YieldOp>(at, currentValues(l, c));
  l.b.setInsertionPointAfter(loop);
  rebind(l, c, loop.getResults());
}

void lowerIf(Lower& l, const hir::Stmt& s, mlir::Location at) {
  mlir::Value cond = lowerValue(l, s.a);
  if (!cond) return;
  std::set<uint32_t> assigned;
  collectAssigned(l, s.body, assigned, false);
  collectAssignedStmt(l, s.elseStmt, assigned, false);
  Carried c = carried(l, assigned);
  Vals before = currentValues(l, c);
  auto op = l.b.create<mlir::scf::IfOp>(at, c.types, cond, s.elseStmt.valid() || !c.locals.empty());
  {
    mlir::OpBuilder::InsertionGuard guard(l.b);
    enter(l, op.thenBlock());
    lowerBlock(l, s.body);
    if (l.failed) return;
    finish(l, op.thenBlock(), currentValues(l, c), at);
    if (op.elseBlock()) {
      rebind(l, c, before);
      enter(l, op.elseBlock());
      if (s.elseStmt.valid()) lowerStmt(l, s.elseStmt);
      if (l.failed) return;
      finish(l, op.elseBlock(), currentValues(l, c), at);
    }
  }
  rebind(l, c, op.getResults());
}

void lowerStmt(Lower& l, hir::StmtId id) {
  if (l.failed) return;
  const hir::Stmt& s = l.prog.stmt(id);
  mlir::Location at = loc(l, s.span);
  switch (s.kind) {
    case StmtKind::Let: {
      Vals v = lowerExpr(l, s.a);
      if (!l.failed) bindPattern(l, s.pat, v);
      clearMoved(l, s, at);
      return;
    }
    case StmtKind::Assign: lowerAssign(l, s, at); return;
    // A loop that may stop early counts on a flag; `continue` alone only
    // skips the rest of a trip, which its scf.for or scf.while body can do.
    case StmtKind::For:
      if (exitsOfBlock(l, s.body) & (kExitBreak | kExitReturn)) lowerExitLoop(l, s, at);
      else lowerFor(l, s, at);
      return;
    case StmtKind::While:
      if (exitsOfBlock(l, s.body) & (kExitBreak | kExitReturn)) lowerExitLoop(l, s, at);
      else lowerWhile(l, s, at);
      return;
    case StmtKind::If: lowerIf(l, s, at); return;
    case StmtKind::Block: lowerBlock(l, s.body); return;
    case StmtKind::Expr: lowerExpr(l, s.a); return;
    case StmtKind::Parallel: lowerParallel(l, s, at); return;
    case StmtKind::Return:
    case StmtKind::Break:
    case StmtKind::Continue: lowerExitStmt(l, s, at); return;
  }
}

void lowerStmts(Lower& l, hir::BlockId id, uint32_t from, bool tailReturns);

// The statements of `id` from `from` on, after a statement that may have
// left the block (`exits`): they run under `scf.if` when no exit flag is set.
// A local they assign is carried out as a result, unchanged on the other path.
void lowerRest(Lower& l, hir::BlockId id, uint32_t from, uint8_t exits, bool tailReturns, mlir::Location at) {
  const hir::Block& b = l.prog.block(id);
  std::set<uint32_t> assigned;
  for (uint32_t i = from; i < b.stmts.count; ++i)
    collectAssignedStmt(l, hir::StmtId{l.prog.listAt(b.stmts, i)}, assigned, false);
  if (tailReturns && b.tail.valid()) assigned.insert(l.returnValue);
  // Where the rest does not run, a token or buffer a loop carries is
  // undefined if every exit that skips it leaves that loop: say so, rather
  // than pass on the value from before the exit.
  std::vector<const Lower::LoopExits::Split*> gone;
  if (!(exits & kExitContinue) && !l.loops.empty()) {
    size_t first = (exits & kExitBreak) ? l.loops.size() - 1 : 0;
    for (size_t k = first; k < l.loops.size(); ++k)
      for (const Lower::LoopExits::Split& x : l.loops[k].splits) {
        assigned.insert(x.local);
        gone.push_back(&x);
      }
  }
  Carried c = carried(l, assigned);
  Vals before = currentValues(l, c);
  for (size_t i = 0, at = 0; i < c.locals.size(); at += c.sizes[i++])
    for (const Lower::LoopExits::Split* x : gone)
      if (x->local == c.locals[i]) std::copy(x->init.begin(), x->init.end(), before.begin() + at);
  mlir::Value keep = l.b.create<mlir::arith::XOrIOp>(at, exitedFlag(l, exits, at), boolConstant(l, true, at));
  auto op = l.b.create<mlir::scf::IfOp>(at, c.types, keep, !c.locals.empty());
  {
    mlir::OpBuilder::InsertionGuard guard(l.b);
    enter(l, op.thenBlock());
    lowerStmts(l, id, from, tailReturns);
    if (l.failed) return;
    finish(l, op.thenBlock(), currentValues(l, c), at);
    if (op.elseBlock()) finish(l, op.elseBlock(), before, at);
  }
  rebind(l, c, op.getResults());
}

// `tailReturns`: the block is the body of a function that returns early, so
// its tail value is the return value.
void lowerStmts(Lower& l, hir::BlockId id, uint32_t from, bool tailReturns) {
  const hir::Block& b = l.prog.block(id);
  for (uint32_t i = from; i < b.stmts.count && !l.failed; ++i) {
    hir::StmtId sid{l.prog.listAt(b.stmts, i)};
    lowerStmt(l, sid);
    uint8_t exits = exitsOf(l, sid);
    if (!exits || l.failed) continue;
    const hir::Stmt& s = l.prog.stmt(sid);
    // After `break;`, `continue;` or `return;` itself nothing in the block runs.
    if (s.kind == StmtKind::Break || s.kind == StmtKind::Continue || s.kind == StmtKind::Return) return;
    if (i + 1 < b.stmts.count || b.tail.valid()) lowerRest(l, id, i + 1, exits, tailReturns, loc(l, s.span));
    return;
  }
  if (!b.tail.valid() || l.failed) return;
  if (tailReturns) lowerReturnValue(l, b.tail);
  else lowerExpr(l, b.tail);
}

}  // namespace

void lowerBlock(Lower& l, hir::BlockId id) { lowerStmts(l, id, 0, false); }

void lowerParallel(Lower& l, const hir::Stmt& s, mlir::Location at) {
  llvm::SmallVector<mlir::Value> extents;
  for (uint32_t i = 0; i < s.extents.count; ++i) {
    hir::ExprId e{l.prog.listAt(s.extents, i)};
    mlir::Value v = lowerValue(l, e);
    if (!v) return;
    extents.push_back(toIndex(l, v, l.prog.expr(e).type, at));
  }
  auto grid = l.b.create<ParallelOp>(at, extents);
  mlir::OpBuilder::InsertionGuard guard(l.b);
  llvm::SmallVector<mlir::Type> indexTypes(extents.size(), l.b.getIndexType());
  llvm::SmallVector<mlir::Location> locs(extents.size(), at);
  mlir::Block* body = l.b.createBlock(&grid.getBody(), {}, indexTypes, locs);
  for (uint32_t i = 0; i < s.vars.count; ++i) {
    hir::LocalId v{l.prog.listAt(s.vars, i)};
    l.locals[v.index] = {body->getArgument(i)};
    l.bound[v.index] = true;
  }
  lowerBlock(l, s.body);
  if (l.failed) return;
  l.b.setInsertionPointToEnd(body);
  l.b.create<GridEndOp>(at);
}

bool lowerFunction(Lower& l, hir::FnId id) {
  const hir::Function& fn = l.prog.fn(id);
  l.curFn = id;
  mlir::func::FuncOp f = l.fns[id.index];
  mlir::Block* entry = f.addEntryBlock();
  l.b.setInsertionPointToStart(entry);
  unsigned at = 0;
  for (hir::LocalId p : fn.params) {
    unsigned n = flatCount(l, l.prog.local(p).type);
    l.locals[p.index] = Vals(entry->args_begin() + at, entry->args_begin() + at + n);
    l.bound[p.index] = true;
    at += n;
  }
  const hir::Block& body = l.prog.block(fn.body);
  mlir::Location end = loc(l, body.closeBrace);
  l.loops.clear();
  l.earlyReturn = returnsEarly(l, fn);
  if (l.earlyReturn) {
    // Every path ends at the one func.return, with the value it returned.
    beginEarlyReturn(l, f.getFunctionType().getResults(), loc(l, fn.nameSpan));
    lowerStmts(l, fn.body, 0, true);
    if (l.failed) return false;
    l.b.create<mlir::func::ReturnOp>(end, l.locals[l.returnValue]);
    return true;
  }
  Vals result;
  for (uint32_t i = 0; i < body.stmts.count && !l.failed; ++i) {
    hir::StmtId sid{l.prog.listAt(body.stmts, i)};
    const hir::Stmt& s = l.prog.stmt(sid);
    if (s.kind == StmtKind::Return && i + 1 == body.stmts.count && !body.tail.valid()) {
      if (s.a.valid()) result = lowerExpr(l, s.a);
      continue;
    }
    lowerStmt(l, sid);
  }
  if (body.tail.valid() && !l.failed) result = lowerExpr(l, body.tail);
  if (l.failed) return false;
  l.b.create<mlir::func::ReturnOp>(end, result);
  return true;
}

}  // namespace vx::dialect

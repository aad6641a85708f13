// Early exits: `break`, `continue` and a `return` before the end of a
// function. VIR keeps control flow structured, so an exit sets an i1 flag
// (a slot of `Lower::locals`, carried like an assigned local), the rest of
// each enclosing block runs under `scf.if` while no flag is set, and a loop
// that may `break` or `return` becomes an `scf.while` that stops when one is.
// A function that returns early carries its return value out of every loop
// and branch; where no path has set it yet, it holds a placeholder
// (`arith.constant 0` for scalars, `vx.undef` for the rest) that no path reads.
#include "dialect/LowerHirImpl.h"

namespace vx::dialect {

using hir::StmtKind;

uint8_t exitsOfBlock(Lower& l, hir::BlockId id) {
  const hir::Block& b = l.prog.block(id);
  uint8_t exits = 0;
  for (uint32_t i = 0; i < b.stmts.count; ++i) exits |= exitsOf(l, hir::StmtId{l.prog.listAt(b.stmts, i)});
  return exits;
}

uint8_t exitsOf(Lower& l, hir::StmtId id) {
  if (!id.valid()) return 0;
  if (l.exitMemo.size() < l.prog.stmts.size()) l.exitMemo.resize(l.prog.stmts.size(), kExitUnknown);
  uint8_t& memo = l.exitMemo[id.index];
  if (memo != kExitUnknown) return memo;
  const hir::Stmt& s = l.prog.stmt(id);
  uint8_t exits = 0;
  switch (s.kind) {
    case StmtKind::Break: exits = kExitBreak; break;
    case StmtKind::Continue: exits = kExitContinue; break;
    case StmtKind::Return: exits = kExitReturn; break;
    case StmtKind::If: exits = exitsOfBlock(l, s.body) | exitsOf(l, s.elseStmt); break;
    case StmtKind::Block: exits = exitsOfBlock(l, s.body); break;
    // A loop takes its own `break` and `continue`; a `return` leaves it too.
    case StmtKind::For:
    case StmtKind::While: exits = exitsOfBlock(l, s.body) & kExitReturn; break;
    case StmtKind::Let:
    case StmtKind::Assign:
    case StmtKind::Expr:
    case StmtKind::Parallel: break;  // nothing leaves an instance (Sema, E0209)
  }
  l.exitMemo[id.index] = exits;
  return exits;
}

bool returnsEarly(Lower& l, const hir::Function& fn) {
  const hir::Block& body = l.prog.block(fn.body);
  for (uint32_t i = 0; i < body.stmts.count; ++i) {
    hir::StmtId sid{l.prog.listAt(body.stmts, i)};
    bool last = i + 1 == body.stmts.count && !body.tail.valid();
    if (last && l.prog.stmt(sid).kind == StmtKind::Return) continue;  // the plain func.return
    if (exitsOf(l, sid) & kExitReturn) return true;
  }
  return false;
}

namespace {

uint32_t newSlot(Lower& l) {
  l.locals.emplace_back();
  l.bound.push_back(false);
  return static_cast<uint32_t>(l.locals.size() - 1);
}

void setFlag(Lower& l, uint32_t slot, bool v, mlir::Location at) {
  l.locals[slot] = {boolConstant(l, v, at)};
  l.bound[slot] = true;
}

}  // namespace

mlir::Value placeholder(Lower& l, mlir::Type t, mlir::Location at) {
  if (t.isIndex()) return l.b.create<mlir::arith::ConstantIndexOp>(at, 0);
  if (auto i = t.dyn_cast<mlir::IntegerType>()) return l.b.create<mlir::arith::ConstantIntOp>(at, 0, i.getWidth());
  if (auto f = t.dyn_cast<mlir::FloatType>()) return l.b.create<mlir::arith::ConstantOp>(at, l.b.getFloatAttr(f, 0.0));
  return l.b.create<UndefOp>(at, t);
}

mlir::Value boolConstant(Lower& l, bool v, mlir::Location at) {
  return l.b.create<mlir::arith::ConstantIntOp>(at, v ? 1 : 0, 1);
}

void beginEarlyReturn(Lower& l, mlir::TypeRange results, mlir::Location at) {
  l.returned = newSlot(l);
  l.returnValue = newSlot(l);
  setFlag(l, l.returned, false, at);
  l.returnInit.clear();
  for (mlir::Type t : results) l.returnInit.push_back(placeholder(l, t, at));
  l.locals[l.returnValue] = l.returnInit;
  l.bound[l.returnValue] = true;
}

mlir::Value exitedFlag(Lower& l, uint8_t exits, mlir::Location at) {
  mlir::Value any;
  auto add = [&](uint32_t slot) {
    mlir::Value f = l.locals[slot][0];
    any = any ? l.b.create<mlir::arith::OrIOp>(at, any, f).getResult() : f;
  };
  if ((exits & kExitBreak) && !l.loops.empty()) add(l.loops.back().broke);
  if ((exits & kExitContinue) && !l.loops.empty()) add(l.loops.back().continued);
  if ((exits & kExitReturn) && l.earlyReturn) add(l.returned);
  return any ? any : boolConstant(l, false, at);
}

void lowerReturnValue(Lower& l, hir::ExprId value) {
  Vals v = lowerExpr(l, value);
  if (!l.failed) l.locals[l.returnValue] = v;
}

void lowerExitStmt(Lower& l, const hir::Stmt& s, mlir::Location at) {
  switch (s.kind) {
    case StmtKind::Break:
    case StmtKind::Continue:
      // Sema reports `break` outside a loop; a checked program has none.
      if (l.loops.empty())
        return unsupported(l, s.span, s.kind == StmtKind::Break ? "break" : "continue", "not inside a loop");
      if (s.kind == StmtKind::Break)
        for (const Lower::LoopExits::Split& x : l.loops.back().splits) {
          l.locals[x.exit] = l.locals[x.local];
          l.locals[x.local] = x.init;
        }
      setFlag(l, s.kind == StmtKind::Break ? l.loops.back().broke : l.loops.back().continued, true, at);
      return;
    case StmtKind::Return:
      // Without earlier returns, the last statement is the plain func.return
      // (lowerFunction); any other `return` made `earlyReturn` true.
      if (!l.earlyReturn) return unsupported(l, s.span, "return", "not the function's last statement");
      if (s.a.valid()) lowerReturnValue(l, s.a);
      else l.locals[l.returnValue] = {};
      if (l.failed) return;
      setFlag(l, l.returned, true, at);
      // Nothing the loops carry is read again.
      for (const Lower::LoopExits& loop : l.loops)
        for (const Lower::LoopExits::Split& x : loop.splits) l.locals[x.local] = x.init;
      return;
    case StmtKind::Let:
    case StmtKind::Assign:
    case StmtKind::For:
    case StmtKind::While:
    case StmtKind::If:
    case StmtKind::Block:
    case StmtKind::Expr:
    case StmtKind::Parallel: return;
  }
}

Lower::LoopExits beginTrip(Lower& l, uint8_t exits, mlir::Location at) {
  Lower::LoopExits own{newSlot(l), newSlot(l), {}};
  if (exits & kExitBreak) setFlag(l, own.broke, false, at);
  if (exits & kExitContinue) setFlag(l, own.continued, false, at);
  l.loops.push_back(own);
  return own;
}

void endTrip(Lower& l, const Lower::LoopExits& own) {
  l.loops.pop_back();
  l.bound[own.broke] = l.bound[own.continued] = false;
}

// `for i in a..b { body }` and `while c { body }` whose body may `break` or
// `return`:
//
//   %r:n = scf.while (%i = %a, %x = %x0, %keep = %true, %ret = %false, %v = %u, %xe = %u)
//       : (index, T, i1, i1, R, T) -> (index, T, i1, R, T) {
//     %go = arith.andi %keep, (arith.cmpi slt, %i, %b)   // `while`: scf.if %keep { c } else { false }
//     %xf = scf.if %keep -> (T) { scf.yield %x } else { scf.yield %xe }
//     scf.condition(%go) %i, %x, %ret, %v, %xf
//   } do {
//   ^bb0(%i, %x, %ret, %v, %xf):
//     body, its exits setting flags
//     scf.yield %i + 1, %x', !(broke || returned), returned, %v', %xe'
//   }
//
// The condition is not evaluated again once an exit ran. What a trip returns
// leaves through the condition; the next trip starts with fresh flags and the
// placeholder %u, so a returned token is never carried into a later trip.
// Likewise a token or buffer the loop carries (%x: `inflight`) leaves a
// `break` as %xe, the loop's result being %xf; on a path that leaves, %x is
// %u. The tpu target sizes its rings by how many trips a copy is carried, and
// would otherwise see one yielded into every later trip.
void lowerExitLoop(Lower& l, const hir::Stmt& s, mlir::Location at) {
  bool isFor = s.kind == StmtKind::For;
  Vals inits;
  mlir::Value hi;
  hir::TypeId varTy;
  if (isFor) {
    mlir::Value lo = lowerValue(l, s.a);
    hi = lowerValue(l, s.b);
    if (!lo || !hi) return;
    varTy = l.prog.local(s.var).type;
    inits.push_back(toIndex(l, lo, varTy, at));
    hi = toIndex(l, hi, varTy, at);
  }
  std::set<uint32_t> assigned;
  collectAssigned(l, s.body, assigned, true);
  // Exit flags and the return value are per trip, never carried as locals.
  assigned.erase(assigned.lower_bound(static_cast<uint32_t>(l.prog.locals.size())), assigned.end());
  Carried c = carried(l, assigned);
  Vals carriedInit = currentValues(l, c);
  inits.append(carriedInit.begin(), carriedInit.end());
  uint8_t exits = exitsOfBlock(l, s.body);
  bool returns = (exits & kExitReturn) && l.earlyReturn, breaks = exits & kExitBreak;
  std::vector<Lower::LoopExits::Split> splits;
  Vals exitInit;
  for (uint32_t local : c.locals) {
    bool site = false;
    for (mlir::Value v : l.locals[local]) site = site || v.getType().isa<TokenType, PinnedType>();
    if (!site) continue;
    Lower::LoopExits::Split x{local, newSlot(l), {}};
    for (mlir::Value v : l.locals[local]) x.init.push_back(placeholder(l, v.getType(), at));
    if (breaks) exitInit.append(x.init.begin(), x.init.end());
    splits.push_back(std::move(x));
  }
  unsigned off = isFor ? 1 : 0, keepAt = static_cast<unsigned>(inits.size());
  inits.push_back(boolConstant(l, true, at));
  if (returns) {
    inits.push_back(boolConstant(l, false, at));
    inits.append(l.returnInit.begin(), l.returnInit.end());
  }
  unsigned exitAt = static_cast<unsigned>(inits.size());
  inits.append(exitInit.begin(), exitInit.end());
  // Results: the state without `keep`, the exits' values replaced by the finals.
  llvm::SmallVector<mlir::Type> state, results;
  for (mlir::Value v : inits) state.push_back(v.getType());
  for (unsigned i = 0; i < state.size(); ++i)
    if (i != keepAt) results.push_back(state[i]);
  llvm::SmallVector<mlir::Location> stateLocs(state.size(), at), resultLocs(results.size(), at);
  auto loop = l.b.create<mlir::scf::WhileOp>(at, results, inits);
  {
    mlir::OpBuilder::InsertionGuard guard(l.b);
    mlir::Block* before = l.b.createBlock(&loop.getBefore(), {}, state, stateLocs);
    mlir::ValueRange args = before->getArguments();
    rebind(l, c, args.slice(off, keepAt - off));
    mlir::Value keep = args[keepAt], go;
    if (isFor) {
      // The range's own order: signed for `i32`/`i64`, unsigned for `u32`,
      // `u64`, `usize` (a bound past 2^63 is no negative number).
      mlir::Value more = l.b.create<mlir::arith::CmpIOp>(
          at, isUnsignedInt(l.types(), varTy) ? mlir::arith::CmpIPredicate::ult : mlir::arith::CmpIPredicate::slt,
          args[0], hi);
      go = l.b.create<mlir::arith::AndIOp>(at, keep, more);
    } else {
      auto test = l.b.create<mlir::scf::IfOp>(at, mlir::TypeRange{l.b.getI1Type()}, keep, /*withElseRegion=*/true);
      l.b.setInsertionPointToStart(test.thenBlock());
      mlir::Value cond = lowerValue(l, s.a);
      if (!cond) return;
      l.b.create<mlir::scf::YieldOp>(at, cond);
      l.b.setInsertionPointToStart(test.elseBlock());
      l.b.create<mlir::scf::YieldOp>(at, boolConstant(l, false, at));
      l.b.setInsertionPointAfter(test);
      go = test.getResult(0);
    }
    Vals forward;
    for (unsigned i = 0; i < exitAt; ++i)
      if (i != keepAt) forward.push_back(args[i]);
    if (!exitInit.empty()) {
      Vals running;
      for (const Lower::LoopExits::Split& x : splits)
        running.append(l.locals[x.local].begin(), l.locals[x.local].end());
      auto fin = l.b.create<mlir::scf::IfOp>(at, mlir::TypeRange(mlir::ValueRange(exitInit)), keep, true);
      l.b.setInsertionPointToStart(fin.thenBlock());
      l.b.create<mlir::scf::YieldOp>(at, running);
      l.b.setInsertionPointToStart(fin.elseBlock());
      l.b.create<mlir::scf::YieldOp>(at, args.drop_front(exitAt));
      l.b.setInsertionPointAfter(fin);
      forward.append(fin.getResults().begin(), fin.getResults().end());
    }
    l.b.create<mlir::scf::ConditionOp>(at, go, forward);

    mlir::Block* after = l.b.createBlock(&loop.getAfter(), {}, results, resultLocs);
    mlir::ValueRange trip = after->getArguments();
    rebind(l, c, trip.slice(off, keepAt - off));
    Lower::LoopExits own = beginTrip(l, exits, at);
    l.loops.back().splits = splits;
    if (breaks)
      for (const Lower::LoopExits::Split& x : splits) {
        l.locals[x.exit] = x.init;
        l.bound[x.exit] = true;
      }
    if (returns) {
      setFlag(l, l.returned, false, at);
      l.locals[l.returnValue] = l.returnInit;
    }
    if (isFor) {
      l.locals[s.var.index] = {fromIndex(l, trip[0], varTy, at)};
      l.bound[s.var.index] = true;
    }
    lowerBlock(l, s.body);
    Vals exitNow;
    if (breaks)
      for (const Lower::LoopExits::Split& x : splits) {
        exitNow.append(l.locals[x.exit].begin(), l.locals[x.exit].end());
        l.bound[x.exit] = false;
      }
    endTrip(l, own);
    if (l.failed) return;
    Vals yields;
    if (isFor) {
      // The next index, in the range's type: `index` arithmetic is checked
      // as unsigned on cpu, and -1 + 1 is no overflow of an `i32` range
      // (the step cannot overflow: the index is below the bound).
      mlir::Value i = fromIndex(l, trip[0], varTy, at);
      mlir::Value one = i.getType().isIndex() ? l.b.create<mlir::arith::ConstantIndexOp>(at, 1).getResult()
                                              : l.b.create<mlir::arith::ConstantIntOp>(at, 1, i.getType()).getResult();
      mlir::Value next = l.b.create<mlir::arith::AddIOp>(at, i, one);
      if (isUnsignedInt(l.types(), varTy) && !next.getType().isIndex())
        next.getDefiningOp()->setAttr(kUnsignedAttr, l.b.getUnitAttr());
      yields.push_back(toIndex(l, next, varTy, at));
    }
    Vals now = currentValues(l, c);
    yields.append(now.begin(), now.end());
    mlir::Value stop = breaks ? l.locals[own.broke][0] : mlir::Value();
    if (returns) {
      mlir::Value r = l.locals[l.returned][0];
      stop = stop ? l.b.create<mlir::arith::OrIOp>(at, stop, r).getResult() : r;
    }
    yields.push_back(l.b.create<mlir::arith::XOrIOp>(at, stop, boolConstant(l, true, at)));
    if (returns) {
      yields.push_back(l.locals[l.returned][0]);
      yields.append(l.locals[l.returnValue].begin(), l.locals[l.returnValue].end());
    }
    yields.append(exitNow.begin(), exitNow.end());
    l.b.create<mlir::scf::YieldOp>(at, yields);
  }
  mlir::ValueRange r = loop.getResults();
  rebind(l, c, r.slice(off, keepAt - off));
  if (returns) {
    l.locals[l.returned] = {r[keepAt]};
    l.locals[l.returnValue] = Vals(r.begin() + keepAt + 1, r.begin() + (exitAt - 1));
  }
  unsigned at2 = exitAt - 1;
  if (breaks)
    for (const Lower::LoopExits::Split& x : splits) {
      l.locals[x.local] = Vals(r.begin() + at2, r.begin() + at2 + x.init.size());
      at2 += static_cast<unsigned>(x.init.size());
    }
}

}  // namespace vx::dialect

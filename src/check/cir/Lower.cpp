// HIR -> core IR: statements, blocks, scopes and loops. Each block's locals
// are dropped at its `}` (tokens first, then buffers: a buffer freed under
// a copy follows from the copy's token being dropped) and forgotten; an
// early exit drops what it leaves. Temporaries live until the end of their
// source statement (a `let` keeps a borrowed temporary for its block, as
// Rust extends its life).
#include <stdexcept>
#include <string>

#include "check/cir/LowerImpl.h"

namespace vx::check::cir {

using hir::ExprKind;

// ---- blocks and locals ----

BlockId Builder::newBlock() {
  body.blocks.emplace_back();
  body.blocks.back().loop = curLoop;
  return BlockId{static_cast<uint32_t>(body.blocks.size() - 1)};
}

void Builder::emit(Stmt s) { body.blocks[cur.index].stmts.push_back(std::move(s)); }

void Builder::terminate(Terminator t) {
  body.blocks[cur.index].term = t;
  cur = newBlock();
}

void Builder::gotoBlock(BlockId target, base::Span at) {
  Terminator t;
  t.kind = TermKind::Goto;
  t.target = target;
  t.span = at;
  body.blocks[cur.index].term = t;
}

LocalId Builder::addLocal(Local l) {
  if (!scopeIds.empty()) l.scope = scopeIds.back();
  body.locals.push_back(std::move(l));
  return LocalId{static_cast<uint32_t>(body.locals.size() - 1)};
}

LocalId Builder::newTemp(hir::TypeId type, base::Span span) {
  Local l;
  l.type = type;
  l.span = span;
  l.temp = true;
  LocalId id = addLocal(l);
  temps.back().push_back(id);
  Stmt s;
  s.kind = StmtKind::StorageLive;
  s.local = id;
  s.span = span;
  emit(s);
  return id;
}

LocalId Builder::bindSource(hir::LocalId h) {
  const hir::Local& hl = prog.local(h);
  Local l;
  l.name = hl.name;
  l.type = hl.type;
  l.span = hl.span;
  l.hir = h;
  l.mut = hl.mut;
  LocalId id = scopeLocal(l);
  localOf[h.index] = id;
  return id;
}

LocalId Builder::scopeLocal(const Local& l) {
  LocalId id = addLocal(l);
  scopes.back().push_back(id);
  Stmt s;
  s.kind = StmtKind::StorageLive;
  s.local = id;
  s.span = l.span;
  emit(s);
  return id;
}

Place Builder::placeOf(LocalId l, base::Span span) const {
  Place p;
  p.local = l;
  p.proj = base::List{static_cast<uint32_t>(body.projs.size()), 0};
  p.span = span;
  return p;
}

Place Builder::project(const Place& base, Proj proj) {
  Place p = base;
  p.proj.begin = static_cast<uint32_t>(body.projs.size());
  for (uint32_t i = 0; i < base.proj.count; ++i) body.projs.push_back(body.projs[base.proj.begin + i]);
  body.projs.push_back(proj);
  p.proj.count = base.proj.count + 1;
  if (proj.span.valid()) p.span = proj.span;
  return p;
}

// ---- scopes ----

void Builder::dropScopes(size_t from, size_t fromTemps, base::Span at, DropHow how) {
  auto drop = [&](LocalId l, DropHow h, base::Span sp) {
    Stmt s;
    s.kind = StmtKind::Drop;
    s.dest = placeOf(l, sp);
    s.how = h;
    s.span = sp;
    emit(s);
  };
  auto tokens = [&](LocalId l) { return hasTokens(body.local(l).type); };
  auto buffers = [&](LocalId l) { return !tokens(l) && needsDrop(body.local(l).type); };
  // Temporaries first (innermost), then the scopes, innermost first; each
  // pass for tokens, then for buffers.
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t level = temps.size(); level-- > fromTemps;)
      for (size_t i = temps[level].size(); i-- > 0;) {
        LocalId l = temps[level][i];
        if (pass == 0 ? tokens(l) : buffers(l)) drop(l, DropHow::Temporary, body.local(l).span);
      }
    for (size_t level = scopes.size(); level-- > from;)
      for (LocalId l : scopes[level])
        if (pass == 0 ? tokens(l) : buffers(l)) drop(l, how, at);
  }
  auto dead = [&](LocalId l) {
    Stmt s;
    s.kind = StmtKind::StorageDead;
    s.local = l;
    s.span = at;
    emit(s);
  };
  for (size_t level = temps.size(); level-- > fromTemps;)
    for (size_t i = temps[level].size(); i-- > 0;) dead(temps[level][i]);
  for (size_t level = scopes.size(); level-- > from;)
    for (size_t i = scopes[level].size(); i-- > 0;) dead(scopes[level][i]);
}

void Builder::endTemps(base::Span stmt) {
  dropScopes(scopes.size(), temps.size() - 1, stmt, DropHow::Temporary);
  temps.pop_back();
}

std::vector<LocalId> Builder::endTempsKeepScalars(base::Span stmt) {
  // The condition's own value is read by the branch: its scalar
  // temporaries (a tuple of scalars too: `if (r + R <= m, 1).0`) die at the
  // start of each successor instead, so the branch reads what they hold.
  std::vector<LocalId> keep, rest;
  for (LocalId l : temps.back()) (isScalarData(body.local(l).type) ? keep : rest).push_back(l);
  temps.back() = rest;
  endTemps(stmt);
  return keep;
}

void Builder::kill(const std::vector<LocalId>& locals, base::Span at) {
  for (LocalId l : locals) {
    Stmt s;
    s.kind = StmtKind::StorageDead;
    s.local = l;
    s.span = at;
    emit(s);
  }
}

// ---- statements ----

void Builder::lowerBlock(hir::BlockId id, bool fnBody) {
  const hir::Block& b = prog.block(id);
  openScope();
  for (uint32_t i = 0; i < b.stmts.count; ++i) lowerStmt(hir::StmtId{prog.listAt(b.stmts, i)});
  if (fnBody) {
    base::Span valueSpan = b.closeBrace;
    beginTemps();
    if (b.tail.valid()) {
      lowerInto(placeOf(body.ret, prog.expr(b.tail).span), b.tail);
      valueSpan = prog.expr(b.tail).span;
    }
    // The function's end leaves every scope, its parameters' too.
    dropScopes(0, 0, b.closeBrace, DropHow::ScopeEnd);
    temps.pop_back();
    Terminator t;
    t.kind = TermKind::Return;
    t.span = valueSpan;
    terminate(t);
  } else {
    if (b.tail.valid()) {
      beginTemps();
      const hir::Expr& tail = prog.expr(b.tail);
      if (needsDrop(tail.type))
        lowerInto(placeOf(newTemp(tail.type, tail.span), tail.span), b.tail);
      else
        lowerOperand(b.tail);
      endTemps(tail.span);
    }
    dropScopes(scopes.size() - 1, temps.size(), b.closeBrace, DropHow::ScopeEnd);
  }
  closeScope();
}

void Builder::lowerStmt(hir::StmtId id) {
  const hir::Stmt& st = prog.stmt(id);
  switch (st.kind) {
    case hir::StmtKind::Let:
      beginTemps();
      lowerLet(st);
      endTemps(st.span);
      break;
    case hir::StmtKind::Assign:
      beginTemps();
      lowerAssign(st);
      endTemps(st.span);
      break;
    case hir::StmtKind::Expr: {
      beginTemps();
      const hir::Expr& e = prog.expr(st.a);
      // A value that needs dropping is a temporary, dropped at the `;`.
      if (needsDrop(e.type))
        lowerInto(placeOf(newTemp(e.type, e.span), e.span), st.a);
      else
        lowerOperand(st.a);
      endTemps(st.span);
      break;
    }
    case hir::StmtKind::If: lowerIf(st); break;
    case hir::StmtKind::While: lowerWhile(id, st); break;
    case hir::StmtKind::For: lowerFor(id, st); break;
    case hir::StmtKind::Return: lowerReturn(st); break;
    case hir::StmtKind::Break:
    case hir::StmtKind::Continue: lowerBreak(st); break;
    case hir::StmtKind::Block: lowerBlock(st.body, false); break;
    case hir::StmtKind::Parallel: lowerParallel(id, st); break;
  }
  Stmt end;
  end.kind = StmtKind::StmtEnd;
  end.span = st.span;
  emit(end);
}

void Builder::lowerLet(const hir::Stmt& st) {
  const hir::Pat& pat = prog.pat(st.pat);
  if (!st.a.valid()) {
    std::vector<hir::PatId> work{st.pat};
    while (!work.empty()) {
      const hir::Pat& p = prog.pat(work.back());
      work.pop_back();
      if (p.kind == hir::PatKind::Bind)
        bindSource(p.local);
      else
        for (uint32_t i = p.elems.count; i-- > 0;) work.push_back(hir::PatId{prog.listAt(p.elems, i)});
    }
    return;
  }
  const hir::Expr& init = prog.expr(st.a);
  // `let r = &value;`, `let r = &&value;`, `let p = (&value, 1);`: the
  // borrowed temporaries live as long as the binding's block.
  markExtended(st.a);
  if (pat.kind == hir::PatKind::Bind) {
    // The binding is a new local (a shadowed one of the same name is
    // another), so the initializer is evaluated straight into it.
    LocalId l = bindSource(pat.local);
    lowerInto(placeOf(l, prog.local(pat.local).span), st.a);
    heldForBlock.clear();
    return;
  }
  LocalId tmp = newTemp(init.type, init.span);
  lowerInto(placeOf(tmp, init.span), st.a);
  heldForBlock.clear();
  bindPattern(st.pat, placeOf(tmp, init.span));
}

// Rust's extending expressions: the initializer, and the operand of an
// extending borrow or the fields of an extending tuple. The value an
// extending borrow takes of a non-place is held for the block.
void Builder::markExtended(hir::ExprId id) {
  const hir::Expr& e = prog.expr(id);
  if (e.kind == ExprKind::Borrow && !isPlaceExpr(e.a)) {
    heldForBlock.insert(e.a.index);
    markExtended(e.a);
  } else if (e.kind == ExprKind::Tuple) {
    for (uint32_t i = 0; i < e.args.count; ++i) markExtended(prog.arg(e, i));
  }
}

void Builder::bindPattern(hir::PatId id, const Place& from) {
  const hir::Pat& pat = prog.pat(id);
  if (pat.kind == hir::PatKind::Bind) {
    hir::TypeId t = body.typeOf(from);
    LocalId l = bindSource(pat.local);
    Stmt s;
    s.kind = StmtKind::Assign;
    s.dest = placeOf(l, pat.span);
    s.rv = RvKind::Use;
    s.a.kind = useKind(t);
    s.a.place = from;
    s.a.span = from.span;
    s.type = t;
    s.span = pat.span;
    emit(s);
    return;
  }
  hir::TypeId t = types().resolve(body.typeOf(from));
  for (uint32_t i = 0; i < pat.elems.count; ++i) {
    Proj p;
    p.kind = ProjKind::Field;
    p.field = i;
    p.type = types().kind(t) == hir::TyKind::Tuple && i < types().count(t) ? types().elem(t, i) : types().error();
    p.span = from.span;
    bindPattern(hir::PatId{prog.listAt(pat.elems, i)}, project(from, p));
  }
}

void Builder::lowerAssign(const hir::Stmt& st) {
  const hir::Expr& lhs = prog.expr(st.a);
  const hir::Expr& rhs = prog.expr(st.b);
  // The assigned value is evaluated first, then the place (as Rust does).
  if (st.op == ast::Op::Assign && lhs.kind == ExprKind::Local) {
    lowerInto(placeOf(localOf.at(lhs.local.index), lhs.span), st.b);
    return;
  }
  Operand value = lowerOperand(st.b);
  Place dest = lowerPlace(st.a);
  Stmt s;
  s.kind = StmtKind::Assign;
  s.dest = dest;
  s.span = st.span;
  s.type = lhs.type;
  if (st.op == ast::Op::Assign) {
    s.rv = RvKind::Use;
    s.a = value;
  } else {
    s.rv = RvKind::Binary;
    s.op = arithmeticOf(st.op);
    s.a.kind = OperandKind::Copy;
    s.a.place = dest;
    s.a.span = lhs.span;
    s.b = value;
    (void)rhs;
  }
  emit(s);
}

void Builder::lowerIf(const hir::Stmt& st) {
  beginTemps();
  Operand c = lowerOperand(st.a);
  std::vector<LocalId> condTemps = endTempsKeepScalars(prog.expr(st.a).span);
  BlockId thenB = newBlock(), elseB = newBlock(), joinB = newBlock();
  Terminator br;
  br.kind = TermKind::Branch;
  br.cond = c;
  br.target = thenB;
  br.otherwise = elseB;
  br.span = prog.expr(st.a).span;
  body.blocks[cur.index].term = br;
  cur = thenB;
  kill(condTemps, br.span);
  lowerBlock(st.body, false);
  gotoBlock(joinB, st.span);
  cur = elseB;
  kill(condTemps, br.span);
  if (st.elseStmt.valid()) lowerStmt(st.elseStmt);
  gotoBlock(joinB, st.span);
  cur = joinB;
}

LoopId Builder::openLoop(LoopKind kind, hir::StmtId id, const hir::Stmt& st) {
  Loop l;
  l.kind = kind;
  l.parent = curLoop;
  l.stmt = id;
  l.span = st.span;
  body.loops.push_back(l);
  LoopId loop{static_cast<uint32_t>(body.loops.size() - 1)};
  curLoop = loop;
  return loop;
}

void Builder::lowerWhile(hir::StmtId id, const hir::Stmt& st) {
  LoopId outer = curLoop;
  LoopId L = openLoop(LoopKind::While, id, st);
  BlockId header = newBlock(), bodyB = newBlock();
  curLoop = outer;
  BlockId exit = newBlock();
  curLoop = L;
  // Set before the body, whose `break` and `continue` jump to them.
  body.loops[L.index].header = header;
  body.loops[L.index].exit = exit;
  gotoBlock(header, st.span);
  cur = header;
  beginTemps();
  Operand c = lowerOperand(st.a);
  std::vector<LocalId> condTemps = endTempsKeepScalars(prog.expr(st.a).span);
  Terminator br;
  br.kind = TermKind::Branch;
  br.cond = c;
  br.target = bodyB;
  br.otherwise = exit;
  br.span = prog.expr(st.a).span;
  body.blocks[cur.index].term = br;
  cur = bodyB;
  kill(condTemps, br.span);
  loops.push_back(OpenLoop{L, scopes.size(), temps.size()});
  lowerBlock(st.body, false);
  gotoBlock(header, st.span);
  loops.pop_back();
  curLoop = outer;
  cur = exit;
  kill(condTemps, br.span);
}

Operand Builder::lowerBound(hir::ExprId e) {
  const hir::Expr& x = prog.expr(e);
  Local l;
  l.type = x.type;
  l.span = x.span;
  l.temp = true;
  LocalId id = addLocal(l);
  scopes.back().push_back(id);
  Stmt live;
  live.kind = StmtKind::StorageLive;
  live.local = id;
  live.span = x.span;
  emit(live);
  beginTemps();
  lowerInto(placeOf(id, x.span), e);
  endTemps(x.span);
  Operand o;
  o.kind = OperandKind::Copy;
  o.place = placeOf(id, x.span);
  o.span = x.span;
  return o;
}

void Builder::lowerParallel(hir::StmtId id, const hir::Stmt& st) {
  // The extents are evaluated once, before the instances.
  Grid g;
  g.stmt = id;
  g.span = base::Span{st.span.file, st.span.begin, st.span.begin + 8};
  for (uint32_t i = 0; i < st.extents.count; ++i) g.extents.push_back(lowerBound(hir::ExprId{prog.listAt(st.extents, i)}));
  // The indices: a scope of their own around the instance's body, set by
  // the instance's beginning.
  openScope();
  for (uint32_t i = 0; i < st.vars.count; ++i) {
    hir::LocalId h{prog.listAt(st.vars, i)};
    const hir::Local& hv = prog.local(h);
    Local v;
    v.name = hv.name;
    v.type = hv.type;
    v.span = hv.span;
    v.hir = h;
    LocalId var = addLocal(v);
    localOf[h.index] = var;
    scopes.back().push_back(var);
    g.vars.push_back(var);
  }
  body.grids.push_back(g);
  Stmt begin;
  begin.kind = StmtKind::GridBegin;
  begin.grid = static_cast<uint32_t>(body.grids.size() - 1);
  begin.span = g.span;
  emit(begin);
  lowerBlock(st.body, false);
  dropScopes(scopes.size() - 1, temps.size(), st.span, DropHow::ScopeEnd);
  closeScope();
  Stmt end = begin;
  end.kind = StmtKind::GridEnd;
  end.span = st.span;
  emit(end);
}

void Builder::lowerFor(hir::StmtId id, const hir::Stmt& st) {
  // The range is evaluated once, before the loop, into locals of the
  // enclosing scope.
  auto bound = [&](hir::ExprId e) {
    const hir::Expr& x = prog.expr(e);
    Local l;
    l.type = x.type;
    l.span = x.span;
    l.temp = true;
    LocalId id2 = addLocal(l);
    scopes.back().push_back(id2);
    Stmt live;
    live.kind = StmtKind::StorageLive;
    live.local = id2;
    live.span = x.span;
    emit(live);
    beginTemps();
    lowerInto(placeOf(id2, x.span), e);
    endTemps(x.span);
    Operand o;
    o.kind = OperandKind::Copy;
    o.place = placeOf(id2, x.span);
    o.span = x.span;
    return o;
  };
  Operand lo = bound(st.a);
  Operand hi = bound(st.b);
  LoopId outer = curLoop;
  LoopId L = openLoop(LoopKind::For, id, st);
  BlockId header = newBlock(), bodyB = newBlock();
  curLoop = outer;
  BlockId exit = newBlock();
  curLoop = L;
  gotoBlock(header, st.span);
  cur = header;
  // The index: declared in a scope of its own around the body, set by the
  // loop head at every entry of the body.
  openScope();
  const hir::Local& hv = prog.local(st.var);
  Local v;
  v.name = hv.name;
  v.type = hv.type;
  v.span = hv.span;
  v.hir = st.var;
  LocalId var = addLocal(v);
  localOf[st.var.index] = var;
  scopes.back().push_back(var);
  Loop& loop = body.loops[L.index];
  loop.var = var;
  loop.lo = lo;
  loop.hi = hi;
  loop.header = header;
  loop.exit = exit;
  Terminator head;
  head.kind = TermKind::ForLoop;
  head.loop = L;
  head.target = bodyB;
  head.otherwise = exit;
  head.span = st.span;
  body.blocks[cur.index].term = head;
  cur = bodyB;
  loops.push_back(OpenLoop{L, scopes.size() - 1, temps.size()});
  lowerBlock(st.body, false);
  dropScopes(scopes.size() - 1, temps.size(), st.span, DropHow::ScopeEnd);
  gotoBlock(header, st.span);
  loops.pop_back();
  closeScope();
  curLoop = outer;
  cur = exit;
}

void Builder::lowerReturn(const hir::Stmt& st) {
  beginTemps();
  base::Span valueSpan = st.span;
  if (st.a.valid()) {
    lowerInto(placeOf(body.ret, prog.expr(st.a).span), st.a);
    valueSpan = prog.expr(st.a).span;
  }
  dropScopes(0, 0, st.span, DropHow::EarlyExit);
  temps.pop_back();
  Terminator t;
  t.kind = TermKind::Return;
  t.span = valueSpan;
  terminate(t);
}

void Builder::lowerBreak(const hir::Stmt& st) {
  if (loops.empty()) return;  // Sema reported it
  const OpenLoop& open = loops.back();
  dropScopes(open.scopes, open.temps, st.span, DropHow::EarlyExit);
  const Loop& loop = body.loops[open.loop.index];
  Terminator t;
  t.kind = TermKind::Goto;
  t.target = st.kind == hir::StmtKind::Break ? loop.exit : loop.header;
  t.span = st.span;
  terminate(t);
}

// ---- the body ----

// Every jump lands on a block of the body: a path whose target is missing
// would be dropped by the walks that follow the graph, and what it does
// would go unchecked. A lowering that makes one is a compiler bug, said
// loudly (an internal compiler error), never a silent acceptance.
void checkTargets(const Body& body) {
  auto valid = [&](BlockId b) { return b.valid() && b.index < body.blocks.size(); };
  for (size_t i = 0; i < body.blocks.size(); ++i) {
    const Terminator& t = body.blocks[i].term;
    bool ok = true;
    switch (t.kind) {
      case TermKind::Goto: ok = valid(t.target); break;
      case TermKind::Branch:
      case TermKind::ForLoop: ok = valid(t.target) && valid(t.otherwise); break;
      case TermKind::Return:
      case TermKind::Unreachable: break;
    }
    if (!ok) throw std::logic_error("checker IR: block bb" + std::to_string(i) + " jumps to a block that does not exist");
  }
  for (const Loop& l : body.loops)
    if (!valid(l.header) || !valid(l.exit)) throw std::logic_error("checker IR: a loop without its header or exit block");
}

Body lowerBody(const hir::Program& prog, const base::SourceMap& sources, hir::FnId fn) {
  Body body;
  body.fn = fn;
  Builder b{prog, sources, body, {}, {}, {}, {}, {}, 0, {}, {}};
  const hir::Function& f = prog.fn(fn);
  b.openScope();  // the parameters'
  for (hir::LocalId p : f.params) {
    const hir::Local& hl = prog.local(p);
    Local l;
    l.name = hl.name;
    l.type = hl.type;
    l.span = hl.span;
    l.hir = p;
    l.param = true;
    l.mut = hl.mut;
    LocalId id = b.addLocal(l);
    b.localOf[p.index] = id;
    body.params.push_back(id);
    b.scopes.back().push_back(id);
  }
  Local ret;  // unnamed: messages never name it
  ret.type = f.ret;
  ret.span = f.nameSpan;
  body.ret = b.addLocal(ret);
  b.cur = b.newBlock();
  if (f.body.valid()) b.lowerBlock(f.body, true);
  checkTargets(body);
  return body;
}

}  // namespace vx::check::cir

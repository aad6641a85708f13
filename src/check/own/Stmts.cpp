// Statements and blocks: bindings, assignments, branches, early exits, and
// the end of scopes, where tokens still in flight are dropped (E6003) and
// buffers freed under a copy (E6006).
#include "check/own/Analysis.h"

namespace vx::check::own {

using hir::ExprKind;
using hir::StmtKind;

void stmtEffects(Analysis& a, State& s, hir::StmtId id);

namespace {

void bindLocal(Analysis& a, State& s, hir::LocalId l, const Value& v, hir::ExprId init, bool haveInit) {
  const hir::Local& local = a.prog.local(l);
  a.scopes.back().push_back(l);
  TermStore& t = a.terms;
  if (hasTokens(a, local.type)) {
    bindValue(a, s, Loc{l.index, 0}, local.type, v);
    return;
  }
  if (isRef(a, local.type)) {
    RefVal r = v.kind == Value::Kind::Ref ? v.ref : RefVal{};
    if (v.kind != Value::Kind::Ref) r.unknown = true;
    s.refs[l.index] = r;
    return;
  }
  if (isMoveOnly(a, local.type)) {
    s.moved[l.index] = t.fls();
    s.movedAt.erase(l.index);
    return;
  }
  if (isScalar(a, local.type) && !a.facts.addressTaken.count(l.index))
    s.scalars[l.index] = haveInit ? valueOf(a, s, init) : freshValue(a, local.type, local.name);
}

void bindPattern(Analysis& a, State& s, hir::PatId p, const Value& v, hir::ExprId init, bool haveInit) {
  const hir::Pat& pat = a.prog.pat(p);
  if (pat.kind == hir::PatKind::Bind) {
    bindLocal(a, s, pat.local, v, init, haveInit);
    return;
  }
  // A tuple pattern: element-wise when the initializer is a tuple
  // expression, from the tuple value otherwise.
  const hir::Expr* tupleInit = haveInit ? &a.prog.expr(init) : nullptr;
  bool literal = tupleInit && tupleInit->kind == ExprKind::Tuple && tupleInit->args.count == pat.elems.count;
  for (uint32_t i = 0; i < pat.elems.count; ++i) {
    Value e = v.kind == Value::Kind::Tuple && i < v.elems.size() ? v.elems[i] : Value{};
    hir::ExprId sub = literal ? a.prog.arg(*tupleInit, i) : hir::ExprId{};
    bindPattern(a, s, hir::PatId{a.prog.listAt(pat.elems, i)}, e, sub, literal);
  }
}

// The end of the life of the locals of scopes [from, end): tokens still in
// flight are dropped, owned buffers freed.
void endScopes(Analysis& a, State& s, size_t from, base::Span at, DropHow how) {
  TermStore& t = a.terms;
  if (t.isFalse(s.pc)) return;
  // Tokens first: a buffer freed under a copy follows from the copy's
  // token being dropped.
  for (size_t level = a.scopes.size(); level-- > from;)
    for (hir::LocalId l : a.scopes[level]) {
      const hir::Local& local = a.prog.local(l);
      if (hasTokens(a, local.type)) dropValue(a, s, peekValue(a, s, Loc{l.index, 0}, local.type), at, local.name, how);
    }
  for (size_t level = a.scopes.size(); level-- > from;) {
    for (hir::LocalId l : a.scopes[level]) {
      const hir::Local& local = a.prog.local(l);
      if (hasTokens(a, local.type)) {
        continue;
      } else if (isMoveOnly(a, local.type)) {
        Term owned = t.mkNot(lookup(s.moved, l.index, t.fls()));
        if (t.isFalse(owned)) continue;
        Place p;
        p.root = l;
        p.text = local.name;
        access(a, s, {Alt{p, owned}}, AccessHow::Free, at);
      }
    }
  }
}

void forget(Analysis& a, State& s, const std::vector<hir::LocalId>& locals) {
  for (hir::LocalId l : locals) {
    s.scalars.erase(l.index);
    s.refs.erase(l.index);
    s.moved.erase(l.index);
    s.movedAt.erase(l.index);
    for (auto it = s.tokens.begin(); it != s.tokens.end();)
      it = it->first.local == l.index ? s.tokens.erase(it) : std::next(it);
    for (auto it = s.emptiedAt.begin(); it != s.emptiedAt.end();)
      it = it->first.local == l.index ? s.emptiedAt.erase(it) : std::next(it);
  }
}

void assignScalar(Analysis& a, State& s, hir::LocalId l, const hir::Stmt& st) {
  TermStore& t = a.terms;
  walkExpr(a, s, st.b);
  if (a.facts.addressTaken.count(l.index)) return;
  Term rhs = valueOf(a, s, st.b);
  Term old = valueOf(a, s, st.a);
  const hir::Local& local = a.prog.local(l);
  bool uns = false;
  {
    const hir::TypeTable& tt = a.types();
    hir::TypeId r = tt.resolve(local.type);
    if (tt.kind(r) == hir::TyKind::Int) {
      auto k = static_cast<hir::IntKind>(tt.get(r).sub);
      uns = k == hir::IntKind::U32 || k == hir::IntKind::U64 || k == hir::IntKind::Usize;
    }
  }
  switch (st.op) {
    case ast::Op::AddAssign: rhs = t.mkAdd(old, rhs); break;
    case ast::Op::SubAssign: rhs = t.mkSub(old, rhs); break;
    case ast::Op::MulAssign: rhs = t.mkMul(old, rhs); break;
    case ast::Op::DivAssign: rhs = uns ? t.mkEuclidDiv(old, rhs) : t.mkTruncDiv(old, rhs); break;
    case ast::Op::RemAssign: rhs = uns ? t.mkEuclidMod(old, rhs) : t.mkTruncRem(old, rhs); break;
    case ast::Op::Assign: break;
    case ast::Op::None:
    case ast::Op::Neg:
    case ast::Op::Not:
    case ast::Op::Deref:
    case ast::Op::Mul:
    case ast::Op::Div:
    case ast::Op::Rem:
    case ast::Op::Add:
    case ast::Op::Sub:
    case ast::Op::Eq:
    case ast::Op::Ne:
    case ast::Op::Lt:
    case ast::Op::Gt:
    case ast::Op::Le:
    case ast::Op::Ge:
    case ast::Op::And:
    case ast::Op::Or: break;  // not an assignment operator
  }
  s.scalars[l.index] = rhs;
}

void walkAssign(Analysis& a, State& s, const hir::Stmt& st) {
  const hir::Expr& place = a.prog.expr(st.a);
  TermStore& t = a.terms;
  if (place.kind == ExprKind::Local) {
    hir::LocalId l = place.local;
    const hir::Local& local = a.prog.local(l);
    if (hasTokens(a, local.type)) {
      Value v = walkExpr(a, s, st.b);
      // The new value is computed first, then the old one is dropped.
      Value old = peekValue(a, s, Loc{l.index, 0}, local.type);
      dropValue(a, s, old, place.span, local.name, DropHow::Overwritten);
      bindValue(a, s, Loc{l.index, 0}, local.type, v);
      return;
    }
    if (isRef(a, local.type)) {
      a.bindingBorrow = a.prog.expr(st.b).kind == ExprKind::Borrow;
      Value v = walkExpr(a, s, st.b);
      a.bindingBorrow = false;
      RefVal r = v.kind == Value::Kind::Ref ? v.ref : RefVal{};
      if (v.kind != Value::Kind::Ref) r.unknown = true;
      s.refs[l.index] = r;
      return;
    }
    if (isMoveOnly(a, local.type)) {
      walkExpr(a, s, st.b);
      Place p;
      p.root = l;
      p.text = local.name;
      access(a, s, {Alt{p, t.tru()}}, AccessHow::Write, place.span);
      s.moved[l.index] = t.fls();
      return;
    }
    if (isScalar(a, local.type)) {
      assignScalar(a, s, l, st);
      return;
    }
    walkExpr(a, s, st.b);
    return;
  }
  if (place.kind == ExprKind::Field && hasTokens(a, place.type)) {
    const hir::Expr& base = a.prog.expr(place.a);
    Loc c;
    if (base.kind == ExprKind::Local && childLoc(Loc{base.local.index, 0}, static_cast<uint32_t>(place.value), c)) {
      Value v = walkExpr(a, s, st.b);
      Value old = peekValue(a, s, c, place.type);
      dropValue(a, s, old, place.span, sourceText(a, place.span), DropHow::Overwritten);
      bindValue(a, s, c, place.type, v);
      return;
    }
    a.exhausted = true;
    return;
  }
  walkExpr(a, s, st.b);
  if (place.kind == ExprKind::Index) walkExpr(a, s, place.b);
  std::vector<Alt> p = placesOf(a, s, st.a);
  if (!p.empty()) access(a, s, p, AccessHow::Write, place.span);
}

// Plain scalar code: integers, floats and booleans read, computed and
// written to local variables, in `if`s and blocks; no call, index, borrow,
// dereference, token, loop or early exit. Nothing in it can be a finding or
// change a token, a buffer or the path condition, so walking such an arm
// when it cannot be taken is exact (its writes join in under a condition
// that is false) and needs no solver query: a long `else if` chain over
// scalars costs no query per arm.
bool scalarType(const Analysis& a, hir::TypeId t) {
  const hir::TypeTable& ty = a.types();
  return ty.isNumeric(t) || ty.kind(ty.resolve(t)) == hir::TyKind::Bool;
}

bool plainExpr(const Analysis& a, hir::ExprId id) {
  if (!id.valid()) return true;
  const hir::Expr& e = a.prog.expr(id);
  switch (e.kind) {
    case ExprKind::Int:
    case ExprKind::Float:
    case ExprKind::Bool:
    case ExprKind::Local:
    case ExprKind::Const: return scalarType(a, e.type);
    case ExprKind::Unary:
    case ExprKind::Cast: return scalarType(a, e.type) && plainExpr(a, e.a);
    case ExprKind::Binary: return scalarType(a, e.type) && plainExpr(a, e.a) && plainExpr(a, e.b);
    case ExprKind::Error:
    case ExprKind::MemConst:
    case ExprKind::TopoConst:
    case ExprKind::Unit:
    case ExprKind::Tuple:
    case ExprKind::Call:
    case ExprKind::Len:
    case ExprKind::Field:
    case ExprKind::Index:
    case ExprKind::Borrow:
    case ExprKind::Deref: return false;
  }
  return false;
}

bool plainStmt(Analysis& a, hir::StmtId id);

bool plainBlock(Analysis& a, hir::BlockId id) {
  const hir::Block& b = a.prog.block(id);
  for (uint32_t i = 0; i < b.stmts.count; ++i)
    if (!plainStmt(a, hir::StmtId{a.prog.listAt(b.stmts, i)})) return false;
  return !b.tail.valid() || plainExpr(a, b.tail);
}

bool plainStmt(Analysis& a, hir::StmtId id) {
  auto known = a.plain.find(id.index);
  if (known != a.plain.end()) return known->second;
  const hir::Stmt& st = a.prog.stmt(id);
  bool yes = false;
  switch (st.kind) {
    case StmtKind::Let:
      yes = st.a.valid() && plainExpr(a, st.a) && a.prog.pat(st.pat).kind == hir::PatKind::Bind;
      break;
    case StmtKind::Assign: {
      const hir::Expr& place = a.prog.expr(st.a);
      yes = place.kind == ExprKind::Local && scalarType(a, place.type) && plainExpr(a, st.b);
      break;
    }
    case StmtKind::If:
      yes = plainExpr(a, st.a) && plainBlock(a, st.body) && (!st.elseStmt.valid() || plainStmt(a, st.elseStmt));
      break;
    case StmtKind::Block: yes = plainBlock(a, st.body); break;
    case StmtKind::Expr: yes = plainExpr(a, st.a); break;
    case StmtKind::For:
    case StmtKind::While:
    case StmtKind::Return:
    case StmtKind::Break:
    case StmtKind::Continue: yes = false; break;
  }
  a.plain.emplace(id.index, yes);
  return yes;
}

// An `else if`: its own arms are asked whether they can be taken, so the
// `else` before it is not (a chain of n arms makes n queries, not n^2).
bool elseIf(const Analysis& a, const hir::Stmt& st) {
  return st.elseStmt.valid() && a.prog.stmt(st.elseStmt).kind == StmtKind::If;
}

void walkIf(Analysis& a, State& s, const hir::Stmt& st) {
  TermStore& t = a.terms;
  walkExpr(a, s, st.a);
  Term c = valueOf(a, s, st.a);
  State thenS = s, elseS = s;
  thenS.pc = t.mkAnd(s.pc, c);
  elseS.pc = t.mkAnd(s.pc, t.mkNot(c));
  // An arm that cannot be taken is not walked: nothing there can happen.
  // (Walks that only gather facts skip the solver here: an infeasible arm
  // joins in under a false condition.)
  bool exact = a.silent == 0;
  if (!t.isFalse(thenS.pc) && (!exact || plainBlock(a, st.body) || possible(a, thenS, t.tru())))
    walkBlock(a, thenS, st.body);
  else
    thenS = bottom(t, s);
  if (st.elseStmt.valid() && !t.isFalse(elseS.pc) &&
      (!exact || plainStmt(a, st.elseStmt) || elseIf(a, st) || possible(a, elseS, t.tru())))
    walkStmt(a, elseS, st.elseStmt);
  else if (st.elseStmt.valid())
    elseS = bottom(t, s);
  Term pc0 = s.pc;
  bool untouched = thenS.pc == t.mkAnd(pc0, c) && elseS.pc == t.mkAnd(pc0, t.mkNot(c));
  s = join(t, thenS, elseS, c);
  // Neither arm left early: the path condition is what it was.
  if (untouched) s.pc = pc0;
}

void leaveFunction(Analysis& a, State& s, const Value& v, base::Span valueSpan, base::Span at, DropHow how) {
  TermStore& t = a.terms;
  if (t.isFalse(s.pc)) return;
  // A returned token hands its obligation to the caller; the copy stays in
  // flight.
  if (v.kind != Value::Kind::None) consume(a, s, v, valueSpan, v.name.empty() ? "the token" : v.name, false);
  endScopes(a, s, 0, at, how);
  // The reporting walk reaches every exit; walks that only gather facts
  // (inside loops) do not add theirs.
  if (a.silent > 0) return;
  a.exits.push_back(s);
  a.exitValues.push_back(v);
}

}  // namespace

void walkStmt(Analysis& a, State& s, hir::StmtId id) {
  ++a.steps;
  if (a.overBudget() || a.terms.isFalse(s.pc)) return;
  stmtEffects(a, s, id);
  collect(a.terms, s, [&a](TransferId k) { return a.transfers[k].origin == Origin::Param; });
  if (a.observe && a.silent == 0) observeStates(a, s, a.prog.stmt(id).span);
}

void stmtEffects(Analysis& a, State& s, hir::StmtId id) {
  const hir::Stmt& st = a.prog.stmt(id);
  switch (st.kind) {
    case StmtKind::Let: {
      a.bindingBorrow = st.a.valid() && a.prog.expr(st.a).kind == ExprKind::Borrow;
      Value v = st.a.valid() ? walkExpr(a, s, st.a) : Value{};
      a.bindingBorrow = false;
      bindPattern(a, s, st.pat, v, st.a, st.a.valid());
      return;
    }
    case StmtKind::Assign: walkAssign(a, s, st); return;
    case StmtKind::For: walkFor(a, s, id); return;
    case StmtKind::While: walkWhile(a, s, id); return;
    case StmtKind::If: walkIf(a, s, st); return;
    case StmtKind::Return: {
      Value v = st.a.valid() ? walkExpr(a, s, st.a) : Value{};
      leaveFunction(a, s, v, st.a.valid() ? a.prog.expr(st.a).span : st.span, st.span, DropHow::EarlyExit);
      s = bottom(a.terms, s);
      return;
    }
    case StmtKind::Break:
    case StmtKind::Continue: {
      if (a.loops.empty()) return;
      LoopFrame& loop = *a.loops.back();
      endScopes(a, s, loop.scopeLevel, st.span, DropHow::EarlyExit);
      (st.kind == StmtKind::Break ? loop.breaks : loop.continues).push_back(s);
      s = bottom(a.terms, s);
      return;
    }
    case StmtKind::Block: walkBlock(a, s, st.body); return;
    case StmtKind::Expr: {
      Value v = walkExpr(a, s, st.a);
      dropValue(a, s, v, a.prog.expr(st.a).span, v.name.empty() ? "the token" : v.name, DropHow::Temporary);
      return;
    }
  }
}

void walkBlock(Analysis& a, State& s, hir::BlockId id) {
  const hir::Block& b = a.prog.block(id);
  bool fnBody = a.fn.body == id;
  a.scopes.emplace_back();
  for (uint32_t i = 0; i < b.stmts.count; ++i) walkStmt(a, s, hir::StmtId{a.prog.listAt(b.stmts, i)});
  Value tail;
  if (b.tail.valid() && !a.terms.isFalse(s.pc) && !a.overBudget()) {
    tail = walkExpr(a, s, b.tail);
    if (!fnBody)
      dropValue(a, s, tail, a.prog.expr(b.tail).span, tail.name.empty() ? "the token" : tail.name,
                DropHow::Temporary);
  }
  if (fnBody) {
    leaveFunction(a, s, tail, b.tail.valid() ? a.prog.expr(b.tail).span : b.closeBrace, b.closeBrace,
                  DropHow::ScopeEnd);
  } else {
    endScopes(a, s, a.scopes.size() - 1, b.closeBrace, DropHow::ScopeEnd);
  }
  forget(a, s, a.scopes.back());
  a.scopes.pop_back();
}

}  // namespace vx::check::own

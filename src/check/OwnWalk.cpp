// The walk over structured HIR: statements, blocks, expressions, branches.
#include "check/OwnState.h"

namespace vx::check::own {

using hir::ExprKind;
using hir::StmtKind;

namespace {

std::string tokenLabel(const Walk& w, hir::ExprId e) {
  const hir::Expr& x = w.prog.expr(e);
  return x.kind == ExprKind::Local ? localName(w, x.local) : std::string("the token");
}

void nameTransfers(Walk& w, const TokenVal& v, const std::string& name) {
  for (const auto& [k, h] : v.holds)
    if (w.transfers[k].tokenName.empty()) w.transfers[k].tokenName = name;
}

// Binds a local declared by `let` or a `for`.
void bindLocal(Walk& w, State& s, hir::LocalId l, std::optional<TokenVal> value, hir::ExprId init) {
  const hir::Local& local = w.prog.local(l);
  w.blockLocals.back().push_back(l);
  if (isTokenType(w, local.type)) {
    TokenVal v = value ? *value : TokenVal{};
    nameTransfers(w, v, local.name);
    s.tokens[l.index] = v;
    return;
  }
  if (isMoveOnly(w, local.type)) {
    s.moved[l.index] = w.terms.fls();
    return;
  }
  hir::TyKind k = w.types().kind(w.types().resolve(local.type));
  if ((k == hir::TyKind::Int || k == hir::TyKind::Bool) && init.valid()) {
    s.scalars[l.index] = valueOf(w, s, init);
    // A named value: show it in counterexamples when it is a plain variable.
  }
}

void bindPattern(Walk& w, State& s, hir::PatId p, std::optional<TokenVal> value, hir::ExprId init) {
  const hir::Pat& pat = w.prog.pat(p);
  if (pat.kind == hir::PatKind::Bind) {
    bindLocal(w, s, pat.local, std::move(value), init);
    return;
  }
  for (uint32_t i = 0; i < pat.elems.count; ++i) bindPattern(w, s, hir::PatId{w.prog.listAt(pat.elems, i)}, {}, {});
}

// Token locals of the open blocks from `fromLevel` inwards must not be live.
void checkScopesLeft(Walk& w, State& s, size_t fromLevel, base::Span at) {
  for (size_t level = fromLevel; level < w.blockLocals.size(); ++level)
    for (hir::LocalId l : w.blockLocals[level]) {
      auto it = s.tokens.find(l.index);
      if (it != s.tokens.end()) checkDropped(w, s, it->second, at, localName(w, l), 3);
    }
}

void walkAssign(Walk& w, State& s, const hir::Stmt& st) {
  const hir::Expr& place = w.prog.expr(st.a);
  smt::TermStore& t = w.terms;
  if (place.kind == ExprKind::Local) {
    hir::LocalId l = place.local;
    const hir::Local& local = w.prog.local(l);
    std::optional<TokenVal> v = walkExpr(w, s, st.b);
    if (isTokenType(w, local.type)) {
      // The new value is computed first, then the old one is dropped.
      checkDropped(w, s, s.tokens[l.index], place.span, local.name, 1);
      TokenVal nv = v ? *v : TokenVal{};
      nameTransfers(w, nv, local.name);
      s.tokens[l.index] = nv;
      return;
    }
    if (isMoveOnly(w, local.type)) {
      Region r;
      r.root = l;
      r.text = local.name;
      checkAccess(w, s, r, Access::Write, place.span);
      s.moved[l.index] = t.fls();
      return;
    }
    hir::TyKind k = w.types().kind(w.types().resolve(local.type));
    if (k == hir::TyKind::Int || k == hir::TyKind::Bool) {
      Term rhs = valueOf(w, s, st.b);
      Term old = valueOf(w, s, st.a);
      switch (st.op) {
        case ast::Op::AddAssign: rhs = t.mkAdd(old, rhs); break;
        case ast::Op::SubAssign: rhs = t.mkSub(old, rhs); break;
        case ast::Op::MulAssign: rhs = t.mkMul(old, rhs); break;
        case ast::Op::DivAssign:
        case ast::Op::RemAssign: rhs = t.fresh("$v", smt::Sort::Int); break;
        default: break;
      }
      s.scalars[l.index] = rhs;
    }
    return;
  }
  walkExpr(w, s, st.b);
  if (std::optional<Region> r = regionOf(w, s, st.a)) checkAccess(w, s, *r, Access::Write, place.span);
}

void walkIf(Walk& w, State& s, const hir::Stmt& st) {
  walkExpr(w, s, st.a);
  Term c = valueOf(w, s, st.a);
  State thenS = s, elseS = s;
  thenS.pc = w.terms.mkAnd(s.pc, c);
  elseS.pc = w.terms.mkAnd(s.pc, w.terms.mkNot(c));
  // A branch that cannot be taken is not walked: nothing there can happen.
  if (!w.terms.isFalse(thenS.pc) && possible(w, thenS, w.terms.tru()) != smt::Verdict::Unsat)
    walkBlock(w, thenS, st.body);
  else
    thenS = unreachable(w, s);
  if (st.elseStmt.valid()) {
    if (!w.terms.isFalse(elseS.pc) && possible(w, elseS, w.terms.tru()) != smt::Verdict::Unsat)
      walkStmt(w, elseS, st.elseStmt);
    else
      elseS = unreachable(w, s);
  }
  s = merge(w, thenS, elseS);
}

}  // namespace

std::optional<TokenVal> walkExpr(Walk& w, State& s, hir::ExprId id) {
  const hir::Expr& e = w.prog.expr(id);
  switch (e.kind) {
    case ExprKind::Local: {
      if (isTokenType(w, e.type)) {
        TokenVal v = s.tokens[e.local.index];
        // Moved out: the obligation goes with the value; the ghost remembers
        // what was held, for messages about a later use.
        if (!v.holds.empty()) s.ghosts[e.local.index] = v.holds;
        v.ghost = s.ghosts[e.local.index];
        s.tokens[e.local.index] = TokenVal{};
        return v;
      }
      useLocal(w, s, e.local, e.span, isMoveOnly(w, e.type));
      return std::nullopt;
    }
    case ExprKind::Borrow: {
      const hir::Expr& inner = w.prog.expr(e.a);
      // Walk index expressions for their effects, not the place itself.
      if (inner.kind == ExprKind::Index) walkExpr(w, s, inner.b);
      hir::LocalId root;
      for (hir::ExprId x = e.a; x.valid();) {
        const hir::Expr& xe = w.prog.expr(x);
        if (xe.kind == ExprKind::Local) {
          root = xe.local;
          break;
        }
        if (xe.kind != ExprKind::Index && xe.kind != ExprKind::Field && xe.kind != ExprKind::Deref) break;
        x = xe.a;
      }
      if (root.valid()) useLocal(w, s, root, inner.span, false);
      if (std::optional<Region> r = regionOf(w, s, id))
        checkAccess(w, s, *r, e.mut ? Access::Write : Access::Read, inner.span);
      return std::nullopt;
    }
    case ExprKind::Index:
    case ExprKind::Field:
    case ExprKind::Deref: {
      if (e.kind == ExprKind::Index) walkExpr(w, s, e.b);
      if (std::optional<Region> r = regionOf(w, s, id)) {
        useLocal(w, s, r->root, e.span, false);
        checkAccess(w, s, *r, Access::Read, e.span);
      }
      return std::nullopt;
    }
    case ExprKind::Call: {
      std::vector<std::optional<TokenVal>> args;
      for (uint32_t i = 0; i < e.args.count; ++i) {
        hir::ExprId a = w.prog.arg(e, i);
        const hir::Expr& ae = w.prog.expr(a);
        // A reference passed on is an access through it: `store_acc(out)`.
        hir::TypeId at = w.types().resolve(ae.type);
        if (ae.kind == ExprKind::Local && w.types().kind(at) == hir::TyKind::Ref)
          if (std::optional<Region> r = regionOf(w, s, a))
            checkAccess(w, s, *r, w.types().get(at).sub ? Access::Write : Access::Read, ae.span);
        args.push_back(walkExpr(w, s, a));
      }
      checkArgBorrows(w, s, e);
      return applyCall(w, s, e, args);
    }
    case ExprKind::Len: return std::nullopt;
    case ExprKind::Tuple:
      for (uint32_t i = 0; i < e.args.count; ++i) walkExpr(w, s, w.prog.arg(e, i));
      return std::nullopt;
    case ExprKind::Unary:
    case ExprKind::Cast: walkExpr(w, s, e.a); return std::nullopt;
    case ExprKind::Binary:
      walkExpr(w, s, e.a);
      walkExpr(w, s, e.b);
      return std::nullopt;
    default: return std::nullopt;
  }
}

void walkStmt(Walk& w, State& s, hir::StmtId id) {
  ++w.steps;
  if (w.overBudget() || w.terms.isFalse(s.pc)) return;
  const hir::Stmt& st = w.prog.stmt(id);
  switch (st.kind) {
    case StmtKind::Let: {
      std::optional<TokenVal> v = walkExpr(w, s, st.a);
      bindPattern(w, s, st.pat, std::move(v), st.a);
      return;
    }
    case StmtKind::Assign: walkAssign(w, s, st); return;
    case StmtKind::For: walkFor(w, s, st); return;
    case StmtKind::While: walkWhile(w, s, st); return;
    case StmtKind::If: walkIf(w, s, st); return;
    case StmtKind::Return: {
      if (st.a.valid()) {
        std::optional<TokenVal> v = walkExpr(w, s, st.a);
        if (v) consume(w, s, *v, w.prog.expr(st.a).span, tokenLabel(w, st.a), st.a, false);
      }
      checkScopesLeft(w, s, 0, st.span);
      s = unreachable(w, s);
      return;
    }
    case StmtKind::Break:
    case StmtKind::Continue: {
      if (w.loops.empty()) return;
      // The loop body's own locals die here.
      checkScopesLeft(w, s, w.loops.back()->level, st.span);
      (st.kind == StmtKind::Break ? w.loops.back()->breaks : w.loops.back()->continues).push_back(s);
      s = unreachable(w, s);
      return;
    }
    case StmtKind::Block: walkBlock(w, s, st.body); return;
    case StmtKind::Expr: {
      std::optional<TokenVal> v = walkExpr(w, s, st.a);
      if (v) checkDropped(w, s, *v, w.prog.expr(st.a).span, tokenLabel(w, st.a), 2);
      return;
    }
  }
}

void walkBlock(Walk& w, State& s, hir::BlockId id) {
  const hir::Block& b = w.prog.block(id);
  w.blockLocals.emplace_back();
  for (uint32_t i = 0; i < b.stmts.count; ++i) walkStmt(w, s, hir::StmtId{w.prog.listAt(b.stmts, i)});
  bool fnBody = w.fn && w.fn->body == id;
  if (b.tail.valid() && !w.terms.isFalse(s.pc)) {
    std::optional<TokenVal> v = walkExpr(w, s, b.tail);
    if (v) {
      if (fnBody)
        consume(w, s, *v, w.prog.expr(b.tail).span, tokenLabel(w, b.tail), b.tail, false);  // returned
      else
        checkDropped(w, s, *v, w.prog.expr(b.tail).span, tokenLabel(w, b.tail), 2);
    }
  }
  if (!w.terms.isFalse(s.pc)) {
    for (hir::LocalId l : w.blockLocals.back()) {
      auto it = s.tokens.find(l.index);
      if (it != s.tokens.end()) checkDropped(w, s, it->second, b.closeBrace, localName(w, l), 0);
      if (isMoveOnly(w, w.prog.local(l).type) && !w.terms.isTrue(get(s.moved, l.index, w.terms.fls()))) {
        Region r;
        r.root = l;
        r.text = localName(w, l);
        checkAccess(w, s, r, Access::Free, b.closeBrace);
      }
    }
  }
  for (hir::LocalId l : w.blockLocals.back()) {
    s.tokens.erase(l.index);
    s.scalars.erase(l.index);
  }
  w.blockLocals.pop_back();
}

}  // namespace vx::check::own

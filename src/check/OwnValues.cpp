// Symbolic values of integer and boolean expressions (QF_LIA). Rust's
// truncating `/` and `%` are encoded exactly; unsigned operands use SMT-LIB's
// Euclidean div/mod, which agree with truncation on non-negative numbers.
#include "check/OwnState.h"

namespace vx::check::own {

using hir::ExprKind;
using hir::TyKind;

namespace {

bool isUnsigned(const Walk& w, hir::TypeId t) {
  const hir::TypeTable& tt = w.types();
  hir::TypeId r = tt.resolve(t);
  if (tt.kind(r) != TyKind::Int) return false;
  auto k = static_cast<hir::IntKind>(tt.get(r).sub);
  return k == hir::IntKind::U32 || k == hir::IntKind::U64 || k == hir::IntKind::Usize;
}

bool isBool(const Walk& w, hir::TypeId t) { return w.types().kind(w.types().resolve(t)) == TyKind::Bool; }

Term opaque(Walk& w, hir::TypeId t) {
  if (isBool(w, t)) return w.terms.fresh("$b", smt::Sort::Bool);
  Term x = w.terms.fresh("$v", smt::Sort::Int);
  rangeOf(w, t, x);
  return x;
}

}  // namespace

Term rangeOf(Walk& w, hir::TypeId t, Term x) {
  if (isUnsigned(w, t)) w.assumptions = w.terms.mkAnd(w.assumptions, w.terms.mkLe(w.terms.intConst(0), x));
  return x;
}

namespace {
void nameForUsers(Walk& w, Term v, const std::string& source) {
  std::string shown = source;
  auto used = [&](const std::string& n) {
    for (const auto& u : w.displayUsed)
      if (u == n) return true;
    return false;
  };
  while (used(shown)) shown += "'";
  w.displayUsed.push_back(shown);
  w.display[w.terms.varName(v)] = shown;
}
}  // namespace

Term freshFor(Walk& w, hir::LocalId l) {
  const hir::Local& local = w.prog.local(l);
  if (isBool(w, local.type)) {
    Term v = w.terms.fresh(local.name, smt::Sort::Bool);
    w.shown.push_back(v);
    nameForUsers(w, v, local.name);
    return v;
  }
  Term v = w.terms.fresh(local.name, smt::Sort::Int);
  w.shown.push_back(v);
  nameForUsers(w, v, local.name);
  return rangeOf(w, local.type, v);
}

Term valueOf(Walk& w, State& s, hir::ExprId id) {
  smt::TermStore& t = w.terms;
  const hir::Expr& e = w.prog.expr(id);
  switch (e.kind) {
    case ExprKind::Int: return t.intConst(static_cast<int64_t>(e.value));
    case ExprKind::Bool: return t.boolConst(e.value != 0);
    case ExprKind::Local: {
      const hir::TypeTable& tt = w.types();
      TyKind k = tt.kind(tt.resolve(e.type));
      if (k != TyKind::Int && k != TyKind::Bool) return opaque(w, e.type);
      auto it = s.scalars.find(e.local.index);
      if (it != s.scalars.end()) return it->second;
      Term v = freshFor(w, e.local);
      s.scalars[e.local.index] = v;
      return v;
    }
    case ExprKind::Const: {
      const hir::Expr& v = w.prog.expr(w.prog.consts[e.constant.index].value);
      if (v.kind == ExprKind::Int) return t.intConst(static_cast<int64_t>(v.value));
      if (v.kind == ExprKind::Bool) return t.boolConst(v.value != 0);
      return opaque(w, e.type);
    }
    case ExprKind::Len: {
      const hir::Expr& v = w.prog.expr(e.a);
      std::string name = v.kind == ExprKind::Local ? w.prog.local(v.local).name + ".len()" : "$len";
      Term x = t.var(name, smt::Sort::Int);
      if (v.kind == ExprKind::Local) {
        bool seen = false;
        for (Term s2 : w.shown) seen = seen || s2 == x;
        if (!seen) w.shown.push_back(x);
      }
      w.assumptions = t.mkAnd(w.assumptions, t.mkLe(t.intConst(0), x));
      return x;
    }
    case ExprKind::Cast: {
      const hir::TypeTable& tt = w.types();
      if (tt.isInteger(e.type) && tt.isInteger(w.prog.expr(e.a).type)) return valueOf(w, s, e.a);
      return opaque(w, e.type);
    }
    case ExprKind::Unary: {
      if (e.op == ast::Op::Not && isBool(w, e.type)) return t.mkNot(valueOf(w, s, e.a));
      if (e.op == ast::Op::Neg && w.types().isInteger(e.type)) return t.mkNeg(valueOf(w, s, e.a));
      return opaque(w, e.type);
    }
    case ExprKind::Binary: {
      const hir::TypeTable& tt = w.types();
      hir::TypeId operand = w.prog.expr(e.a).type;
      bool ints = tt.isInteger(operand);
      bool bools = isBool(w, operand);
      if (!ints && !bools) return opaque(w, e.type);
      Term a = valueOf(w, s, e.a);
      Term b = valueOf(w, s, e.b);
      bool uns = isUnsigned(w, operand);
      switch (e.op) {
        case ast::Op::Add: return t.mkAdd(a, b);
        case ast::Op::Sub: return t.mkSub(a, b);
        case ast::Op::Mul: return t.mkMul(a, b);
        case ast::Op::Div: return uns ? t.mkEuclidDiv(a, b) : t.mkTruncDiv(a, b);
        case ast::Op::Rem: return uns ? t.mkEuclidMod(a, b) : t.mkTruncRem(a, b);
        case ast::Op::Eq: return t.mkEq(a, b);
        case ast::Op::Ne: return t.mkNot(t.mkEq(a, b));
        case ast::Op::Lt: return t.mkLt(a, b);
        case ast::Op::Gt: return t.mkLt(b, a);
        case ast::Op::Le: return t.mkLe(a, b);
        case ast::Op::Ge: return t.mkLe(b, a);
        case ast::Op::And: return t.mkAnd(a, b);
        case ast::Op::Or: return t.mkOr(a, b);
        default: return opaque(w, e.type);
      }
    }
    default: return opaque(w, e.type);
  }
}

}  // namespace vx::check::own

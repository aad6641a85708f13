// Types as ownership sees them, and the symbolic values of integer and bool
// expressions (QF_LIA). Integers follow Rust exactly: `/` and `%` truncate
// toward zero (unsigned operands use SMT-LIB's Euclidean operators, equal on
// non-negative numbers); arithmetic overflow traps at run time, so nothing
// after it happens and unbounded integers are exact up to the trap; `as`
// between integer types wraps (modulo 2^bits, then into the signed range),
// and literals keep their full 64-bit unsigned value.
#include "check/own/Analysis.h"

namespace vx::check::own {

using hir::ExprKind;
using hir::TyKind;
using smt::Int128;

namespace {

struct IntRange {
  Int128 lo, hi;
  unsigned bits;
  bool isSigned;
};

bool intRange(const Analysis& a, hir::TypeId t, IntRange& r) {
  const hir::TypeTable& tt = a.types();
  hir::TypeId x = tt.resolve(t);
  if (tt.kind(x) != TyKind::Int) return false;
  switch (static_cast<hir::IntKind>(tt.get(x).sub)) {
    case hir::IntKind::I32: r = {-(Int128(1) << 31), (Int128(1) << 31) - 1, 32, true}; return true;
    case hir::IntKind::I64: r = {-(Int128(1) << 63), (Int128(1) << 63) - 1, 64, true}; return true;
    case hir::IntKind::U32: r = {0, (Int128(1) << 32) - 1, 32, false}; return true;
    case hir::IntKind::U64:
    case hir::IntKind::Usize: r = {0, (Int128(1) << 64) - 1, 64, false}; return true;
  }
  return false;
}

bool isBoolTy(const Analysis& a, hir::TypeId t) { return a.types().kind(a.types().resolve(t)) == TyKind::Bool; }

std::string uniqueName(Analysis& a, const std::string& base) {
  std::string n = base;
  while (a.usedNames.count(n)) n += "'";
  a.usedNames.insert(n);
  return n;
}

// Rust's `x as T` for integer x of type `from`.
Term castInt(Analysis& a, Term x, const IntRange& from, const IntRange& to) {
  TermStore& t = a.terms;
  if (from.lo >= to.lo && from.hi <= to.hi) return x;
  Int128 mod = Int128(1) << to.bits;
  // Values already in range are unchanged: the common case first, so the
  // solver rarely has to reason about the wrap-around.
  Term inRange = t.mkAnd(t.mkLe(t.intConst(to.lo), x), t.mkLe(x, t.intConst(to.hi)));
  Term u = t.mkEuclidMod(x, t.intConst(mod));  // in [0, 2^bits)
  if (!to.isSigned) return t.mkIte(inRange, x, u);
  return t.mkIte(inRange, x, t.mkIte(t.mkLe(t.intConst(Int128(1) << (to.bits - 1)), u), t.mkSub(u, t.intConst(mod)), u));
}

}  // namespace

bool isToken(const Analysis& a, hir::TypeId t) { return a.types().kind(a.types().resolve(t)) == TyKind::Token; }

bool hasTokens(const Analysis& a, hir::TypeId t) {
  const hir::TypeTable& tt = a.types();
  hir::TypeId x = tt.resolve(t);
  if (tt.kind(x) == TyKind::Token) return true;
  if (tt.kind(x) != TyKind::Tuple) return false;
  for (uint32_t i = 0; i < tt.count(x); ++i)
    if (hasTokens(a, tt.elem(x, i))) return true;
  return false;
}

bool isMoveOnly(const Analysis& a, hir::TypeId t) {
  const hir::TypeTable& tt = a.types();
  hir::TypeId x = tt.resolve(t);
  if (tt.containsError(x)) return false;
  TyKind k = tt.kind(x);
  return k == TyKind::Tensor || k == TyKind::Vec || k == TyKind::Pinned;
}

bool isRef(const Analysis& a, hir::TypeId t) { return a.types().kind(a.types().resolve(t)) == TyKind::Ref; }

bool isScalar(const Analysis& a, hir::TypeId t) {
  TyKind k = a.types().kind(a.types().resolve(t));
  return k == TyKind::Int || k == TyKind::Bool;
}

std::string localName(const Analysis& a, hir::LocalId l) { return a.prog.local(l).name; }

std::string sourceText(const Analysis& a, base::Span s) {
  if (!s.valid()) return {};
  std::string_view text = a.sources.file(s.file).text();
  if (s.end > text.size() || s.begin > s.end) return {};
  return std::string(text.substr(s.begin, s.end - s.begin));
}

Term freshValue(Analysis& a, hir::TypeId t, const std::string& name) {
  TermStore& ts = a.terms;
  if (isBoolTy(a, t)) return ts.fresh(name, smt::Sort::Bool);
  Term x = ts.fresh(name, smt::Sort::Int);
  IntRange r;
  if (intRange(a, t, r))
    a.assumptions = ts.mkAnd(a.assumptions, ts.mkAnd(ts.mkLe(ts.intConst(r.lo), x), ts.mkLe(x, ts.intConst(r.hi))));
  return x;
}

Term lenOf(Analysis& a, hir::LocalId root) {
  auto it = a.lens.find(root.index);
  if (it != a.lens.end()) return it->second;
  TermStore& t = a.terms;
  std::string name = uniqueName(a, localName(a, root) + ".len()");
  Term x = t.fresh(name, smt::Sort::Int);
  a.assumptions = t.mkAnd(a.assumptions, t.mkAnd(t.mkLe(t.intConst(0), x), t.mkLe(x, t.intConst((Int128(1) << 63) - 1))));
  a.lens[root.index] = x;
  if (a.prog.local(root).param) a.inputs.push_back(smt::Shown{name, x});
  return x;
}

namespace {

// The Vec an expression reads the length of: a local (or a parameter), or
// whatever a reference local points to.
hir::LocalId lenRoot(Analysis& a, State& s, hir::ExprId e) {
  const hir::Expr* x = &a.prog.expr(e);
  while (x->kind == ExprKind::Deref || x->kind == ExprKind::Borrow) x = &a.prog.expr(x->a);
  if (x->kind != ExprKind::Local) return {};
  auto it = s.refs.find(x->local.index);
  if (it != s.refs.end() && !it->second.unknown && it->second.alts.size() == 1 && it->second.alts[0].place.whole())
    return it->second.alts[0].place.root;
  return x->local;
}

Term constValue(Analysis& a, State& s, const hir::Const& c, int depth);

Term value(Analysis& a, State& s, hir::ExprId id, int depth) {
  TermStore& t = a.terms;
  const hir::Expr& e = a.prog.expr(id);
  auto opaque = [&]() { return freshValue(a, e.type, "$v"); };
  if (depth > 64) return opaque();
  switch (e.kind) {
    case ExprKind::Int: return t.intConst(static_cast<Int128>(e.value));
    case ExprKind::Bool: return t.boolConst(e.value != 0);
    case ExprKind::Local: {
      if (!isScalar(a, e.type)) return opaque();
      if (a.facts.addressTaken.count(e.local.index)) return opaque();
      auto it = s.scalars.find(e.local.index);
      if (it != s.scalars.end()) return it->second;
      Term v = freshValue(a, e.type, localName(a, e.local));
      s.scalars[e.local.index] = v;
      return v;
    }
    case ExprKind::Const: return constValue(a, s, a.prog.consts[e.constant.index], depth + 1);
    case ExprKind::Len: {
      hir::LocalId root = lenRoot(a, s, e.a);
      return root.valid() ? lenOf(a, root) : opaque();
    }
    case ExprKind::Cast: {
      IntRange from, to;
      hir::TypeId src = a.prog.expr(e.a).type;
      if (intRange(a, src, from) && intRange(a, e.type, to)) return castInt(a, value(a, s, e.a, depth + 1), from, to);
      if (isBoolTy(a, src) && intRange(a, e.type, to))
        return t.mkIte(value(a, s, e.a, depth + 1), t.intConst(1), t.intConst(0));
      return opaque();
    }
    case ExprKind::Unary: {
      if (e.op == ast::Op::Not && isBoolTy(a, e.type)) return t.mkNot(value(a, s, e.a, depth + 1));
      if (e.op == ast::Op::Neg && a.types().isInteger(e.type)) return t.mkNeg(value(a, s, e.a, depth + 1));
      return opaque();
    }
    case ExprKind::Binary: {
      hir::TypeId operand = a.prog.expr(e.a).type;
      IntRange r;
      bool ints = intRange(a, operand, r);
      bool bools = isBoolTy(a, operand);
      if (!ints && !bools) return opaque();
      Term x = value(a, s, e.a, depth + 1);
      Term y = value(a, s, e.b, depth + 1);
      bool uns = ints && !r.isSigned;
      switch (e.op) {
        case ast::Op::Add: return t.mkAdd(x, y);
        case ast::Op::Sub: return t.mkSub(x, y);
        case ast::Op::Mul: return t.mkMul(x, y);
        case ast::Op::Div: return uns ? t.mkEuclidDiv(x, y) : t.mkTruncDiv(x, y);
        case ast::Op::Rem: return uns ? t.mkEuclidMod(x, y) : t.mkTruncRem(x, y);
        case ast::Op::Eq: return t.mkEq(x, y);
        case ast::Op::Ne: return t.mkNot(t.mkEq(x, y));
        case ast::Op::Lt: return t.mkLt(x, y);
        case ast::Op::Gt: return t.mkLt(y, x);
        case ast::Op::Le: return t.mkLe(x, y);
        case ast::Op::Ge: return t.mkLe(y, x);
        case ast::Op::And: return t.mkAnd(x, y);
        case ast::Op::Or: return t.mkOr(x, y);
        case ast::Op::None:
        case ast::Op::Neg:
        case ast::Op::Not:
        case ast::Op::Deref:
        case ast::Op::Assign:
        case ast::Op::AddAssign:
        case ast::Op::SubAssign:
        case ast::Op::MulAssign:
        case ast::Op::DivAssign:
        case ast::Op::RemAssign: return opaque();
      }
      return opaque();
    }
    // Values that are not integers or bools, or that no formula describes
    // (a call's result, a tensor element): a fresh unknown of the type.
    case ExprKind::Error:
    case ExprKind::Float:
    case ExprKind::MemConst:
    case ExprKind::TopoConst:
    case ExprKind::Unit:
    case ExprKind::Tuple:
    case ExprKind::Call:
    case ExprKind::Field:
    case ExprKind::Index:
    case ExprKind::Borrow:
    case ExprKind::Deref: return opaque();
  }
  return opaque();
}

Term constValue(Analysis& a, State& s, const hir::Const& c, int depth) {
  if (!c.value.valid()) return freshValue(a, c.type, "$c");
  return value(a, s, c.value, depth);
}

}  // namespace

Term valueOf(Analysis& a, State& s, hir::ExprId e) { return value(a, s, e, 0); }

}  // namespace vx::check::own

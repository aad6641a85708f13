// Types as ownership sees them, and the symbolic values of integer and bool
// operations (QF_LIA). Integers follow Rust exactly: `/` and `%` truncate
// toward zero (unsigned operands use SMT-LIB's Euclidean operators, equal on
// non-negative numbers); arithmetic overflow and division by zero trap at
// run time, so nothing after them happens: an operation's result is in its
// type's range on the paths that go on (added to the path where linear);
// `as` between integer types wraps (modulo 2^bits, then into the signed
// range), and literals keep their full 64-bit unsigned value.
#include "check/own/Analysis.h"

namespace vx::check::own {

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

// The value of a `const` item's initializer (constants and operators only).
Term pureValue(Analysis& a, hir::ExprId id, int depth) {
  TermStore& t = a.terms;
  const hir::Expr& e = a.prog.expr(id);
  auto opaque = [&]() { return freshValue(a, e.type, "$c"); };
  if (depth > 64) return opaque();
  switch (e.kind) {
    case hir::ExprKind::Int: return t.intConst(static_cast<Int128>(e.value));
    case hir::ExprKind::Bool: return t.boolConst(e.value != 0);
    case hir::ExprKind::Const: {
      const hir::Const& c = a.prog.consts[e.constant.index];
      return c.value.valid() ? pureValue(a, c.value, depth + 1) : opaque();
    }
    case hir::ExprKind::Unary: {
      if (e.op == ast::Op::Not && isBoolTy(a, e.type)) return t.mkNot(pureValue(a, e.a, depth + 1));
      if (e.op == ast::Op::Neg && a.types().isInteger(e.type)) return t.mkNeg(pureValue(a, e.a, depth + 1));
      return opaque();
    }
    case hir::ExprKind::Cast:
      return castValue(a, pureValue(a, e.a, depth + 1), a.prog.expr(e.a).type, e.type);
    case hir::ExprKind::Binary: {
      cir::Stmt st;
      st.rv = cir::RvKind::Binary;
      st.op = e.op;
      st.type = e.type;
      st.a.kind = cir::OperandKind::Const;
      st.a.constant = e.a;
      st.b.kind = cir::OperandKind::Const;
      st.b.constant = e.b;
      State none;
      none.pc = t.tru();
      Term x = pureValue(a, e.a, depth + 1), y = pureValue(a, e.b, depth + 1);
      if (e.op == ast::Op::And) return t.mkAnd(x, y);
      if (e.op == ast::Op::Or) return t.mkOr(x, y);
      return scalarOp(a, none, st, x, y);
    }
    case hir::ExprKind::Error:
    case hir::ExprKind::Float:
    case hir::ExprKind::Local:
    case hir::ExprKind::MemConst:
    case hir::ExprKind::TopoConst:
    case hir::ExprKind::Unit:
    case hir::ExprKind::Tuple:
    case hir::ExprKind::Call:
    case hir::ExprKind::Len:
    case hir::ExprKind::Field:
    case hir::ExprKind::Index:
    case hir::ExprKind::Borrow:
    case hir::ExprKind::Deref: return opaque();
  }
  return opaque();
}

}  // namespace

std::string uniqueName(Analysis& a, const std::string& base) {
  std::string n = base;
  while (a.usedNames.count(n)) n += "'";
  a.usedNames.insert(n);
  return n;
}

namespace {

enum : uint8_t { kKnown = 1, kToken = 2, kHasTokens = 4, kMoveOnly = 8, kRef = 16, kScalar = 32, kHasRefs = 64 };

uint8_t typeFlags(const Analysis& a, hir::TypeId t) {
  const hir::TypeTable& tt = a.types();
  hir::TypeId x = tt.resolve(t);
  if (x.index < a.typeFlags.size() && (a.typeFlags[x.index] & kKnown)) return a.typeFlags[x.index];
  TyKind k = tt.kind(x);
  uint8_t f = kKnown;
  if (k == TyKind::Token) f |= kToken | kHasTokens;
  if (k == TyKind::Tuple)
    for (uint32_t i = 0; i < tt.count(x); ++i) f |= typeFlags(a, tt.elem(x, i)) & (kHasTokens | kHasRefs);
  // (The checker runs on well-typed programs only: no error types.)
  if (k == TyKind::Tensor || k == TyKind::Vec || k == TyKind::Pinned) f |= kMoveOnly;
  if (k == TyKind::Ref) f |= kRef | kHasRefs;
  if (k == TyKind::Int || k == TyKind::Bool) f |= kScalar;
  if (x.index >= a.typeFlags.size()) a.typeFlags.resize(x.index + 1, 0);
  a.typeFlags[x.index] = f;
  return f;
}

}  // namespace

bool isToken(const Analysis& a, hir::TypeId t) { return typeFlags(a, t) & kToken; }
bool hasTokens(const Analysis& a, hir::TypeId t) { return typeFlags(a, t) & kHasTokens; }
bool isMoveOnly(const Analysis& a, hir::TypeId t) { return typeFlags(a, t) & kMoveOnly; }
bool isRef(const Analysis& a, hir::TypeId t) { return typeFlags(a, t) & kRef; }
bool hasRefs(const Analysis& a, hir::TypeId t) { return typeFlags(a, t) & kHasRefs; }
bool isScalar(const Analysis& a, hir::TypeId t) { return typeFlags(a, t) & kScalar; }

std::string locName(const Analysis& a, Loc l) {
  const cir::Local& local = a.body.locals[l.local];
  if (local.temp) return {};
  std::string name = local.name;
  for (uint32_t p = l.path; p; p >>= 8) name += "." + std::to_string((p & 0xff) - 1);
  return name;
}

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

Term lenOf(Analysis& a, Loc root) {
  auto it = a.lens.find(root);
  if (it != a.lens.end()) return it->second;
  TermStore& t = a.terms;
  std::string base = locName(a, root);
  std::string name = uniqueName(a, (base.empty() ? "$v" : base) + ".len()");
  Term x = t.fresh(name, smt::Sort::Int);
  a.assumptions = t.mkAnd(a.assumptions, t.mkAnd(t.mkLe(t.intConst(0), x), t.mkLe(x, t.intConst((Int128(1) << 63) - 1))));
  a.lens[root] = x;
  if (a.body.locals[root.local].param) a.inputs.push_back(smt::Shown{name, x});
  return x;
}

Term scalarAt(Analysis& a, State& s, Loc l, hir::TypeId t) {
  if (l.path == 0 && a.facts.addressTaken.count(l.local)) return freshValue(a, t, "$v");
  auto it = s.scalars.find(l);
  if (it != s.scalars.end()) return it->second;
  std::string name = locName(a, l);
  Term v = freshValue(a, t, name.empty() ? "$v" : name);
  s.scalars[l] = v;
  return v;
}

hir::TypeId typeAt(const hir::TypeTable& tt, const cir::Body& body, Loc l) {
  hir::TypeId t = body.locals[l.local].type;
  for (uint32_t p = l.path; p; p >>= 8) {
    hir::TypeId r = tt.resolve(t);
    uint32_t i = (p & 0xff) - 1;
    t = tt.kind(r) == TyKind::Tuple && i < tt.count(r) ? tt.elem(r, i) : tt.error();
  }
  return tt.resolve(t);
}

hir::TypeId operandType(const Analysis& a, const cir::Operand& o) {
  switch (o.kind) {
    case cir::OperandKind::Copy:
    case cir::OperandKind::Move: return a.body.typeOf(o.place);
    case cir::OperandKind::Const: return o.constant.valid() ? a.prog.expr(o.constant).type : a.types().voidTy();
  }
  return a.types().error();
}

Term constValue(Analysis& a, hir::ExprId e) {
  if (!e.valid()) return Term{};
  const hir::Expr& x = a.prog.expr(e);
  if (!isScalar(a, x.type)) return Term{};
  return pureValue(a, e, 0);
}

Term castValue(Analysis& a, Term x, hir::TypeId from, hir::TypeId to) {
  TermStore& t = a.terms;
  IntRange f, r;
  if (intRange(a, from, f) && intRange(a, to, r)) return castInt(a, x, f, r);
  if (isBoolTy(a, from) && intRange(a, to, r)) return t.mkIte(x, t.intConst(1), t.intConst(0));
  return freshValue(a, to, "$v");
}

Term scalarOp(Analysis& a, State& s, const cir::Stmt& st, Term x, Term y) {
  TermStore& t = a.terms;
  switch (st.rv) {
    case cir::RvKind::Cast: return castValue(a, x, operandType(a, st.a), st.type);
    case cir::RvKind::Unary:
      if (st.op == ast::Op::Not && isBoolTy(a, st.type)) return t.mkNot(x);
      if (st.op == ast::Op::Neg && a.types().isInteger(st.type)) {
        Term r = t.mkNeg(x);
        IntRange range;
        if (intRange(a, st.type, range) && t.linear(r))
          s.pc = t.mkAnd(s.pc, t.mkLe(r, t.intConst(range.hi)));  // -MIN overflows
        return r;
      }
      return freshValue(a, st.type, "$v");
    case cir::RvKind::Binary: break;
    case cir::RvKind::Use:
    case cir::RvKind::Borrow:
    case cir::RvKind::Tuple:
    case cir::RvKind::Len:
    case cir::RvKind::Call: return freshValue(a, st.type, "$v");
  }
  // The operands' type decides the range (comparisons have a bool type).
  hir::TypeId operand = operandType(a, st.a);
  IntRange r;
  bool ints = intRange(a, operand, r) && t.sort(x) == smt::Sort::Int && t.sort(y) == smt::Sort::Int;
  bool bools = isBoolTy(a, operand) && t.sort(x) == smt::Sort::Bool && t.sort(y) == smt::Sort::Bool;
  if (!ints && !bools) return freshValue(a, st.type, "$v");
  bool uns = ints && !r.isSigned;
  // An operation whose result leaves its type's range traps: the paths
  // that go on have it in range. (Linear facts only: a fact over `x * y`
  // would make every later query non-linear.)
  auto inRange = [&](Term v) {
    if (!t.linear(v)) return v;
    s.pc = t.mkAnd(s.pc, t.mkAnd(t.mkLe(t.intConst(r.lo), v), t.mkLe(v, t.intConst(r.hi))));
    return v;
  };
  auto nonZero = [&](Term d) {
    if (t.linear(d)) s.pc = t.mkAnd(s.pc, t.mkNot(t.mkEq(d, t.intConst(0))));
  };
  // MIN / -1 and MIN % -1 overflow (and trap), whatever the divisor's form:
  // a linear fact even where the quotient is not (a run-time divisor).
  auto noMinByMinusOne = [&] {
    if (uns || !t.linear(x) || !t.linear(y)) return;
    s.pc = t.mkAnd(s.pc, t.mkNot(t.mkAnd(t.mkEq(x, t.intConst(r.lo)), t.mkEq(y, t.intConst(-1)))));
  };
  switch (st.op) {
    case ast::Op::Add: return inRange(t.mkAdd(x, y));
    case ast::Op::Sub: return inRange(t.mkSub(x, y));
    case ast::Op::Mul: return inRange(t.mkMul(x, y));
    case ast::Op::Div:
      nonZero(y);
      noMinByMinusOne();
      return inRange(uns ? t.mkEuclidDiv(x, y) : t.mkTruncDiv(x, y));
    case ast::Op::Rem:
      nonZero(y);
      noMinByMinusOne();
      return uns ? t.mkEuclidMod(x, y) : t.mkTruncRem(x, y);
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
    case ast::Op::RemAssign: break;
  }
  return freshValue(a, st.type, "$v");
}

}  // namespace vx::check::own

// Compile-time integers: `const` initialisers and shape dimensions, folded
// exactly. Every operation is done in 128-bit arithmetic and checked against
// the range of its type, so a constant that overflows, divides by zero or
// gives a dimension below zero is E0208 where it is written, never a value
// that wrapped or a trap at run time (docs/language/syntax.md, "Constants").
#include "base/Text.h"
#include "check/Sema.h"
#include "diag/DiagKinds.h"

namespace vx::check {

using hir::IntKind;
using hir::TyKind;

namespace {

struct Range128 {
  __int128 lo, hi;
};

Range128 rangeOf(IntKind k) {
  const __int128 one = 1;
  switch (k) {
    case IntKind::I32: return {-(one << 31), (one << 31) - 1};
    case IntKind::I64: return {-(one << 63), (one << 63) - 1};
    case IntKind::U32: return {0, (one << 32) - 1};
    case IntKind::U64:
    case IntKind::Usize: return {0, (one << 64) - 1};
  }
  return {0, 0};
}

std::string print128(__int128 v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  unsigned __int128 u = neg ? static_cast<unsigned __int128>(-(v + 1)) + 1 : static_cast<unsigned __int128>(v);
  std::string s;
  while (u) {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  return neg ? "-" + s : s;
}

// Applies a binary operator; `out` is the exact result. False with `why` set
// when the operation has no value (division by zero).
bool apply(ast::Op op, __int128 l, __int128 r, __int128& out, std::string& why) {
  switch (op) {
    // Operands fit in 65 bits, so only a product can leave 128 bits; it is
    // then far outside every type's range, which the caller reports.
    case ast::Op::Add: out = l + r; return true;
    case ast::Op::Sub: out = l - r; return true;
    case ast::Op::Mul:
      if (__builtin_mul_overflow(l, r, &out)) out = static_cast<__int128>(1) << 126;
      return true;
    case ast::Op::Div:
    case ast::Op::Rem:
      if (r == 0) {
        why = op == ast::Op::Div ? "divides by zero" : "takes a remainder by zero";
        return false;
      }
      out = op == ast::Op::Div ? l / r : l % r;  // truncating, as the targets compute
      return true;
    case ast::Op::None: case ast::Op::Neg: case ast::Op::Not: case ast::Op::Deref: case ast::Op::Eq:
    case ast::Op::Ne: case ast::Op::Lt: case ast::Op::Gt: case ast::Op::Le: case ast::Op::Ge: case ast::Op::And:
    case ast::Op::Or: case ast::Op::Assign: case ast::Op::AddAssign: case ast::Op::SubAssign:
    case ast::Op::MulAssign: case ast::Op::DivAssign: case ast::Op::RemAssign: break;
  }
  why = "is not integer arithmetic";
  return false;
}

bool intKindOf(Sema& s, hir::TypeId t, IntKind& k) {
  hir::TypeId r = s.types().resolve(t);
  if (s.types().kind(r) != TyKind::Int) return false;
  k = static_cast<IntKind>(s.types().get(r).sub);
  return true;
}

}  // namespace

ConstFold foldConstInt(Sema& s, hir::ExprId id) {
  const hir::Expr& e = s.prog.expr(id);
  ConstFold f;
  f.at = e.span;
  IntKind k = IntKind::I32;
  if (!intKindOf(s, e.type, k)) {
    f.status = ConstFold::Status::NotConstant;
    f.why = "is not an integer";
    return f;
  }
  auto checkRange = [&](__int128 v, const std::string& what) {
    Range128 r = rangeOf(k);
    if (v >= r.lo && v <= r.hi) {
      f.value = v;
      return f;
    }
    f.status = ConstFold::Status::Failed;
    f.why = what + " `" + print128(v) + "`, which does not fit in `" + hir::intKindName(k) + "`";
    return f;
  };
  switch (e.kind) {
    case hir::ExprKind::Int: return checkRange(static_cast<__int128>(e.value), "is");
    case hir::ExprKind::Const: {
      auto it = s.constValues.find(e.constant.index);
      if (it != s.constValues.end()) return checkRange(it->second, "is");
      f.status = ConstFold::Status::NotConstant;
      f.why = "names the constant `" + s.prog.consts[e.constant.index].name + "`, which is not a compile-time integer";
      return f;
    }
    case hir::ExprKind::Unary: {
      // A negated literal may reach the type's lowest value
      // (`-2147483648` as an `i32`): the literal alone would not fit.
      if (e.op == ast::Op::Neg && s.prog.expr(e.a).kind == hir::ExprKind::Int)
        return checkRange(-static_cast<__int128>(s.prog.expr(e.a).value), "is");
      ConstFold a = foldConstInt(s, e.a);
      if (a.status != ConstFold::Status::Ok) return a;
      if (e.op != ast::Op::Neg) break;
      return checkRange(-a.value, "is");
    }
    case hir::ExprKind::Cast: {
      ConstFold a = foldConstInt(s, e.a);
      if (a.status != ConstFold::Status::Ok) return a;
      // `as` keeps the low bits, as on every target.
      unsigned bits = k == IntKind::I32 || k == IntKind::U32 ? 32 : 64;
      unsigned __int128 mask = (static_cast<unsigned __int128>(1) << bits) - 1;
      unsigned __int128 low = static_cast<unsigned __int128>(a.value) & mask;
      __int128 v = static_cast<__int128>(low);
      if ((k == IntKind::I32 || k == IntKind::I64) && (low >> (bits - 1)))
        v -= static_cast<__int128>(static_cast<unsigned __int128>(1) << bits);
      f.value = v;
      return f;
    }
    case hir::ExprKind::Binary: {
      ConstFold a = foldConstInt(s, e.a);
      if (a.status != ConstFold::Status::Ok) return a;
      ConstFold b = foldConstInt(s, e.b);
      if (b.status != ConstFold::Status::Ok) return b;
      __int128 v = 0;
      std::string why;
      if (!apply(e.op, a.value, b.value, v, why)) {
        f.status = why == "is not integer arithmetic" ? ConstFold::Status::NotConstant : ConstFold::Status::Failed;
        f.why = why;
        return f;
      }
      return checkRange(v, "computes");
    }
    case hir::ExprKind::Error: case hir::ExprKind::Float: case hir::ExprKind::Bool: case hir::ExprKind::Local:
    case hir::ExprKind::MemConst: case hir::ExprKind::TopoConst: case hir::ExprKind::Unit: case hir::ExprKind::Tuple:
    case hir::ExprKind::Call: case hir::ExprKind::Len: case hir::ExprKind::Field: case hir::ExprKind::Index:
    case hir::ExprKind::Borrow: case hir::ExprKind::Deref: break;
  }
  f.status = ConstFold::Status::NotConstant;
  f.why = "is not an integer constant: only literals, `const` items, `as` and `+ - * / %` fold";
  return f;
}

void reportConstFold(Sema& s, const ConstFold& f) {
  switch (f.status) {
    case ConstFold::Status::Ok:
    case ConstFold::Status::NotConstant: return;
    case ConstFold::Status::Failed:
      s.sink.emit(diag::ConstEvalFailed("this constant " + f.why)
                      .primary(f.at, "evaluated at compile time")
                      .help("constants are exact: change the value, or its type"));
      return;
  }
}

namespace {

// The value of a written dimension, or nothing after a diagnostic.
std::optional<__int128> dimValue(Sema& s, ast::TypeId id) {
  const ast::Type& t = s.m->type(id);
  base::Span at = s.span(t.range);
  switch (t.kind) {
    case ast::TypeKind::IntArg: return static_cast<__int128>(t.value);
    case ast::TypeKind::Path: {
      const ast::Path& p = s.m->path(t.path);
      std::string n = s.name(ast::NameId{s.m->listAt(p.segments, 0)});
      for (const auto& [gn, gv] : s.generics)
        if (gn == n) {
          s.sink.emit(diag::ConstEvalFailed("arithmetic on the generic dimension `" + n + "` is not supported")
                          .primary(at, "a generic parameter")
                          .help("generic dimensions are matched as written; compute with `const` items"));
          return std::nullopt;
        }
      if ((!s.pendingConsts.empty() || !s.constsInProgress.empty()) && !s.constByName.count(n) && usePendingConst(s, n, at) == PendingConst::Cycle)
        return std::nullopt;
      auto it = s.constByName.find(n);
      if (it == s.constByName.end() && n[0] >= 'a' && n[0] <= 'z' && (s.extentsOpen || extentByName(s, n, at).valid())) {
        s.sink.emit(diag::ConstEvalFailed("arithmetic on the run-time extent `" + n + "` in a shape is not supported")
                        .primary(at, "a run-time extent")
                        .help("a shape names each run-time extent alone (`[m, k]`); compute with it in the body, "
                              "where `" + n + "` is a `usize`"));
        return std::nullopt;
      }
      if (it == s.constByName.end()) {
        std::vector<std::string> cands;
        if (s.maySuggest(s.constByName.size()))
          for (const auto& [cn, cid] : s.constByName) cands.push_back(cn);
        diag::Diagnostic d = diag::UnknownValue(n);
        d.primary(at, "not a `const` item");
        std::string close = base::closestMatch(n, cands);
        if (!close.empty())
          d.suggest("a constant with a similar name exists: `" + close + "`", at, close,
                    diag::Applicability::MaybeIncorrect);
        else
          d.help("a dimension is an integer literal, a `const` of integer type, a generic parameter, "
                 "`+ - * / %` over literals and constants, or a run-time extent: a lower-case name in a "
                 "parameter's shape (`a: &Tensor<f32, [m, k]>`)");
        s.sink.emit(std::move(d));
        return std::nullopt;
      }
      auto v = s.constValues.find(it->second.index);
      if (v != s.constValues.end()) return v->second;
      const hir::Const& c = s.prog.consts[it->second.index];
      if (!s.types().containsError(c.type))
        s.sink.emit(diag::ConstEvalFailed("`" + n + "` is not a compile-time integer")
                        .primary(at, "used as a dimension")
                        .secondary(c.span, "`" + n + "` is defined here")
                        .help("a dimension's constants are integers computed from literals and other constants"));
      return std::nullopt;
    }
    case ast::TypeKind::DimBinary: {
      std::optional<__int128> l = dimValue(s, t.inner);
      if (!l) return std::nullopt;
      std::optional<__int128> r = dimValue(s, t.rhs);
      if (!r) return std::nullopt;
      __int128 v = 0;
      std::string why;
      if (!apply(t.op, *l, *r, v, why)) {
        s.sink.emit(diag::ConstEvalFailed("this dimension " + why).primary(at, "evaluated at compile time"));
        return std::nullopt;
      }
      Range128 range = rangeOf(IntKind::Usize);
      if (v < range.lo || v > range.hi) {
        s.sink.emit(diag::ConstEvalFailed("this dimension computes `" + print128(v) + "`, which does not fit in `usize`")
                        .primary(at, "evaluated at compile time")
                        .help("dimensions are `usize`: every step of the arithmetic must stay in 0..=2^64-1"));
        return std::nullopt;
      }
      return v;
    }
    case ast::TypeKind::Error: return std::nullopt;
    case ast::TypeKind::Ref:
    case ast::TypeKind::Tuple:
    case ast::TypeKind::Shape: break;
  }
  s.sink.emit(diag::KindMismatch("a dimension", "a type").primary(at, "expected an integer"));
  return std::nullopt;
}

}  // namespace

hir::TypeId checkedDim(Sema& s, uint64_t value, base::Span at, bool computed) {
  if (value == 0) {
    s.sink.emit(diag::ConstEvalFailed("a tensor's extents are at least 1, and this one is 0")
                    .primary(at, "an empty dimension")
                    .help(std::string("a tensor with no elements has nothing to copy or compute") +
                          (computed ? "; check the constant it comes from (`--const` sets constants on the command "
                                      "line)"
                                    : "")));
    return s.types().error();
  }
  return s.types().dim(value);
}

hir::TypeId lowerDimExpr(Sema& s, ast::TypeId id) {
  const ast::Type& t = s.m->type(id);
  std::optional<__int128> v = dimValue(s, id);
  if (!v) return s.types().error();
  if (*v < 0 || *v > rangeOf(IntKind::Usize).hi) {
    s.sink.emit(diag::ConstEvalFailed("a dimension must be a `usize`, and this one is `" + print128(*v) + "`")
                    .primary(s.span(t.range), "a negative extent"));
    return s.types().error();
  }
  return checkedDim(s, static_cast<uint64_t>(*v), s.span(t.range), true);
}

}  // namespace vx::check

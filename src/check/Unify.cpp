// Unification of semantic types, and the one place that words type, shape
// and memory-space mismatches (E0200, E0201, E0202).
#include "check/Sema.h"
#include "diag/DiagKinds.h"

namespace vx::check {

using hir::TyKind;
using hir::TypeId;

namespace {

enum class FailKind { None, Type, Shape, Mem };

struct Failure {
  FailKind kind = FailKind::None;
  TypeId expected, found;  // the innermost pair that explains the failure
};

bool occurs(const hir::TypeTable& t, TypeId var, TypeId in) {
  in = t.resolve(in);
  if (in == var) return true;
  const hir::TyData& d = t.get(in);
  if (d.a.valid() && occurs(t, var, d.a)) return true;
  if (d.b.valid() && occurs(t, var, d.b)) return true;
  if (d.kind == TyKind::Tuple || d.kind == TyKind::Shape)
    for (uint32_t i = 0; i < d.listCount; ++i)
      if (occurs(t, var, t.elem(in, i))) return true;
  return false;
}

bool unifyRec(hir::TypeTable& t, TypeId exp, TypeId found, Failure& f, TypeId shapeExp,
              TypeId shapeFound) {
  exp = t.resolve(exp);
  found = t.resolve(found);
  if (exp == found) return true;
  TyKind ke = t.kind(exp), kf = t.kind(found);
  if (ke == TyKind::Error || kf == TyKind::Error) return true;
  auto fail = [&](FailKind k, TypeId e, TypeId fo) {
    f = Failure{k, e, fo};
    return false;
  };
  // Two variables of one kind: the newer is bound to the older, so that
  // chains of inferred locals (`let a1 = a0 + 1; let a2 = a1 + 1; ...`)
  // keep every variable one step from its representative (binding the
  // older to each new literal's variable made resolve walk the chain).
  if (ke == kf && t.isVar(exp)) {
    if (t.get(exp).value > t.get(found).value)
      t.bind(exp, found);
    else
      t.bind(found, exp);
    return true;
  }
  if (ke == TyKind::Var) {
    if (occurs(t, exp, found)) return fail(FailKind::Type, exp, found);
    t.bind(exp, found);
    return true;
  }
  if (kf == TyKind::Var) {
    if (occurs(t, found, exp)) return fail(FailKind::Type, exp, found);
    t.bind(found, exp);
    return true;
  }
  if (ke == TyKind::IntVar && (kf == TyKind::Int || kf == TyKind::IntVar)) {
    t.bind(exp, found);
    return true;
  }
  if (kf == TyKind::IntVar && ke == TyKind::Int) {
    t.bind(found, exp);
    return true;
  }
  if (ke == TyKind::FloatVar && (kf == TyKind::Float || kf == TyKind::FloatVar)) {
    t.bind(exp, found);
    return true;
  }
  if (kf == TyKind::FloatVar && ke == TyKind::Float) {
    t.bind(found, exp);
    return true;
  }
  if (ke != kf) {
    if (ke == TyKind::Dim || ke == TyKind::Extent || ke == TyKind::Shape) return fail(FailKind::Shape, shapeExp, shapeFound);
    return fail(FailKind::Type, exp, found);
  }
  const hir::TyData& de = t.get(exp);
  const hir::TyData& df = t.get(found);
  switch (ke) {
    case TyKind::Int:
    case TyKind::Float:
    case TyKind::Topo:
      return de.sub == df.sub || fail(FailKind::Type, exp, found);
    case TyKind::Mem: return de.sub == df.sub || fail(FailKind::Mem, exp, found);
    case TyKind::Dim: return de.value == df.value || fail(FailKind::Shape, shapeExp, shapeFound);
    case TyKind::Extent: return fail(FailKind::Shape, shapeExp, shapeFound);  // two distinct extents
    case TyKind::Ref:
      if (de.sub != df.sub) return fail(FailKind::Type, exp, found);
      return unifyRec(t, de.a, df.a, f, shapeExp, shapeFound);
    case TyKind::Vec: return unifyRec(t, de.a, df.a, f, shapeExp, shapeFound);
    case TyKind::Tensor:
    case TyKind::Pinned:
    case TyKind::Token:
      return unifyRec(t, de.a, df.a, f, shapeExp, shapeFound) &&
             unifyRec(t, de.b, df.b, f, shapeExp, shapeFound);
    case TyKind::Shape:
      if (de.listCount != df.listCount) return fail(FailKind::Shape, exp, found);
      for (uint32_t i = 0; i < de.listCount; ++i)
        if (!unifyRec(t, t.elem(exp, i), t.elem(found, i), f, exp, found)) return false;
      return true;
    case TyKind::Tuple:
      if (de.listCount != df.listCount) return fail(FailKind::Type, exp, found);
      for (uint32_t i = 0; i < de.listCount; ++i)
        if (!unifyRec(t, t.elem(exp, i), t.elem(found, i), f, shapeExp, shapeFound)) return false;
      return true;
    default: return fail(FailKind::Type, exp, found);
  }
}

// "dimension 1 is 64 here but 128 there" for two shapes of one rank.
std::string shapeNote(const hir::TypeTable& t, TypeId exp, TypeId found) {
  exp = t.resolve(exp);
  found = t.resolve(found);
  if (t.kind(exp) != TyKind::Shape || t.kind(found) != TyKind::Shape) return {};
  if (t.count(exp) != t.count(found))
    return "the expected shape has rank " + std::to_string(t.count(exp)) + ", this one rank " +
           std::to_string(t.count(found));
  std::string out;
  for (uint32_t i = 0; i < t.count(exp); ++i) {
    TypeId a = t.resolve(t.elem(exp, i)), b = t.resolve(t.elem(found, i));
    auto sized = [&](TypeId d) { return t.kind(d) == TyKind::Dim || t.kind(d) == TyKind::Extent; };
    if (a != b && sized(a) && sized(b))
      out += (out.empty() ? "" : "; ") + std::string("dimension ") + std::to_string(i) + " is " +
             t.print(b) + ", expected " + t.print(a);
  }
  return out;
}

}  // namespace

bool tryUnify(Sema& s, TypeId a, TypeId b) {
  Failure f;
  return unifyRec(s.types(), a, b, f, {}, {});
}

bool unify(Sema& s, TypeId expected, TypeId found, base::Span at, const std::string& context,
           hir::ExprId foundExpr) {
  hir::TypeTable& t = s.types();
  Failure f;
  if (unifyRec(t, expected, found, f, {}, {})) return true;
  diag::Diagnostic d;
  switch (f.kind) {
    case FailKind::Shape: {
      TypeId e = f.expected.valid() ? f.expected : expected;
      TypeId fo = f.found.valid() ? f.found : found;
      d = diag::ShapeMismatch(t.print(e), t.print(fo));
      d.primary(at, context.empty() ? "has shape `" + t.print(fo) + "`" : context);
      std::string note = shapeNote(t, e, fo);
      if (!note.empty()) d.note(note);
      d.note("expected `" + t.print(expected) + "`\n   found `" + t.print(found) + "`");
      break;
    }
    case FailKind::Mem: {
      d = diag::MemSpaceMismatch(t.print(f.expected), t.print(f.found));
      d.primary(at, context.empty() ? "this value lives in `" + t.print(f.found) + "`" : context);
      if (foundExpr.valid()) {
        const hir::Expr& fe = s.prog.expr(foundExpr);
        if (fe.kind == hir::ExprKind::Local) {
          auto it = s.placement.find(fe.local.index);
          if (it != s.placement.end())
            d.secondary(it->second, "`" + s.prog.local(fe.local).name + "` was placed in `" +
                                        t.print(f.found) + "` here");
        }
      }
      d.help("move it with `transfer(x, " + t.print(f.expected) + ")` first, or place it there to begin with");
      break;
    }
    default:
      d = diag::TypeMismatch(t.print(expected), t.print(found));
      d.primary(at, context.empty() ? "expected `" + t.print(expected) + "`, found `" + t.print(found) + "`"
                                    : context);
      break;
  }
  s.sink.emit(std::move(d));
  return false;
}

}  // namespace vx::check

// HIR -> core IR: expressions and places. The one switch over HIR
// expression kinds that the checker has (lowerInto), and the one over
// place forms (lowerPlace): every sub-expression is evaluated into a
// temporary, left to right, before the statement that uses it.
#include "check/cir/LowerImpl.h"

namespace vx::check::cir {

using hir::ExprKind;
using hir::TyKind;

ast::Op arithmeticOf(ast::Op compound) {
  switch (compound) {
    case ast::Op::AddAssign: return ast::Op::Add;
    case ast::Op::SubAssign: return ast::Op::Sub;
    case ast::Op::MulAssign: return ast::Op::Mul;
    case ast::Op::DivAssign: return ast::Op::Div;
    case ast::Op::RemAssign: return ast::Op::Rem;
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
    case ast::Op::Or:
    case ast::Op::Assign: return compound;  // not compound
  }
  return compound;
}

namespace {

bool moveOnlyDeep(const hir::TypeTable& tt, hir::TypeId t) {
  // (Only well-typed programs are lowered: no error types.)
  hir::TypeId x = tt.resolve(t);
  TyKind k = tt.kind(x);
  if (k == TyKind::Tensor || k == TyKind::Vec || k == TyKind::Pinned || k == TyKind::Token) return true;
  if (k != TyKind::Tuple) return false;
  for (uint32_t i = 0; i < tt.count(x); ++i)
    if (moveOnlyDeep(tt, tt.elem(x, i))) return true;
  return false;
}

}  // namespace

bool Builder::hasTokens(hir::TypeId t) const {
  const hir::TypeTable& tt = types();
  hir::TypeId x = tt.resolve(t);
  if (tt.kind(x) == TyKind::Token) return true;
  if (tt.kind(x) != TyKind::Tuple) return false;
  for (uint32_t i = 0; i < tt.count(x); ++i)
    if (hasTokens(tt.elem(x, i))) return true;
  return false;
}

bool Builder::needsDrop(hir::TypeId t) const { return moveOnlyDeep(types(), t); }

bool Builder::isScalarType(hir::TypeId t) const {
  const hir::TypeTable& tt = types();
  return tt.isNumeric(t) || tt.kind(tt.resolve(t)) == TyKind::Bool;
}

bool Builder::isScalarData(hir::TypeId t) const {
  const hir::TypeTable& tt = types();
  hir::TypeId r = tt.resolve(t);
  if (tt.kind(r) != TyKind::Tuple) return isScalarType(r);
  for (uint32_t i = 0; i < tt.count(r); ++i)
    if (!isScalarData(tt.elem(r, i))) return false;
  return true;
}

OperandKind Builder::useKind(hir::TypeId t) const {
  return moveOnlyDeep(types(), t) ? OperandKind::Move : OperandKind::Copy;
}

void Builder::addOperands(Stmt& s, const std::vector<Operand>& ops) {
  s.args = base::List{static_cast<uint32_t>(body.operands.size()), static_cast<uint32_t>(ops.size())};
  body.operands.insert(body.operands.end(), ops.begin(), ops.end());
}

bool Builder::isPlaceExpr(hir::ExprId e) const {
  switch (prog.expr(e).kind) {
    case ExprKind::Local:
    case ExprKind::Field:
    case ExprKind::Index:
    case ExprKind::Deref: return true;
    case ExprKind::Error:
    case ExprKind::Int:
    case ExprKind::Float:
    case ExprKind::Bool:
    case ExprKind::Const:
    case ExprKind::MemConst:
    case ExprKind::TopoConst:
    case ExprKind::Unit:
    case ExprKind::Tuple:
    case ExprKind::Call:
    case ExprKind::Len:
    case ExprKind::Unary:
    case ExprKind::Borrow:
    case ExprKind::Cast:
    case ExprKind::Binary: return false;
  }
  return false;
}

Operand Builder::lowerOperand(hir::ExprId id) {
  const hir::Expr& e = prog.expr(id);
  Operand o;
  o.span = e.span;
  switch (e.kind) {
    case ExprKind::Error:
    case ExprKind::Int:
    case ExprKind::Float:
    case ExprKind::Bool:
    case ExprKind::Const:
    case ExprKind::MemConst:
    case ExprKind::TopoConst:
    case ExprKind::Unit:
      o.kind = OperandKind::Const;
      o.constant = id;
      return o;
    case ExprKind::Local:
    case ExprKind::Field:
    case ExprKind::Index:
    case ExprKind::Deref:
      o.kind = useKind(e.type);
      o.place = lowerPlace(id);
      return o;
    case ExprKind::Tuple:
    case ExprKind::Call:
    case ExprKind::Len:
    case ExprKind::Unary:
    case ExprKind::Borrow:
    case ExprKind::Cast:
    case ExprKind::Binary: {
      // A call with no value is a statement of its own.
      if (e.kind == ExprKind::Call && types().kind(types().resolve(e.type)) == TyKind::Void) {
        lowerInto(Place{}, id);
        o.kind = OperandKind::Const;
        o.constant = id;
        return o;
      }
      // A borrow's operand is where it points: accesses through it are
      // reported at the place borrowed.
      base::Span at = e.kind == ExprKind::Borrow ? prog.expr(e.a).span : e.span;
      LocalId t = newTemp(e.type, at);
      if (e.kind == ExprKind::Borrow) body.locals[t.index].written = e.span;
      lowerInto(placeOf(t, at), id);
      o.kind = useKind(e.type);
      o.place = placeOf(t, at);
      return o;
    }
  }
  return o;
}

void Builder::lowerInto(const Place& dest, hir::ExprId id) {
  const hir::Expr& e = prog.expr(id);
  Stmt s;
  s.kind = StmtKind::Assign;
  s.dest = dest;
  s.span = e.span;
  s.type = e.type;
  switch (e.kind) {
    case ExprKind::Error:
    case ExprKind::Int:
    case ExprKind::Float:
    case ExprKind::Bool:
    case ExprKind::Const:
    case ExprKind::MemConst:
    case ExprKind::TopoConst:
    case ExprKind::Unit:
    case ExprKind::Local:
    case ExprKind::Field:
    case ExprKind::Index:
    case ExprKind::Deref:
      s.rv = RvKind::Use;
      s.a = lowerOperand(id);
      break;
    case ExprKind::Tuple: {
      std::vector<Operand> ops;
      for (uint32_t i = 0; i < e.args.count; ++i) ops.push_back(lowerOperand(prog.arg(e, i)));
      s.rv = RvKind::Tuple;
      addOperands(s, ops);
      break;
    }
    case ExprKind::Call: {
      hir::Builtin bi = prog.fn(e.fn).builtin;
      if (bi == hir::Builtin::Block || bi == hir::Builtin::BlockMut) {
        // A view is a place: `&(*a).block<R, C>(r, c)`.
        s.rv = RvKind::Borrow;
        s.mut = bi == hir::Builtin::BlockMut;
        s.place = lowerBlockPlace(id);
        break;
      }
      std::vector<Operand> ops;
      for (uint32_t i = 0; i < e.args.count; ++i) ops.push_back(lowerOperand(prog.arg(e, i)));
      s.rv = RvKind::Call;
      s.fn = e.fn;
      s.origin = id;
      addOperands(s, ops);
      break;
    }
    case ExprKind::Len:
      s.rv = RvKind::Len;
      s.place = autoDeref(lowerPlace(e.a));
      break;
    case ExprKind::Unary:
      s.rv = RvKind::Unary;
      s.op = e.op;
      s.a = lowerOperand(e.a);
      break;
    case ExprKind::Cast:
      s.rv = RvKind::Cast;
      s.a = lowerOperand(e.a);
      break;
    case ExprKind::Borrow: {
      s.rv = RvKind::Borrow;
      s.mut = e.mut;
      if (isPlaceExpr(e.a)) {
        s.place = lowerPlace(e.a);
      } else {
        // `&wait(t)`: the value is a temporary of the statement, or of
        // the block where a `let` extends it (markExtended).
        const hir::Expr& inner = prog.expr(e.a);
        LocalId v;
        if (heldForBlock.count(e.a.index)) {
          Local held;
          held.type = inner.type;
          held.span = inner.span;
          held.temp = true;
          v = scopeLocal(held);
        } else {
          v = newTemp(inner.type, inner.span);
        }
        lowerInto(placeOf(v, inner.span), e.a);
        s.place = placeOf(v, inner.span);
      }
      break;
    }
    case ExprKind::Binary:
      if (e.op == ast::Op::And || e.op == ast::Op::Or) {
        // `a && b`: b is evaluated only where a is true (`||`: false).
        lowerInto(dest, e.a);
        BlockId rhs = newBlock(), join = newBlock();
        Terminator br;
        br.kind = TermKind::Branch;
        br.cond.kind = OperandKind::Copy;
        br.cond.place = dest;
        br.cond.span = prog.expr(e.a).span;
        br.target = e.op == ast::Op::And ? rhs : join;
        br.otherwise = e.op == ast::Op::And ? join : rhs;
        br.span = e.span;
        body.blocks[cur.index].term = br;
        cur = rhs;
        beginTemps();
        lowerInto(dest, e.b);
        endTemps(prog.expr(e.b).span);
        gotoBlock(join, e.span);
        cur = join;
        return;
      }
      s.rv = RvKind::Binary;
      s.op = e.op;
      s.a = lowerOperand(e.a);
      s.b = lowerOperand(e.b);
      break;
  }
  emit(s);
}

LocalId Builder::indexLocal(hir::ExprId e) {
  Operand i = lowerOperand(e);
  if (i.kind != OperandKind::Const && i.place.proj.count == 0) return i.place.local;
  const hir::Expr& ie = prog.expr(e);
  LocalId idx = newTemp(ie.type, ie.span);
  Stmt s;
  s.kind = StmtKind::Assign;
  s.dest = placeOf(idx, ie.span);
  s.rv = RvKind::Use;
  s.a = i;
  s.type = ie.type;
  s.span = ie.span;
  emit(s);
  return idx;
}

Place Builder::lowerBlockPlace(hir::ExprId id) {
  const hir::Expr& e = prog.expr(id);
  const hir::TypeTable& tt = types();
  // The tensor: through the reference argument.
  hir::ExprId src = prog.arg(e, 0);
  Place base;
  if (isPlaceExpr(src)) {
    base = lowerPlace(src);
  } else {
    const hir::Expr& x = prog.expr(src);
    LocalId t = newTemp(x.type, x.span);
    lowerInto(placeOf(t, x.span), src);
    base = placeOf(t, x.span);
  }
  base = autoDeref(base);
  Proj b;
  b.kind = ProjKind::Block;
  b.index = indexLocal(prog.arg(e, 1));
  b.index2 = indexLocal(prog.arg(e, 2));
  hir::TypeId view = tt.resolve(e.type);
  b.type = tt.kind(view) == TyKind::Ref ? tt.get(view).a : view;
  hir::TypeId shape = tt.resolve(tt.get(tt.resolve(b.type)).b);
  b.rows = tt.get(tt.resolve(tt.elem(shape, 0))).value;
  b.cols = tt.get(tt.resolve(tt.elem(shape, 1))).value;
  b.origin = id;
  b.span = e.span;
  return project(base, b);
}

Place Builder::autoDeref(Place p) {
  // `v[i]`, `p.0` and `v.len()` look through references.
  const hir::TypeTable& tt = types();
  for (hir::TypeId t = tt.resolve(body.typeOf(p)); tt.kind(t) == TyKind::Ref; t = tt.resolve(body.typeOf(p))) {
    Proj d;
    d.kind = ProjKind::Deref;
    d.type = tt.get(t).a;
    d.span = p.span;
    p = project(p, d);
  }
  return p;
}

Place Builder::lowerPlace(hir::ExprId id) {
  const hir::Expr& e = prog.expr(id);
  // The base of a projection: a place, or a temporary holding the value.
  // (A temporary's drop is reported at the projection of it: the rest of
  // `pair(...).0` is dropped there.)
  auto base = [&](hir::ExprId b) {
    if (isPlaceExpr(b)) return lowerPlace(b);
    const hir::Expr& x = prog.expr(b);
    LocalId t = newTemp(x.type, b == id ? x.span : e.span);
    lowerInto(placeOf(t, x.span), b);
    return placeOf(t, x.span);
  };
  switch (e.kind) {
    case ExprKind::Local: {
      auto it = localOf.find(e.local.index);
      if (it != localOf.end()) return placeOf(it->second, e.span);
      // A local the HIR names but no binding reached (after an error):
      // a temporary of its type stands for it.
      LocalId t = newTemp(e.type, e.span);
      return placeOf(t, e.span);
    }
    case ExprKind::Field: {
      Place p = autoDeref(base(e.a));
      Proj f;
      f.kind = ProjKind::Field;
      f.field = static_cast<uint32_t>(e.value);
      f.type = e.type;
      f.span = e.span;
      return project(p, f);
    }
    case ExprKind::Index: {
      Place p = autoDeref(base(e.a));
      LocalId idx = indexLocal(e.b);
      Proj x;
      x.kind = ProjKind::Index;
      x.index = idx;
      x.type = e.type;
      x.span = e.span;
      return project(p, x);
    }
    case ExprKind::Deref: {
      Place p = base(e.a);
      Proj d;
      d.kind = ProjKind::Deref;
      d.type = e.type;
      d.span = e.span;
      return project(p, d);
    }
    case ExprKind::Error:
    case ExprKind::Int:
    case ExprKind::Float:
    case ExprKind::Bool:
    case ExprKind::Const:
    case ExprKind::MemConst:
    case ExprKind::TopoConst:
    case ExprKind::Unit:
    case ExprKind::Tuple:
    case ExprKind::Call:
    case ExprKind::Len:
    case ExprKind::Unary:
    case ExprKind::Borrow:
    case ExprKind::Cast:
    case ExprKind::Binary: return base(id);
  }
  return base(id);
}

}  // namespace vx::check::cir

// Expressions: names, literals, operators, indexing, borrows.
#include "base/Text.h"
#include "check/Sema.h"
#include "check/Words.h"
#include "diag/DiagKinds.h"

namespace vx::check {

using hir::ExprKind;
using hir::TyKind;
using hir::TypeId;

hir::ExprId errorExpr(Sema& s, base::Span span) {
  hir::Expr e;
  e.kind = ExprKind::Error;
  e.type = s.types().error();
  e.span = span;
  return s.prog.add(e);
}

bool isPlace(const hir::Program& p, hir::ExprId id) {
  switch (p.expr(id).kind) {
    case ExprKind::Local:
    case ExprKind::Index:
    case ExprKind::Field:
    case ExprKind::Deref: return true;
    default: return false;
  }
}

hir::LocalId placeRoot(const hir::Program& p, hir::ExprId id) {
  while (id.valid()) {
    const hir::Expr& e = p.expr(id);
    switch (e.kind) {
      case ExprKind::Local: return e.local;
      case ExprKind::Index:
      case ExprKind::Field:
      case ExprKind::Deref:
      case ExprKind::Borrow: id = e.a; break;
      default: return hir::LocalId{};
    }
  }
  return hir::LocalId{};
}

// The full type when `a op b` broadcasts one side: both VMEM tensors of one
// element type, 2-D, one `[R, C]` and the other `[R, 1]` or `[1, C]` (with
// R, C > 1 where they differ); else invalid.
TypeId broadcastOf(hir::TypeTable& tt, TypeId a, TypeId b) {
  auto dims = [&](TypeId p, TypeId& elem, uint64_t& r, uint64_t& c) {
    p = tt.resolve(p);
    if (tt.kind(p) != TyKind::Pinned) return false;
    TypeId mem = tt.resolve(tt.get(p).b), ten = tt.resolve(tt.get(p).a);
    if (tt.kind(mem) != TyKind::Mem || static_cast<hir::MemSpace>(tt.get(mem).sub) != hir::MemSpace::VMEM ||
        tt.kind(ten) != TyKind::Tensor)
      return false;
    TypeId shape = tt.resolve(tt.get(ten).b);
    if (tt.kind(shape) != TyKind::Shape || tt.count(shape) != 2) return false;
    TypeId d0 = tt.resolve(tt.elem(shape, 0)), d1 = tt.resolve(tt.elem(shape, 1));
    if (tt.kind(d0) != TyKind::Dim || tt.kind(d1) != TyKind::Dim) return false;
    elem = tt.resolve(tt.get(ten).a);
    r = tt.get(d0).value;
    c = tt.get(d1).value;
    return true;
  };
  TypeId ea, eb;
  uint64_t ra = 0, ca = 0, rb = 0, cb = 0;
  if (!dims(a, ea, ra, ca) || !dims(b, eb, rb, cb) || ea != eb || (ra == rb && ca == cb)) return {};
  auto fits = [](uint64_t r, uint64_t c, uint64_t R, uint64_t C) { return (r == R && c == 1) || (r == 1 && c == C); };
  if (fits(rb, cb, ra, ca)) return tt.resolve(a);
  if (fits(ra, ca, rb, cb)) return tt.resolve(b);
  return {};
}

namespace {

// Strips references: `&&Vec<T>` -> `Vec<T>`.
TypeId derefAll(const hir::TypeTable& t, TypeId ty) {
  ty = t.resolve(ty);
  while (t.kind(ty) == TyKind::Ref) ty = t.resolve(t.get(ty).a);
  return ty;
}

hir::ExprId checkPath(Sema& s, const ast::Expr& e, base::Span at) {
  hir::TypeTable& tt = s.types();
  const ast::Path& p = s.m->path(ast::PathId{e.payload});
  hir::Expr he;
  he.span = at;
  if (p.segments.count == 2 && !p.hasGenerics) {
    TypeId t = lowerConstPath(s, p, at);
    if (tt.kind(t) == TyKind::Error) return errorExpr(s, at);
    he.kind = tt.kind(t) == TyKind::Mem ? ExprKind::MemConst : ExprKind::TopoConst;
    he.type = t;
    if (he.kind == ExprKind::MemConst) {
      std::string space = tt.print(t);
      auto m = static_cast<hir::MemSpace>(tt.get(t).sub);
      if (!target::available(m, s.target)) {
        std::string name = target::info(s.target).name;
        diag::Diagnostic d = diag::UnavailableOnTarget(space, name);
        d.primary(at, "no such memory on `" + name + "`");
        // What this target has, by the names its programmers know them.
        std::string has;
        for (hir::MemSpace o : target::allMemSpaces()) {
          target::MemoryInfo mi = target::memory(s.target, o);
          if (!mi.exists) continue;
          has += std::string(has.empty() ? "" : ", ") + "`Memory::" + target::info(o).name + "` (" + mi.what + ")";
        }
        d.note("`" + name + "` has " + has + "; `" + space + "` exists on: " + target::targetsWith(m));
        // `SMEM` read as CUDA's shared memory: that is `VMEM` on the GPUs
        // (`SMEM` is the tpu's scalar memory).
        if (m == hir::MemSpace::SMEM)
          for (hir::MemSpace o : target::allMemSpaces()) {
            target::MemoryInfo mi = target::memory(s.target, o);
            if (!mi.exists || std::string(mi.what) != "shared memory") continue;
            d.suggest(std::string("shared memory is `Memory::") + target::info(o).name + "` on `" + name + "`", at,
                      std::string("Memory::") + target::info(o).name, diag::Applicability::MaybeIncorrect);
          }
        s.sink.emit(std::move(d));
      }
    }
    return s.prog.add(he);
  }
  std::string n = s.name(ast::NameId{s.m->listAt(p.segments, 0)});
  if (p.segments.count == 1 && !p.hasGenerics) {
    hir::LocalId l = lookupLocal(s, n);
    if (l.valid()) {
      checkGridUse(s, l, at);
      hir::Local& local = s.prog.local(l);
      ++local.uses;
      he.kind = ExprKind::Local;
      he.local = l;
      he.type = local.type;
      if (auto a = s.pipelineAliases.find(l.index); a != s.pipelineAliases.end()) {
        // A copy of a pipelined loop: its ring's slot of this trip.
        hir::ExprId ring = s.prog.add(he);
        hir::Expr k;
        k.kind = ExprKind::Local;
        k.local = a->second.var;
        k.type = tt.usize();
        k.span = at;
        hir::Expr d;
        d.kind = ExprKind::Int;
        d.value = a->second.depth;
        d.type = tt.usize();
        d.span = at;
        hir::Expr rem;
        rem.kind = ExprKind::Binary;
        rem.op = ast::Op::Rem;
        rem.a = s.prog.add(k);
        rem.b = s.prog.add(d);
        rem.type = tt.usize();
        rem.span = at;
        hir::Expr slot;
        slot.kind = ExprKind::Index;
        slot.a = ring;
        slot.b = s.prog.add(rem);
        slot.type = a->second.slot;
        slot.span = at;
        return s.prog.add(slot);
      }
      return s.prog.add(he);
    }
    if ((!s.pendingConsts.empty() || !s.constsInProgress.empty()) && !s.constByName.count(n))
      if (usePendingConst(s, n, at) == PendingConst::Cycle) return errorExpr(s, at);
    if (auto it = s.constByName.find(n); it != s.constByName.end()) {
      he.kind = ExprKind::Const;
      he.constant = it->second;
      he.type = s.prog.consts[it->second.index].type;
      return s.prog.add(he);
    }
    if (s.fnByName.count(n)) {
      s.sink.emit(diag::NotAValue(n, "a function").primary(at, "call it: `" + n + "(...)`"));
      return errorExpr(s, at);
    }
  }
  size_t count = s.constByName.size();
  for (const auto& sc : s.scopes) count += sc.bindings.size();
  std::vector<std::string> cands;
  if (s.maySuggest(count)) {
    for (const auto& sc : s.scopes)
      for (const auto& b : sc.bindings) cands.push_back(b.first);
    for (const auto& [cn, id] : s.constByName) cands.push_back(cn);
  }
  diag::Diagnostic d = diag::UnknownValue(n);
  d.primary(at, "not found in this scope");
  std::string close = base::closestMatch(n, cands);
  bool closeIsLocal = false;
  for (const auto& sc : s.scopes)
    for (const auto& b : sc.bindings) closeIsLocal = closeIsLocal || b.first == close;
  if (!close.empty())
    d.suggest(std::string(closeIsLocal ? "a local variable" : "a constant") + " with a similar name exists: `" +
                  close + "`",
              base::Span{at.file, at.begin, at.begin + static_cast<uint32_t>(n.size())}, close,
              diag::Applicability::MaybeIncorrect);
  s.sink.emit(std::move(d));
  return errorExpr(s, at);
}

hir::ExprId checkIndex(Sema& s, const ast::Expr& e, base::Span at) {
  hir::TypeTable& tt = s.types();
  hir::Expr he;
  he.kind = ExprKind::Index;
  he.span = at;
  he.a = checkExpr(s, e.lhs);
  he.b = checkExpr(s, e.rhs, tt.usize());
  TypeId base = derefAll(tt, s.prog.expr(he.a).type);
  const hir::TyData& d = tt.get(base);
  auto subTensor = [&](TypeId tensor) -> TypeId {
    TypeId t = tt.resolve(tensor);
    TypeId shape = tt.resolve(tt.get(t).b);
    if (tt.kind(shape) != TyKind::Shape || tt.count(shape) == 0) return tt.error();
    if (tt.count(shape) == 1) return tt.get(t).a;
    std::vector<TypeId> rest;
    for (uint32_t i = 1; i < tt.count(shape); ++i) rest.push_back(tt.elem(shape, i));
    return tt.tensor(tt.get(t).a, tt.shape(rest));
  };
  switch (d.kind) {
    case TyKind::Error: he.type = tt.error(); break;
    case TyKind::Vec: he.type = d.a; break;
    case TyKind::Tensor: he.type = subTensor(base); break;
    case TyKind::Pinned:
      if (tt.kind(tt.resolve(d.a)) == TyKind::Tensor) {
        TypeId sub = subTensor(d.a);
        he.type = tt.kind(tt.resolve(sub)) == TyKind::Tensor ? tt.pinned(sub, d.b) : sub;
        break;
      }
      [[fallthrough]];
    default:
      s.sink.emit(diag::NotIndexable(tt.print(s.prog.expr(he.a).type))
                      .primary(s.prog.expr(he.a).span, "cannot be indexed"));
      he.type = tt.error();
  }
  return s.prog.add(he);
}

hir::ExprId checkField(Sema& s, const ast::Expr& e, base::Span at) {
  hir::TypeTable& tt = s.types();
  hir::Expr he;
  he.kind = ExprKind::Field;
  he.span = at;
  he.a = checkExpr(s, e.lhs);
  TypeId base = derefAll(tt, s.prog.expr(he.a).type);
  if (tt.kind(base) == TyKind::Error) return errorExpr(s, at);
  if (!e.name.valid() && tt.kind(base) == TyKind::Tuple && e.payload < tt.count(base)) {
    he.value = e.payload;
    he.type = tt.elem(base, e.payload);
    return s.prog.add(he);
  }
  std::string field = e.name.valid() ? s.name(e.name) : std::to_string(e.payload);
  s.sink.emit(diag::UnknownField(field, tt.print(base)).primary(at, "unknown field"));
  return errorExpr(s, at);
}

hir::ExprId checkUnary(Sema& s, const ast::Expr& e, base::Span at) {
  hir::TypeTable& tt = s.types();
  hir::Expr he;
  he.span = at;
  he.a = checkExpr(s, e.lhs);
  TypeId t = s.prog.expr(he.a).type;
  TypeId r = tt.resolve(t);
  if (tt.containsError(t)) return errorExpr(s, at);
  if (e.op == ast::Op::Deref) {
    if (tt.kind(r) != TyKind::Ref) {
      s.sink.emit(diag::UnaryOperandMismatch("*", tt.print(t)).primary(at, "not a reference"));
      return errorExpr(s, at);
    }
    he.kind = ExprKind::Deref;
    he.type = tt.get(r).a;
    return s.prog.add(he);
  }
  he.kind = ExprKind::Unary;
  he.op = e.op;
  bool ok = e.op == ast::Op::Not ? tt.kind(r) == TyKind::Bool
                                 : (tt.isFloat(r) || tt.kind(r) == TyKind::IntVar ||
                                    (tt.kind(r) == TyKind::Int &&
                                     (static_cast<hir::IntKind>(tt.get(r).sub) == hir::IntKind::I32 ||
                                      static_cast<hir::IntKind>(tt.get(r).sub) == hir::IntKind::I64)));
  if (!ok) {
    s.sink.emit(diag::UnaryOperandMismatch(ast::opSpelling(e.op), tt.print(t))
                    .primary(at, e.op == ast::Op::Not ? "`!` needs a `bool`" : "`-` needs a signed number"));
    return errorExpr(s, at);
  }
  he.type = t;
  return s.prog.add(he);
}

// Writes through `place` are allowed: a `mut` local, or behind `&mut`.
bool mutablePlace(Sema& s, hir::ExprId place) {
  hir::TypeTable& tt = s.types();
  const hir::Expr& e = s.prog.expr(place);
  switch (e.kind) {
    case ExprKind::Local: {
      const hir::Local& l = s.prog.local(e.local);
      TypeId t = tt.resolve(l.type);
      return l.mut || (tt.kind(t) == TyKind::Ref && tt.get(t).sub == 1);
    }
    case ExprKind::Index:
    case ExprKind::Field: {
      TypeId base = tt.resolve(s.prog.expr(e.a).type);
      if (tt.kind(base) == TyKind::Ref) return tt.get(base).sub == 1;
      return mutablePlace(s, e.a);
    }
    case ExprKind::Deref: {
      TypeId r = tt.resolve(s.prog.expr(e.a).type);
      return tt.kind(r) == TyKind::Ref && tt.get(r).sub == 1;
    }
    default: return true;
  }
}

hir::ExprId checkBorrow(Sema& s, const ast::Expr& e, base::Span at) {
  hir::TypeTable& tt = s.types();
  hir::Expr he;
  he.kind = ExprKind::Borrow;
  he.mut = e.mut;
  he.span = at;
  he.a = checkExpr(s, e.lhs);
  const hir::Expr& inner = s.prog.expr(he.a);
  if (tt.containsError(inner.type)) return errorExpr(s, at);
  if (e.mut && isPlace(s.prog, he.a)) checkGridWrite(s, he.a, inner.span);
  if (e.mut && isPlace(s.prog, he.a) && !mutablePlace(s, he.a)) {
    hir::LocalId root = placeRoot(s.prog, he.a);
    std::string n = root.valid() ? s.prog.local(root).name : "this";
    diag::Diagnostic d = diag::BorrowMutOfImmutable(n);
    d.primary(inner.span, "cannot borrow as mutable");
    if (root.valid() && s.prog.local(root).loopVar) {
      const hir::Local& l = s.prog.local(root);
      d.help("a loop's index cannot be made mutable: copy it into a mutable variable, `let mut " + l.name + " = " +
             l.name + ";`, at the start of the body");
    } else if (root.valid() && !s.prog.local(root).param) {
      const hir::Local& l = s.prog.local(root);
      d.suggest("consider making this binding mutable: `mut " + l.name + "`",
                base::Span{l.span.file, l.span.begin, l.span.begin}, "mut ");
    }
    s.sink.emit(std::move(d));
  }
  he.type = tt.ref(inner.type, e.mut);
  return s.prog.add(he);
}

hir::ExprId checkCast(Sema& s, const ast::Expr& e, base::Span at) {
  hir::TypeTable& tt = s.types();
  hir::Expr he;
  he.kind = ExprKind::Cast;
  he.span = at;
  he.a = checkExpr(s, e.lhs);
  he.type = lowerType(s, ast::TypeId{e.payload});
  TypeId from = s.prog.expr(he.a).type;
  if (tt.containsError(from) || tt.containsError(he.type)) return errorExpr(s, at);
  bool ok = (tt.isNumeric(from) || tt.kind(tt.resolve(from)) == TyKind::Bool) && tt.isNumeric(he.type);
  if (!ok) {
    s.sink.emit(diag::InvalidCast(tt.print(from), tt.print(he.type)).primary(at, "only numbers cast with `as`"));
    return errorExpr(s, at);
  }
  return s.prog.add(he);
}

bool isArith(ast::Op op) {
  return op == ast::Op::Add || op == ast::Op::Sub || op == ast::Op::Mul || op == ast::Op::Div ||
         op == ast::Op::Rem;
}
bool isCompare(ast::Op op) {
  return op == ast::Op::Eq || op == ast::Op::Ne || op == ast::Op::Lt || op == ast::Op::Gt ||
         op == ast::Op::Le || op == ast::Op::Ge;
}

hir::ExprId checkBinary(Sema& s, const ast::Expr& e, base::Span at) {
  hir::TypeTable& tt = s.types();
  hir::Expr he;
  he.kind = ExprKind::Binary;
  he.op = e.op;
  he.span = at;
  if (e.op == ast::Op::And || e.op == ast::Op::Or) {
    he.a = checkExpr(s, e.lhs, tt.boolTy());
    he.b = checkExpr(s, e.rhs, tt.boolTy());
    he.type = tt.boolTy();
    return s.prog.add(he);
  }
  he.a = checkExpr(s, e.lhs);
  he.b = checkExpr(s, e.rhs);
  TypeId ta = s.prog.expr(he.a).type, tb = s.prog.expr(he.b).type;
  if (tt.containsError(ta) || tt.containsError(tb)) return errorExpr(s, at);
  TypeId ra = derefAll(tt, ta);
  // Elementwise `+ - * /` on two on-chip tensors of one shape. The operands
  // are read, not consumed (compute.md): a place is borrowed for the
  // operation, as a call's `&` argument, so `a * b - a` uses `a` twice; a
  // temporary (`exp(&x) + y`) is consumed as any value.
  if (tt.kind(ra) == TyKind::Pinned &&
      (e.op == ast::Op::Add || e.op == ast::Op::Sub || e.op == ast::Op::Mul || e.op == ast::Op::Div)) {
    for (hir::ExprId* side : {&he.a, &he.b}) {
      const hir::Expr& x = s.prog.expr(*side);
      if (tt.kind(tt.resolve(x.type)) != TyKind::Pinned || !isPlace(s.prog, *side)) continue;
      hir::Expr b;
      b.kind = ExprKind::Borrow;
      b.autoBorrow = true;
      b.span = x.span;
      b.a = *side;
      b.type = tt.ref(x.type, false);
      *side = s.prog.add(b);
    }
    TypeId rb = derefAll(tt, tb);
    // NumPy broadcasting, limited to a column `[R, 1]` or a row `[1, C]`
    // against `[R, C]` (compute.md): the result has the full shape.
    if (TypeId full = broadcastOf(tt, ra, rb); full.valid()) {
      he.type = full;
      return s.prog.add(he);
    }
    if (!unify(s, ra, rb, s.prog.expr(he.b).span, {}, he.b)) return errorExpr(s, at);
    TypeId vmem = tt.mem(hir::MemSpace::VMEM);
    if (!unify(s, tt.pinned(tt.get(ra).a, vmem), ra, s.prog.expr(he.a).span,
               "elementwise operations run on `Memory::VMEM` tensors", he.a))
      return errorExpr(s, at);
    he.type = ra;
    return s.prog.add(he);
  }
  bool numeric = tt.isNumeric(ta) && tt.isNumeric(tb);
  bool boolEq = (e.op == ast::Op::Eq || e.op == ast::Op::Ne) && tt.kind(tt.resolve(ta)) == TyKind::Bool &&
                tt.kind(tt.resolve(tb)) == TyKind::Bool;
  if ((!numeric && !boolEq) || !tryUnify(s, ta, tb)) {
    s.sink.emit(diag::BinaryOperandMismatch(ast::opSpelling(e.op), tt.print(ta), tt.print(tb))
                    .primary(at, "")
                    .secondary(s.prog.expr(he.a).span, "`" + tt.print(ta) + "`")
                    .secondary(s.prog.expr(he.b).span, "`" + tt.print(tb) + "`")
                    .help(numeric ? "convert one side with `as`" : "both sides must be numbers of one type"));
    return errorExpr(s, at);
  }
  he.type = isCompare(e.op) ? tt.boolTy() : ta;
  (void)isArith;
  return s.prog.add(he);
}

hir::ExprId synth(Sema& s, ast::ExprId id) {
  hir::TypeTable& tt = s.types();
  const ast::Expr& e = s.m->expr(id);
  base::Span at = s.span(e.range);
  hir::Expr he;
  he.span = at;
  switch (e.kind) {
    case ast::ExprKind::Error: return errorExpr(s, at);
    case ast::ExprKind::IntLit: {
      he.kind = ExprKind::Int;
      he.value = s.m->ints[e.payload];
      switch (e.suffix) {
        case ast::LitSuffix::I32: he.type = tt.intTy(hir::IntKind::I32); break;
        case ast::LitSuffix::I64: he.type = tt.intTy(hir::IntKind::I64); break;
        case ast::LitSuffix::U32: he.type = tt.intTy(hir::IntKind::U32); break;
        case ast::LitSuffix::U64: he.type = tt.intTy(hir::IntKind::U64); break;
        case ast::LitSuffix::Usize: he.type = tt.usize(); break;
        default: he.type = tt.freshIntVar(); break;
      }
      return s.prog.add(he);
    }
    case ast::ExprKind::FloatLit:
      he.kind = ExprKind::Float;
      he.fvalue = s.m->floats[e.payload];
      switch (e.suffix) {
        case ast::LitSuffix::F16: he.type = tt.floatTy(hir::FloatKind::F16); break;
        case ast::LitSuffix::Bf16: he.type = tt.floatTy(hir::FloatKind::Bf16); break;
        case ast::LitSuffix::F32: he.type = tt.floatTy(hir::FloatKind::F32); break;
        case ast::LitSuffix::F64: he.type = tt.floatTy(hir::FloatKind::F64); break;
        default: he.type = tt.freshFloatVar(); break;
      }
      return s.prog.add(he);
    case ast::ExprKind::BoolLit:
      he.kind = ExprKind::Bool;
      he.value = e.payload;
      he.type = tt.boolTy();
      return s.prog.add(he);
    case ast::ExprKind::Path: return checkPath(s, e, at);
    case ast::ExprKind::Unit:
      he.kind = ExprKind::Unit;
      he.type = tt.voidTy();
      return s.prog.add(he);
    case ast::ExprKind::Tuple: {
      he.kind = ExprKind::Tuple;
      std::vector<uint32_t> elems;
      std::vector<TypeId> types;
      for (uint32_t i = 0; i < e.list.count; ++i) {
        hir::ExprId x = checkExpr(s, ast::ExprId{s.m->listAt(e.list, i)});
        elems.push_back(x.index);
        types.push_back(s.prog.expr(x).type);
      }
      he.args = s.prog.addList(elems);
      he.type = tt.tuple(types);
      return s.prog.add(he);
    }
    case ast::ExprKind::Call: return checkCall(s, e, e.range);
    case ast::ExprKind::MethodCall: return checkMethodCall(s, e, e.range);
    case ast::ExprKind::Field: return checkField(s, e, at);
    case ast::ExprKind::Index: return checkIndex(s, e, at);
    case ast::ExprKind::Unary: return checkUnary(s, e, at);
    case ast::ExprKind::Borrow: return checkBorrow(s, e, at);
    case ast::ExprKind::Cast: return checkCast(s, e, at);
    case ast::ExprKind::Binary: return checkBinary(s, e, at);
  }
  return errorExpr(s, at);
}

}  // namespace

hir::ExprId checkExpr(Sema& s, ast::ExprId id, TypeId expected) {
  hir::ExprId r = synth(s, id);
  if (expected.valid()) {
    const hir::Expr& e = s.prog.expr(r);
    unify(s, expected, e.type, e.span, {}, r);
  }
  return r;
}

}  // namespace vx::check

// Calls: user functions and builtins. Builtins are generic: each call
// instantiates the signature afresh (turbofish arguments first), auto-borrows
// places passed to `&T` parameters, and requires constant memory spaces.
#include "base/Text.h"
#include "check/Sema.h"
#include "check/Words.h"
#include "diag/DiagKinds.h"

namespace vx::check {

using hir::ExprKind;
using hir::TyKind;
using hir::TypeId;

namespace {

using Subst = std::vector<std::pair<TypeId, TypeId>>;

TypeId substitute(hir::TypeTable& tt, TypeId t, const Subst& sub) {
  t = tt.resolve(t);
  for (const auto& [from, to] : sub)
    if (from == t) return to;
  const hir::TyData d = tt.get(t);
  switch (d.kind) {
    case TyKind::Tensor: return tt.tensor(substitute(tt, d.a, sub), substitute(tt, d.b, sub));
    case TyKind::Vec: return tt.vec(substitute(tt, d.a, sub));
    case TyKind::Ref: return tt.ref(substitute(tt, d.a, sub), d.sub != 0);
    case TyKind::Pinned: return tt.pinned(substitute(tt, d.a, sub), substitute(tt, d.b, sub));
    case TyKind::Token: return tt.token(substitute(tt, d.a, sub), substitute(tt, d.b, sub));
    case TyKind::Tuple:
    case TyKind::Shape: {
      std::vector<TypeId> elems;
      for (uint32_t i = 0; i < d.listCount; ++i) elems.push_back(substitute(tt, tt.elem(t, i), sub));
      return d.kind == TyKind::Tuple ? tt.tuple(elems) : tt.shape(elems);
    }
    default: return t;
  }
}

// How a builtin's signature uses generic `var`: as some tensor's element
// type, as its shape, or neither.
enum class TensorRole : uint8_t { None, Element, Shape };

TensorRole tensorRoleIn(const hir::TypeTable& tt, TypeId t, TypeId var) {
  t = tt.resolve(t);
  const hir::TyData& d = tt.get(t);
  switch (d.kind) {
    case TyKind::Tensor:
      if (tt.resolve(d.a) == var) return TensorRole::Element;
      if (tt.resolve(d.b) == var) return TensorRole::Shape;
      return TensorRole::None;
    case TyKind::Vec:
    case TyKind::Ref: return tensorRoleIn(tt, d.a, var);
    case TyKind::Pinned:
    case TyKind::Token: return tensorRoleIn(tt, d.a, var);
    case TyKind::Tuple:
      for (uint32_t i = 0; i < d.listCount; ++i)
        if (TensorRole r = tensorRoleIn(tt, tt.elem(t, i), var); r != TensorRole::None) return r;
      return TensorRole::None;
    case TyKind::Error:
    case TyKind::Void:
    case TyKind::Bool:
    case TyKind::Int:
    case TyKind::Float:
    case TyKind::Shape:
    case TyKind::Dim:
    case TyKind::Extent:
    case TyKind::Mem:
    case TyKind::Topo:
    case TyKind::Var:
    case TyKind::IntVar:
    case TyKind::FloatVar: return TensorRole::None;
  }
  return TensorRole::None;
}

TensorRole tensorRole(const hir::TypeTable& tt, const hir::Function& f, TypeId var) {
  if (TensorRole r = tensorRoleIn(tt, f.ret, var); r != TensorRole::None) return r;
  for (TypeId p : f.paramTypes)
    if (TensorRole r = tensorRoleIn(tt, p, var); r != TensorRole::None) return r;
  return TensorRole::None;
}

bool isMemoryParam(const hir::Function& f, TypeId paramTy, const hir::TypeTable& tt) {
  TypeId r = tt.resolve(paramTy);
  if (tt.kind(r) == TyKind::Mem) return true;
  for (size_t i = 0; i < f.genericVars.size(); ++i)
    if (f.genericVars[i] == r && f.memoryBound[i]) return true;
  return false;
}

std::string fnNameOf(Sema& s, const ast::Expr& callee) {
  const ast::Path& p = s.m->path(ast::PathId{callee.payload});
  std::string n;
  for (uint32_t i = 0; i < p.segments.count; ++i) n += (i ? "::" : "") + s.name(ast::NameId{s.m->listAt(p.segments, i)});
  return n;
}

// Checks the arguments alone (after an error about the call itself), so that
// errors inside them are still reported.
void checkArgsAlone(Sema& s, const ast::Expr& call) {
  for (uint32_t i = 0; i < call.list.count; ++i) checkExpr(s, ast::ExprId{s.m->listAt(call.list, i)});
}

void checkAvailability(Sema& s, const hir::Function& f, base::Span at) {
  if (!f.isExtern) return;
  const hir::Function& caller = s.currentFn();
  if (f.topologyGiven && caller.topology != f.topology && !caller.topologyUnknown) {
    s.sink.emit(diag::BuiltinWrongTopology(f.name, hir::topologyName(caller.topology))
                    .primary(at, "only available `on Topology::" + std::string(hir::topologyName(f.topology)) + "`")
                    .secondary(caller.nameSpan, "`" + caller.name + "` runs on `Topology::" +
                                                    hir::topologyName(caller.topology) + "`")
                    .help("declare the function `on Topology::" + std::string(hir::topologyName(f.topology)) + "`"));
  }
  if (f.builtin != hir::Builtin::None && !target::available(f.builtin, s.target)) {
    std::string name = target::info(s.target).name;
    diag::Diagnostic d = diag::UnavailableOnTarget(f.name, name);
    d.primary(at, "not implemented by target `" + name + "`");
    std::string list = target::targetsWith(f.builtin);
    d.note("`" + f.name + "` is implemented on: " + (list.empty() ? "no target" : list) +
           " (src/target/Builtins.def, docs/language/builtins.md)");
    s.sink.emit(std::move(d));
  }
}

// What `dbg` prints: a scalar, an on-chip tensor, or a shared reference to
// one (a token has no value to print: it is waited, not shown).
bool printable(const hir::TypeTable& tt, TypeId t) {
  t = tt.resolve(t);
  if (tt.kind(t) == TyKind::Ref) {
    if (tt.get(t).sub != 0) return false;
    t = tt.resolve(tt.get(t).a);
    return tt.kind(t) == TyKind::Pinned && tt.kind(tt.resolve(tt.get(t).a)) == TyKind::Tensor;
  }
  if (tt.kind(t) == TyKind::Pinned) return tt.kind(tt.resolve(tt.get(t).a)) == TyKind::Tensor;
  return tt.isNumeric(t) || tt.kind(t) == TyKind::Bool;
}

// `block::<[R, C]>(a, r, c)`: a static 2-D block of a 2-D tensor.
bool checkBlockShapes(Sema& s, const hir::Function& fn, TypeId block, TypeId src, base::Span at, base::Span callee) {
  hir::TypeTable& tt = s.types();
  TypeId b = tt.resolve(block);
  auto staticDim = [&](TypeId d) { return tt.kind(tt.resolve(d)) == TyKind::Dim; };
  if (tt.containsError(b)) return false;  // its shape was an error already (a dimension of 0: E0208)
  if (tt.kind(b) != TyKind::Shape || tt.count(b) != 2 || !staticDim(tt.elem(b, 0)) || !staticDim(tt.elem(b, 1))) {
    s.sink.emit(diag::GenericArgCountMismatch(fn.name, "a static 2-D block shape", "none was")
                    .primary(callee, "the block's shape is not given")
                    .help("write it: `" + fn.name + "::<[R, C]>(a, r, c)` with R, C integers or `const`s"));
    return false;
  }
  src = tt.resolve(src);
  while (tt.kind(src) == TyKind::Ref) src = tt.resolve(tt.get(src).a);
  TypeId shape = tt.kind(src) == TyKind::Tensor ? tt.resolve(tt.get(src).b) : TypeId{};
  if (shape.valid() && tt.kind(shape) == TyKind::Shape && tt.count(shape) != 2) {
    s.sink.emit(diag::ShapeMismatch("[rows, cols]", tt.print(shape))
                    .primary(at, "a block of a rank-" + std::to_string(tt.count(shape)) + " tensor")
                    .help("blocks are taken of the last two dimensions: index the leading ones first, "
                          "`" + fn.name + "::<[R, C]>(&x[b], r, c)`"));
    return false;
  }
  return true;
}

}  // namespace

hir::ExprId checkCall(Sema& s, const ast::Expr& call, ast::Range range) {
  hir::TypeTable& tt = s.types();
  base::Span at = s.span(range);
  const ast::Expr& callee = s.m->expr(call.lhs);
  base::Span calleeSpan = s.span(callee.range);
  if (callee.kind != ast::ExprKind::Path) {
    hir::ExprId c = checkExpr(s, call.lhs);
    if (!tt.containsError(s.prog.expr(c).type))
      s.sink.emit(diag::NotCallable(tt.print(s.prog.expr(c).type)).primary(calleeSpan, "not a function"));
    checkArgsAlone(s, call);
    return errorExpr(s, at);
  }
  const ast::Path& path = s.m->path(ast::PathId{callee.payload});
  std::string name = fnNameOf(s, callee);
  auto found = path.segments.count == 1 ? s.fnByName.find(name) : s.fnByName.end();
  if (found == s.fnByName.end()) {
    if (path.segments.count == 1 && lookupLocal(s, name).valid()) {
      s.sink.emit(diag::NotCallable(name).primary(calleeSpan, "a variable, not a function"));
    } else {
      std::vector<std::string> cands;
      if (s.maySuggest(s.fnByName.size()))
        for (const auto& [fname, id] : s.fnByName) cands.push_back(fname);
      diag::Diagnostic d = diag::UnknownFunction(name);
      d.primary(calleeSpan, "not found in this scope");
      std::string close = base::closestMatch(name, cands);
      if (!close.empty()) {
        base::Span nameSpan{calleeSpan.file, calleeSpan.begin, calleeSpan.begin + static_cast<uint32_t>(name.size())};
        d.suggest("a function with a similar name exists: `" + close + "`", nameSpan, close,
                  diag::Applicability::MaybeIncorrect);
      }
      s.sink.emit(std::move(d));
    }
    checkArgsAlone(s, call);
    return errorExpr(s, at);
  }
  hir::FnId fnId = found->second;
  const hir::Function fn = s.prog.fns[fnId.index];  // copy: checking args may grow `fns`? no, but stay safe
  checkAvailability(s, fn, calleeSpan);

  if (call.list.count != fn.userParams) {
    diag::Diagnostic d = diag::ArgCountMismatch(name, countOf(fn.userParams, "argument"),
                                                plural(call.list.count, "was", "were"));
    d.primary(at, "expected " + countOf(fn.userParams, "argument"));
    if (!fn.fromPrelude) d.secondary(fn.nameSpan, "`" + name + "` defined here");
    else {
      std::vector<std::pair<TypeId, std::string>> gnames;
      std::string sig = name;
      for (size_t i = 0; i < fn.genericVars.size(); ++i) {
        gnames.emplace_back(fn.genericVars[i], fn.genericNames[i]);
        sig += (i ? ", " : "<") + fn.genericNames[i] + (fn.memoryBound[i] ? ": Memory" : "");
      }
      sig += fn.genericVars.empty() ? "(" : ">(";
      for (size_t i = 0; i < fn.params.size(); ++i)
        sig += (i ? ", " : "") + s.prog.local(fn.params[i]).name + ": " + tt.print(fn.paramTypes[i], gnames);
      TypeId rr = tt.resolve(fn.ret);
      if (tt.kind(rr) != TyKind::Void) sig += ") -> " + tt.print(fn.ret, gnames);
      else sig += ")";
      d.note("the builtin is `" + sig + "` (stdlib/prelude.vx)");
    }
    s.sink.emit(std::move(d));
    checkArgsAlone(s, call);
    return errorExpr(s, at);
  }

  // Instantiate the generic signature.
  Subst sub;
  for (TypeId v : fn.genericVars) sub.emplace_back(v, tt.freshVar());
  // Run-time extents: bound by the arguments' shapes, like generics.
  size_t firstExtent = sub.size();
  for (const hir::Function::ExtentParam& e : fn.extents) sub.emplace_back(e.type, tt.freshVar());
  if (path.hasGenerics) {
    // Leading generic arguments may be given, the rest inferred:
    // `zeros::<f32, [2, 128, 128]>(Memory::VMEM)` leaves `M` to the argument.
    if (path.genericArgs.count > fn.genericVars.size() || path.genericArgs.count == 0) {
      s.sink.emit(diag::GenericArgCountMismatch(name, countOf(fn.genericVars.size(), "generic argument"),
                                                plural(path.genericArgs.count, "was", "were"))
                      .primary(calleeSpan, "expected " + countOf(fn.genericVars.size(), "generic argument")));
      checkArgsAlone(s, call);
      return errorExpr(s, at);
    }
    for (uint32_t i = 0; i < path.genericArgs.count; ++i) {
      ast::TypeId ta{s.m->listAt(path.genericArgs, i)};
      TypeId given = lowerType(s, ta);
      // A generic the signature uses as a tensor's element or shape takes
      // what a written `Tensor<E, S>` takes (`zeros::<0, 8>` is no tensor).
      TypeId rg = tt.resolve(given);
      bool open = tt.kind(rg) == TyKind::Var || tt.kind(rg) == TyKind::Error;
      switch (tensorRole(tt, fn, fn.genericVars[i])) {
        case TensorRole::None: break;
        case TensorRole::Element:
          if (!open && !tt.isNumeric(rg)) {
            s.sink.emit(diag::KindMismatch("a numeric element type", "`" + tt.print(given) + "`")
                            .primary(s.span(s.m->type(ta).range), "tensor elements are numbers"));
            given = tt.error();
          }
          break;
        case TensorRole::Shape:
          if (!open && tt.kind(rg) != TyKind::Shape) {
            s.sink.emit(diag::KindMismatch("a shape like `[128, 128]`", "`" + tt.print(given) + "`")
                            .primary(s.span(s.m->type(ta).range), "expected a shape"));
            given = tt.error();
          } else if (!open && !tensorSizeFits(s, tt.floatTy(hir::FloatKind::F16), rg, s.span(s.m->type(ta).range))) {
            given = tt.error();
          }
          break;
      }
      unify(s, sub[i].second, given, s.span(s.m->type(ta).range));
    }
  }

  hir::Expr he;
  he.kind = ExprKind::Call;
  he.fn = fnId;
  he.span = at;
  std::vector<uint32_t> args;
  // A call with a broken argument has the error type: nothing downstream
  // (a dropped-token check, an unused-variable lint) reports on its result.
  bool argError = false;
  TypeId broadcast;  // max/min of a tensor and its column or row: the full type
  for (uint32_t i = 0; i < call.list.count; ++i) {
    ast::ExprId argAst{s.m->listAt(call.list, i)};
    TypeId param = substitute(tt, fn.paramTypes[i], sub);
    if (isMemoryParam(fn, fn.paramTypes[i], tt)) {
      const ast::Expr& a = s.m->expr(argAst);
      bool constPath = a.kind == ast::ExprKind::Path && s.m->path(ast::PathId{a.payload}).segments.count == 2;
      if (!constPath) {
        hir::ExprId x = checkExpr(s, argAst);
        if (!tt.containsError(s.prog.expr(x).type))
          s.sink.emit(diag::NonConstMemSpace()
                          .primary(s.prog.expr(x).span, "not a constant")
                          .help("write the memory space itself, e.g. `Memory::VMEM`"));
        args.push_back(errorExpr(s, s.prog.expr(x).span).index);
        argError = true;
        continue;
      }
    }
    hir::ExprId x = checkExpr(s, argAst);
    TypeId pr = tt.resolve(param);
    const hir::Expr& xe = s.prog.expr(x);
    if (fn.isExtern && tt.kind(pr) == TyKind::Ref && tt.get(pr).sub == 0 &&
        tt.kind(tt.resolve(xe.type)) != TyKind::Ref && isPlace(s.prog, x)) {
      hir::Expr b;
      b.kind = ExprKind::Borrow;
      b.autoBorrow = true;
      b.span = xe.span;
      b.a = x;
      b.type = tt.ref(xe.type, false);
      x = s.prog.add(b);
    }
    // `&mut T` passes where `&T` is expected, as in Rust (a shared reborrow).
    TypeId xt = tt.resolve(s.prog.expr(x).type);
    if (tt.kind(pr) == TyKind::Ref && tt.get(pr).sub == 0 && tt.kind(xt) == TyKind::Ref && tt.get(xt).sub == 1) {
      hir::Expr b;
      b.kind = ExprKind::Borrow;
      b.autoBorrow = true;
      b.span = s.prog.expr(x).span;
      hir::Expr d;
      d.kind = ExprKind::Deref;
      d.span = b.span;
      d.a = x;
      d.type = tt.get(xt).a;
      b.a = s.prog.add(d);
      b.type = tt.ref(tt.get(xt).a, false);
      x = s.prog.add(b);
    }
    // `max(&x, &m)` with `m` a column `[R, 1]` or a row `[1, C]` of `x`'s
    // `[R, C]` (either side): NumPy broadcasting, as the binary operators.
    if ((fn.builtin == hir::Builtin::Max || fn.builtin == hir::Builtin::Min) && i == 1 && !argError) {
      auto pointee = [&](TypeId t) {
        t = tt.resolve(t);
        return tt.kind(t) == TyKind::Ref ? tt.resolve(tt.get(t).a) : TypeId{};
      };
      TypeId a0 = pointee(s.prog.expr(hir::ExprId{args[0]}).type), a1 = pointee(s.prog.expr(x).type);
      if (a0.valid() && a1.valid())
        if (TypeId full = broadcastOf(tt, a0, a1); full.valid()) {
          broadcast = full;
          args.push_back(x.index);
          continue;
        }
    }
    if (tt.containsError(s.prog.expr(x).type) ||
        !unify(s, param, s.prog.expr(x).type, s.prog.expr(x).span, {}, x))
      argError = true;
    args.push_back(x.index);
  }
  if ((fn.builtin == hir::Builtin::Block || fn.builtin == hir::Builtin::BlockMut) && !argError &&
      !checkBlockShapes(s, fn, sub[0].second, s.prog.expr(hir::ExprId{args[0]}).type, at, calleeSpan))
    argError = true;
  if (fn.builtin == hir::Builtin::Dbg && !argError && !printable(tt, s.prog.expr(hir::ExprId{args[0]}).type)) {
    TypeId t = s.prog.expr(hir::ExprId{args[0]}).type;
    s.sink.emit(diag::DbgNotPrintable(tt.print(t))
                    .primary(s.prog.expr(hir::ExprId{args[0]}).span, "`" + tt.print(t) + "`")
                    .note("`dbg` prints a number or `bool`, or an on-chip tensor (`Pinned<Tensor<..>, M>`), "
                          "or a shared reference to one"));
    argError = true;
  }
  // The hidden arguments: the value of each extent, as the arguments'
  // shapes bind it (a constant, or an extent of the caller).
  for (size_t k = 0; k < fn.extents.size() && !argError; ++k) {
    TypeId b = tt.resolve(sub[firstExtent + k].second);
    hir::Expr x;
    x.span = at;
    x.type = tt.usize();
    if (tt.kind(b) == TyKind::Dim) {
      x.kind = ExprKind::Int;
      x.value = tt.get(b).value;
    } else if (tt.kind(b) == TyKind::Extent && s.extents) {
      for (const hir::Function::ExtentParam& mine : *s.extents)
        if (mine.type == b) {
          x.kind = ExprKind::Local;
          x.local = mine.local;
        }
    }
    if (x.kind == ExprKind::Error) {
      argError = true;
      break;
    }
    args.push_back(s.prog.add(x).index);
  }
  he.args = s.prog.addList(args);
  he.type = argError ? tt.error() : broadcast.valid() ? broadcast : substitute(tt, fn.ret, sub);
  if (fn.isExtern && !argError && !checkStaticOnChip(s, he.type, at)) he.type = tt.error();
  return s.prog.add(he);
}

hir::ExprId checkMethodCall(Sema& s, const ast::Expr& call, ast::Range range) {
  hir::TypeTable& tt = s.types();
  base::Span at = s.span(range);
  hir::ExprId recv = checkExpr(s, call.lhs);
  std::string method = s.name(call.name);
  TypeId t = tt.resolve(s.prog.expr(recv).type);
  while (tt.kind(t) == TyKind::Ref) t = tt.resolve(tt.get(t).a);
  if (tt.kind(t) == TyKind::Error) {
    checkArgsAlone(s, call);
    return errorExpr(s, at);
  }
  if (method != "len" || tt.kind(t) != TyKind::Vec) {
    diag::Diagnostic d = diag::UnknownMethod(method, tt.print(s.prog.expr(recv).type));
    d.primary(at, "method not found");
    if (tt.kind(t) == TyKind::Vec && !base::closestMatch(method, {"len"}).empty())
      d.help("there is a method with a similar name: `len`");
    else
      d.note("the only method is `Vec::len()`; builtins are functions: `wait(t)`, not `t.wait()`");
    s.sink.emit(std::move(d));
    checkArgsAlone(s, call);
    return errorExpr(s, at);
  }
  if (call.list.count != 0) {
    s.sink.emit(diag::ArgCountMismatch("len", "0 arguments", plural(call.list.count, "was", "were"))
                    .primary(at, "expected 0 arguments"));
    checkArgsAlone(s, call);
    return errorExpr(s, at);
  }
  hir::Expr he;
  he.kind = ExprKind::Len;
  he.span = at;
  he.a = recv;
  he.type = tt.usize();
  return s.prog.add(he);
}

}  // namespace vx::check

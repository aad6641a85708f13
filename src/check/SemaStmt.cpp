// Statements and blocks.
#include <functional>

#include "check/Sema.h"
#include "check/Words.h"
#include "diag/DiagKinds.h"

namespace vx::check {

using hir::TyKind;
using hir::TypeId;

hir::LocalId declareLocal(Sema& s, const std::string& name, base::Span span, TypeId type, bool mut,
                          bool param) {
  hir::Local l;
  l.name = name;
  l.span = span;
  l.type = type;
  l.mut = mut;
  l.param = param;
  // A binding whose type is already an error was reported; don't warn on it.
  if (s.types().containsError(type)) l.uses = 1;
  hir::LocalId id = s.prog.add(l);
  s.scopes.back().bindings.emplace_back(name, id);
  return id;
}

hir::LocalId lookupLocal(Sema& s, const std::string& name) {
  for (size_t i = s.scopes.size(); i-- > 0;) {
    const auto& b = s.scopes[i].bindings;
    for (size_t k = b.size(); k-- > 0;)
      if (b[k].first == name) return b[k].second;
  }
  return hir::LocalId{};
}

bool outsideGrid(const Sema& s, hir::LocalId l) {
  if (s.gridDepth == 0) return false;
  const hir::Local& local = s.prog.local(l);
  return local.param || (l.index >= s.fnFirstLocal && l.index < s.gridFirstLocal);
}

void checkGridUse(Sema& s, hir::LocalId l, base::Span at) {
  if (!outsideGrid(s, l)) return;
  const hir::TypeTable& tt = s.types();
  const hir::Local& local = s.prog.local(l);
  // Scalars and references to HBM are shared; on-chip buffers and tokens
  // are an instance's own. A scalar the instances could write through a
  // `&mut` would be written by all of them at once (as assigning it is,
  // below): only a shared reference to one is.
  std::function<bool(TypeId)> shared = [&](TypeId t) {
    t = tt.resolve(t);
    const hir::TyData& d = tt.get(t);
    switch (d.kind) {
      case TyKind::Ref: {
        TyKind k = tt.kind(tt.resolve(d.a));
        if (k == TyKind::Tensor || k == TyKind::Vec) return true;
        return d.sub == 0 && (k == TyKind::Int || k == TyKind::Float || k == TyKind::Bool);
      }
      case TyKind::Tuple:
        for (uint32_t i = 0; i < d.listCount; ++i)
          if (!shared(tt.elem(t, i))) return false;
        return true;
      case TyKind::Tensor:
      case TyKind::Vec:
      case TyKind::Pinned:
      case TyKind::Token: return false;
      default: return true;
    }
  };
  if (tt.containsError(local.type) || shared(local.type)) return;
  s.sink.emit(diag::GridMisuse("`" + local.name + "` (`" + tt.print(local.type) +
                               "`) belongs to the code around the `parallel` grid, and instances share nothing "
                               "but scalars and HBM")
                  .primary(at, "used inside the grid's body")
                  .secondary(local.span, "`" + local.name + "` is bound outside the grid here")
                  .help("each instance has its own on-chip memory and tokens: allocate, copy and wait inside "
                        "the grid's body"));
}

hir::LocalId ownedRoot(const hir::Program& p, hir::ExprId place) {
  const hir::TypeTable& tt = p.types;
  for (hir::ExprId e = place; e.valid();) {
    const hir::Expr& x = p.expr(e);
    switch (x.kind) {
      case hir::ExprKind::Local: return x.local;
      case hir::ExprKind::Deref: return {};
      case hir::ExprKind::Index:
      case hir::ExprKind::Field:
        if (tt.kind(tt.resolve(p.expr(x.a).type)) == TyKind::Ref) return {};
        e = x.a;
        break;
      case hir::ExprKind::Error:
      case hir::ExprKind::Int:
      case hir::ExprKind::Float:
      case hir::ExprKind::Bool:
      case hir::ExprKind::Const:
      case hir::ExprKind::MemConst:
      case hir::ExprKind::TopoConst:
      case hir::ExprKind::Unit:
      case hir::ExprKind::Tuple:
      case hir::ExprKind::Call:
      case hir::ExprKind::Len:
      case hir::ExprKind::Unary:
      case hir::ExprKind::Borrow:
      case hir::ExprKind::Cast:
      case hir::ExprKind::Binary: return {};
    }
  }
  return {};
}

void checkGridWrite(Sema& s, hir::ExprId place, base::Span at) {
  if (s.gridDepth == 0) return;
  // A write through a reference goes to what it points to, not to a local.
  hir::LocalId root = ownedRoot(s.prog, place);
  if (!root.valid() || !outsideGrid(s, root)) return;
  const hir::TypeTable& tt = s.types();
  const hir::Local& l = s.prog.local(root);
  if (tt.containsError(l.type)) return;
  s.sink.emit(diag::GridMisuse("`" + l.name + "` is shared by every instance of the `parallel` grid, which run "
                               "concurrently: an instance cannot write it")
                  .primary(at, "written inside the grid's body")
                  .secondary(l.span, "`" + l.name + "` is bound outside the grid here")
                  .help("bind a variable of the instance inside the grid's body: `let mut " + l.name + " = " +
                        l.name + ";`"));
}

void checkGridCalls(Sema& s) {
  for (const hir::Expr& e : s.prog.exprs) {
    if (e.kind != hir::ExprKind::Call || !s.prog.fn(e.fn).grid) continue;
    const hir::Function& g = s.prog.fn(e.fn);
    s.sink.emit(diag::GridMisuse("`" + g.name + "` launches a `parallel` grid and can only be called as an entry point")
                    .primary(e.span, "a call of a grid")
                    .secondary(g.nameSpan, "`" + g.name + "` has a `parallel` grid")
                    .help("call it from the host (`vxc run`, the C ABI, Python), or move the grid into the caller "
                          "and call a function without one from the instances"));
  }
}

namespace {

hir::StmtId checkStmt(Sema& s, ast::StmtId id);

// Where the value of `init` was placed, for E0202 labels on later uses.
void recordPlacement(Sema& s, hir::LocalId local, hir::ExprId init) {
  const hir::Expr& e = s.prog.expr(init);
  if (e.kind == hir::ExprKind::Call) {
    for (uint32_t i = 0; i < e.args.count; ++i) {
      const hir::Expr& a = s.prog.expr(s.prog.arg(e, i));
      if (a.kind == hir::ExprKind::MemConst) s.placement[local.index] = a.span;
    }
    // `wait(t)` leaves the data where `t`'s transfer put it.
    if (s.prog.fn(e.fn).builtin == hir::Builtin::Wait && e.args.count == 1) {
      const hir::Expr& a = s.prog.expr(s.prog.arg(e, 0));
      if (a.kind == hir::ExprKind::Local)
        if (auto it = s.placement.find(a.local.index); it != s.placement.end())
          s.placement[local.index] = it->second;
    }
  } else if (e.kind == hir::ExprKind::Local) {
    if (auto it = s.placement.find(e.local.index); it != s.placement.end())
      s.placement[local.index] = it->second;
  }
}

hir::PatId bindPattern(Sema& s, ast::PatId pid, TypeId type, hir::ExprId init) {
  const ast::Pat& p = s.m->pat(pid);
  hir::TypeTable& tt = s.types();
  hir::Pat hp;
  hp.span = s.span(p.range);
  if (p.kind == ast::PatKind::Bind) {
    hp.kind = hir::PatKind::Bind;
    hp.local = declareLocal(s, s.name(p.name), hp.span, type, p.mut, false);
    if (init.valid()) recordPlacement(s, hp.local, init);
    return s.prog.add(hp);
  }
  hp.kind = hir::PatKind::Tuple;
  TypeId t = tt.resolve(type);
  std::vector<TypeId> elems;
  if (tt.kind(t) == TyKind::Tuple && tt.count(t) == p.list.count) {
    for (uint32_t i = 0; i < p.list.count; ++i) elems.push_back(tt.elem(t, i));
  } else {
    if (!tt.containsError(t))
      s.sink.emit(diag::KindMismatch("a tuple of " + countOf(p.list.count, "element"), "`" + tt.print(t) + "`")
                      .primary(hp.span, "this pattern destructures a tuple"));
    elems.assign(p.list.count, tt.error());
  }
  std::vector<uint32_t> subs;
  for (uint32_t i = 0; i < p.list.count; ++i)
    subs.push_back(bindPattern(s, ast::PatId{s.m->listAt(p.list, i)}, elems[i], {}).index);
  hp.elems = s.prog.addList(subs);
  return s.prog.add(hp);
}

// Checks that `place` may be written; reports E0205.
void checkMutable(Sema& s, hir::ExprId place, base::Span at) {
  hir::TypeTable& tt = s.types();
  const hir::Expr& e = s.prog.expr(place);
  switch (e.kind) {
    case hir::ExprKind::Local: {
      const hir::Local& l = s.prog.local(e.local);
      if (!l.mut && !tt.containsError(l.type)) {
        diag::Diagnostic d = diag::AssignToImmutable(l.name);
        d.primary(at, "cannot assign twice to immutable variable").secondary(l.span, "first assignment to `" + l.name + "`");
        // A loop's index takes no `mut` in Vx's grammar.
        if (l.loopVar)
          d.help("a loop's index cannot be made mutable: copy it into a mutable variable, `let mut " + l.name + " = " +
                 l.name + ";`, at the start of the body");
        else
          d.suggest("consider making this binding mutable: `mut " + l.name + "`",
                    base::Span{l.span.file, l.span.begin, l.span.begin}, "mut ");
        s.sink.emit(std::move(d));
      }
      return;
    }
    case hir::ExprKind::Index:
    case hir::ExprKind::Field: {
      TypeId base = tt.resolve(s.prog.expr(e.a).type);
      if (tt.kind(base) == TyKind::Ref) {
        if (tt.get(base).sub == 0)
          s.sink.emit(diag::AssignThroughSharedRef("the indexed value")
                          .primary(at, "cannot assign through a `&` reference")
                          .help("take a `&mut` reference instead"));
        return;
      }
      checkMutable(s, e.a, at);
      return;
    }
    case hir::ExprKind::Deref: {
      TypeId r = tt.resolve(s.prog.expr(e.a).type);
      if (tt.kind(r) == TyKind::Ref && tt.get(r).sub == 0)
        s.sink.emit(diag::AssignThroughSharedRef("*")
                        .primary(at, "cannot assign through a `&` reference")
                        .help("take a `&mut` reference instead"));
      return;
    }
    default: return;
  }
}

hir::StmtId checkAssign(Sema& s, const ast::Stmt& st, hir::Stmt& hs) {
  hir::TypeTable& tt = s.types();
  hs.kind = hir::StmtKind::Assign;
  hs.op = st.op;
  hs.a = checkExpr(s, st.a);
  const hir::Expr& place = s.prog.expr(hs.a);
  // Writing a variable is not reading it.
  if (place.kind == hir::ExprKind::Local && s.prog.local(place.local).uses > 0 &&
      !tt.containsError(s.prog.local(place.local).type))
    --s.prog.local(place.local).uses;
  TypeId placeTy = place.type;
  if (!isPlace(s.prog, hs.a)) {
    if (!tt.containsError(placeTy))
      s.sink.emit(diag::InvalidAssignTarget().primary(place.span, "cannot assign to this expression"));
    hs.b = checkExpr(s, st.b);
    return s.prog.add(hs);
  }
  // A pipelined copy is its trip's slot of a ring (pipeline.md): the whole
  // of it cannot be given another value.
  if (place.kind == hir::ExprKind::Index && s.prog.expr(place.a).kind == hir::ExprKind::Local &&
      s.pipelineAliases.count(s.prog.expr(place.a).local.index)) {
    const std::string name = s.prog.local(s.prog.expr(place.a).local).name;
    s.sink.emit(diag::PipelineMisuse("cannot assign to `" + name + "`, a copy of a pipelined loop")
                    .primary(place.span, "a slot of the ring the loop copies into")
                    .help("bind the new value to a variable of its own (`let y = ...;`), or write into `" + name +
                          "` with an `_into` operation (`exp_into(&mut " + name + ", ..)`)"));
    hs.b = checkExpr(s, st.b);
    return s.prog.add(hs);
  }
  checkMutable(s, hs.a, place.span);
  checkGridWrite(s, hs.a, place.span);
  if (st.op != ast::Op::Assign && !tt.isNumeric(placeTy) && !tt.containsError(placeTy)) {
    s.sink.emit(diag::BinaryOperandMismatch(ast::opSpelling(st.op), tt.print(placeTy), "_")
                    .primary(place.span, "not a number"));
    hs.b = checkExpr(s, st.b);
    return s.prog.add(hs);
  }
  hs.b = checkExpr(s, st.b, placeTy);
  return s.prog.add(hs);
}

hir::StmtId checkIf(Sema& s, ast::StmtId id) {
  const ast::Stmt& st = s.m->stmt(id);
  hir::Stmt hs;
  hs.kind = hir::StmtKind::If;
  hs.span = s.span(st.range);
  hs.a = checkExpr(s, st.a, s.types().boolTy());
  hs.body = checkBlock(s, st.body, {});
  if (st.elseStmt.valid()) hs.elseStmt = checkStmt(s, st.elseStmt);
  return s.prog.add(hs);
}

// `parallel (i, j) in [e0, e1] { body }` (grid.md §3): a statement of a
// `Topology::TensorCore` function's body, one per function, not nested;
// the indices are `usize` bindings of the body, which runs once per index
// tuple, every instance concurrently.
hir::StmtId checkParallel(Sema& s, const ast::Stmt& st, hir::Stmt& hs) {
  hir::TypeTable& tt = s.types();
  hs.kind = hir::StmtKind::Parallel;
  const hir::Function& f = s.currentFn();
  base::Span head{hs.span.file, hs.span.begin, hs.span.begin + 8};
  bool ok = true;
  auto misuse = [&](const std::string& msg, const std::string& label, const std::string& help) {
    diag::Diagnostic d = diag::GridMisuse(msg);
    d.primary(head, label);
    if (!help.empty()) d.help(help);
    s.sink.emit(std::move(d));
    ok = false;
  };
  if (f.topology != hir::Topology::TensorCore && !f.topologyUnknown)
    misuse("`parallel` launches instances on the machine's cores; `" + f.name + "` runs on `Topology::" +
               hir::topologyName(f.topology) + "`",
           "a grid outside a kernel", "declare the function `on Topology::TensorCore`");
  else if (s.gridDepth > 0)
    misuse("`parallel` grids do not nest", "a grid inside a grid",
           "give the outer grid one more index: `parallel (i, j) in [e0, e1]`");
  else if (s.scopes.size() != 2 || s.loopDepth > 0)
    misuse("a `parallel` grid is a statement of its function's body, not of a loop, branch or block",
           "a grid inside a block", "move it to the function's body; each instance may loop and branch");
  else if (f.grid)
    misuse("a function has at most one `parallel` grid", "a second grid",
           "split the kernel: one function per grid, called one after the other");
  uint32_t exprBegin = static_cast<uint32_t>(s.prog.exprs.size());
  std::vector<uint32_t> extents;
  for (uint32_t i = 0; i < st.list.count; ++i)
    extents.push_back(checkExpr(s, ast::ExprId{s.m->listAt(st.list, i)}, tt.usize()).index);
  hs.extents = s.prog.addList(extents);
  // The indices: `i` or `(i, j, ...)`, one per extent.
  const ast::Pat& p = s.m->pat(st.pat);
  std::vector<const ast::Pat*> binds;
  if (p.kind == ast::PatKind::Bind) binds.push_back(&p);
  else
    for (uint32_t i = 0; i < p.list.count; ++i) binds.push_back(&s.m->pat(ast::PatId{s.m->listAt(p.list, i)}));
  bool flat = true;
  for (const ast::Pat* b : binds) flat = flat && b->kind == ast::PatKind::Bind && !b->mut;
  if (!flat || binds.size() != st.list.count) {
    s.sink.emit(diag::GridMisuse("a grid of " + countOf(st.list.count, "extent") + " needs " +
                                 countOf(st.list.count, "index", "indices") + ", one name each")
                    .primary(s.span(p.range), "the instance's indices")
                    .help("write `parallel (i, j) in [e0, e1] { ... }`: the indices are immutable `usize` names"));
    ok = false;
  }
  // `parallel (i, i) in ...`: one name for two indices (Rust refuses it too).
  for (size_t i = 0; i < binds.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (binds[i]->kind == ast::PatKind::Bind && binds[j]->kind == ast::PatKind::Bind &&
          s.name(binds[i]->name) == s.name(binds[j]->name) && s.name(binds[i]->name) != "_") {
        s.sink.emit(diag::DuplicateBinding(std::string(s.name(binds[i]->name)), "grid index list")
                        .primary(s.span(binds[i]->range), "used again")
                        .secondary(s.span(binds[j]->range), "first bound here"));
        ok = false;
        break;
      }
  s.scopes.emplace_back();
  s.gridFirstLocal = static_cast<uint32_t>(s.prog.locals.size());
  std::vector<uint32_t> vars;
  for (const ast::Pat* b : binds)
    if (b->kind == ast::PatKind::Bind) {
      vars.push_back(declareLocal(s, s.name(b->name), s.span(b->range), tt.usize(), false, false).index);
      s.prog.locals[vars.back()].loopVar = true;
    }
  hs.vars = s.prog.addList(vars);
  int loops = s.loopDepth;
  s.loopDepth = 0;  // `break` and `continue` do not leave an instance
  ++s.gridDepth;
  hs.body = checkBlock(s, st.body, {});
  --s.gridDepth;
  s.loopDepth = loops;
  s.scopes.pop_back();
  if (ok) {
    s.prog.fns[s.fn.index].grid = true;
    s.gridExprBegin = exprBegin;
    s.gridExprEnd = static_cast<uint32_t>(s.prog.exprs.size());
  }
  return s.prog.add(hs);
}

hir::StmtId checkStmt(Sema& s, ast::StmtId id) {
  const ast::Stmt& st = s.m->stmt(id);
  hir::TypeTable& tt = s.types();
  hir::Stmt hs;
  hs.span = s.span(st.range);
  switch (st.kind) {
    case ast::StmtKind::Let: {
      hs.kind = hir::StmtKind::Let;
      TypeId annotated = st.type.valid() ? lowerType(s, st.type) : TypeId{};
      hs.a = checkExpr(s, st.a, annotated);
      TypeId t = annotated.valid() ? annotated : s.prog.expr(hs.a).type;
      if (tt.containsError(s.prog.expr(hs.a).type)) t = tt.error();
      // `let (t, t) = ...`: one name bound twice (Rust refuses it too); the
      // second would hide the first, which is then only dropped.
      base::Span shadowedFirst;
      {
        std::vector<const ast::Pat*> binds, stack{&s.m->pat(st.pat)};
        while (!stack.empty()) {
          const ast::Pat* p = stack.back();
          stack.pop_back();
          if (p->kind == ast::PatKind::Bind) {
            binds.push_back(p);
            continue;
          }
          for (uint32_t i = p->list.count; i-- > 0;) stack.push_back(&s.m->pat(ast::PatId{s.m->listAt(p->list, i)}));
        }
        for (size_t i = 0; i < binds.size() && !shadowedFirst.valid(); ++i)
          for (size_t j = 0; j < i; ++j)
            if (s.name(binds[i]->name) == s.name(binds[j]->name) && s.name(binds[i]->name) != "_") {
              s.sink.emit(diag::DuplicateBinding(std::string(s.name(binds[i]->name)), "pattern")
                              .primary(s.span(binds[i]->range), "used again")
                              .secondary(s.span(binds[j]->range), "first bound here"));
              shadowedFirst = s.span(binds[j]->range);
              break;
            }
      }
      size_t localsBefore = s.prog.locals.size();
      hs.pat = bindPattern(s, st.pat, t, hs.a);
      // The first binding is not also "never read" (one mistake, one error).
      for (size_t i = localsBefore; shadowedFirst.valid() && i < s.prog.locals.size(); ++i)
        if (s.prog.locals[i].span.file == shadowedFirst.file && s.prog.locals[i].span.begin == shadowedFirst.begin)
          ++s.prog.locals[i].uses;
      return s.prog.add(hs);
    }
    case ast::StmtKind::Assign: return checkAssign(s, st, hs);
    case ast::StmtKind::For: {
      if (st.depth.valid()) return checkPipeline(s, st, hs.span);
      hs.kind = hir::StmtKind::For;
      hs.a = checkExpr(s, st.a);
      TypeId lo = s.prog.expr(hs.a).type;
      if (!tt.isInteger(lo) && !tt.containsError(lo)) {
        s.sink.emit(diag::KindMismatch("an integer", "`" + tt.print(lo) + "`")
                        .primary(s.prog.expr(hs.a).span, "ranges are over integers"));
        lo = tt.error();
      }
      hs.b = checkExpr(s, st.b, lo);
      s.scopes.emplace_back();
      hs.var = declareLocal(s, s.name(st.var), s.span(st.varRange), lo, false, false);
      s.prog.locals[hs.var.index].loopVar = true;
      ++s.loopDepth;
      hs.body = checkBlock(s, st.body, {});
      --s.loopDepth;
      s.scopes.pop_back();
      return s.prog.add(hs);
    }
    case ast::StmtKind::While:
      hs.kind = hir::StmtKind::While;
      hs.a = checkExpr(s, st.a, tt.boolTy());
      ++s.loopDepth;
      hs.body = checkBlock(s, st.body, {});
      --s.loopDepth;
      return s.prog.add(hs);
    case ast::StmtKind::If: return checkIf(s, id);
    case ast::StmtKind::Parallel: return checkParallel(s, st, hs);
    case ast::StmtKind::Return: {
      hs.kind = hir::StmtKind::Return;
      if (!s.pipelineLoops.empty())
        s.sink.emit(diag::PipelineMisuse("`return` inside a pipelined loop would leave its copies in flight")
                        .primary(hs.span, "leaves the pipelined loop")
                        .help("finish the loop and return after it, or use a plain `for` with the copies "
                              "written out"));
      if (s.gridDepth > 0)
        s.sink.emit(diag::GridMisuse("`return` cannot leave a `parallel` instance")
                        .primary(hs.span, "inside the grid's body")
                        .help("an instance ends at the end of the grid's body: put the rest of the instance "
                              "under an `if`"));
      TypeId ret = s.currentFn().ret;
      if (st.a.valid()) {
        hs.a = checkExpr(s, st.a, ret);
      } else if (tt.kind(tt.resolve(ret)) != TyKind::Void && !tt.containsError(ret)) {
        s.sink.emit(diag::TypeMismatch(tt.print(ret), "void")
                        .primary(hs.span, "`return` without a value")
                        .secondary(s.currentFn().nameSpan, "declared to return `" + tt.print(ret) + "`"));
      }
      return s.prog.add(hs);
    }
    case ast::StmtKind::Break:
    case ast::StmtKind::Continue:
      hs.kind = st.kind == ast::StmtKind::Break ? hir::StmtKind::Break : hir::StmtKind::Continue;
      if (s.loopDepth == 0)
        s.sink.emit(diag::BreakOutsideLoop(st.kind == ast::StmtKind::Break ? "break" : "continue")
                        .primary(hs.span, "not inside `for` or `while`"));
      else if (st.kind == ast::StmtKind::Break && !s.pipelineLoops.empty() && s.pipelineLoops.back() == s.loopDepth)
        s.sink.emit(diag::PipelineMisuse("`break` out of a pipelined loop would leave its copies in flight")
                        .primary(hs.span, "leaves the pipelined loop")
                        .help("a pipelined loop runs all its trips (`continue` is fine); loop over fewer "
                              "trips, or use a plain `for` with the copies written out"));
      return s.prog.add(hs);
    case ast::StmtKind::Block:
      hs.kind = hir::StmtKind::Block;
      hs.body = checkBlock(s, st.body, {});
      return s.prog.add(hs);
    case ast::StmtKind::Expr:
      hs.kind = hir::StmtKind::Expr;
      hs.a = checkExpr(s, st.a);
      return s.prog.add(hs);
    case ast::StmtKind::Empty: return hir::StmtId{};
  }
  return hir::StmtId{};
}

}  // namespace

hir::BlockId checkBlock(Sema& s, ast::BlockId id, TypeId expectedTail) {
  return checkBlockFrom(s, id, 0, expectedTail);
}

hir::BlockId checkBlockFrom(Sema& s, ast::BlockId id, uint32_t first, TypeId expectedTail) {
  const ast::Block& b = s.m->block(id);
  hir::Block hb;
  hb.span = s.span(b.range);
  hb.closeBrace = base::Span{hb.span.file, b.range.end - 1, b.range.end};
  s.scopes.emplace_back();
  std::vector<uint32_t> stmts;
  for (uint32_t i = first; i < b.stmts.count; ++i) {
    hir::StmtId sid = checkStmt(s, ast::StmtId{s.m->listAt(b.stmts, i)});
    if (sid.valid()) stmts.push_back(sid.index);
  }
  hb.stmts = s.prog.addList(stmts);
  if (b.tail.valid()) hb.tail = checkExpr(s, b.tail, expectedTail);
  s.scopes.pop_back();
  return s.prog.add(hb);
}

}  // namespace vx::check

// The pipeline form (docs/pipeline.md):
//
//   for k in pipeline(lo..hi, depth = D) {
//     let x = transfer(src(k), Memory::VMEM);   // the copies it pipelines
//     ... body reading x ...
//   }
//
// means the plain loop (remove `pipeline(...)` and the program computes the
// same), run with the copy of trip k + D - 1 in flight while trip k
// computes. Sema checks what the user wrote once and returns the statement it
// stands for, built from the checked HIR:
//
//   {
//     let k.lo = lo;  let k.hi = hi;
//     if k.lo < k.hi {
//       let mut x = zeros::<E, [D, ..]>(M);             // the ring, D slots
//       if k.hi - k.lo >= D - 1 {                      // (only when D > 2)
//         let mut x.copy1 = transfer_async_into(src(k.lo), &mut x[k.lo % D]);
//         ...                                          // trips lo .. lo+D-2
//         for k in k.lo..k.hi {
//           let x.copy0 = x.copy1;                     // trip k's copy
//           let k.left = k.hi - k;
//           if k.left > D - 1 {                        // steady state:
//             x.copy1 = x.copy2; ...                   // copy j holds trip k + j - 1
//             x.copy{D-1} = transfer_async_into(src(k + D - 1), &mut x[(k + D - 1) % D]);
//           } else {                                   // the last D - 1 trips,
//             if k.left > 1 { x.copy1 = x.copy2;       // nested: no path moves
//               if k.left > 2 { ... } }                // a later copy alone
//           }
//           wait(x.copy0);
//           { body, `x` read as x[k % D] }
//         }
//       } else {                                       // fewer trips than D - 1:
//         ... the same with one copy ahead, over a copy of the body
//       }
//     }
//   }
//
// No copy is started for a trip that does not exist and none is left in
// flight. The ownership checker then proves this program like any other:
// a body that writes what a later trip's copy reads (E6005), reads a slot a
// copy is filling (E6004), or a ring over the on-chip capacity (E6007) is
// reported at the user's lines.
#include <algorithm>
#include <functional>

#include "check/Sema.h"
#include "diag/DiagKinds.h"

namespace vx::check {

namespace {

using hir::ExprKind;
using hir::StmtKind;
using hir::TyKind;
using hir::TypeId;

// More slots than this are a mistake, not a tuning choice (each is a buffer
// per copy, and the prologue starts depth - 1 copies per copy).
constexpr uint64_t kMaxDepth = 16;

struct Load {
  hir::LocalId ring;
  hir::ExprId src;  // the checked `transfer`'s source (reads the loop variable)
  hir::ExprId mem;  // its memory space
  TypeId slot, ringTy, token;
  base::Span span;  // the `transfer(...)` call
  std::string name;
};

// Builds the HIR the form stands for.
struct Builder {
  Sema& s;
  base::Span at;
  hir::TypeTable& tt;

  hir::ExprId add(hir::Expr e) {
    if (!e.span.valid()) e.span = at;
    return s.prog.add(e);
  }
  hir::ExprId num(uint64_t v) {
    hir::Expr e;
    e.kind = ExprKind::Int;
    e.value = v;
    e.type = tt.usize();
    return add(e);
  }
  hir::ExprId local(hir::LocalId l) {
    hir::Expr e;
    e.kind = ExprKind::Local;
    e.local = l;
    e.type = s.prog.local(l).type;
    return add(e);
  }
  hir::ExprId binary(ast::Op op, hir::ExprId a, hir::ExprId b, TypeId type) {
    hir::Expr e;
    e.kind = ExprKind::Binary;
    e.op = op;
    e.a = a;
    e.b = b;
    e.type = type;
    return add(e);
  }
  // A call of the prelude's builtin `fn`, even where the user's file has an
  // item of its name.
  hir::ExprId call(hir::Builtin fn, std::vector<uint32_t> args, TypeId type, base::Span span) {
    hir::Expr e;
    e.kind = ExprKind::Call;
    e.fn = s.builtinFns.at(static_cast<uint32_t>(fn));
    e.args = s.prog.addList(args);
    e.type = type;
    e.span = span;
    return add(e);
  }
  hir::StmtId let(hir::LocalId l, hir::ExprId init) {
    hir::Pat p;
    p.kind = hir::PatKind::Bind;
    p.local = l;
    p.span = s.prog.local(l).span;
    hir::Stmt st;
    st.kind = StmtKind::Let;
    st.span = at;
    st.pat = s.prog.add(p);
    st.a = init;
    return s.prog.add(st);
  }
  hir::StmtId assign(hir::LocalId l, hir::ExprId value) {
    hir::Stmt st;
    st.kind = StmtKind::Assign;
    st.op = ast::Op::Assign;
    st.span = at;
    st.a = local(l);
    st.b = value;
    return s.prog.add(st);
  }
  hir::StmtId expr(hir::ExprId e) {
    hir::Stmt st;
    st.kind = StmtKind::Expr;
    st.span = s.prog.expr(e).span;
    st.a = e;
    return s.prog.add(st);
  }
  hir::BlockId block(const std::vector<hir::StmtId>& stmts) {
    std::vector<uint32_t> ids;
    for (hir::StmtId id : stmts) ids.push_back(id.index);
    hir::Block b;
    b.span = at;
    b.closeBrace = base::Span{at.file, at.end > 0 ? at.end - 1 : 0, at.end};
    b.stmts = s.prog.addList(ids);
    return s.prog.add(b);
  }
  hir::StmtId nest(hir::BlockId b) {
    hir::Stmt st;
    st.kind = StmtKind::Block;
    st.span = at;
    st.body = b;
    return s.prog.add(st);
  }
  hir::StmtId ifThen(hir::ExprId cond, hir::BlockId then, hir::StmtId otherwise = {}) {
    hir::Stmt st;
    st.kind = StmtKind::If;
    st.span = at;
    st.a = cond;
    st.body = then;
    st.elseStmt = otherwise;
    return s.prog.add(st);
  }
  hir::StmtId loop(hir::LocalId var, hir::LocalId lo, hir::LocalId hi, hir::BlockId body) {
    hir::Stmt st;
    st.kind = StmtKind::For;
    st.span = at;
    st.var = var;
    st.a = local(lo);
    st.b = local(hi);
    st.body = body;
    return s.prog.add(st);
  }
  hir::LocalId hidden(const std::string& name, TypeId type, bool mut) {
    hir::Local l;
    l.name = name;
    l.span = at;
    l.type = type;
    l.mut = mut;
    l.uses = 1;  // not the user's: never "unused"
    return s.prog.add(l);
  }
  // `transfer_async_into(src(trip), &mut ring[trip % depth])`.
  hir::ExprId copyAt(const Load& x, hir::LocalId var, hir::ExprId trip, uint64_t depth) {
    hir::Cloner c(s.prog);
    c.subst[var.index] = trip;
    hir::ExprId src = c.expr(x.src);
    hir::Cloner plain(s.prog);
    hir::Expr slot;
    slot.kind = ExprKind::Index;
    slot.a = local(x.ring);
    slot.b = binary(ast::Op::Rem, plain.expr(trip), num(depth), tt.usize());
    slot.type = x.slot;
    slot.span = x.span;
    hir::Expr dst;
    dst.kind = ExprKind::Borrow;
    dst.mut = true;
    dst.a = add(slot);
    dst.type = tt.ref(x.slot, true);
    dst.span = x.span;
    return call(hir::Builtin::TransferAsyncInto, {src.index, add(dst).index}, x.token, x.span);
  }
};

// The variable a place is reached from, through references too (`idx` of
// `idx[k]` with `idx: &mut Tensor<..>`, `r` of `*r`); none for a place
// that is not a variable's (a call's result).
hir::LocalId reachedFrom(const hir::Program& p, hir::ExprId place) {
  for (hir::ExprId e = place; e.valid();) {
    const hir::Expr& x = p.expr(e);
    if (x.kind == ExprKind::Local) return x.local;
    if (x.kind != ExprKind::Deref && x.kind != ExprKind::Index && x.kind != ExprKind::Field) return {};
    e = x.a;
  }
  return {};
}

// The variables a block may change, at any depth: assigned places and
// `&mut` borrows by the variable they belong to (`owned`: not through a
// reference), or else also `&mut` references passed to calls and places
// reached through references, by the variable they are reached from (a
// write through a `&mut` parameter changes the values a source reads
// through it).
void writtenLocals(const hir::Program& p, hir::BlockId b, bool owned, std::vector<uint32_t>& out) {
  auto rootOf = [&](hir::ExprId place) { return owned ? ownedRoot(p, place) : reachedFrom(p, place); };
  const hir::TypeTable& tt = p.types;
  auto mutRef = [&](hir::TypeId t) {
    hir::TypeId r = tt.resolve(t);
    return tt.kind(r) == TyKind::Ref && tt.get(r).sub == 1;
  };
  // `value`: the expression is used as a value (not the place an index, a
  // field, a dereference or a borrow starts from).
  std::function<void(hir::ExprId, bool)> expr = [&](hir::ExprId id, bool value) {
    if (!id.valid()) return;
    const hir::Expr& e = p.expr(id);
    if (e.kind == ExprKind::Borrow && e.mut)
      if (hir::LocalId r = rootOf(e.a); r.valid()) out.push_back(r.index);
    // A `&mut` used as a value (bound, `let r = idx;`, passed to a call, put
    // in a tuple): whatever receives it may write through it.
    if (!owned && value && mutRef(e.type))
      if (hir::LocalId r = reachedFrom(p, id); r.valid()) out.push_back(r.index);
    const bool path = e.kind == ExprKind::Borrow || e.kind == ExprKind::Index || e.kind == ExprKind::Field ||
                      e.kind == ExprKind::Deref;
    expr(e.a, !path);
    expr(e.b, true);
    for (uint32_t i = 0; i < e.args.count; ++i) expr(p.arg(e, i), true);
  };
  std::function<void(hir::BlockId)> block;
  std::function<void(hir::StmtId)> stmt = [&](hir::StmtId id) {
    if (!id.valid()) return;
    const hir::Stmt& st = p.stmt(id);
    if (st.kind == StmtKind::Assign)
      if (hir::LocalId r = rootOf(st.a); r.valid()) out.push_back(r.index);
    expr(st.a, st.kind != StmtKind::Assign);
    expr(st.b, true);
    if (st.body.valid()) block(st.body);
    stmt(st.elseStmt);
  };
  block = [&](hir::BlockId id) {
    const hir::Block& blk = p.block(id);
    for (uint32_t i = 0; i < blk.stmts.count; ++i) stmt(hir::StmtId{p.listAt(blk.stmts, i)});
    expr(blk.tail, true);
  };
  block(b);
}

bool isTransferLet(Sema& s, const ast::Stmt& st) {
  if (st.kind != ast::StmtKind::Let || s.m->pat(st.pat).kind != ast::PatKind::Bind) return false;
  const ast::Expr& init = s.m->expr(st.a);
  if (init.kind != ast::ExprKind::Call) return false;
  const ast::Expr& callee = s.m->expr(init.lhs);
  if (callee.kind != ast::ExprKind::Path) return false;
  const ast::Path& path = s.m->path(ast::PathId{callee.payload});
  if (path.segments.count != 1 || path.hasGenerics || s.name(ast::NameId{s.m->listAt(path.segments, 0)}) != "transfer")
    return false;
  // The builtin, not a function of the file that shadows it (whose call is
  // the user's, and not a copy the form may pipeline).
  auto found = s.fnByName.find("transfer");
  return found != s.fnByName.end() && s.prog.fns[found->second.index].builtin == hir::Builtin::Transfer;
}

}  // namespace

hir::StmtId checkPipeline(Sema& s, const ast::Stmt& st, base::Span span) {
  hir::TypeTable& tt = s.types();
  Builder b{s, span, tt};
  bool ok = true;
  auto misuse = [&](const std::string& msg, base::Span where, const std::string& label, const std::string& help) {
    diag::Diagnostic d = diag::PipelineMisuse(msg);
    d.primary(where, label);
    if (!help.empty()) d.help(help);
    s.sink.emit(std::move(d));
    ok = false;
  };
  const std::string var = s.name(st.var);
  base::Span formAt = s.span(st.formRange);
  if (s.name(st.form) != "pipeline")
    misuse("`" + s.name(st.form) + "(...)` is not a loop form: a `for` runs over `lo..hi` or `pipeline(lo..hi, depth = D)`",
           formAt, "unknown loop form", "write `pipeline(lo..hi, depth = D)`, or a plain range `lo..hi`");
  if (s.name(st.option) != "depth")
    misuse("`pipeline` takes one option, `depth`; found `" + s.name(st.option) + "`", s.span(st.optionRange),
           "unknown option", "write `depth = D`: a ring of D slots per copy, D - 1 copies in flight ahead of the trip "
                             "that computes");
  hir::ExprId lo = checkExpr(s, st.a, tt.usize());
  hir::ExprId hi = checkExpr(s, st.b, tt.usize());
  hir::ExprId depthExpr = checkExpr(s, st.depth, tt.usize());
  uint64_t depth = 0;
  if (!tt.containsError(s.prog.expr(depthExpr).type)) {
    ConstFold f = foldConstInt(s, depthExpr);
    base::Span dAt = s.prog.expr(depthExpr).span;
    if (f.status == ConstFold::Status::Failed) {
      reportConstFold(s, f);
      ok = false;
    } else if (f.status == ConstFold::Status::NotConstant) {
      misuse("a pipeline's depth is a compile-time constant: it sizes the ring", dAt, "not a constant",
             "use a literal or a `const` item (and tune it with `--const NAME=VALUE` or `vxc tune`)");
    } else if (f.value < 1 || f.value > static_cast<__int128>(kMaxDepth)) {
      misuse("a pipeline's depth is 1 to " + std::to_string(kMaxDepth) + " ring slots per copy; this one is " +
                 (f.value < 0 ? "negative" : std::to_string(static_cast<uint64_t>(f.value))),
             dAt, "out of range", "depth 1 copies each trip's data before it computes; depth D keeps D - 1 copies in "
                                  "flight");
    } else {
      depth = static_cast<uint64_t>(f.value);
    }
  } else {
    ok = false;
  }

  // The copies it pipelines: the body's leading `let x = transfer(...);`.
  const ast::Block& body = s.m->block(st.body);
  uint32_t nLoads = 0;
  while (nLoads < body.stmts.count && isTransferLet(s, s.m->stmt(ast::StmtId{s.m->listAt(body.stmts, nLoads)})))
    ++nLoads;
  if (nLoads == 0) {
    diag::Diagnostic d = diag::PipelineMisuse("a pipelined loop's body starts with the copies it pipelines");
    d.primary(formAt, "no copy to pipeline");
    // `transfer` taken by a function of the file: its calls are the user's.
    auto found = s.fnByName.find("transfer");
    if (found != s.fnByName.end() && s.prog.fns[found->second.index].builtin != hir::Builtin::Transfer)
      d.secondary(s.prog.fns[found->second.index].nameSpan,
                  "this `transfer` shadows the builtin: its calls are not copies the form can pipeline");
    d.help("begin the body with `let x = transfer(src, Memory::VMEM);` (one or more), each source computed from `" +
           var + "`");
    s.sink.emit(std::move(d));
    ok = false;
  }

  // The hidden bounds, then the loop's scope: its variable and the copies'
  // names (each a ring local whose uses are its slot of the trip).
  s.scopes.emplace_back();
  hir::LocalId loL = b.hidden(var + ".lo", tt.usize(), false);
  hir::LocalId hiL = b.hidden(var + ".hi", tt.usize(), false);
  const uint32_t outside = loL.index;  // locals before this are the code around the loop
  s.scopes.emplace_back();
  hir::LocalId k = declareLocal(s, var, s.span(st.varRange), tt.usize(), false, false);
  s.prog.locals[k.index].loopVar = true;
  ++s.loopDepth;
  s.pipelineLoops.push_back(s.loopDepth);
  std::vector<Load> loads;
  for (uint32_t i = 0; i < nLoads; ++i) {
    const ast::Stmt& ls = s.m->stmt(ast::StmtId{s.m->listAt(body.stmts, i)});
    const ast::Pat& pat = s.m->pat(ls.pat);
    hir::ExprId call = checkExpr(s, ls.a, ls.type.valid() ? lowerType(s, ls.type) : TypeId{});
    const hir::Expr& c = s.prog.expr(call);
    Load x;
    x.name = s.name(pat.name);
    x.span = c.span;
    x.slot = c.type;
    TypeId pinned = tt.resolve(c.type);
    bool typed = c.kind == ExprKind::Call && c.args.count == 2 && !tt.containsError(c.type) &&
                 tt.kind(pinned) == TyKind::Pinned;
    TypeId tensor = typed ? tt.resolve(tt.get(pinned).a) : TypeId{};
    if (typed && tt.kind(tensor) != TyKind::Tensor) {
      misuse("a pipelined copy is of a tensor; `" + x.name + "` is `" + tt.print(tt.get(pinned).a) + "`", c.span,
             "not a tensor", "");
      typed = false;
    }
    std::vector<TypeId> dims;
    if (typed) {
      TypeId shape = tt.resolve(tt.get(tensor).b);
      dims.push_back(tt.dim(depth ? depth : 1));
      for (uint32_t d = 0; d < tt.count(shape); ++d) dims.push_back(tt.elem(shape, d));
      x.src = s.prog.arg(c, 0);
      x.mem = s.prog.arg(c, 1);
      TypeId memTy = tt.get(pinned).b;
      x.ringTy = tt.pinned(tt.tensor(tt.get(tensor).a, tt.shape(dims)), memTy);
      x.token = tt.token(tt.voidTy(), memTy);
    } else {
      ok = false;
    }
    x.ring = declareLocal(s, x.name, s.span(pat.range), typed ? x.ringTy : tt.error(), pat.mut, false);
    if (typed) {
      s.pipelineAliases[x.ring.index] = Sema::PipelineAlias{k, depth ? depth : 1, x.slot};
      s.prog.local(x.ring).slot = x.slot;
    }
    loads.push_back(x);
  }
  hir::BlockId userBody = checkBlockFrom(s, st.body, nLoads, {});
  s.pipelineLoops.pop_back();
  --s.loopDepth;
  s.scopes.pop_back();
  s.scopes.pop_back();

  // A source is evaluated D - 1 trips early: it may read the loop variable
  // and what the code around the loop fixed, nothing the body changes. The
  // place copied (`tiles` of `tiles[k]`, `a` of `block(a, ..)`) is read by
  // the copy, whose hazards the ownership checker proves; the values the
  // source computes with (its indices and offsets, `idx[k]` of
  // `tiles[idx[k] as usize]`) are read when it is evaluated, and may not
  // be anything the body writes, through a reference or not.
  std::vector<uint32_t> written, writtenThrough;
  writtenLocals(s.prog, userBody, true, written);
  writtenLocals(s.prog, userBody, false, writtenThrough);
  for (const Load& x : loads) {
    if (!x.src.valid()) continue;
    bool reported = false;  // one error per source
    auto misuseOnce = [&](const std::string& msg, base::Span where, const std::string& label, const std::string& help) {
      if (!reported) misuse(msg, where, label, help);
      reported = true;
    };
    // `copied`: the expression is the place copied (or leads to it), not a
    // value the source computes with.
    std::function<void(hir::ExprId, bool)> deps = [&](hir::ExprId id, bool copied) {
      if (!id.valid() || reported) return;
      const hir::Expr& e = s.prog.expr(id);
      const std::vector<uint32_t>& changed = copied ? written : writtenThrough;
      if (e.kind == ExprKind::Local && e.local.index != k.index) {
        const hir::Local& l = s.prog.local(e.local);
        if (e.local.index >= outside)
          misuseOnce("the source of `" + x.name + "` reads `" + l.name +
                     "`, which the loop binds: a pipelined copy's source is computed before its trip starts",
                 e.span, "bound inside the pipelined loop",
                 "compute the source from `" + var + "` and values fixed before the loop");
        else if (std::find(changed.begin(), changed.end(), e.local.index) != changed.end())
          misuseOnce("the source of `" + x.name + "` reads `" + l.name + "`, which the loop's body changes; the copy of trip " +
                     var + " + " + std::to_string(depth > 0 ? depth - 1 : 0) + " starts on trip " + var +
                     ", before the body has changed it",
                 e.span, "changed by the loop's body", "compute the source from `" + var + "` and values fixed before the loop");
      }
      if (e.kind == ExprKind::Call) {
        hir::Builtin bi = s.prog.fn(e.fn).builtin;
        if (bi != hir::Builtin::Block && bi != hir::Builtin::BlockMut)
          misuseOnce("the source of `" + x.name + "` calls `" + s.prog.fn(e.fn).name +
                     "`: a pipelined copy's source is an expression of the loop variable (indexing, arithmetic, "
                     "`block`), evaluated trips early",
                 e.span, "a call in a pipelined source", "bind the value before the loop");
      }
      const bool path = copied && (e.kind == ExprKind::Borrow || e.kind == ExprKind::Index || e.kind == ExprKind::Field ||
                                   e.kind == ExprKind::Deref);
      deps(e.a, path);
      deps(e.b, false);
      bool view = false;
      if (e.kind == ExprKind::Call) {
        hir::Builtin bi = s.prog.fn(e.fn).builtin;
        view = copied && (bi == hir::Builtin::Block || bi == hir::Builtin::BlockMut);
      }
      for (uint32_t i = 0; i < e.args.count; ++i) deps(s.prog.arg(e, i), view && i == 0);
    };
    deps(x.src, true);
  }

  if (!ok || depth == 0) {
    // What was written, unpipelined, for the tools that read the HIR after
    // an error (the language server's index).
    hir::Stmt plain;
    plain.kind = StmtKind::For;
    plain.span = span;
    plain.var = k;
    plain.a = lo;
    plain.b = hi;
    plain.body = userBody;
    return s.prog.add(plain);
  }

  const uint64_t ahead = depth - 1;  // copies in flight while a trip computes
  std::vector<hir::StmtId> outer{b.let(loL, lo), b.let(hiL, hi)};
  std::vector<hir::StmtId> guarded;
  for (const Load& x : loads) {
    hir::Cloner c(s.prog);
    guarded.push_back(b.let(x.ring, b.call(hir::Builtin::Zeros, {c.expr(x.mem).index}, x.ringTy, x.span)));
  }
  auto tripPlus = [&](hir::LocalId base, uint64_t j) {
    return j == 0 ? b.local(base) : b.binary(ast::Op::Add, b.local(base), b.num(j), tt.usize());
  };
  // A trip that copies its own data: every copy started, then waited (the
  // copies of one trip overlap one another).
  auto copyThenWait = [&](hir::LocalId var, std::vector<hir::StmtId>& trip) {
    std::vector<hir::LocalId> now;
    for (const Load& x : loads) {
      now.push_back(b.hidden(x.name + ".copy0", x.token, false));
      trip.push_back(b.let(now.back(), b.copyAt(x, k, b.local(var), depth)));
    }
    for (size_t i = 0; i < loads.size(); ++i)
      trip.push_back(b.expr(b.call(hir::Builtin::Wait, {b.local(now[i]).index}, tt.voidTy(), loads[i].span)));
  };
  if (ahead == 0) {
    std::vector<hir::StmtId> trip;
    copyThenWait(k, trip);
    trip.push_back(b.nest(userBody));
    guarded.push_back(b.loop(k, loL, hiL, b.block(trip)));
  } else {
    // `n` copies ahead of trip `var`, which runs `body`: the prologue's
    // copies of trips lo .. lo + n - 1 and the loop. Needs n trips or more.
    auto pipelined = [&](uint64_t n, hir::LocalId var, hir::BlockId body) {
      std::vector<hir::StmtId> out;
      std::vector<std::vector<hir::LocalId>> copies(loads.size());  // [load][j]: trip var + j
      for (uint64_t j = 0; j < n; ++j)
        for (size_t i = 0; i < loads.size(); ++i) {
          copies[i].push_back(b.hidden(loads[i].name + ".copy" + std::to_string(j + 1), loads[i].token, true));
          out.push_back(b.let(copies[i].back(), b.copyAt(loads[i], k, tripPlus(loL, j), depth)));
        }
      // The trips left, k.hi - k (k < k.hi: no overflow), once per trip.
      hir::LocalId left = b.hidden(s.prog.local(var).name + ".left", tt.usize(), false);
      auto exists = [&](uint64_t j) {  // trip var + j exists: left > j
        return b.binary(ast::Op::Gt, b.local(left), b.num(j), tt.boolTy());
      };
      // The steady state, while trip var + n exists: every copy moves down
      // one (copy j + 1 holds trip var + j) and trip var + n's copy starts.
      std::vector<hir::StmtId> steady;
      for (uint64_t j = 1; j < n; ++j)
        for (size_t i = 0; i < loads.size(); ++i) steady.push_back(b.assign(copies[i][j - 1], b.local(copies[i][j])));
      for (size_t i = 0; i < loads.size(); ++i)
        steady.push_back(b.assign(copies[i][n - 1], b.copyAt(loads[i], k, tripPlus(var, n), depth)));
      // The drain, the last n trips: level j moves copy j + 1 down while
      // trip var + j exists, nested (innermost first) so that no path moves
      // a later copy without the earlier ones.
      hir::StmtId drain;
      for (uint64_t j = n - 1; j >= 1; --j) {
        std::vector<hir::StmtId> shift;
        for (size_t i = 0; i < loads.size(); ++i) shift.push_back(b.assign(copies[i][j - 1], b.local(copies[i][j])));
        if (drain.valid()) shift.push_back(drain);
        drain = b.ifThen(exists(j), b.block(shift));
      }
      hir::StmtId moves =
          b.ifThen(exists(n), b.block(steady), drain.valid() ? b.nest(b.block({drain})) : hir::StmtId{});
      // The trip's copies leave copy 1 for the trip's own variable first,
      // so that trip var + n's copy starts before this trip waits (its slot
      // was last read by trip var - 1): n copies in flight while one is
      // waited.
      std::vector<hir::StmtId> trip;
      std::vector<hir::LocalId> now;
      for (size_t i = 0; i < loads.size(); ++i) {
        now.push_back(b.hidden(loads[i].name + ".copy0", loads[i].token, false));
        trip.push_back(b.let(now.back(), b.local(copies[i][0])));
      }
      trip.push_back(b.let(left, b.binary(ast::Op::Sub, b.local(hiL), b.local(var), tt.usize())));
      trip.push_back(moves);
      for (size_t i = 0; i < loads.size(); ++i)
        trip.push_back(b.expr(b.call(hir::Builtin::Wait, {b.local(now[i]).index}, tt.voidTy(), loads[i].span)));
      trip.push_back(b.nest(body));
      out.push_back(b.loop(var, loL, hiL, b.block(trip)));
      return out;
    };
    std::vector<hir::StmtId> piped = pipelined(ahead, k, userBody);
    if (ahead == 1) {
      guarded.insert(guarded.end(), piped.begin(), piped.end());
    } else {
      // Fewer trips than copies ahead: one copy ahead, in a copy of the body.
      hir::Cloner c(s.prog);
      hir::LocalId k2 = c.fresh(k);
      hir::BlockId body2 = c.block(userBody);
      hir::ExprId enough = b.binary(ast::Op::Ge, b.binary(ast::Op::Sub, b.local(hiL), b.local(loL), tt.usize()),
                                    b.num(ahead), tt.boolTy());
      guarded.push_back(b.ifThen(enough, b.block(piped), b.nest(b.block(pipelined(1, k2, body2)))));
    }
  }
  outer.push_back(b.ifThen(b.binary(ast::Op::Lt, b.local(loL), b.local(hiL), tt.boolTy()), b.block(guarded)));
  return b.nest(b.block(outer));
}

}  // namespace vx::check

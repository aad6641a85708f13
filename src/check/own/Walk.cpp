// The walk over the core IR: the effect of each statement kind, and the
// walk of a region (the function's body, or one loop's body from its head)
// in topological order, nested loops collapsed to their heads (Loops.cpp
// runs them). At a block where paths meet, the two sides of one branch are
// joined on the branch's condition (exact, and the path condition is what
// it was before the branch when neither side changed it); other meetings
// are joined on fresh variables.
//
// An arm is entered without asking the solver whether it can be taken: its
// findings carry its path condition, so nothing is reported from an arm
// that cannot run. The question is asked once, lazily, before the first
// statement that is not plain scalar code (a call, a borrow, a token, a
// loop, an exit), so a long `else if` chain over scalars costs no query
// per arm and an infeasible arm's loops are not analysed.
#include "check/own/Analysis.h"

namespace vx::check::own {

using cir::RvKind;
using cir::StmtKind;

namespace {

// The place's root location for an E6001 check: its fields, up to the
// first dereference or index.
bool rootLoc(const Analysis& a, const cir::Place& p, Loc& out, hir::TypeId& type) {
  Loc l{p.local.index, 0};
  type = a.body.local(p.local).type;
  for (uint32_t i = 0; i < p.proj.count; ++i) {
    const cir::Proj& x = a.body.proj(p, i);
    if (x.kind != cir::ProjKind::Field) break;
    if (!childLoc(l, x.field, l)) return false;
    type = x.type;
  }
  out = l;
  return true;
}

// The old value of a location being assigned: its tokens are overwritten
// (E6003), its buffers written (E6004-E6006 against copies using them).
void overwrite(Analysis& a, State& s, Loc l, hir::TypeId type, base::Span at) {
  const hir::TypeTable& tt = a.types();
  hir::TypeId r = tt.resolve(type);
  if (tt.kind(r) == hir::TyKind::Token) {
    std::string name = locName(a, l);
    dropValue(a, s, peekValue(a, s, l, r), at, name.empty() ? sourceText(a, at) : name, DropHow::Overwritten);
    return;
  }
  if (isMoveOnly(a, r)) {
    if (!s.moved.count(l)) return;  // bound for the first time
    Place p;
    p.root = l;
    p.text = locName(a, l);
    if (p.text.empty()) p.text = sourceText(a, at);
    access(a, s, {Alt{p, a.terms.tru()}}, AccessHow::Write, at, kNoVia);
    return;
  }
  if (tt.kind(r) != hir::TyKind::Tuple) return;
  for (uint32_t i = 0; i < tt.count(r); ++i) {
    Loc c;
    if (childLoc(l, i, c)) overwrite(a, s, c, tt.elem(r, i), at);
  }
}

void assignTo(Analysis& a, State& s, const cir::Stmt& st, const Value& v) {
  if (!st.dest.valid()) return;
  hir::TypeId type = a.body.typeOf(st.dest);
  Loc l;
  if (locOf(a, st.dest, l)) {
    if (!isMoveOnly(a, a.types().resolve(type))) checkAssignLoans(a, s, l, sourceText(a, st.dest.span), st.dest.span);
    overwrite(a, s, l, type, st.dest.span);
    bindValue(a, s, l, type, v);
    return;
  }
  // Through a reference or an index.
  if (hasTokens(a, type)) {
    // A token stored behind a reference overwrites its lender's.
    Finding f;
    f.rule = Rule::BehindRef;
    f.at = st.dest.span;
    f.subject = sourceText(a, st.dest.span);
    addFinding(a, s, std::move(f), a.terms.tru());
    return;
  }
  Loc via = kNoVia;
  hir::TypeId rootType;
  if (!a.body.local(st.dest.local).temp && rootLoc(a, st.dest, via, rootType) && !isRef(a, rootType)) via = kNoVia;
  std::vector<Alt> p = placesOf(a, s, st.dest);
  if (!p.empty()) access(a, s, p, AccessHow::Write, st.dest.span, via, /*assignment=*/true);
  // References written through a reference (`*r = &mut x`, where it
  // lowers): the locations it may write no longer say where they point.
  // A value with no reference in it (an element, a tensor, an integer)
  // writes none: the reference it is written through (a parameter, whose
  // location names what it points to) keeps pointing where it did.
  if (hasRefs(a, type)) forgetRefsWithin(s, p);
  // Integers written through a reference (`p.0 = p.0 + BM` with `p = &mut
  // q`): the one location it surely writes takes the value; every location
  // it may write, an unknown one. Kept as they were, a grid instance's
  // offset advanced through the reference stayed where it started (E6010
  // missed). A reference that points nowhere known may write any local
  // lent mutably.
  if (p.size() == 1 && a.terms.isTrue(p[0].guard) && p[0].place.whole() && v.kind == Value::Kind::Scalar &&
      s.scalars.count(p[0].place.root)) {
    s.scalars[p[0].place.root] = v.scalar;
    return;
  }
  // A reference written through a reference to it (`*r = &y` with
  // `r = &mut q`), the one location it surely writes: `q` points where the
  // value does (every location it may write was made unknown above).
  // (Not a reference parameter's location: it stands for what the
  // parameter points to as well, `*q = y` with `q: &mut &T` is no rebinding
  // of `q`.)
  if (p.size() == 1 && a.terms.isTrue(p[0].guard) && p[0].place.whole() && p[0].place.inner == 0 &&
      v.kind == Value::Kind::Ref && s.refs.count(p[0].place.root) && !a.paramOf.count(p[0].place.root) &&
      isRef(a, type)) {
    s.refs[p[0].place.root] = v.ref;
    return;
  }
  havocScalarsWithin(a, s, p);
}


Value evalRvalue(Analysis& a, State& s, const cir::Stmt& st) {
  TermStore& t = a.terms;
  switch (st.rv) {
    case RvKind::Use: return evalOperand(a, s, st.a);
    case RvKind::Borrow: {
      Loc root;
      hir::TypeId rootType;
      if (rootLoc(a, st.place, root, rootType)) useLoc(a, s, root, rootType, st.place.span, false);
      Value v;
      v.kind = Value::Kind::Ref;
      v.ref.mut = st.mut;
      v.ref.alts = placesOf(a, s, st.place);
      // A borrow kept in a variable is not an access yet: its uses are.
      // It conflicts with the borrows already held, though.
      // (A reborrow through a reference, `&mut (*r)[..]`, is no conflict
      // with that reference's own loan.)
      if (st.dest.valid() && !a.body.local(st.dest.local).temp)
        checkLoans(a, s, v.ref.alts, st.mut ? AccessHow::Write : AccessHow::Read, st.place.span,
                   derefBase(a.body, st.place));
      return v;
    }
    case RvKind::Binary: {
      Value x = evalOperand(a, s, st.a, OperandUse::Read);
      Value y = evalOperand(a, s, st.b, OperandUse::Read);
      // Elementwise tensor operations read their operands: through a
      // reference, the places it points to, once both are evaluated.
      readThrough(a, s, st.a, x);
      readThrough(a, s, st.b, y);
      if (x.kind == Value::Kind::Scalar && y.kind == Value::Kind::Scalar) return Value::ofScalar(scalarOp(a, s, st, x.scalar, y.scalar));
      if (isScalar(a, st.type)) return Value::ofScalar(freshValue(a, st.type, "$v"));
      return Value{};
    }
    case RvKind::Unary:
    case RvKind::Cast: {
      Value x = evalOperand(a, s, st.a, OperandUse::Read);
      if (x.kind == Value::Kind::Scalar) return Value::ofScalar(scalarOp(a, s, st, x.scalar, Term{}));
      if (isScalar(a, st.type)) return Value::ofScalar(freshValue(a, st.type, "$v"));
      return Value{};
    }
    case RvKind::Tuple: {
      Value v;
      v.kind = Value::Kind::Tuple;
      for (uint32_t i = 0; i < st.args.count; ++i) v.elems.push_back(evalOperand(a, s, a.body.arg(st, i)));
      checkTupleBorrows(a, s, st, v, st.span);
      return v;
    }
    case RvKind::Len: {
      std::vector<Alt> ps = placesOf(a, s, st.place);
      if (ps.size() == 1 && ps[0].place.whole()) return Value::ofScalar(lenOf(a, ps[0].place.root));
      return Value::ofScalar(freshValue(a, st.type, "$len"));
    }
    case RvKind::Call: return walkCall(a, s, st);
  }
  (void)t;
  return Value{};
}

// The end of a value's life: tokens still in flight are dropped (E6003),
// owned buffers freed (E6006 when a copy still uses them).
void dropPlace(Analysis& a, State& s, const cir::Stmt& st) {
  TermStore& t = a.terms;
  Loc l;
  if (!locOf(a, st.dest, l)) return;
  hir::TypeId type = a.body.typeOf(st.dest);
  if (hasTokens(a, type)) {
    dropValue(a, s, peekValue(a, s, l, type), st.span, locName(a, l), st.how);
    return;
  }
  std::function<void(Loc, hir::TypeId)> free = [&](Loc at, hir::TypeId ty) {
    const hir::TypeTable& tt = a.types();
    hir::TypeId r = tt.resolve(ty);
    if (isMoveOnly(a, r)) {
      auto it = s.moved.find(at);
      if (it == s.moved.end()) return;  // never bound
      Term owned = t.mkNot(it->second);
      if (t.isFalse(owned)) return;
      Place p;
      p.root = at;
      p.text = locName(a, at);
      if (p.text.empty()) p.text = sourceText(a, a.body.local(st.dest.local).span);
      access(a, s, {Alt{p, owned}}, AccessHow::Free, st.span, kNoVia);
      return;
    }
    if (tt.kind(r) != hir::TyKind::Tuple) return;
    for (uint32_t i = 0; i < tt.count(r); ++i) {
      Loc c;
      if (childLoc(at, i, c)) free(c, tt.elem(r, i));
    }
  };
  free(l, type);
}

// Plain scalar code: nothing in it can be a finding or change a token, a
// buffer or a reference.
bool plain(const Analysis& a, const cir::Stmt& st) {
  switch (st.kind) {
    case StmtKind::StorageLive:
    case StmtKind::StorageDead: return !hasTokens(a, a.body.local(st.local).type);
    case StmtKind::StmtEnd: return true;
    case StmtKind::Drop:
    case StmtKind::GridBegin:
    case StmtKind::GridEnd: return false;
    case StmtKind::Assign: break;
  }
  Loc l;
  if (!st.dest.valid() || !locOf(a, st.dest, l) || !isScalar(a, a.body.typeOf(st.dest))) return false;
  auto scalarOperand = [&](const cir::Operand& o) {
    if (o.kind == cir::OperandKind::Const) return true;
    Loc x;
    return locOf(a, o.place, x) && isScalar(a, a.body.typeOf(o.place));
  };
  switch (st.rv) {
    case RvKind::Use:
    case RvKind::Unary:
    case RvKind::Cast: return scalarOperand(st.a);
    case RvKind::Binary: return scalarOperand(st.a) && scalarOperand(st.b);
    case RvKind::Borrow:
    case RvKind::Tuple:
    case RvKind::Len:
    case RvKind::Call: return false;
  }
  return false;
}

struct Edge {
  State s;
  uint32_t branch = UINT32_MAX;  // the innermost branch whose side this is (none: UINT32_MAX)
  uint8_t side = 0;
  bool unchecked = false;        // not yet known to be feasible
};

struct BranchInfo {
  Term c, pcBefore;
  uint32_t branch;
  uint8_t side;
  bool unchecked;
};

struct RegionWalk {
  Analysis& a;
  cir::LoopId loop;
  const cir::Loop* L;
  Term iter;
  std::unordered_map<uint32_t, std::vector<Edge>> pending;
  std::unordered_map<uint32_t, BranchInfo> branches;
  RegionResult out;

  void send(cir::BlockId to, Edge e) {
    if (a.terms.isFalse(e.s.pc)) return;
    if (L && to == L->header) {
      out.back.push_back(std::move(e.s));
      return;
    }
    if (L && to == L->exit) {
      out.exits.push_back(std::move(e.s));
      return;
    }
    pending[to.index].push_back(std::move(e));
  }

  Edge merge(std::vector<Edge>& in) {
    TermStore& t = a.terms;
    for (bool found = true; found && in.size() > 1;) {
      found = false;
      for (size_t i = 0; i < in.size() && !found; ++i)
        for (size_t j = 0; j < in.size() && !found; ++j) {
          if (i == j || in[i].branch == UINT32_MAX || in[i].branch != in[j].branch || in[i].side != 0 ||
              in[j].side != 1)
            continue;
          const BranchInfo& bi = branches.at(in[i].branch);
          bool untouched = in[i].s.pc == t.mkAnd(bi.pcBefore, bi.c) && in[j].s.pc == t.mkAnd(bi.pcBefore, t.mkNot(bi.c));
          Edge m;
          m.s = join(t, in[i].s, in[j].s, bi.c);
          if (untouched) m.s.pc = bi.pcBefore;
          m.branch = bi.branch;
          m.side = bi.side;
          m.unchecked = in[i].unchecked && in[j].unchecked && bi.unchecked;
          in[i] = std::move(m);
          in.erase(in.begin() + static_cast<std::ptrdiff_t>(j));
          found = true;
        }
    }
    Edge acc = std::move(in[0]);
    for (size_t k = 1; k < in.size(); ++k) {
      acc.s = join(t, acc.s, in[k].s);
      acc.unchecked = acc.unchecked && in[k].unchecked;
      acc.branch = UINT32_MAX;
    }
    return acc;
  }

  // Is the state feasible? Asked once per arm (see the file comment).
  bool feasible(Edge& e) {
    if (!e.unchecked) return true;
    e.unchecked = false;
    if (a.silent > 0) return true;
    return possible(a, e.s, a.terms.tru());
  }

  void visit(uint32_t b, Edge e) {
    TermStore& t = a.terms;
    if (a.overBudget()) return;
    const cir::Block& blk = a.body.blocks[b];
    // A nested loop: its exits, joined, at its exit block.
    if (blk.loop.valid() && blk.loop != loop && a.body.loop(blk.loop).header.index == b) {
      if (!feasible(e)) return;
      const cir::Loop& M = a.body.loop(blk.loop);
      Edge x = e;
      x.s = runLoop(a, blk.loop, e.s);
      send(M.exit, std::move(x));
      return;
    }
    // This loop's `for` head: the index of the iteration walked.
    if (L && b == L->header.index && L->kind == cir::LoopKind::For) {
      send(blk.term.target, std::move(e));
      return;
    }
    a.curBlock = b;
    for (uint32_t i = 0; i < blk.stmts.size(); ++i) {
      const cir::Stmt& st = blk.stmts[i];
      a.curStmt = i;
      if (st.kind == StmtKind::StmtEnd) {
        ++a.steps;
        if (a.overBudget()) return;
        collect(t, e.s, [this](TransferId k) { return a.transfers[k].origin == Origin::Param; });
        if (a.observe && a.silent == 0 && !e.unchecked) observeStates(a, e.s, st.span);
        continue;
      }
      if (e.unchecked && !plain(a, st) && !feasible(e)) return;
      walkStmt(a, e.s, st);
      if (t.isFalse(e.s.pc)) return;
    }
    const cir::Terminator& term = blk.term;
    switch (term.kind) {
      case cir::TermKind::Goto: send(term.target, std::move(e)); return;
      case cir::TermKind::Branch: {
        Value cv = evalOperand(a, e.s, term.cond);
        Term c = cv.kind == Value::Kind::Scalar ? cv.scalar : t.fresh("$cond", smt::Sort::Bool);
        branches[b] = BranchInfo{c, e.s.pc, e.branch, e.side, e.unchecked};
        Edge th = e, el = std::move(e);
        th.s.pc = t.mkAnd(th.s.pc, c);
        el.s.pc = t.mkAnd(el.s.pc, t.mkNot(c));
        th.branch = el.branch = b;
        th.side = 0;
        el.side = 1;
        th.unchecked = el.unchecked = true;
        send(term.target, std::move(th));
        send(term.otherwise, std::move(el));
        return;
      }
      case cir::TermKind::Return: {
        if (!feasible(e)) return;
        State& s = e.s;
        hir::TypeId rt = a.body.local(a.body.ret).type;
        Value v = peekValue(a, s, Loc{a.body.ret.index, 0}, rt);
        // A returned token hands its obligation to the caller; the copy
        // stays in flight.
        if (hasTokens(a, rt)) consume(a, s, v, term.span, v.name.empty() ? "the token" : v.name, false);
        if (a.silent > 0) return;
        a.exits.push_back(s);
        a.exitValues.push_back(v);
        return;
      }
      case cir::TermKind::ForLoop:  // only at a loop's head, handled above
      case cir::TermKind::Unreachable: return;
    }
  }

  void run(const State& entry) {
    uint32_t key = loop.valid() ? loop.index : UINT32_MAX;
    const std::vector<uint32_t>& order = a.facts.order.at(key);
    if (order.empty()) return;
    Edge e;
    e.s = entry;
    TermStore& t = a.terms;
    if (L && L->kind == cir::LoopKind::For) {
      const auto& [lo, hi] = a.forRange.at(loop.index);
      e.s.pc = t.mkAnd({e.s.pc, t.mkLe(lo, iter), t.mkLt(iter, hi)});
      e.s.scalars[Loc{L->var.index, 0}] = iter;
    } else if (L) {
      e.s.pc = t.mkAnd(e.s.pc, t.mkLe(t.intConst(0), iter));
    }
    pending[order[0]].push_back(std::move(e));
    for (uint32_t b : order) {
      auto it = pending.find(b);
      if (it == pending.end() || it->second.empty()) continue;
      std::vector<Edge> in = std::move(it->second);
      pending.erase(it);
      Edge m = merge(in);
      visit(b, std::move(m));
      if (a.exhausted) return;
    }
  }
};

}  // namespace

void havocScalarsWithin(Analysis& a, State& s, const std::vector<Alt>& places) {
  auto havocWithin = [&](Loc root) {
    for (auto& [l, val] : s.scalars)
      if (within(l, root)) val = freshValue(a, typeAt(a.types(), a.body, l), "$v");
  };
  for (const Alt& alt : places) havocWithin(alt.place.root);
  if (places.empty())
    for (uint32_t local : a.facts.mutBorrowed) havocWithin(Loc{local, 0});
}

void walkStmt(Analysis& a, State& s, const cir::Stmt& st) {
  switch (st.kind) {
    case StmtKind::Assign: {
      Value v = evalRvalue(a, s, st);
      if (a.terms.isFalse(s.pc)) return;  // the call does not return here
      assignTo(a, s, st, v);
      return;
    }
    case StmtKind::StorageLive:
    case StmtKind::StorageDead: forgetLocal(s, st.local.index); return;
    case StmtKind::Drop: dropPlace(a, s, st); return;
    case StmtKind::StmtEnd: return;
    case StmtKind::GridBegin: beginInstance(a, s, st); return;
    case StmtKind::GridEnd: endInstance(a, s); return;
  }
}

RegionResult walkRegion(Analysis& a, cir::LoopId loop, const State& entry, Term iter) {
  RegionWalk w{a, loop, loop.valid() ? &a.body.loop(loop) : nullptr, iter, {}, {}, {}};
  bool isFor = w.L && w.L->kind == cir::LoopKind::For;
  if (w.L) ++a.loopDepth;
  if (isFor) a.loopVars.push_back(w.L->var.index);
  w.run(entry);
  if (isFor) a.loopVars.pop_back();
  if (w.L) --a.loopDepth;
  return std::move(w.out);
}

void walkFunction(Analysis& a, State& entry) {
  walkRegion(a, cir::LoopId{}, entry, Term{});
  // A grid instance whose end no path reaches (a loop that never exits, a
  // call that never returns) still made the accesses it recorded: two
  // instances may race on them before they diverge.
  if (a.grid.active) endInstance(a, entry);
}

}  // namespace vx::check::own

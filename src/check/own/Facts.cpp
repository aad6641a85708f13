// Facts read off a function's syntax once, before the walk: which scalars
// are behind a `&mut` (never tracked), how long each borrow held in a
// variable lives (its last use, a loop that uses it counting whole), and
// what each loop may change of the state outside it.
#include "check/own/Analysis.h"

namespace vx::check::own {

using hir::ExprKind;
using hir::StmtKind;
using smt::Int128;

namespace {

struct Types {
  const hir::Program& prog;
  bool tokens(hir::TypeId t) const {
    const hir::TypeTable& tt = prog.types;
    hir::TypeId x = tt.resolve(t);
    if (tt.kind(x) == hir::TyKind::Token) return true;
    if (tt.kind(x) != hir::TyKind::Tuple) return false;
    for (uint32_t i = 0; i < tt.count(x); ++i)
      if (tokens(tt.elem(x, i))) return true;
    return false;
  }
  bool moveOnly(hir::TypeId t) const {
    const hir::TypeTable& tt = prog.types;
    hir::TypeId x = tt.resolve(t);
    if (tt.containsError(x)) return false;
    hir::TyKind k = tt.kind(x);
    return k == hir::TyKind::Tensor || k == hir::TyKind::Vec || k == hir::TyKind::Pinned;
  }
  bool ref(hir::TypeId t) const { return prog.types.kind(prog.types.resolve(t)) == hir::TyKind::Ref; }
  bool scalar(hir::TypeId t) const {
    hir::TyKind k = prog.types.kind(prog.types.resolve(t));
    return k == hir::TyKind::Int || k == hir::TyKind::Bool;
  }
  bool isBool(hir::TypeId t) const { return prog.types.kind(prog.types.resolve(t)) == hir::TyKind::Bool; }
  // Every token location inside a value of type t at l.
  void locs(Loc l, hir::TypeId t, std::vector<Loc>& out) const {
    const hir::TypeTable& tt = prog.types;
    hir::TypeId x = tt.resolve(t);
    if (tt.kind(x) == hir::TyKind::Token) {
      out.push_back(l);
      return;
    }
    if (tt.kind(x) != hir::TyKind::Tuple) return;
    for (uint32_t i = 0; i < tt.count(x); ++i) {
      Loc c;
      if (tokens(tt.elem(x, i)) && childLoc(l, i, c)) locs(c, tt.elem(x, i), out);
    }
  }
};

// What a region of code (a loop body) does to locals.
struct Effects {
  std::set<uint32_t> declared;
  std::set<uint32_t> assigned;           // by `=` or compound assignment (locals)
  std::set<std::pair<uint32_t, uint32_t>> assignedLocs;  // token locations assigned
  std::set<std::pair<uint32_t, uint32_t>> assignedHere;  // ... not inside a nested loop
  std::set<std::pair<uint32_t, uint32_t>> usedLocs;      // token locations moved out
  std::set<uint32_t> movedOrUsed;        // locals used by value
  std::vector<hir::ExprId> sites;
  std::map<uint32_t, std::set<Int128>> constants;
  std::map<uint32_t, std::set<uint32_t>> partners;
};

struct Scan {
  const hir::Program& prog;
  Types ty;
  FnFacts& facts;
  // Open loops, innermost last, with their spans.
  std::vector<std::pair<hir::StmtId, base::Span>> loops;
  std::vector<Effects*> effects;  // one per open loop
  std::map<uint32_t, std::vector<std::pair<uint32_t, size_t>>> refUses;  // ref local -> (offset, loop depth)
  std::map<uint32_t, size_t> declDepth;  // local -> loop depth of its declaration

  void declare(hir::LocalId l, base::Span at) {
    facts.declaredAt[l.index] = at.begin;
    declDepth[l.index] = loops.size();
    for (Effects* e : effects) e->declared.insert(l.index);
    if (ty.ref(prog.local(l).type)) facts.refDef[l.index] = at.begin;
  }

  void constant(hir::ExprId a, hir::ExprId b) {
    const hir::Expr& x = prog.expr(a);
    const hir::Expr& y = prog.expr(b);
    auto localOf = [&](const hir::Expr& e) -> const hir::Expr* {
      const hir::Expr* p = &e;
      while (p->kind == ExprKind::Binary || p->kind == ExprKind::Cast || p->kind == ExprKind::Unary) {
        if (p->kind == ExprKind::Binary && prog.expr(p->a).kind != ExprKind::Local) {
          p = &prog.expr(p->b);
          continue;
        }
        p = &prog.expr(p->a);
      }
      return p->kind == ExprKind::Local ? p : nullptr;
    };
    const hir::Expr* l = localOf(x);
    if (l && y.kind == ExprKind::Int)
      for (Effects* e : effects) e->constants[l->local.index].insert(static_cast<Int128>(y.value));
    const hir::Expr* r = localOf(y);
    if (r && x.kind == ExprKind::Int)
      for (Effects* e : effects) e->constants[r->local.index].insert(static_cast<Int128>(x.value));
    // Two locals compared (`i == m`, `k < n`): each is the other's partner.
    if (l && r && l->local != r->local && x.kind == ExprKind::Local && y.kind == ExprKind::Local)
      for (Effects* e : effects) {
        e->partners[l->local.index].insert(r->local.index);
        e->partners[r->local.index].insert(l->local.index);
      }
  }

  void useLocal(const hir::Expr& e, bool byValue) {
    uint32_t l = e.local.index;
    if (ty.ref(e.type)) refUses[l].emplace_back(e.span.begin, loops.size());
    if (!byValue) return;
    if (ty.tokens(e.type)) {
      std::vector<Loc> ls;
      ty.locs(Loc{l, 0}, e.type, ls);
      for (Effects* ef : effects)
        for (Loc c : ls) ef->usedLocs.insert({c.local, c.path});
    }
    if (ty.moveOnly(e.type))
      for (Effects* ef : effects) ef->movedOrUsed.insert(l);
  }

  void place(hir::ExprId id) {
    // A place: its root is not used by value; its indices are values.
    const hir::Expr& e = prog.expr(id);
    switch (e.kind) {
      case ExprKind::Local: useLocal(e, false); return;
      case ExprKind::Index:
        place(e.a);
        expr(e.b);
        return;
      case ExprKind::Field:
      case ExprKind::Deref:
      case ExprKind::Borrow: place(e.a); return;
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
      case ExprKind::Cast:
      case ExprKind::Binary: expr(id); return;
    }
  }

  void expr(hir::ExprId id) {
    const hir::Expr& e = prog.expr(id);
    switch (e.kind) {
      case ExprKind::Local: useLocal(e, true); return;
      case ExprKind::Borrow: {
        const hir::Expr& inner = prog.expr(e.a);
        if (e.mut && inner.kind == ExprKind::Local && ty.scalar(inner.type)) facts.addressTaken.insert(inner.local.index);
        place(e.a);
        return;
      }
      case ExprKind::Index:
      case ExprKind::Deref: place(id); return;
      case ExprKind::Len: place(e.a); return;
      case ExprKind::Field: {
        const hir::Expr& base = prog.expr(e.a);
        if (ty.tokens(e.type) && base.kind == ExprKind::Local) {
          Loc c;
          std::vector<Loc> ls;
          if (childLoc(Loc{base.local.index, 0}, static_cast<uint32_t>(e.value), c)) ty.locs(c, e.type, ls);
          for (Effects* ef : effects)
            for (Loc x : ls) ef->usedLocs.insert({x.local, x.path});
          return;
        }
        if (ty.tokens(e.type)) {
          expr(e.a);
          return;
        }
        place(e.a);
        return;
      }
      case ExprKind::Call:
        if (ty.tokens(e.type))
          for (Effects* ef : effects) ef->sites.push_back(id);
        for (uint32_t i = 0; i < e.args.count; ++i) expr(prog.arg(e, i));
        return;
      case ExprKind::Tuple:
        for (uint32_t i = 0; i < e.args.count; ++i) expr(prog.arg(e, i));
        return;
      case ExprKind::Binary:
        constant(e.a, e.b);
        expr(e.a);
        expr(e.b);
        return;
      case ExprKind::Unary:
      case ExprKind::Cast: expr(e.a); return;
      case ExprKind::Error:
      case ExprKind::Int:
      case ExprKind::Float:
      case ExprKind::Bool:
      case ExprKind::Const:
      case ExprKind::MemConst:
      case ExprKind::TopoConst:
      case ExprKind::Unit: return;
    }
  }

  void pattern(hir::PatId p) {
    const hir::Pat& pat = prog.pat(p);
    if (pat.kind == hir::PatKind::Bind) {
      declare(pat.local, prog.local(pat.local).span);
      return;
    }
    for (uint32_t i = 0; i < pat.elems.count; ++i) pattern(hir::PatId{prog.listAt(pat.elems, i)});
  }

  void assign(const hir::Stmt& st) {
    const hir::Expr& p = prog.expr(st.a);
    if (p.kind == ExprKind::Local) {
      uint32_t l = p.local.index;
      for (Effects* ef : effects) ef->assigned.insert(l);
      if (ty.tokens(p.type)) {
        std::vector<Loc> ls;
        ty.locs(Loc{l, 0}, p.type, ls);
        for (Effects* ef : effects)
          for (Loc c : ls) ef->assignedLocs.insert({c.local, c.path});
        if (!effects.empty())
          for (Loc c : ls) effects.back()->assignedHere.insert({c.local, c.path});
      }
      if (ty.ref(p.type)) refUses[l].emplace_back(p.span.begin, loops.size());
      const hir::Expr& rhs = prog.expr(st.b);
      if (rhs.kind == ExprKind::Int)
        for (Effects* ef : effects) ef->constants[l].insert(static_cast<Int128>(rhs.value));
      if (st.op != ast::Op::Assign && rhs.kind == ExprKind::Int)
        for (Effects* ef : effects) ef->constants[l].insert(static_cast<Int128>(rhs.value));
      return;
    }
    if (p.kind == ExprKind::Field && ty.tokens(p.type) && prog.expr(p.a).kind == ExprKind::Local) {
      Loc c;
      std::vector<Loc> ls;
      if (childLoc(Loc{prog.expr(p.a).local.index, 0}, static_cast<uint32_t>(p.value), c)) ty.locs(c, p.type, ls);
      for (Effects* ef : effects)
        for (Loc x : ls) ef->assignedLocs.insert({x.local, x.path});
      if (!effects.empty())
        for (Loc x : ls) effects.back()->assignedHere.insert({x.local, x.path});
      return;
    }
    place(st.a);
  }

  void stmt(hir::StmtId id) {
    const hir::Stmt& st = prog.stmt(id);
    switch (st.kind) {
      case StmtKind::Let:
        if (st.a.valid()) expr(st.a);
        pattern(st.pat);
        return;
      case StmtKind::Assign:
        expr(st.b);
        assign(st);
        return;
      case StmtKind::For:
      case StmtKind::While: {
        if (st.kind == StmtKind::For) {
          expr(st.a);
          expr(st.b);
        }
        Effects ef;
        loops.emplace_back(id, st.span);
        effects.push_back(&ef);
        if (st.kind == StmtKind::For) declare(st.var, prog.local(st.var).span);
        if (st.kind == StmtKind::While) expr(st.a);
        block(st.body);
        effects.pop_back();
        loops.pop_back();
        finish(id, ef);
        return;
      }
      case StmtKind::If:
        expr(st.a);
        block(st.body);
        if (st.elseStmt.valid()) stmt(st.elseStmt);
        return;
      case StmtKind::Return:
        if (st.a.valid()) expr(st.a);
        return;
      case StmtKind::Break:
      case StmtKind::Continue: return;
      case StmtKind::Block: block(st.body); return;
      case StmtKind::Expr: expr(st.a); return;
    }
  }

  void block(hir::BlockId id) {
    const hir::Block& b = prog.block(id);
    for (uint32_t i = 0; i < b.stmts.count; ++i) stmt(hir::StmtId{prog.listAt(b.stmts, i)});
    if (b.tail.valid()) expr(b.tail);
  }

  void finish(hir::StmtId id, const Effects& ef) {
    LoopInfo& info = facts.loops[id.index];
    Changed& ch = info.changed;
    for (uint32_t l : ef.assigned) {
      if (ef.declared.count(l)) continue;
      const hir::Local& local = prog.local(hir::LocalId{l});
      if (ty.scalar(local.type) && !facts.addressTaken.count(l)) {
        ch.scalars.push_back(l);
        ch.scalarIsBool.push_back(ty.isBool(local.type));
      }
      if (ty.moveOnly(local.type)) ch.moved.push_back(l);
      if (ty.ref(local.type)) ch.refs.push_back(l);
    }
    for (uint32_t l : ef.movedOrUsed)
      if (!ef.declared.count(l) && !ef.assigned.count(l)) ch.moved.push_back(l);
    std::set<std::pair<uint32_t, uint32_t>> locs = ef.assignedLocs;
    locs.insert(ef.usedLocs.begin(), ef.usedLocs.end());
    for (const auto& [l, p] : locs)
      if (!ef.declared.count(l)) ch.tokens.push_back(Loc{l, p});
    // The unroll depth: the token locations this loop's own body assigns
    // (a copy then needs that many iterations to reach the oldest of them);
    // locations only nested loops assign are carried exactly by those
    // loops' exit states, one unrolled iteration suffices here.
    unsigned nested = 0;
    for (const auto& [l, p] : ef.assignedLocs)
      if (!ef.declared.count(l)) (ef.assignedHere.count({l, p}) ? info.carried : nested) += 1;
    if (info.carried == 0 && nested > 0) info.carried = 1;
    info.sites = ef.sites;
    for (const auto& [l, cs] : ef.constants)
      info.constants[l] = std::vector<Int128>(cs.begin(), cs.end());
    for (const auto& [l, ps] : ef.partners)
      for (uint32_t q : ps)
        if (!ef.assigned.count(q)) info.partners[l].push_back(q);  // unchanged by the loop
  }
};

}  // namespace

FnFacts computeFacts(const hir::Program& prog, const hir::Function& f) {
  FnFacts facts;
  Scan scan{prog, Types{prog}, facts, {}, {}, {}, {}};
  // Parameters are declared outside every loop.
  for (hir::LocalId p : f.params) scan.declDepth[p.index] = 0;
  if (f.body.valid()) scan.block(f.body);
  // A borrow held in a variable lives until its last use; a use inside a
  // loop that does not contain the borrow's binding keeps it alive through
  // the whole loop (the next iteration uses it again).
  for (const auto& [l, uses] : scan.refUses) {
    if (!facts.refDef.count(l)) continue;
    uint32_t last = 0;
    for (const auto& [offset, depth] : uses) last = std::max(last, offset);
    facts.refLastUse[l] = last;
  }
  // Second pass for loops: extend to the end of enclosing loops that do not
  // declare the reference.
  struct Extend {
    const hir::Program& prog;
    FnFacts& facts;
    void stmt(hir::StmtId id, std::vector<base::Span>& open) {
      const hir::Stmt& st = prog.stmt(id);
      switch (st.kind) {
        case StmtKind::For:
        case StmtKind::While: {
          // References declared before this loop and used inside it live
          // to its end.
          for (auto& [l, last] : facts.refLastUse) {
            uint32_t def = facts.refDef[l];
            if (def < st.span.begin && last >= st.span.begin && last <= st.span.end) last = st.span.end;
          }
          open.push_back(st.span);
          block(st.body, open);
          open.pop_back();
          return;
        }
        case StmtKind::If:
          block(st.body, open);
          if (st.elseStmt.valid()) stmt(st.elseStmt, open);
          return;
        case StmtKind::Block: block(st.body, open); return;
        case StmtKind::Let:
        case StmtKind::Assign:
        case StmtKind::Return:
        case StmtKind::Break:
        case StmtKind::Continue:
        case StmtKind::Expr: return;
      }
    }
    void block(hir::BlockId id, std::vector<base::Span>& open) {
      const hir::Block& b = prog.block(id);
      for (uint32_t i = 0; i < b.stmts.count; ++i) stmt(hir::StmtId{prog.listAt(b.stmts, i)}, open);
    }
  };
  if (f.body.valid()) {
    std::vector<base::Span> open;
    Extend{prog, facts}.block(f.body, open);
  }
  return facts;
}

}  // namespace vx::check::own

// Expressions: moves, token values taken out of and bound into locations,
// consumption (E6002) and drops (E6003), and the helpers findings share.
#include "check/own/Analysis.h"

namespace vx::check::own {

using hir::ExprKind;
using hir::TyKind;

bool possible(Analysis& a, const State& s, Term cond) {
  TermStore& t = a.terms;
  Term f = t.mkAnd({a.assumptions, s.pc, cond});
  if (t.isFalse(f)) return false;
  return a.solver.check(f) != smt::Verdict::Unsat;
}

std::string holderOf(Analysis& a, const State& s, TransferId k) {
  for (const auto& [l, h] : s.tokens) {
    auto it = h.find(k);
    if (it == h.end() || a.terms.isFalse(it->second)) continue;
    std::string name = localName(a, hir::LocalId{l.local});
    for (uint32_t p = l.path; p; p >>= 8) name += "." + std::to_string((p & 0xff) - 1);
    return name;
  }
  return {};
}

std::vector<std::pair<std::string, Term>> holdersOf(Analysis& a, const State& s, TransferId k) {
  std::vector<std::pair<std::string, Term>> out;
  for (const auto& [l, h] : s.tokens) {
    auto it = h.find(k);
    if (it == h.end() || a.terms.isFalse(it->second)) continue;
    std::string name = localName(a, hir::LocalId{l.local});
    for (uint32_t p = l.path; p; p >>= 8) name += "." + std::to_string((p & 0xff) - 1);
    out.emplace_back(name, it->second);
  }
  return out;
}

std::vector<smt::Shown> shownFor(Analysis& a, const State& s, Term cond) {
  TermStore& t = a.terms;
  std::vector<Term> vars = t.variables(cond);
  std::set<uint32_t> in;
  for (Term v : vars) in.insert(v.index);
  auto mentions = [&](Term x) {
    for (Term v : t.variables(x))
      if (in.count(v.index)) return true;
    return false;
  };
  std::vector<smt::Shown> out;
  std::set<std::string> names;
  for (const smt::Shown& x : a.inputs)
    if (in.count(x.term.index)) {
      out.push_back(x);
      names.insert(x.name);
    }
  for (const auto& [l, v] : s.scalars) {
    if (a.prog.local(hir::LocalId{l}).param) continue;
    // The iteration of each enclosing loop always, other values when the
    // violation depends on them.
    bool loopVar = false;
    for (hir::LocalId lv : a.loopVars) loopVar = loopVar || lv.index == l;
    if (!loopVar && !mentions(v)) continue;
    std::string name = localName(a, hir::LocalId{l});
    if (name.empty() || name[0] == '_') continue;
    while (names.count(name)) name += "'";
    names.insert(name);
    out.push_back(smt::Shown{name, v});
  }
  return out;
}

void addFinding(Analysis& a, const State& s, Finding f, Term cond) {
  if (!a.reporting()) return;
  TermStore& t = a.terms;
  f.condition = cond;
  f.pc = s.pc;
  f.bad = t.mkAnd(s.pc, cond);
  if (t.isFalse(f.bad)) return;
  f.inLoop = !a.loops.empty();
  f.show = shownFor(a, s, f.bad);
  a.findings.push_back(std::move(f));
}

void useLocal(Analysis& a, State& s, hir::LocalId l, base::Span at, bool moves) {
  const hir::Local& local = a.prog.local(l);
  if (!isMoveOnly(a, local.type)) return;
  TermStore& t = a.terms;
  Term moved = lookup(s.moved, l.index, t.fls());
  if (!t.isFalse(moved)) {
    Finding f;
    f.rule = Rule::UseAfterMove;
    f.at = at;
    f.subject = local.name;
    f.type = a.types().print(local.type);
    for (const Site& site : s.movedAt[l.index]) {
      if (t.isFalse(site.guard)) continue;
      if (site.span.begin == at.begin && site.span.end == at.end) {
        f.earlierIteration = true;
        continue;
      }
      f.earlier.push_back(site.span);
      f.earlierGuards.push_back(site.guard);
    }
    addFinding(a, s, std::move(f), moved);
  }
  if (moves) {
    Place p;
    p.root = l;
    p.text = local.name;
    access(a, s, {Alt{p, t.tru()}}, AccessHow::Move, at);
    s.moved[l.index] = t.tru();
    s.movedAt[l.index].push_back(Site{at, s.pc});
  }
}

Value peekValue(const Analysis& a, const State& s, Loc l, hir::TypeId type) {
  const hir::TypeTable& tt = a.types();
  hir::TypeId r = tt.resolve(type);
  Value v;
  v.name = localName(a, hir::LocalId{l.local});
  if (tt.kind(r) == TyKind::Token) {
    v.kind = Value::Kind::Token;
    auto it = s.tokens.find(l);
    if (it != s.tokens.end()) v.holds = it->second;
    return v;
  }
  if (tt.kind(r) == TyKind::Tuple) {
    v.kind = Value::Kind::Tuple;
    for (uint32_t i = 0; i < tt.count(r); ++i) {
      Loc c;
      if (hasTokens(a, tt.elem(r, i)) && childLoc(l, i, c))
        v.elems.push_back(peekValue(a, s, c, tt.elem(r, i)));
      else
        v.elems.push_back(Value{});
    }
  }
  return v;
}

Value takeValue(Analysis& a, State& s, Loc l, hir::TypeId type, const std::string& name) {
  const hir::TypeTable& tt = a.types();
  hir::TypeId r = tt.resolve(type);
  Value v;
  v.name = name;
  if (tt.kind(r) == TyKind::Token) {
    v.kind = Value::Kind::Token;
    auto it = s.tokens.find(l);
    if (it != s.tokens.end()) {
      v.holds = it->second;
      if (!it->second.empty()) s.ghosts[l] = it->second;
      it->second.clear();
    }
    if (v.holds.empty()) {
      auto g = s.ghosts.find(l);
      if (g != s.ghosts.end()) v.ghost = g->second;
    }
    return v;
  }
  if (tt.kind(r) == TyKind::Tuple) {
    v.kind = Value::Kind::Tuple;
    for (uint32_t i = 0; i < tt.count(r); ++i) {
      Loc c;
      if (hasTokens(a, tt.elem(r, i)) && childLoc(l, i, c))
        v.elems.push_back(takeValue(a, s, c, tt.elem(r, i), name + "." + std::to_string(i)));
      else
        v.elems.push_back(Value{});
    }
  }
  return v;
}

void bindValue(Analysis& a, State& s, Loc l, hir::TypeId type, const Value& v) {
  const hir::TypeTable& tt = a.types();
  hir::TypeId r = tt.resolve(type);
  if (tt.kind(r) == TyKind::Token) {
    Holds h = v.kind == Value::Kind::Token ? v.holds : Holds{};
    std::string name = localName(a, hir::LocalId{l.local});
    for (uint32_t p = l.path; p; p >>= 8) name += "." + std::to_string((p & 0xff) - 1);
    for (const auto& [k, g] : h)
      if (a.transfers[k].name.empty()) a.transfers[k].name = name;
    s.tokens[l] = std::move(h);
    return;
  }
  if (tt.kind(r) == TyKind::Tuple) {
    for (uint32_t i = 0; i < tt.count(r); ++i) {
      if (!hasTokens(a, tt.elem(r, i))) continue;
      Loc c;
      if (!childLoc(l, i, c)) {
        a.exhausted = true;  // nested deeper than the state tracks: not decided
        continue;
      }
      Value e = v.kind == Value::Kind::Tuple && i < v.elems.size() ? v.elems[i] : Value{};
      bindValue(a, s, c, tt.elem(r, i), e);
    }
  }
}

Value startCopy(Analysis& a, State& s, Transfer tr) {
  a.transfers.push_back(std::move(tr));
  TransferId k = static_cast<TransferId>(a.transfers.size() - 1);
  s.inflight[k] = a.terms.tru();
  Holds h;
  h[k] = a.terms.tru();
  return Value::token(std::move(h));
}

void consume(Analysis& a, State& s, const Value& v, base::Span at, const std::string& name, bool completes) {
  TermStore& t = a.terms;
  if (v.kind == Value::Kind::Tuple) {
    for (size_t i = 0; i < v.elems.size(); ++i) consume(a, s, v.elems[i], at, name + "." + std::to_string(i), completes);
    return;
  }
  if (v.kind != Value::Kind::Token) return;
  Term liveF = live(t, s, v.holds);
  Finding f;
  f.rule = Rule::ConsumedTwice;
  f.at = at;
  f.subject = v.name.empty() ? name : v.name;
  f.holds = v.holds.empty() ? v.ghost : v.holds;
  for (const auto& [k, g] : v.holds) {
    auto it = s.consumedAt.find(k);
    if (it == s.consumedAt.end()) continue;
    for (const Site& site : it->second) {
      if (t.isFalse(site.guard)) continue;
      if (site.span.begin == at.begin && site.span.end == at.end)
        f.earlierIteration = true;
      else {
        f.earlier.push_back(site.span);
        f.earlierGuards.push_back(t.mkAnd(site.guard, g));
      }
    }
  }
  if (!v.name.empty()) {
    for (const auto& [l, sites] : s.emptiedAt) {
      if (localName(a, hir::LocalId{l.local}) != v.name) continue;
      // The move out of the variable for this very consumption is not an
      // earlier one.
      for (const Site& site : sites)
        if (!t.isFalse(site.guard) && !(site.span.begin == at.begin && site.span.end == at.end)) {
          f.earlier.push_back(site.span);
          f.earlierGuards.push_back(site.guard);
        }
    }
  }
  addFinding(a, s, std::move(f), t.mkNot(liveF));
  for (const auto& [k, g] : v.holds) {
    if (t.isFalse(g)) continue;
    if (completes) {
      auto it = s.inflight.find(k);
      if (it != s.inflight.end()) it->second = t.mkAnd(it->second, t.mkNot(g));
    }
    s.consumedAt[k].push_back(Site{at, t.mkAnd(s.pc, g)});
  }
}

void dropValue(Analysis& a, State& s, const Value& v, base::Span at, const std::string& name, DropHow how) {
  TermStore& t = a.terms;
  if (v.kind == Value::Kind::Tuple) {
    for (size_t i = 0; i < v.elems.size(); ++i) dropValue(a, s, v.elems[i], at, name + "." + std::to_string(i), how);
    return;
  }
  if (v.kind != Value::Kind::Token) return;
  Term liveF = live(t, s, v.holds);
  if (t.isFalse(liveF)) return;
  Finding f;
  f.rule = Rule::Dropped;
  f.at = at;
  f.subject = name;
  f.drop = how;
  f.holds = v.holds;
  for (const auto& [k, g] : v.holds)
    if (!t.isFalse(g)) {
      f.transfer = k;
      break;
    }
  addFinding(a, s, std::move(f), liveF);
}

namespace {

std::string tokenLabel(const Analysis& a, hir::ExprId e) {
  const hir::Expr& x = a.prog.expr(e);
  if (x.kind == ExprKind::Local) return localName(a, x.local);
  return "the token";
}

}  // namespace

Value walkExpr(Analysis& a, State& s, hir::ExprId id) {
  const hir::Expr& e = a.prog.expr(id);
  switch (e.kind) {
    case ExprKind::Error:
    case ExprKind::Int:
    case ExprKind::Float:
    case ExprKind::Bool:
    case ExprKind::Const:
    case ExprKind::MemConst:
    case ExprKind::TopoConst:
    case ExprKind::Unit:
    case ExprKind::Len: return Value{};
    case ExprKind::Local: {
      if (hasTokens(a, e.type)) {
        Value v = takeValue(a, s, Loc{e.local.index, 0}, e.type, localName(a, e.local));
        s.emptiedAt[Loc{e.local.index, 0}].push_back(Site{e.span, s.pc});
        return v;
      }
      if (isRef(a, e.type)) {
        Value v;
        v.kind = Value::Kind::Ref;
        auto it = s.refs.find(e.local.index);
        if (it != s.refs.end()) v.ref = it->second;
        v.name = localName(a, e.local);
        return v;
      }
      useLocal(a, s, e.local, e.span, isMoveOnly(a, e.type));
      return Value{};
    }
    case ExprKind::Tuple: {
      Value v;
      v.kind = Value::Kind::Tuple;
      for (uint32_t i = 0; i < e.args.count; ++i) v.elems.push_back(walkExpr(a, s, a.prog.arg(e, i)));
      return v;
    }
    case ExprKind::Call: return walkCall(a, s, id);
    case ExprKind::Field: {
      // A token component of a tuple local moves out of it.
      const hir::Expr& base = a.prog.expr(e.a);
      if (hasTokens(a, e.type) && base.kind == ExprKind::Local) {
        Loc c;
        if (!childLoc(Loc{base.local.index, 0}, static_cast<uint32_t>(e.value), c)) {
          a.exhausted = true;
          return Value{};
        }
        Value v = takeValue(a, s, c, e.type, sourceText(a, e.span));
        s.emptiedAt[c].push_back(Site{e.span, s.pc});
        return v;
      }
      if (hasTokens(a, e.type)) {
        // A component of a temporary tuple: the rest of it is dropped.
        Value whole = walkExpr(a, s, e.a);
        if (whole.kind != Value::Kind::Tuple) return Value{};
        for (size_t i = 0; i < whole.elems.size(); ++i)
          if (i != e.value) dropValue(a, s, whole.elems[i], e.span, "the tuple's other token", DropHow::Temporary);
        return e.value < whole.elems.size() ? whole.elems[e.value] : Value{};
      }
      std::vector<Alt> p = placesOf(a, s, id);
      if (!p.empty()) access(a, s, p, AccessHow::Read, e.span);
      else walkExpr(a, s, e.a);
      return Value{};
    }
    case ExprKind::Index:
    case ExprKind::Deref: {
      if (hasTokens(a, e.type)) {
        // `*t`: a token behind a reference is its lender's to consume.
        Finding f;
        f.rule = Rule::BehindRef;
        f.at = e.span;
        f.subject = sourceText(a, e.span);
        addFinding(a, s, std::move(f), a.terms.tru());
        return Value{};
      }
      if (e.kind == ExprKind::Index) walkExpr(a, s, e.b);
      std::vector<Alt> p = placesOf(a, s, id);
      if (!p.empty()) access(a, s, p, AccessHow::Read, e.span);
      return Value{};
    }
    case ExprKind::Borrow: {
      const hir::Expr& inner = a.prog.expr(e.a);
      if (inner.kind == ExprKind::Index) walkExpr(a, s, inner.b);
      // The root must not have been moved.
      for (hir::ExprId x = e.a; x.valid();) {
        const hir::Expr& xe = a.prog.expr(x);
        if (xe.kind == ExprKind::Local) {
          useLocal(a, s, xe.local, inner.span, false);
          break;
        }
        if (xe.kind != ExprKind::Index && xe.kind != ExprKind::Field && xe.kind != ExprKind::Deref) break;
        x = xe.a;
      }
      Value v;
      v.kind = Value::Kind::Ref;
      v.ref.mut = e.mut;
      v.ref.alts = placesOf(a, s, id);
      // A borrow kept in a variable is not an access yet: its uses are.
      // It conflicts with the borrows already held, though.
      if (a.bindingBorrow)
        checkLoans(a, s, v.ref.alts, e.mut ? AccessHow::Write : AccessHow::Read, inner.span, {});
      else
        access(a, s, v.ref.alts, e.mut ? AccessHow::Write : AccessHow::Read, inner.span);
      return v;
    }
    case ExprKind::Unary:
    case ExprKind::Cast: walkExpr(a, s, e.a); return Value{};
    case ExprKind::Binary: {
      walkExpr(a, s, e.a);
      walkExpr(a, s, e.b);
      return Value{};
    }
  }
  return Value{};
}

std::string exprTokenLabel(const Analysis& a, hir::ExprId e) { return tokenLabel(a, e); }

}  // namespace vx::check::own

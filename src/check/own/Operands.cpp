// Operands and values: moves, token values taken out of and bound into
// locations, consumption (E6002) and drops (E6003), and the helpers
// findings share.
#include "check/own/Analysis.h"

namespace vx::check::own {

using hir::TyKind;

bool possible(Analysis& a, const State& s, Term cond) {
  TermStore& t = a.terms;
  Term f = t.mkAnd({a.assumptions, s.pc, cond});
  if (t.isFalse(f)) return false;
  return a.solver.check(f) != smt::Verdict::Unsat;
}

namespace {

std::string holderName(const Analysis& a, Loc l) {
  std::string name = locName(a, l);
  return name;
}

}  // namespace

std::string holderOf(Analysis& a, const State& s, TransferId k) {
  for (const auto& [l, h] : s.tokens) {
    auto it = h.find(k);
    if (it == h.end() || a.terms.isFalse(it->second)) continue;
    std::string name = holderName(a, l);
    if (!name.empty()) return name;
  }
  return {};
}

std::vector<std::pair<std::string, Term>> holdersOf(Analysis& a, const State& s, TransferId k) {
  std::vector<std::pair<std::string, Term>> out;
  for (const auto& [l, h] : s.tokens) {
    auto it = h.find(k);
    if (it == h.end() || a.terms.isFalse(it->second)) continue;
    std::string name = holderName(a, l);
    if (!name.empty()) out.emplace_back(name, it->second);
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
    const cir::Local& local = a.body.locals[l.local];
    if (local.param && l.path == 0) continue;
    // The iteration of each enclosing loop always, other values when the
    // violation depends on them.
    bool loopVar = l.path == 0 && std::find(a.loopVars.begin(), a.loopVars.end(), l.local) != a.loopVars.end();
    if (!loopVar && !mentions(v)) continue;
    std::string name = locName(a, l);
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
  f.inLoop = a.loopDepth > 0;
  f.show = shownFor(a, s, f.bad);
  a.findings.push_back(std::move(f));
}

void useLoc(Analysis& a, State& s, Loc l, hir::TypeId type, base::Span at, bool moves) {
  TermStore& t = a.terms;
  // Moved: this location, one containing it, or (for a whole move) a
  // component of it.
  std::vector<Term> movedParts;
  std::vector<Site> sites;
  for (const auto& [m, f] : s.moved) {
    if (m.local != l.local || t.isFalse(f)) continue;
    if (!within(l, m) && !(moves && within(m, l))) continue;
    movedParts.push_back(f);
    auto it = s.notes.movedAt.find(m);
    if (it != s.notes.movedAt.end()) sites.insert(sites.end(), it->second.begin(), it->second.end());
  }
  Term moved = t.mkOr(movedParts);
  if (!t.isFalse(moved)) {
    Finding f;
    f.rule = Rule::UseAfterMove;
    f.at = at;
    f.subject = locName(a, l);
    if (f.subject.empty()) f.subject = sourceText(a, at);
    f.type = a.types().print(type);
    for (const Site& site : sites) {
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
    p.text = locName(a, l);
    if (p.text.empty()) p.text = sourceText(a, at);
    access(a, s, {Alt{p, t.tru()}}, AccessHow::Move, at, kNoVia);
    s.moved[l] = t.tru();
    s.notes.movedAt[l].push_back(Site{at, s.pc});
  }
}

Value peekValue(Analysis& a, State& s, Loc l, hir::TypeId type) {
  const hir::TypeTable& tt = a.types();
  hir::TypeId r = tt.resolve(type);
  Value v;
  TyKind k = tt.kind(r);
  if (hasTokens(a, r)) v.name = locName(a, l);  // (for messages about tokens only)
  if (k == TyKind::Token) {
    v.kind = Value::Kind::Token;
    auto it = s.tokens.find(l);
    if (it != s.tokens.end()) v.holds = it->second;
  } else if (k == TyKind::Tuple) {
    v.kind = Value::Kind::Tuple;
    for (uint32_t i = 0; i < tt.count(r); ++i) {
      Loc c;
      v.elems.push_back(childLoc(l, i, c) ? peekValue(a, s, c, tt.elem(r, i)) : Value{});
    }
  } else if (k == TyKind::Ref) {
    v.kind = Value::Kind::Ref;
    auto it = s.refs.find(l);
    if (it != s.refs.end())
      v.ref = it->second;
    else
      v.ref.unknown = true;
  } else if (k == TyKind::Int || k == TyKind::Bool) {
    v.kind = Value::Kind::Scalar;
    v.scalar = scalarAt(a, s, l, r);
  }
  return v;
}

Value takeValue(Analysis& a, State& s, Loc l, hir::TypeId type, const std::string& name) {
  const hir::TypeTable& tt = a.types();
  hir::TypeId r = tt.resolve(type);
  if (tt.kind(r) == TyKind::Token) {
    Value v;
    v.name = name;
    v.kind = Value::Kind::Token;
    auto it = s.tokens.find(l);
    if (it != s.tokens.end()) {
      v.holds = it->second;
      if (!it->second.empty()) s.notes.ghosts[l] = it->second;
      it->second.clear();
    }
    if (v.holds.empty()) {
      auto g = s.notes.ghosts.find(l);
      if (g != s.notes.ghosts.end()) v.ghost = g->second;
    }
    return v;
  }
  if (tt.kind(r) == TyKind::Tuple) {
    Value v;
    v.name = name;
    v.kind = Value::Kind::Tuple;
    for (uint32_t i = 0; i < tt.count(r); ++i) {
      Loc c;
      if (!childLoc(l, i, c)) {
        a.exhausted = true;
        v.elems.push_back(Value{});
        continue;
      }
      v.elems.push_back(takeValue(a, s, c, tt.elem(r, i), name.empty() ? name : name + "." + std::to_string(i)));
    }
    return v;
  }
  return peekValue(a, s, l, type);
}

void bindValue(Analysis& a, State& s, Loc l, hir::TypeId type, const Value& v) {
  const hir::TypeTable& tt = a.types();
  TermStore& t = a.terms;
  hir::TypeId r = tt.resolve(type);
  TyKind k = tt.kind(r);
  if (k == TyKind::Token) {
    Holds h = v.kind == Value::Kind::Token ? v.holds : Holds{};
    std::string name = locName(a, l);
    for (const auto& [x, g] : h)
      if (a.transfers[x].name.empty() && !name.empty()) a.transfers[x].name = name;
    s.tokens[l] = std::move(h);
  } else if (k == TyKind::Tuple) {
    for (uint32_t i = 0; i < tt.count(r); ++i) {
      Loc c;
      if (!childLoc(l, i, c)) {
        a.exhausted = true;  // nested deeper than the state tracks: not decided
        if (!a.tooDeep.valid()) {
          a.tooDeep = a.body.locals[l.local].span;
          a.tooWide = i >= 255;
        }
        continue;
      }
      Value e = v.kind == Value::Kind::Tuple && i < v.elems.size() ? v.elems[i] : Value{};
      bindValue(a, s, c, tt.elem(r, i), e);
    }
  } else if (k == TyKind::Ref) {
    RefVal rv = v.kind == Value::Kind::Ref ? v.ref : RefVal{};
    if (v.kind != Value::Kind::Ref) rv.unknown = true;
    s.refs[l] = rv;
  } else if (k == TyKind::Int || k == TyKind::Bool) {
    if (l.path == 0 && a.facts.addressTaken.count(l.local)) return;
    s.scalars[l] = v.kind == Value::Kind::Scalar && v.scalar.valid() ? v.scalar : freshValue(a, r, "$v");
  } else if (isMoveOnly(a, r)) {
    s.moved[l] = t.fls();
    s.notes.movedAt.erase(l);
  }
}

Value startCopy(Analysis& a, State& s, Transfer tr) {
  // What the loop around records of the sites it has seen (Loops.cpp).
  if (tr.site.valid() && a.loopDepth > 0) {
    SitePlaces& sp = a.sitePlaces[tr.site.index];
    sp.anyPlace = sp.anyPlace || tr.anyPlace;
    TermStore& t = a.terms;
    auto add = [&t](std::vector<SitePlace>& into, const std::vector<Alt>& from) {
      for (const Alt& x : from) {
        bool indexed = x.place.index.valid();
        bool blocked = x.place.blocked();
        Term constant = indexed && t.isConst(x.place.index) ? x.place.index : Term{};
        Term constantSub = x.place.sub.valid() && t.isConst(x.place.sub) ? x.place.sub : Term{};
        bool have = false;
        for (SitePlace& y : into) {
          if (y.place.root != x.place.root || y.place.inner != x.place.inner || y.indexed != indexed ||
              y.blocked != blocked)
            continue;
          if (blocked && (y.place.rows != x.place.rows || y.place.cols != x.place.cols)) continue;
          have = true;
          if (!(y.place.index == constant)) y.place.index = Term{};  // the slot varies
          if (!(y.place.sub == constantSub)) y.place.sub = Term{};    // the sub-slot varies
        }
        if (!have) {
          SitePlace sp{x.place, indexed, blocked};
          sp.place.index = constant;
          sp.place.sub = constantSub;
          sp.place.row = sp.place.col = Term{};  // any block of its shape
          into.push_back(sp);
        }
      }
    };
    add(sp.reads, tr.reads);
    add(sp.writes, tr.writes);
  }
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
    auto it = s.notes.consumedAt.find(k);
    if (it == s.notes.consumedAt.end()) continue;
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
    for (const auto& [l, sites] : s.notes.emptiedAt) {
      if (locName(a, l) != v.name) continue;
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
    s.notes.consumedAt[k].push_back(Site{at, t.mkAnd(s.pc, g)});
  }
}

void dropValue(Analysis& a, State& s, const Value& v, base::Span at, const std::string& name, DropHow how) {
  TermStore& t = a.terms;
  if (v.kind == Value::Kind::Tuple) {
    for (size_t i = 0; i < v.elems.size(); ++i)
      dropValue(a, s, v.elems[i], at, name.empty() ? name : name + "." + std::to_string(i), how);
    return;
  }
  if (v.kind != Value::Kind::Token) return;
  Holds reported;  // copies whose drop is not already an error's consequence
  for (const auto& [k, g] : v.holds)
    if (a.transfers[k].origin != Origin::Recovered) reported[k] = g;
  Term liveF = live(t, s, reported);
  if (t.isFalse(liveF)) return;
  Finding f;
  f.rule = Rule::Dropped;
  f.at = at;
  f.subject = name.empty() ? "the token" : name;
  f.drop = how;
  f.holds = reported;
  for (const auto& [k, g] : reported)
    if (!t.isFalse(g)) {
      f.transfer = k;
      break;
    }
  addFinding(a, s, std::move(f), liveF);
}

namespace {

// What a value of `type` taken through a reference stands for after the
// error that reports it (E6002): a token of its own for each token in it.
Value recoveredTokens(Analysis& a, State& s, hir::TypeId type, base::Span at) {
  const hir::TypeTable& tt = a.types();
  hir::TypeId r = tt.resolve(type);
  if (tt.kind(r) == TyKind::Token) {
    Transfer tr;
    tr.origin = Origin::Recovered;
    tr.span = at;
    return startCopy(a, s, std::move(tr));
  }
  if (tt.kind(r) != TyKind::Tuple) return Value{};
  Value v;
  v.kind = Value::Kind::Tuple;
  for (uint32_t i = 0; i < tt.count(r); ++i) v.elems.push_back(recoveredTokens(a, s, tt.elem(r, i), at));
  return v;
}

// A buffer, or a tuple with one.
bool holdsBuffer(const Analysis& a, hir::TypeId type) {
  const hir::TypeTable& tt = a.types();
  hir::TypeId r = tt.resolve(type);
  if (isMoveOnly(a, r)) return true;
  if (tt.kind(r) != TyKind::Tuple) return false;
  for (uint32_t i = 0; i < tt.count(r); ++i)
    if (holdsBuffer(a, tt.elem(r, i))) return true;
  return false;
}

// What keeps the buffer a move out of `p` would take (E6014): the last
// projection that is not a tuple's field.
std::string moveOutWhere(const Analysis& a, const cir::Place& p) {
  std::string root = a.body.local(p.local).name;
  if (root.empty()) root = "it";
  for (uint32_t i = p.proj.count; i-- > 0;) {
    switch (a.body.proj(p, i).kind) {
      case cir::ProjKind::Field: continue;
      case cir::ProjKind::Index: return "an index of `" + root + "`";
      case cir::ProjKind::Block: return "a block of `" + root + "`";
      case cir::ProjKind::Deref: return "a reference";
    }
  }
  return "a reference";
}

}  // namespace

Value evalOperand(Analysis& a, State& s, const cir::Operand& o, OperandUse use) {
  TermStore& t = a.terms;
  switch (o.kind) {
    case cir::OperandKind::Const: {
      Term v = constValue(a, o.constant);
      return v.valid() ? Value::ofScalar(v) : Value{};
    }
    case cir::OperandKind::Copy:
    case cir::OperandKind::Move: break;
  }
  hir::TypeId type = a.body.typeOf(o.place);
  Loc l;
  if (locOf(a, o.place, l)) {
    if (o.kind == cir::OperandKind::Copy) {
      if (isRef(a, type) || isScalar(a, type)) useLoc(a, s, l, type, o.span, false);
      return peekValue(a, s, l, type);
    }
    // A move: tokens leave their locations; buffers are moved out.
    Value v;
    if (hasTokens(a, type)) {
      v = takeValue(a, s, l, type, locName(a, l));
      s.notes.emptiedAt[l].push_back(Site{o.span, s.pc});
    }
    // Buffers in it (the location itself, or components of a tuple).
    std::function<void(Loc, hir::TypeId)> moveBuffers = [&](Loc at, hir::TypeId ty) {
      const hir::TypeTable& tt = a.types();
      hir::TypeId r = tt.resolve(ty);
      if (isMoveOnly(a, r)) {
        useLoc(a, s, at, r, o.span, true);
        return;
      }
      if (tt.kind(r) != TyKind::Tuple) return;
      for (uint32_t i = 0; i < tt.count(r); ++i) {
        Loc c;
        if (childLoc(at, i, c)) moveBuffers(c, tt.elem(r, i));
      }
    };
    moveBuffers(l, type);
    if (!hasTokens(a, type)) {
      Value rest = peekValue(a, s, l, type);  // scalars and references in a tuple moved
      return rest;
    }
    // Scalars and references inside a moved tuple come along.
    if (v.kind == Value::Kind::Tuple) {
      const hir::TypeTable& tt = a.types();
      hir::TypeId r = tt.resolve(type);
      for (uint32_t i = 0; i < v.elems.size() && i < tt.count(r); ++i) {
        Loc c;
        if (v.elems[i].kind == Value::Kind::None && childLoc(l, i, c) && !hasTokens(a, tt.elem(r, i)))
          v.elems[i] = peekValue(a, s, c, tt.elem(r, i));
      }
    }
    return v;
  }
  // Through a reference or an index: the place is read (a token behind a
  // reference is its lender's to consume).
  if (hasTokens(a, type)) {
    Finding f;
    f.rule = Rule::BehindRef;
    f.at = o.span;
    f.subject = sourceText(a, o.span);
    addFinding(a, s, std::move(f), t.tru());
    return recoveredTokens(a, s, type, o.span);
  }
  if (isScalar(a, type) || isRef(a, type)) {
    // `*r` where `r` is known to point to one scalar or reference
    // location: its value.
    std::vector<Alt> places = placesOf(a, s, o.place);
    if (places.size() == 1 && places[0].place.whole() && t.isTrue(places[0].guard)) {
      Loc root = places[0].place.root;
      hir::TypeId rt = typeAt(a.types(), a.body, root);
      bool tracked = !(root.path == 0 && a.facts.addressTaken.count(root.local));
      if (tracked && isScalar(a, rt) && isScalar(a, type)) return Value::ofScalar(scalarAt(a, s, root, type));
      if (isRef(a, rt) && isRef(a, type)) return peekValue(a, s, root, type);
      auto ref = s.refs.find(root);
      if (isScalar(a, type) && a.paramOf.count(root) && ref != s.refs.end() && !ref->second.mut &&
          !ref->second.unknown) {
        auto key = std::make_pair(root, places[0].place.inner);
        auto it = a.sharedReads.find(key);
        if (it == a.sharedReads.end()) {
          std::string text = sourceText(a, o.span);
          Term x = freshValue(a, type, "$v");
          it = a.sharedReads.emplace(key, x).first;
          if (!text.empty()) a.inputs.push_back(smt::Shown{uniqueName(a, text), x});
        }
        return Value::ofScalar(it->second);
      }
    }
    if (isScalar(a, type)) return Value::ofScalar(freshValue(a, type, "$v"));
    Value v;
    v.kind = Value::Kind::Ref;
    v.ref.unknown = true;
    return v;
  }
  std::vector<Alt> places = placesOf(a, s, o.place);
  if (!places.empty()) access(a, s, places, AccessHow::Read, o.span, kNoVia);
  // A buffer taken by value from a place that keeps it (a slot, an element,
  // a block, what a reference points to) would be a second name for that
  // place, which the analysis does not follow: the value it returns is a
  // buffer of its own. Read where it stands, that is what it is; kept, it
  // would alias the place, and copies into it, writes to it and other
  // instances' accesses would go unseen through it.
  if (o.kind == cir::OperandKind::Move && use == OperandUse::Kept && holdsBuffer(a, type)) {
    Finding f;
    f.rule = Rule::MoveOut;
    f.at = o.span;
    f.subject = sourceText(a, o.span);
    f.other = moveOutWhere(a, o.place);
    f.type = a.types().print(type);
    addFinding(a, s, std::move(f), t.tru());
  }
  return Value{};
}

}  // namespace vx::check::own

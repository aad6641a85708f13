// Function summaries: what a call does, seen from its caller — the places
// of its reference parameters it reads and writes (and whether a token
// parameter's copy is still in flight when it does), which token parameters
// it waits, and which copies the tokens it returns hold, with their places.
// A token or a reference inside a tuple parameter has an identity of its
// own (the parameter and the component), as one passed alone does.
// Computed bottom-up over the call graph, each recursive cycle to a
// fixpoint from the top summary (Ownership.cpp).
#include <functional>

#include "check/own/Analysis.h"

namespace vx::check::own {

// The most subterms a returned integer or bool keeps in a summary (below).
constexpr size_t kMaxValueNodes = 512;
// The most subterms of the condition under which a call returns.
constexpr size_t kMaxReturnNodes = 2048;

namespace {

// Every (path, type) of the components of type t that `want` selects.
void paths(const hir::TypeTable& tt, hir::TypeId t, Loc at, const std::function<bool(hir::TypeId)>& want,
           std::vector<std::pair<Loc, hir::TypeId>>& out) {
  hir::TypeId x = tt.resolve(t);
  if (want(x)) {
    out.emplace_back(at, x);
    return;
  }
  if (tt.kind(x) != hir::TyKind::Tuple) return;
  for (uint32_t i = 0; i < tt.count(x); ++i) {
    Loc c;
    if (childLoc(at, i, c)) paths(tt, tt.elem(x, i), c, want, out);
  }
}

const Value* component(const Value& v, uint32_t path) {
  const Value* p = &v;
  for (; path; path >>= 8) {
    uint32_t i = (path & 0xff) - 1;
    if (p->kind != Value::Kind::Tuple || i >= p->elems.size()) return nullptr;
    p = &p->elems[i];
  }
  return p;
}

// A reference, or a tuple with one.
bool holdsRefs(const Analysis& a, hir::TypeId type) {
  const hir::TypeTable& tt = a.types();
  hir::TypeId r = tt.resolve(type);
  if (tt.kind(r) == hir::TyKind::Ref) return true;
  if (tt.kind(r) != hir::TyKind::Tuple) return false;
  for (uint32_t i = 0; i < tt.count(r); ++i)
    if (holdsRefs(a, tt.elem(r, i))) return true;
  return false;
}

// Component `path` of `v`, a value of type `t`, made a tuple where needed
// along the way.
Value* componentMut(Value& v, uint32_t path, const hir::TypeTable& tt, hir::TypeId t) {
  Value* p = &v;
  hir::TypeId x = tt.resolve(t);
  for (; path; path >>= 8) {
    uint32_t i = (path & 0xff) - 1;
    if (p->kind != Value::Kind::Tuple) {
      p->kind = Value::Kind::Tuple;
      p->elems.resize(tt.kind(x) == hir::TyKind::Tuple ? tt.count(x) : i + 1);
    }
    if (i >= p->elems.size()) p->elems.resize(i + 1);
    p = &p->elems[i];
    if (tt.kind(x) == hir::TyKind::Tuple) x = tt.resolve(tt.elem(x, i));
  }
  return p;
}

std::vector<ParamPlace> toParamPlaces(const Analysis& a, const std::vector<Alt>& alts, TermStore& t) {
  std::vector<ParamPlace> out;
  for (const Alt& alt : alts) {
    auto p = a.paramOf.find(alt.place.root);
    if (p == a.paramOf.end()) continue;  // the callee's own buffer: its business
    out.push_back(paramPlace(p->second, alt.place, t.mkAnd(t.tru(), alt.guard)));
  }
  return out;
}

bool isTokenType(const hir::TypeTable& tt, hir::TypeId t) { return tt.kind(t) == hir::TyKind::Token; }
bool isRefType(const hir::TypeTable& tt, hir::TypeId t) { return tt.kind(t) == hir::TyKind::Ref; }

}  // namespace

ParamPlace paramPlace(ParamLoc root, const Place& place, Term guard) {
  ParamPlace p{root, place.index, guard, place.text, place.row, place.col, place.rows, place.cols, place.inner};
  return p;
}

void beginSummary(Analysis& a, State& entry) {
  Summary& sum = a.summary;
  size_t n = a.body.params.size();
  sum = Summary{};
  a.accessIndex.clear();
  a.accessDirect.clear();
  sum.paramValues.assign(n, Term{});
  sum.paramLens.assign(n, Term{});
  for (size_t i = 0; i < n; ++i) {
    auto it = entry.scalars.find(Loc{a.body.params[i].index, 0});
    if (it != entry.scalars.end()) sum.paramValues[i] = it->second;
    for (const auto& [l, v] : entry.scalars)
      if (l.local == a.body.params[i].index && l.path != 0 && v.valid())
        sum.paramParts.push_back(Summary::ParamPart{static_cast<uint32_t>(i), l.path, v});
  }
}

void finishSummary(Analysis& a) {
  TermStore& t = a.terms;
  Summary& sum = a.summary;
  for (size_t i = 0; i < a.body.params.size(); ++i) {
    auto it = a.lens.find(Loc{a.body.params[i].index, 0});
    if (it != a.lens.end()) sum.paramLens[i] = it->second;
  }
  // A call returns on the paths that reach an exit; elsewhere it trapped.
  {
    std::vector<Term> paths;
    for (const State& x : a.exits) paths.push_back(x.pc);
    sum.returns = t.mkAnd(a.assumptions, t.mkOr(paths));
    // Grown past kMaxReturnNodes (each call of a chain adds its callee's
    // condition): the call is taken to return always, which only lets the
    // caller reach more states.
    if (t.largerThan(sum.returns, kMaxReturnNodes)) sum.returns = t.tru();
  }
  // Which token parameters the callee waited, on the paths that return.
  // Grown past kMaxReturnNodes (a recursive cycle or a chain of calls
  // handing the token on, each adding its callee's condition: quadratic in
  // the chain's length, 2.6 GB for a cycle of 400 functions), the copy is
  // taken to be still in flight after the call, which only makes the caller
  // see more copies in flight.
  for (const auto& [param, k] : a.paramCopy) {
    std::vector<Term> done;
    for (const State& x : a.exits) done.push_back(t.mkAnd(x.pc, t.mkNot(lookup(x.inflight, k, t.fls()))));
    Term completes = t.mkOr(done);
    if (t.largerThan(completes, kMaxReturnNodes)) completes = t.fls();
    sum.completes.emplace_back(param, completes);
  }
  // The same for the conditions of the accesses the caller sees: one grown
  // past the bound is taken to hold always (the access happens, its token
  // parameters' copies still in flight), which only adds conflicts.
  for (SummaryAccess& acc : sum.accesses) {
    if (t.largerThan(acc.place.guard, kMaxReturnNodes)) acc.place.guard = t.tru();
    for (auto& [param, live] : acc.tokenLive)
      if (t.largerThan(live, kMaxReturnNodes)) live = t.tru();
  }
  // A returned integer or bool: its value at whichever exit returns.
  if (isScalar(a, a.fn.ret) && !a.exits.empty()) {
    Term v;
    for (size_t e = a.exits.size(); e-- > 0;) {
      const Value& x = a.exitValues[e];
      Term here = x.kind == Value::Kind::Scalar && x.scalar.valid() ? x.scalar : Term{};
      if (!here.valid()) {
        v = Term{};
        break;
      }
      v = v.valid() ? t.mkIte(a.exits[e].pc, here, v) : here;
    }
    sum.value = v;
  }
  // A value whose term has grown past kMaxValueNodes (a chain of calls each
  // adding to what the last returned: every level substitutes the whole
  // term again, quadratic in the chain) is returned as an unknown value:
  // the callers prove nothing from it, which can only reject more.
  if (sum.value.valid() && t.largerThan(sum.value, kMaxValueNodes)) sum.value = Term{};
  // The integers and bools of a returned tuple, each at whichever exit
  // returns, where every exit knows it.
  if (a.types().kind(a.types().resolve(a.fn.ret)) == hir::TyKind::Tuple && !a.exits.empty()) {
    std::vector<std::pair<Loc, hir::TypeId>> parts;
    const hir::TypeTable& tt = a.types();
    paths(tt, a.fn.ret, Loc{0, 0}, [&](hir::TypeId x) {
      hir::TyKind k = tt.kind(tt.resolve(x));
      return k == hir::TyKind::Int || k == hir::TyKind::Bool;
    }, parts);
    for (const auto& [loc, type] : parts) {
      Term v;
      for (size_t e = a.exits.size(); e-- > 0;) {
        const Value* x = component(a.exitValues[e], loc.path);
        Term here = x && x->kind == Value::Kind::Scalar && x->scalar.valid() ? x->scalar : Term{};
        if (!here.valid()) {
          v = Term{};
          break;
        }
        v = v.valid() ? t.mkIte(a.exits[e].pc, here, v) : here;
      }
      if (v.valid() && !t.largerThan(v, kMaxValueNodes)) sum.valueParts.emplace_back(loc.path, v);
    }
  }
  // A returned reference: the parameters' places it points to, under the
  // exits' conditions.
  if (isRef(a, a.fn.ret)) {
    sum.refsKnown = !a.exits.empty();
    for (size_t e = 0; e < a.exits.size() && sum.refsKnown; ++e) {
      const Value& x = a.exitValues[e];
      if (x.kind != Value::Kind::Ref || x.ref.unknown) {
        sum.refsKnown = false;
        break;
      }
      for (const Alt& alt : x.ref.alts) {
        auto p = a.paramOf.find(alt.place.root);
        if (p == a.paramOf.end()) {
          sum.refsKnown = false;
          break;
        }
        sum.refs.push_back(paramPlace(p->second, alt.place, t.mkAnd(a.exits[e].pc, alt.guard)));
      }
    }
    if (!sum.refsKnown) sum.refs.clear();
  }
  // The copies the result's tokens hold, per exit.
  std::vector<std::pair<Loc, hir::TypeId>> tokens;
  const hir::TypeTable& tt = a.types();
  paths(tt, a.fn.ret, Loc{0, 0}, [&](hir::TypeId x) { return isTokenType(tt, x); }, tokens);
  for (const auto& [loc, type] : tokens) {
    SummaryToken tok;
    tok.path = loc.path;
    for (size_t e = 0; e < a.exits.size(); ++e) {
      const State& x = a.exits[e];
      const Value* v = component(a.exitValues[e], loc.path);
      if (!v || v->kind != Value::Kind::Token) continue;
      for (const auto& [k, g] : v->holds) {
        Term guard = t.mkAnd({x.pc, g, lookup(x.inflight, k, t.fls())});
        if (t.isFalse(guard)) continue;
        const Transfer& tr = a.transfers[k];
        SummaryCopy c;
        c.guard = guard;
        c.span = tr.span;
        c.kind = tr.kind;
        if (tr.origin == Origin::Param) {
          c.fromParam = true;
          c.param = ParamLoc{static_cast<uint32_t>(tr.param), tr.paramPath};
        } else {
          c.reads = toParamPlaces(a, tr.reads, t);
          c.writes = toParamPlaces(a, tr.writes, t);
          c.anyPlace = tr.anyPlace;
        }
        tok.copies.push_back(std::move(c));
      }
    }
    sum.result.push_back(std::move(tok));
  }
  // Every variable of the summary other than the parameters' values and
  // lengths is renamed at each call.
  std::set<uint32_t> keep;
  for (Term x : sum.paramValues)
    if (x.valid()) keep.insert(x.index);
  for (const Summary::ParamPart& x : sum.paramParts) keep.insert(x.value.index);
  for (Term x : sum.paramLens)
    if (x.valid()) keep.insert(x.index);
  // One walk over every term of the summary: they share the assumptions.
  std::vector<Term> roots;
  // The ranges of the renamed variables come along as part of the guards.
  for (SummaryAccess& acc : sum.accesses) {
    acc.place.guard = t.mkAnd(a.assumptions, acc.place.guard);
    roots.push_back(acc.place.guard);
    roots.push_back(acc.place.index);
    roots.push_back(acc.place.row);
    roots.push_back(acc.place.col);
    for (auto& [p, l] : acc.tokenLive) roots.push_back(l);
  }
  for (auto& [p, c] : sum.completes) roots.push_back(c);
  roots.push_back(sum.returns);
  if (sum.value.valid()) roots.push_back(sum.value);
  for (const auto& [path, v] : sum.valueParts) roots.push_back(v);
  for (ParamPlace& p : sum.refs) {
    p.guard = t.mkAnd(a.assumptions, p.guard);
    roots.push_back(p.guard);
    roots.push_back(p.index);
    roots.push_back(p.row);
    roots.push_back(p.col);
  }
  for (SummaryToken& tok : sum.result)
    for (SummaryCopy& c : tok.copies) {
      c.guard = t.mkAnd(a.assumptions, c.guard);
      roots.push_back(c.guard);
      for (ParamPlace& p : c.reads) roots.insert(roots.end(), {p.index, p.row, p.col});
      for (ParamPlace& p : c.writes) roots.insert(roots.end(), {p.index, p.row, p.col});
    }
  for (Term v : t.variables(roots))
    if (!keep.count(v.index)) sum.internals.push_back(v);
  sum.computed = true;
}

void makeTopSummary(const hir::Program& prog, TermStore& t, Summary& sum, const hir::Function& f, uint32_t index) {
  (void)index;
  const hir::TypeTable& tt = prog.types;
  sum = Summary{};
  sum.computed = true;
  sum.top = true;
  size_t n = f.params.size();
  sum.paramValues.assign(n, Term{});
  sum.paramLens.assign(n, Term{});
  std::vector<std::pair<ParamLoc, hir::TypeId>> tokens;
  for (size_t i = 0; i < n; ++i) {
    std::vector<std::pair<Loc, hir::TypeId>> refs, toks;
    paths(tt, f.paramTypes[i], Loc{0, 0}, [&](hir::TypeId x) { return isRefType(tt, x); }, refs);
    for (const auto& [loc, type] : refs) {
      SummaryAccess acc;
      acc.place = ParamPlace{ParamLoc{static_cast<uint32_t>(i), loc.path}, Term{}, t.tru(), prog.local(f.params[i]).name};
      acc.how = tt.get(type).sub == 1 ? AccessHow::Write : AccessHow::Read;
      acc.at = f.nameSpan;
      sum.accesses.push_back(acc);
    }
    paths(tt, f.paramTypes[i], Loc{0, 0}, [&](hir::TypeId x) { return isTokenType(tt, x); }, toks);
    for (const auto& [loc, type] : toks) {
      sum.completes.emplace_back(ParamLoc{static_cast<uint32_t>(i), loc.path}, t.fls());
      tokens.emplace_back(ParamLoc{static_cast<uint32_t>(i), loc.path}, type);
    }
  }
  // Whatever the result holds: any token parameter's copy, or a new copy
  // of any place.
  std::vector<std::pair<Loc, hir::TypeId>> results;
  paths(tt, f.ret, Loc{0, 0}, [&](hir::TypeId x) { return isTokenType(tt, x); }, results);
  for (const auto& [loc, type] : results) {
    SummaryToken tok;
    tok.path = loc.path;
    for (const auto& [p, pt] : tokens) {
      SummaryCopy c;
      c.fromParam = true;
      c.param = p;
      c.guard = t.tru();
      tok.copies.push_back(c);
    }
    SummaryCopy c;
    c.anyPlace = true;
    c.guard = t.tru();
    c.span = f.nameSpan;
    tok.copies.push_back(c);
    sum.result.push_back(tok);
  }
  // On-chip memory: a recursive cycle's depth is unknown.
  for (unsigned m = 0; m < 4; ++m) sum.peak[m] = 0;
}

Value applySummary(Analysis& a, State& s, const cir::Stmt& call, const Summary& sum, std::vector<Value>& args,
                   const std::vector<std::vector<Alt>>& argPlaces, const std::vector<Alt>& reachable) {
  TermStore& t = a.terms;
  const hir::Function& callee = a.prog.fn(call.fn);
  // Callee variables -> caller terms.
  std::vector<Term> from, to;
  for (uint32_t i = 0; i < args.size() && i < sum.paramValues.size(); ++i) {
    if (sum.paramValues[i].valid()) {
      from.push_back(sum.paramValues[i]);
      to.push_back(args[i].kind == Value::Kind::Scalar ? args[i].scalar
                                                        : t.fresh("$arg", t.sort(sum.paramValues[i])));
    }
    for (const Summary::ParamPart& part : sum.paramParts) {
      if (part.param != i) continue;
      const Value* x = component(args[i], part.path);
      from.push_back(part.value);
      to.push_back(x && x->kind == Value::Kind::Scalar && x->scalar.valid() ? x->scalar
                                                                          : t.fresh("$arg", t.sort(part.value)));
    }
    if (sum.paramLens[i].valid()) {
      Term len;
      const std::vector<Alt>& ps = argPlaces[i];
      if (ps.size() == 1 && ps[0].place.whole()) len = lenOf(a, ps[0].place.root);
      if (!len.valid()) {
        len = t.fresh("$len", smt::Sort::Int);
        a.assumptions = t.mkAnd(a.assumptions, t.mkLe(t.intConst(0), len));
      }
      from.push_back(sum.paramLens[i]);
      to.push_back(len);
    }
  }
  for (Term v : sum.internals) {
    from.push_back(v);
    to.push_back(t.fresh("$c", t.sort(v)));
  }
  auto sub = [&](Term x) { return x.valid() ? t.substitute(x, from, to) : x; };
  // Where a parameter (or a reference inside a tuple parameter) points.
  auto placesOfParam = [&](ParamLoc p) -> std::vector<Alt> {
    if (p.param >= args.size()) return {};
    if (p.path == 0) return argPlaces[p.param];
    const Value* v = component(args[p.param], p.path);
    if (!v || v->kind != Value::Kind::Ref) return pointsTo(a, s, RefVal{{}, false, true});
    return pointsTo(a, s, v->ref);
  };
  auto holdsOf = [&](ParamLoc p) -> const Holds* {
    if (p.param >= args.size()) return nullptr;
    const Value* v = component(args[p.param], p.path);
    return v && v->kind == Value::Kind::Token ? &v->holds : nullptr;
  };
  auto instantiate = [&](const ParamPlace& pp) {
    std::vector<Alt> out;
    for (Alt alt : placesOfParam(pp.root)) {
      Term idx = sub(pp.index);
      // The components the callee reached inside what the argument points
      // to (Place::inner): the caller's location of each, or, where the
      // caller cannot tell them apart, the larger place it has, with no
      // slot of a component taken for a slot of that place.
      for (uint32_t path = pp.inner; path != 0; path >>= 8) {
        uint32_t field = (path & 0xff) - 1;
        Loc c;
        bool whole = alt.place.whole() && !alt.place.sub.valid();
        hir::TypeId at = a.types().resolve(typeAt(a.types(), a.body, alt.place.root));
        if (whole && alt.place.inner == 0 && a.types().kind(at) == hir::TyKind::Tuple &&
            childLoc(alt.place.root, field, c)) {
          alt.place.root = c;
        } else if (!(whole && a.paramOf.count(alt.place.root) && childPath(alt.place.inner, field, alt.place.inner))) {
          idx = Term{};
          break;
        }
        alt.place.text += "." + std::to_string(field);
      }
      if (alt.place.whole() && idx.valid()) {
        alt.place.index = idx;
        alt.place.text = alt.place.text + "[..]";
      } else if (idx.valid() && alt.place.index.valid() && !alt.place.sub.valid() && !alt.place.blocked() &&
                 !pp.row.valid()) {
        alt.place.sub = idx;  // the callee's slot of the caller's slot (`&mut c[b]`, then `x[h]`)
        alt.place.text = alt.place.text + "[..]";
      }
      // A block the callee takes of what the argument points to (itself
      // maybe a block: the callee's is relative to it).
      if (pp.row.valid()) {
        if (alt.place.blocked()) {
          alt.place.row = t.mkAdd(alt.place.row, sub(pp.row));
          alt.place.col = t.mkAdd(alt.place.col, sub(pp.col));
        } else {
          alt.place.row = sub(pp.row);
          alt.place.col = sub(pp.col);
        }
        alt.place.rows = pp.rows;
        alt.place.cols = pp.cols;
        alt.place.text = pp.text;
      }
      alt.guard = t.mkAnd(alt.guard, sub(pp.guard));
      out.push_back(alt);
    }
    return out;
  };
  // The callee's accesses, against the caller's copies in flight: a copy
  // handed to the callee as a token parameter conflicts only while the
  // callee has not waited it yet.
  if (a.reporting()) {
    for (const SummaryAccess& acc : sum.accesses) {
      std::vector<Alt> ps = instantiate(acc.place);
      if (ps.empty()) continue;
      Holds stillLive;
      for (const auto& [param, liveTerm] : acc.tokenLive) {
        const Holds* h = holdsOf(param);
        if (!h) continue;
        for (const auto& [k, g] : *h) {
          Term& c = stillLive.emplace(k, t.tru()).first->second;
          c = t.mkAnd(c, t.mkImplies(g, sub(liveTerm)));
        }
      }
      std::string label = "`" + callee.name + "` " +
                          (acc.how == AccessHow::Read || acc.how == AccessHow::CopyRead ? "reads" : "writes") +
                          " `" + acc.place.text + "` here";
      base::Span argSpan =
          acc.place.root.param < call.args.count ? a.body.arg(call, acc.place.root.param).span : call.span;
      accessThroughCall(a, s, ps, acc.how, argSpan, stillLive, acc.at, label);
      recordForCaller(a, s, ps, acc.how, acc.at, /*direct=*/false, &stillLive);  // the access itself, however deep
      recordForGrid(a, s, ps, acc.how, call.span);  // a grid's instance: the call makes it
    }
  }
  // After the call, the callee has returned.
  if (sum.returns.valid()) s.pc = t.mkAnd(s.pc, sub(sum.returns));
  // Token arguments are handed over; those the callee waits complete.
  for (uint32_t i = 0; i < args.size(); ++i)
    if (args[i].kind == Value::Kind::Token || args[i].kind == Value::Kind::Tuple)
      consume(a, s, args[i], a.body.arg(call, i).span, args[i].name.empty() ? "the token" : args[i].name, false);
  for (const auto& [param, doneTerm] : sum.completes) {
    const Holds* h = holdsOf(param);
    if (!h || !doneTerm.valid()) continue;
    Term done = sub(doneTerm);
    for (const auto& [k, g] : *h) {
      auto it = s.inflight.find(k);
      if (it != s.inflight.end()) it->second = t.mkAnd(it->second, t.mkNot(t.mkAnd(g, done)));
    }
  }
  // The result.
  Value result;
  if (isRef(a, call.type)) {
    result.kind = Value::Kind::Ref;
    result.ref.mut = a.types().get(a.types().resolve(call.type)).sub == 1;
    if (sum.refsKnown) {
      // Where the callee's result points: places of its parameters.
      for (const ParamPlace& pp : sum.refs)
        for (Alt& alt : instantiate(pp)) result.ref.alts.push_back(alt);
      return result;
    }
    // Otherwise any place its arguments' references reach: within them
    // (a reference to a slot reaches no other slot), so a larger place.
    result.ref.alts = reachable;
    return result;
  }
  // References in a returned tuple: any place the arguments' references
  // reach (a reference returned points into what the caller lent).
  std::function<void(Value&, hir::TypeId)> fillRefs = [&](Value& v, hir::TypeId type) {
    const hir::TypeTable& tt = a.types();
    hir::TypeId r = tt.resolve(type);
    if (tt.kind(r) == hir::TyKind::Ref) {
      v.kind = Value::Kind::Ref;
      v.ref.mut = tt.get(r).sub == 1;
      v.ref.alts = reachable;
      return;
    }
    if (tt.kind(r) != hir::TyKind::Tuple) return;
    v.kind = Value::Kind::Tuple;
    v.elems.resize(tt.count(r));
    for (uint32_t i = 0; i < tt.count(r); ++i) fillRefs(v.elems[i], tt.elem(r, i));
  };
  if (a.types().kind(a.types().resolve(call.type)) == hir::TyKind::Tuple && holdsRefs(a, call.type))
    fillRefs(result, call.type);
  // The integers and bools of a returned tuple the callee knows.
  for (const auto& [path, v] : sum.valueParts)
    *componentMut(result, path, a.types(), call.type) = Value::ofScalar(sub(v));
  if (isScalar(a, call.type)) return sum.value.valid() ? Value::ofScalar(sub(sum.value)) : result;
  if (!hasTokens(a, call.type)) return result;
  for (const SummaryToken& tok : sum.result) {
    Value* slot = componentMut(result, tok.path, a.types(), call.type);
    slot->kind = Value::Kind::Token;
    for (const SummaryCopy& c : tok.copies) {
      Term guard = sub(c.guard);
      if (t.isFalse(guard)) continue;
      if (c.fromParam) {
        const Holds* h = holdsOf(c.param);
        if (!h) continue;
        for (const auto& [k, g] : *h) {
          Term hg = t.mkAnd(g, guard);
          auto it = slot->holds.find(k);
          Term joined = it == slot->holds.end() ? hg : t.mkOr(it->second, hg);
          slot->holds[k] = joined;
        }
        continue;
      }
      Transfer tr;
      tr.origin = Origin::Call;
      tr.site = call.origin;
      tr.kind = c.kind;
      tr.span = call.span;
      tr.anyPlace = c.anyPlace;
      for (const ParamPlace& pp : c.reads)
        for (Alt& alt : instantiate(pp)) tr.reads.push_back(alt);
      for (const ParamPlace& pp : c.writes)
        for (Alt& alt : instantiate(pp)) tr.writes.push_back(alt);
      Value v = startCopy(a, s, std::move(tr));
      TransferId k = v.holds.begin()->first;
      s.inflight[k] = guard;
      slot->holds[k] = guard;
    }
  }
  return result;
}

}  // namespace vx::check::own

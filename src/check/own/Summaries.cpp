// Function summaries: what a call does, seen from its caller — the places
// of its reference parameters it reads and writes (and whether a token
// parameter's copy is still in flight when it does), which token parameters
// it waits, and which copies the tokens it returns hold, with their places.
// Computed bottom-up over the call graph (Ownership.cpp); a function in a
// recursive cycle is first given the top summary (anything a call could do).
#include <functional>

#include "check/own/Analysis.h"

namespace vx::check::own {

using hir::ExprKind;

namespace {

// The paths of the token components of a type (0 for a token itself).
void tokenPaths(const Analysis& a, hir::TypeId t, Loc at, std::vector<std::pair<Loc, hir::TypeId>>& out) {
  const hir::TypeTable& tt = a.types();
  hir::TypeId x = tt.resolve(t);
  if (tt.kind(x) == hir::TyKind::Token) {
    out.emplace_back(at, x);
    return;
  }
  if (tt.kind(x) != hir::TyKind::Tuple) return;
  for (uint32_t i = 0; i < tt.count(x); ++i) {
    Loc c;
    if (hasTokens(a, tt.elem(x, i)) && childLoc(at, i, c)) tokenPaths(a, tt.elem(x, i), c, out);
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

Value* componentMut(Value& v, uint32_t path, const Analysis& a, hir::TypeId t) {
  Value* p = &v;
  const hir::TypeTable& tt = a.types();
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
  p->kind = Value::Kind::Token;
  return p;
}

std::vector<ParamPlace> toParamPlaces(const Analysis& a, const std::vector<Alt>& alts, Term guard, TermStore& t,
                                      bool& lost) {
  std::vector<ParamPlace> out;
  for (const Alt& alt : alts) {
    auto p = a.paramOf.find(alt.place.root.index);
    if (p == a.paramOf.end()) continue;  // the callee's own buffer: its business
    out.push_back(ParamPlace{static_cast<uint32_t>(p->second), alt.place.index, t.mkAnd(guard, alt.guard),
                             alt.place.text});
  }
  (void)lost;
  return out;
}

}  // namespace

void beginSummary(Analysis& a, State& entry) {
  Summary& sum = a.summary;
  size_t n = a.fn.params.size();
  sum = Summary{};
  sum.paramValues.assign(n, Term{});
  sum.paramLens.assign(n, Term{});
  sum.completes.assign(n, Term{});
  for (size_t i = 0; i < n; ++i) {
    hir::LocalId p = a.fn.params[i];
    auto it = entry.scalars.find(p.index);
    if (it != entry.scalars.end()) sum.paramValues[i] = it->second;
  }
}

void finishSummary(Analysis& a, const State& exit, const Value& result) {
  (void)exit;
  (void)result;
  TermStore& t = a.terms;
  Summary& sum = a.summary;
  for (size_t i = 0; i < a.fn.params.size(); ++i) {
    auto it = a.lens.find(a.fn.params[i].index);
    if (it != a.lens.end()) sum.paramLens[i] = it->second;
  }
  // A call returns on the paths that reach an exit; elsewhere it trapped.
  {
    std::vector<Term> paths;
    for (const State& x : a.exits) paths.push_back(x.pc);
    sum.returns = t.mkAnd(a.assumptions, t.mkOr(paths));
  }
  // Which token parameters the callee waited, on the paths that return.
  for (const auto& [param, k] : a.paramCopy) {
    std::vector<Term> done;
    for (const State& x : a.exits) done.push_back(t.mkAnd(x.pc, t.mkNot(lookup(x.inflight, k, t.fls()))));
    sum.completes[param] = t.mkOr(done);
  }
  // The copies the result's tokens hold, per exit.
  std::vector<std::pair<Loc, hir::TypeId>> paths;
  tokenPaths(a, a.fn.ret, Loc{0, 0}, paths);
  for (const auto& [loc, type] : paths) {
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
          c.param = static_cast<uint32_t>(tr.param);
        } else {
          bool lost = false;
          c.reads = toParamPlaces(a, tr.reads, t.tru(), t, lost);
          c.writes = toParamPlaces(a, tr.writes, t.tru(), t, lost);
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
  for (Term x : sum.paramLens)
    if (x.valid()) keep.insert(x.index);
  // One walk over every term of the summary: they share the assumptions.
  std::vector<Term> roots;
  auto collect = [&](Term x) { roots.push_back(x); };
  // The ranges of the renamed variables come along as part of the guards.
  for (SummaryAccess& acc : sum.accesses) {
    acc.place.guard = t.mkAnd(a.assumptions, acc.place.guard);
    collect(acc.place.guard);
    collect(acc.place.index);
    for (auto& [p, l] : acc.tokenLive) collect(l);
  }
  for (Term& c : sum.completes) collect(c);
  collect(sum.returns);
  for (SummaryToken& tok : sum.result)
    for (SummaryCopy& c : tok.copies) {
      c.guard = t.mkAnd(a.assumptions, c.guard);
      collect(c.guard);
      for (ParamPlace& p : c.reads) collect(p.index);
      for (ParamPlace& p : c.writes) collect(p.index);
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
  sum.completes.assign(n, Term{});
  for (size_t i = 0; i < n; ++i) {
    hir::TypeId pt = tt.resolve(f.paramTypes[i]);
    if (tt.kind(pt) == hir::TyKind::Ref) {
      SummaryAccess acc;
      acc.place = ParamPlace{static_cast<uint32_t>(i), Term{}, t.tru(), prog.local(f.params[i]).name};
      acc.how = tt.get(pt).sub == 1 ? AccessHow::Write : AccessHow::Read;
      acc.at = f.nameSpan;
      sum.accesses.push_back(acc);
    }
    if (tt.kind(pt) == hir::TyKind::Token) sum.completes[i] = t.fls();
  }
  // Whatever the result holds: any token parameter's copy, or a new copy
  // of any place.
  std::function<void(hir::TypeId, uint32_t, unsigned)> paths = [&](hir::TypeId x, uint32_t path, unsigned depth) {
    x = tt.resolve(x);
    if (tt.kind(x) == hir::TyKind::Token) {
      SummaryToken tok;
      tok.path = path;
      for (size_t i = 0; i < n; ++i)
        if (tt.kind(tt.resolve(f.paramTypes[i])) == hir::TyKind::Token) {
          SummaryCopy c;
          c.fromParam = true;
          c.param = static_cast<uint32_t>(i);
          c.guard = t.tru();
          tok.copies.push_back(c);
        }
      SummaryCopy c;
      c.anyPlace = true;
      c.guard = t.tru();
      c.span = f.nameSpan;
      tok.copies.push_back(c);
      sum.result.push_back(tok);
      return;
    }
    if (tt.kind(x) != hir::TyKind::Tuple || depth >= 4) return;
    for (uint32_t i = 0; i < tt.count(x) && i < 255; ++i) paths(tt.elem(x, i), path | ((i + 1) << (8 * depth)), depth + 1);
  };
  paths(f.ret, 0, 0);
}

Value applySummary(Analysis& a, State& s, hir::ExprId callId, const Summary& sum, std::vector<Value>& args) {
  TermStore& t = a.terms;
  const hir::Expr& call = a.prog.expr(callId);
  const hir::Function& callee = a.prog.fn(call.fn);
  // Callee variables -> caller terms.
  std::vector<Term> from, to;
  std::vector<std::vector<Alt>> places(call.args.count);
  for (uint32_t i = 0; i < call.args.count && i < sum.paramValues.size(); ++i) {
    hir::ExprId arg = a.prog.arg(call, i);
    if (sum.paramValues[i].valid()) {
      from.push_back(sum.paramValues[i]);
      to.push_back(valueOf(a, s, arg));
    }
    if (isRef(a, a.prog.expr(arg).type)) places[i] = placesOf(a, s, arg);
    if (sum.paramLens[i].valid()) {
      Term len;
      if (places[i].size() == 1 && places[i][0].place.whole()) len = lenOf(a, places[i][0].place.root);
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
  auto instantiate = [&](const ParamPlace& pp, Term extra) {
    std::vector<Alt> out;
    if (pp.param >= places.size()) return out;
    Term idx = sub(pp.index);
    for (Alt alt : places[pp.param]) {
      if (alt.place.whole() && idx.valid()) {
        alt.place.index = idx;
        alt.place.text = alt.place.text + "[..]";
      }
      alt.guard = t.mkAnd({alt.guard, extra, sub(pp.guard)});
      out.push_back(alt);
    }
    return out;
  };
  // The callee's accesses, against the caller's copies in flight: a copy
  // handed to the callee as a token parameter conflicts only while the
  // callee has not waited it yet.
  if (a.reporting()) {
    for (const SummaryAccess& acc : sum.accesses) {
      std::vector<Alt> ps = instantiate(acc.place, t.tru());
      if (ps.empty()) continue;
      Holds stillLive;
      for (const auto& [param, liveTerm] : acc.tokenLive) {
        if (param >= args.size()) continue;
        const Value& v = args[param];
        if (v.kind != Value::Kind::Token) continue;
        for (const auto& [k, h] : v.holds) {
          Term& c = stillLive.emplace(k, t.tru()).first->second;
          c = t.mkAnd(c, t.mkImplies(h, sub(liveTerm)));
        }
      }
      std::string label = "`" + callee.name + "` " +
                          (acc.how == AccessHow::Read || acc.how == AccessHow::CopyRead ? "reads" : "writes") +
                          " `" + acc.place.text + "` here";
      base::Span argSpan = acc.place.param < call.args.count ? a.prog.expr(a.prog.arg(call, acc.place.param)).span
                                                             : call.span;
      accessThroughCall(a, s, ps, acc.how, argSpan, stillLive, acc.at, label);
      recordForCaller(a, s, ps, acc.how, argSpan);
    }
  }
  // After the call, the callee has returned.
  if (sum.returns.valid()) s.pc = t.mkAnd(s.pc, sub(sum.returns));
  // Token arguments are handed over; those the callee waits complete.
  for (uint32_t i = 0; i < args.size(); ++i) {
    if (args[i].kind != Value::Kind::Token && args[i].kind != Value::Kind::Tuple) continue;
    consume(a, s, args[i], a.prog.expr(a.prog.arg(call, i)).span,
            args[i].name.empty() ? "the token" : args[i].name, false);
    if (args[i].kind == Value::Kind::Token && i < sum.completes.size() && sum.completes[i].valid()) {
      Term done = sub(sum.completes[i]);
      for (const auto& [k, h] : args[i].holds) {
        auto it = s.inflight.find(k);
        if (it != s.inflight.end()) it->second = t.mkAnd(it->second, t.mkNot(t.mkAnd(h, done)));
      }
    }
  }
  // The result.
  Value result;
  if (isRef(a, call.type)) {
    result.kind = Value::Kind::Ref;
    result.ref.alts = placesOf(a, s, callId);
    return result;
  }
  if (!hasTokens(a, call.type)) return result;
  for (const SummaryToken& tok : sum.result) {
    Value* slot = componentMut(result, tok.path, a, call.type);
    for (const SummaryCopy& c : tok.copies) {
      Term guard = sub(c.guard);
      if (t.isFalse(guard)) continue;
      if (c.fromParam) {
        if (c.param >= args.size() || args[c.param].kind != Value::Kind::Token) continue;
        for (const auto& [k, h] : args[c.param].holds) {
          Term g = t.mkAnd(h, guard);
          auto it = slot->holds.find(k);
          Term joined = it == slot->holds.end() ? g : t.mkOr(it->second, g);  // before the insertion below
          slot->holds[k] = joined;
        }
        continue;
      }
      Transfer tr;
      tr.origin = Origin::Call;
      tr.site = callId;
      tr.kind = c.kind;
      tr.span = call.span;
      tr.anyPlace = c.anyPlace;
      for (const ParamPlace& pp : c.reads)
        for (Alt& alt : instantiate(pp, t.tru())) tr.reads.push_back(alt);
      for (const ParamPlace& pp : c.writes)
        for (Alt& alt : instantiate(pp, t.tru())) tr.writes.push_back(alt);
      a.transfers.push_back(std::move(tr));
      TransferId k = static_cast<TransferId>(a.transfers.size() - 1);
      s.inflight[k] = guard;
      slot->holds[k] = guard;
    }
  }
  return result;
}

}  // namespace vx::check::own

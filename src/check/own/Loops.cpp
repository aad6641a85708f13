// Loops, by k-induction with inferred invariants (docs/checker.md, "Loops").
//
// The state at the head of iteration `i` is exact for the first iterations
// (i = lo, lo + 1, ...: the body walked from the state before the loop).
// For the later ones it is the widened state — every fact the loop changes
// replaced by an unknown, constrained by the invariants found — followed by
// K walks of the body, K being the number of token locations the loop
// carries: a copy issued k <= K iterations ago is then known exactly (its
// slot in terms of the current `i`, its counters, which variable holds it),
// and anything older is summarised soundly by the widened state, whose
// copies may be in flight into any slot they could have written. The
// invariants (Houdini: candidates that hold at the first widened iteration
// and are preserved by the body) relate token liveness, moves and counters.
// Then the body is walked once more from that head, reporting.
#include <cstdio>
#include <cstdlib>
#include <functional>

#include "check/own/Analysis.h"

namespace vx::check::own {

using hir::ExprKind;
using smt::Int128;

namespace {

constexpr unsigned kMaxUnroll = 8;

struct LoopCtx {
  hir::StmtId id;
  const hir::Stmt* st;
  bool isFor;
  Term lo, hi;        // for loops: the range
  hir::LocalId var;   // for loops: the induction variable
  const LoopInfo* info;
};

// "Iteration `iter` runs": its head exists and the body is entered.
Term inRange(TermStore& t, const LoopCtx& L, Term iter) {
  if (!L.isFor) return t.mkLe(t.intConst(0), iter);
  return t.mkAnd(t.mkLe(L.lo, iter), t.mkLt(iter, L.hi));
}

struct BodyResult {
  State end;                  // at the end of the body (and every `continue`)
  std::vector<State> breaks;
};

// Walks the body of iteration `iter` from its head `head`.
BodyResult walkBody(Analysis& a, const LoopCtx& L, const State& head, Term iter) {
  TermStore& t = a.terms;
  LoopFrame frame;
  frame.scopeLevel = a.scopes.size();
  a.loops.push_back(&frame);
  a.scopes.emplace_back();
  State s = head;
  if (L.isFor) {
    s.pc = t.mkAnd(s.pc, inRange(t, L, iter));
    s.scalars[L.var.index] = iter;
    a.scopes.back().push_back(L.var);
    a.loopVars.push_back(L.var);
  } else {
    s.pc = t.mkAnd(s.pc, inRange(t, L, iter));
    walkExpr(a, s, L.st->a);
    s.pc = t.mkAnd(s.pc, valueOf(a, s, L.st->a));
  }
  if (!t.isFalse(s.pc)) walkBlock(a, s, L.st->body);
  a.loops.pop_back();
  if (L.isFor) a.loopVars.pop_back();
  BodyResult r;
  r.breaks = std::move(frame.breaks);
  std::vector<State> ends = std::move(frame.continues);
  ends.push_back(s);
  r.end = joinAll(t, ends, head);
  if (L.isFor) {
    r.end.scalars.erase(L.var.index);
    for (State& b : r.breaks) b.scalars.erase(L.var.index);
  }
  a.scopes.pop_back();
  return r;
}

// The head of iteration iter + 1 after `end` (iteration iter's end): it
// exists only when the next iteration is in range.
State nextHead(TermStore& t, const LoopCtx& L, const State& end, Term iter) {
  State h = end;
  if (L.isFor) h.pc = t.mkAnd(h.pc, t.mkLt(t.mkAdd(iter, t.intConst(1)), L.hi));
  return h;
}

using Candidate = std::function<Term(const State&, Term iter)>;

std::vector<Candidate> candidates(Analysis& a, const LoopCtx& L, const State& before) {
  TermStore& t = a.terms;
  const Changed& ch = L.info->changed;
  std::vector<Candidate> out;
  auto scalarOf = [&a](uint32_t l) {
    return [&a, l](const State& s) {
      auto it = s.scalars.find(l);
      return it == s.scalars.end() ? Term{} : it->second;
    };
  };
  std::vector<std::function<Term(const State&)>> bools;  // boolean facts to relate
  for (size_t i = 0; i < ch.scalars.size(); ++i)
    if (ch.scalarIsBool[i] && before.scalars.count(ch.scalars[i])) bools.push_back(scalarOf(ch.scalars[i]));
  // Integer comparisons the loop makes, as boolean facts too.
  for (size_t i = 0; i < ch.scalars.size(); ++i) {
    if (ch.scalarIsBool[i] || !before.scalars.count(ch.scalars[i])) continue;
    uint32_t l = ch.scalars[i];
    auto cs = L.info->constants.find(l);
    if (cs == L.info->constants.end()) continue;
    size_t n = 0;
    for (Int128 c : cs->second) {
      if (n++ >= 4) break;
      bools.push_back([&a, l, c](const State& s) {
        auto it = s.scalars.find(l);
        return it == s.scalars.end() ? Term{} : a.terms.mkEq(it->second, a.terms.intConst(c));
      });
    }
  }
  auto relate = [&](std::function<Term(const State&)> fact) {
    out.push_back([fact](const State& s, Term) { return fact(s); });
    out.push_back([fact, &t](const State& s, Term) {
      Term x = fact(s);
      return x.valid() ? t.mkNot(x) : x;
    });
    for (const auto& b : bools) {
      out.push_back([fact, b, &t](const State& s, Term) {
        Term x = fact(s), y = b(s);
        return x.valid() && y.valid() ? t.mkEq(x, y) : Term{};
      });
      out.push_back([fact, b, &t](const State& s, Term) {
        Term x = fact(s), y = b(s);
        return x.valid() && y.valid() ? t.mkEq(x, t.mkNot(y)) : Term{};
      });
    }
  };
  if (std::getenv("VX_DEBUG_LOOPS"))
    for (Loc l : ch.tokens) std::fprintf(stderr, "changed loc %u.%u\n", l.local, l.path);
  for (Loc l : ch.tokens)
    relate([&a, l](const State& s) {
      auto it = s.tokens.find(l);
      return it == s.tokens.end() ? a.terms.fls() : live(a.terms, s, it->second);
    });
  for (uint32_t m : ch.moved)
    relate([&a, m](const State& s) { return lookup(s.moved, m, a.terms.fls()); });
  // A loop that leaves when its index meets a bound it does not change
  // (`if i == m { break; }`): the iterations reached are those before the
  // bound. Likewise for a counter compared with such a bound.
  auto partnerValue = [&](uint32_t y) -> Term {
    auto it = before.scalars.find(y);
    return it == before.scalars.end() ? Term{} : it->second;
  };
  if (L.isFor) {
    auto ps = L.info->partners.find(L.var.index);
    if (ps != L.info->partners.end())
      for (uint32_t y : ps->second) {
        Term e = partnerValue(y);
        if (!e.valid()) continue;
        Term lo = L.lo;
        out.push_back([&t, e, lo](const State&, Term iter) {
          return t.mkNot(t.mkAnd(t.mkLe(lo, e), t.mkLt(e, iter)));
        });
        out.push_back([&t, e](const State&, Term iter) { return t.mkLe(iter, e); });
      }
  }
  for (size_t i = 0; i < ch.scalars.size(); ++i) {
    if (ch.scalarIsBool[i]) continue;
    uint32_t l = ch.scalars[i];
    auto ps = L.info->partners.find(l);
    if (ps == L.info->partners.end() || !before.scalars.count(l)) continue;
    Term initial = before.scalars.at(l);
    for (uint32_t y : ps->second) {
      Term e = partnerValue(y);
      if (!e.valid()) continue;
      out.push_back([&t, l, e, initial](const State& s, Term) {
        auto x = s.scalars.find(l);
        if (x == s.scalars.end()) return Term{};
        return t.mkNot(t.mkAnd(t.mkLe(initial, e), t.mkLt(e, x->second)));
      });
      out.push_back([&t, l, e](const State& s, Term) {
        auto x = s.scalars.find(l);
        return x == s.scalars.end() ? Term{} : t.mkLe(x->second, e);
      });
    }
  }
  // Ranges of integer counters, and counters that step with the iteration.
  for (size_t i = 0; i < ch.scalars.size(); ++i) {
    if (ch.scalarIsBool[i] || !before.scalars.count(ch.scalars[i])) continue;
    uint32_t l = ch.scalars[i];
    std::vector<Int128> cs{0};
    auto it = L.info->constants.find(l);
    if (it != L.info->constants.end())
      for (Int128 c : it->second)
        if (cs.size() < 6) cs.push_back(c);
    Term initial = before.scalars.at(l);
    for (Int128 c : cs) {
      out.push_back([&t, l, c](const State& s, Term) {
        auto x = s.scalars.find(l);
        return x == s.scalars.end() ? Term{} : t.mkLe(t.intConst(c), x->second);
      });
      out.push_back([&t, l, c](const State& s, Term) {
        auto x = s.scalars.find(l);
        return x == s.scalars.end() ? Term{} : t.mkLt(x->second, t.intConst(c));
      });
      out.push_back([&t, l, c](const State& s, Term) {
        auto x = s.scalars.find(l);
        return x == s.scalars.end() ? Term{} : t.mkLe(x->second, t.intConst(c));
      });
      if (c >= 2 && L.isFor) {
        Term lo = L.lo;
        out.push_back([&t, l, c, initial, lo](const State& s, Term iter) {
          auto x = s.scalars.find(l);
          if (x == s.scalars.end()) return Term{};
          return t.mkEq(x->second, t.mkEuclidMod(t.mkAdd(initial, t.mkSub(iter, lo)), t.intConst(c)));
        });
      }
    }
    if (L.isFor) {
      Term lo = L.lo;
      out.push_back([&t, l, initial, lo](const State& s, Term iter) {
        auto x = s.scalars.find(l);
        return x == s.scalars.end() ? Term{} : t.mkEq(x->second, t.mkAdd(initial, t.mkSub(iter, lo)));
      });
    }
  }
  return out;
}

// The candidates that hold at `base` (the head of iteration lo + 1).
std::vector<Candidate> holdAtBase(Analysis& a, const std::vector<Candidate>& cands, const State& base, Term iter) {
  TermStore& t = a.terms;
  std::vector<Candidate> kept;
  for (const Candidate& c : cands) {
    Term f = c(base, iter);
    if (!f.valid()) continue;
    if (t.isTrue(f) || !possible(a, base, t.mkNot(f))) kept.push_back(c);
  }
  return kept;
}

Term conjunction(TermStore& t, const std::vector<Candidate>& cs, const State& s, Term iter) {
  std::vector<Term> parts;
  for (const Candidate& c : cs) {
    Term f = c(s, iter);
    if (f.valid()) parts.push_back(f);
  }
  return t.mkAnd(parts);
}

// The exit after iteration `iter`, whose end state is `end`: the loop
// condition fails at the next head.
State exitAfter(Analysis& a, const LoopCtx& L, const State& end, Term iter) {
  TermStore& t = a.terms;
  State x = end;
  if (L.isFor) {
    x.pc = t.mkAnd(x.pc, t.mkLe(L.hi, t.mkAdd(iter, t.intConst(1))));
  } else {
    walkExpr(a, x, L.st->a);
    x.pc = t.mkAnd(x.pc, t.mkNot(valueOf(a, x, L.st->a)));
  }
  return x;
}

void runLoop(Analysis& a, State& s, LoopCtx& L) {
  TermStore& t = a.terms;
  const State before = s;
  unsigned K = std::min(L.info->carried, kMaxUnroll);
  Term iter = L.isFor ? freshValue(a, a.prog.local(L.var).type, localName(a, L.var)) : t.fresh("$iter", smt::Sort::Int);
  Term lo = L.isFor ? L.lo : t.intConst(0);
  auto at = [&](unsigned j) { return t.mkAdd(lo, t.intConst(j)); };
  std::vector<State> exits;
  // Zero iterations: the condition fails at the first head.
  {
    State zero = before;
    if (L.isFor) {
      zero.pc = t.mkAnd(before.pc, t.mkLe(L.hi, L.lo));
    } else {
      walkExpr(a, zero, L.st->a);
      zero.pc = t.mkAnd(zero.pc, t.mkNot(valueOf(a, zero, L.st->a)));
    }
    exits.push_back(zero);
  }
  // The exact first iterations lo .. lo + K, walked for real (they report):
  // heads[j] is the head of iteration lo + j; heads[1] is also where the
  // invariants must first hold.
  std::vector<State> heads{before};
  for (unsigned j = 0; j <= K && !a.overBudget(); ++j) {
    BodyResult r = walkBody(a, L, heads.back(), at(j));
    exits.insert(exits.end(), r.breaks.begin(), r.breaks.end());
    exits.push_back(exitAfter(a, L, r.end, at(j)));
    heads.push_back(nextHead(t, L, r.end, at(j)));
  }
  if (a.overBudget()) return;
  // Every later iteration, iter >= lo + K + 1: the widened head of
  // iteration iter - K (>= lo + 1), constrained by the invariants (Houdini:
  // assume the candidates that hold at lo + 1, walk the body, keep those that
  // still hold at the next head; repeat until none fails — loops nested
  // inside see the assumed invariants), walked K times up to the head of
  // `iter`, and then once more, reporting.
  ++a.silent;
  State widened = widen(a, before, *L.info, L.id);
  Term wIter = t.mkSub(iter, t.intConst(K));
  std::vector<Candidate> kept = holdAtBase(a, candidates(a, L, before), heads[1], at(1));
  State assumed, afterOne;
  for (int round = 0;; ++round) {
    if (round == 6) kept.clear();
    assumed = widened;
    assumed.pc = t.mkAnd({assumed.pc, conjunction(t, kept, widened, wIter), t.mkLe(at(1), wIter)});
    BodyResult r = walkBody(a, L, assumed, wIter);
    afterOne = nextHead(t, L, r.end, wIter);
    if (kept.empty() || a.overBudget()) break;
    std::vector<Candidate> still;
    Term nextIter = t.mkAdd(wIter, t.intConst(1));
    for (const Candidate& c : kept) {
      Term f = c(afterOne, nextIter);
      if (f.valid() && !possible(a, afterOne, t.mkNot(f))) still.push_back(c);
    }
    if (still.size() == kept.size()) break;
    kept = std::move(still);
  }
  if (std::getenv("VX_DEBUG_LOOPS"))
    std::fprintf(stderr, "loop invariant: %zu candidates kept\n", kept.size());
  State generic = K == 0 ? assumed : afterOne;
  for (unsigned m = 1; m < K && !a.overBudget(); ++m) {
    Term it = t.mkSub(iter, t.intConst(K - m));
    BodyResult r = walkBody(a, L, generic, it);
    generic = nextHead(t, L, r.end, it);
  }
  --a.silent;
  if (a.overBudget()) return;
  generic.pc = t.mkAnd(generic.pc, t.mkLe(at(K + 1), iter));
  BodyResult final = walkBody(a, L, generic, iter);
  if (a.overBudget()) return;
  exits.insert(exits.end(), final.breaks.begin(), final.breaks.end());
  exits.push_back(exitAfter(a, L, final.end, iter));
  s = joinAll(t, exits, before);
}

}  // namespace

State widen(Analysis& a, const State& s, const LoopInfo& info, hir::StmtId loop) {
  TermStore& t = a.terms;
  State h = s;
  const Changed& ch = info.changed;
  std::vector<Term> facts;  // constraints that hold of every violation-free state
  for (size_t i = 0; i < ch.scalars.size(); ++i) {
    uint32_t l = ch.scalars[i];
    if (!h.scalars.count(l)) continue;
    h.scalars[l] = freshValue(a, a.prog.local(hir::LocalId{l}).type, "$w_" + localName(a, hir::LocalId{l}));
  }
  for (uint32_t m : ch.moved) h.moved[m] = t.fresh("$moved", smt::Sort::Bool);
  for (uint32_t r : ch.refs) {
    RefVal v;
    v.unknown = true;
    auto it = h.refs.find(r);
    if (it != h.refs.end()) v.mut = it->second.mut;
    h.refs[r] = v;
  }
  if (ch.tokens.empty()) return h;
  // Copies held by changed locations before the loop may have moved among
  // them or been waited.
  std::set<TransferId> before;
  for (Loc l : ch.tokens) {
    auto it = s.tokens.find(l);
    if (it == s.tokens.end()) continue;
    for (const auto& [k, g] : it->second)
      if (!t.isFalse(g)) before.insert(k);
  }
  std::map<TransferId, std::vector<Term>> holders;
  for (TransferId k : before) h.inflight[k] = t.fresh("$inflight", smt::Sort::Bool);
  for (Loc l : ch.tokens) {
    if (!h.tokens.count(l) && !s.tokens.count(l)) {
      // Declared before the loop but not bound yet on this path: nothing.
    }
    Holds nh;
    for (TransferId k : before) {
      Term g = t.fresh("$holds", smt::Sort::Bool);
      nh[k] = g;
      holders[k].push_back(g);
    }
    // Copies started in the loop in earlier iterations: one per site, in
    // flight into any slot that site could have written.
    for (hir::ExprId site : info.sites) {
      const hir::Expr& call = a.prog.expr(site);
      const hir::Function& f = a.prog.fn(call.fn);
      Transfer tr;
      tr.origin = Origin::Havoc;
      tr.site = site;
      tr.kind = f.builtin;
      tr.span = call.span;
      tr.iterationsAgo = 1;
      State scratch = s;
      ++a.silent;
      if (f.builtin != hir::Builtin::None) {
        const target::BuiltinInfo& bi = target::info(f.builtin);
        for (uint32_t i = 0; i < call.args.count && i < 3; ++i) {
          if (bi.args[i] != target::ArgEffect::DmaSrc && bi.args[i] != target::ArgEffect::DmaDst) continue;
          std::vector<Alt> ps = placesOf(a, scratch, a.prog.arg(call, i));
          if (ps.empty()) tr.anyPlace = true;
          for (Alt& p : ps) {
            if (!p.place.whole()) p.place.index = t.fresh("$slot", smt::Sort::Int);
            p.guard = t.tru();
            (bi.args[i] == target::ArgEffect::DmaSrc ? tr.reads : tr.writes).push_back(p);
          }
        }
      } else {
        const Summary& sum = a.summaries[call.fn.index];
        if (sum.top) tr.anyPlace = true;
        for (const SummaryToken& tok : sum.result)
          for (const SummaryCopy& c : tok.copies) {
            if (c.fromParam) continue;
            if (c.anyPlace) tr.anyPlace = true;
            for (int side = 0; side < 2; ++side)
              for (const ParamPlace& pp : side ? c.writes : c.reads) {
                if (pp.param >= call.args.count) {
                  tr.anyPlace = true;
                  continue;
                }
                for (Alt p : placesOf(a, scratch, a.prog.arg(call, pp.param))) {
                  p.place.index = t.fresh("$slot", smt::Sort::Int);
                  p.guard = t.tru();
                  (side ? tr.writes : tr.reads).push_back(p);
                }
              }
          }
      }
      --a.silent;
      a.transfers.push_back(std::move(tr));
      TransferId k = static_cast<TransferId>(a.transfers.size() - 1);
      Term g = t.fresh("$holds", smt::Sort::Bool);
      Term f2 = t.fresh("$inflight", smt::Sort::Bool);
      h.inflight[k] = f2;
      nh[k] = g;
      facts.push_back(t.mkImplies(f2, g));  // in flight only while held
    }
    h.tokens[l] = nh;
  }
  // Linearity: a copy in flight is held by exactly one location.
  for (const auto& [k, gs] : holders) {
    facts.push_back(t.mkImplies(h.inflight[k], t.mkOr(gs)));
    for (size_t i = 0; i < gs.size(); ++i)
      for (size_t j = i + 1; j < gs.size(); ++j) facts.push_back(t.mkNot(t.mkAnd(gs[i], gs[j])));
  }
  h.pc = t.mkAnd(h.pc, t.mkAnd(facts));
  (void)loop;
  return h;
}

void walkFor(Analysis& a, State& s, hir::StmtId id) {
  const hir::Stmt& st = a.prog.stmt(id);
  walkExpr(a, s, st.a);
  walkExpr(a, s, st.b);
  LoopCtx L;
  L.id = id;
  L.st = &st;
  L.isFor = true;
  L.lo = valueOf(a, s, st.a);
  L.hi = valueOf(a, s, st.b);
  L.var = st.var;
  L.info = &a.facts.loops[id.index];
  runLoop(a, s, L);
}

void walkWhile(Analysis& a, State& s, hir::StmtId id) {
  const hir::Stmt& st = a.prog.stmt(id);
  LoopCtx L;
  L.id = id;
  L.st = &st;
  L.isFor = false;
  L.info = &a.facts.loops[id.index];
  runLoop(a, s, L);
}

}  // namespace vx::check::own

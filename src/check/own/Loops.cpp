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
// copies may be in flight into any slot of any place their call site has
// used in any walk (the places come from the walks themselves, to a
// fixpoint: a reference bound inside the body aliases what it points to).
// The invariants (Houdini: candidates that hold at the first widened
// iteration and are preserved by the body) relate token liveness, moves and
// counters. Then the body is walked once more from that head, reporting.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>

#include "check/own/Components.h"
#include "check/own/Analysis.h"

namespace vx::check::own {

using smt::Int128;

namespace {

// Copies a loop can keep exactly: one per token location it carries. A
// ring of more slots than this is summarised by the widened state.
constexpr unsigned kMaxUnroll = 16;

struct LoopCtx {
  cir::LoopId id;
  const cir::Loop* L;
  bool isFor;
  Term lo, hi;
  const LoopInfo* info;
};

struct BodyResult {
  State end;                  // at the end of the body (and every `continue`)
  std::vector<State> exits;   // `break`, and a `while` condition found false
};

// Records where the references the loop reassigns point at the end of a
// walk of its body: the widened head lets each point to any buffer it has
// been seen to point to (whole), to a fixpoint (siteSize).
void recordRefs(Analysis& a, const LoopCtx& C, const State& end) {
  for (Loc l : C.info->changed.refs) {
    auto it = end.refs.find(l);
    if (it == end.refs.end()) continue;
    LoopRefTargets& seen = a.loopRefs[{C.id.index, l}];
    if (it->second.unknown)
      seen.anywhere = true;
    else
      addRoots(a.terms, it->second, seen.roots);
  }
}

BodyResult walkBody(Analysis& a, const LoopCtx& C, const State& head, Term iter) {
  RegionResult r = walkRegion(a, C.id, head, iter);
  BodyResult out;
  out.end = joinAll(a.terms, r.back, head);
  out.exits = std::move(r.exits);
  recordRefs(a, C, out.end);
  return out;
}

// The head of iteration iter + 1 after `end` (iteration iter's end): for a
// `for` loop, it exists only when the next index is in range.
State nextHead(TermStore& t, const LoopCtx& C, const State& end, Term iter) {
  State h = end;
  if (C.isFor) h.pc = t.mkAnd(h.pc, t.mkLt(t.mkAdd(iter, t.intConst(1)), C.hi));
  return h;
}

// A `for` loop's exit after iteration `iter`: the next index is out of
// range. (A `while` loop's exits are its condition's false edges, which
// the walk of the next head finds.)
State exitAfter(TermStore& t, const LoopCtx& C, const State& end, Term iter) {
  State x = end;
  x.pc = t.mkAnd(x.pc, t.mkLe(C.hi, t.mkAdd(iter, t.intConst(1))));
  return x;
}

using Candidate = std::function<Term(const State&, Term iter)>;

// Whether copy `k` may be in flight in `s`: itself, or inside a copy that
// merges it (mergeCopies) — in flight when any of its members is, so it
// stands for `k` too. A candidate that asked only for `k` held vacuously
// once a nested loop's exit had merged `k` away, and the widened head it
// then constrained (`k` done, and no copy of the nested loop's site held)
// had no execution at all: nothing after it was checked.
Term inflightWithin(Analysis& a, const State& s, TransferId k) {
  TermStore& t = a.terms;
  std::vector<Term> fs{lookup(s.inflight, k, t.fls())};
  for (const auto& [j, f] : s.inflight) {
    const std::vector<TransferId>& from = a.transfers[j].mergedFrom;
    if (j != k && std::find(from.begin(), from.end(), k) != from.end()) fs.push_back(f);
  }
  return t.mkOr(fs);
}

// Whether a copy was started by the call `site`, or merges one that was.
bool fromSite(const Transfer& tr, uint32_t site) {
  if (tr.site.valid() && tr.site.index == site) return true;
  return std::find(tr.mergedSites.begin(), tr.mergedSites.end(), site) != tr.mergedSites.end();
}

std::vector<Candidate> candidates(Analysis& a, const LoopCtx& C, const State& before) {
  TermStore& t = a.terms;
  const Changed& ch = C.info->changed;
  std::vector<Candidate> out;
  std::vector<std::function<Term(const State&)>> bools;  // boolean facts to relate
  for (size_t i = 0; i < ch.scalars.size(); ++i)
    if (ch.scalarIsBool[i] && before.scalars.count(ch.scalars[i])) {
      Loc l = ch.scalars[i];
      bools.push_back([l](const State& s) {
        auto it = s.scalars.find(l);
        return it == s.scalars.end() ? Term{} : it->second;
      });
    }
  // Integer comparisons the loop makes, as boolean facts too.
  for (size_t i = 0; i < ch.scalars.size(); ++i) {
    if (ch.scalarIsBool[i] || !before.scalars.count(ch.scalars[i])) continue;
    Loc l = ch.scalars[i];
    auto cs = C.info->constants.find(l);
    if (cs == C.info->constants.end()) continue;
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
  for (Loc m : ch.moved) relate([&a, m](const State& s) { return lookup(s.moved, m, a.terms.fls()); });
  // The copies started before the loop and waited in its first iteration
  // are not in flight in any later one (the widened state would otherwise
  // let a carried token hold one still): one candidate for all of them,
  // and one for each (a copy the loop only carries along, never waited,
  // fails the first and must not take the others down with it).
  std::vector<TransferId> older;
  for (Loc l : ch.tokens) {
    auto it = before.tokens.find(l);
    if (it == before.tokens.end()) continue;
    for (const auto& [k, g] : it->second)
      if (!t.isFalse(g)) older.push_back(k);
  }
  if (!older.empty())
    out.push_back([&a, older](const State& s, Term) {
      std::vector<Term> parts;
      for (TransferId k : older) parts.push_back(a.terms.mkNot(inflightWithin(a, s, k)));
      return a.terms.mkAnd(parts);
    });
  if (older.size() > 1)
    for (TransferId k : older)
      out.push_back([&a, k](const State& s, Term) { return a.terms.mkNot(inflightWithin(a, s, k)); });
  // A carried location that never receives a copy from one of the loop's
  // call sites (a token only passed along, `let tmp = y; y = tmp;`) holds
  // none in flight in any iteration: the widened state would otherwise let
  // it hold one, started iterations ago.
  for (Loc l : ch.tokens)
    for (uint32_t site : C.info->sites)
      out.push_back([&a, l, site](const State& s, Term) {
        TermStore& tt = a.terms;
        auto it = s.tokens.find(l);
        if (it == s.tokens.end()) return tt.tru();
        std::vector<Term> held;
        for (const auto& [k, g] : it->second)
          if (fromSite(a.transfers[k], site)) held.push_back(tt.mkAnd(g, lookup(s.inflight, k, tt.fls())));
        return tt.mkNot(tt.mkOr(held));
      });
  // A loop that leaves when its index meets a bound it does not change
  // (`if i == m { break; }`): the iterations reached are those before the
  // bound. Likewise for a counter compared with such a bound.
  auto partnerValue = [&](Loc y) -> Term {
    auto it = before.scalars.find(y);
    return it == before.scalars.end() ? Term{} : it->second;
  };
  if (C.isFor) {
    auto ps = C.info->partners.find(Loc{C.L->var.index, 0});
    if (ps != C.info->partners.end())
      for (Loc y : ps->second) {
        Term e = partnerValue(y);
        if (!e.valid()) continue;
        Term lo = C.lo;
        out.push_back([&t, e, lo](const State&, Term iter) {
          return t.mkNot(t.mkAnd(t.mkLe(lo, e), t.mkLt(e, iter)));
        });
        out.push_back([&t, e](const State&, Term iter) { return t.mkLe(iter, e); });
      }
  }
  // An expression of locals the loop leaves alone (`while r != (2 * s +
  // 2) * BM`) has the value it has over the state before the loop.
  auto boundValue = [&](const BoundExpr& ex) -> Term {
    std::vector<Term> v(ex.size());
    for (size_t n = 0; n < ex.size(); ++n) {
      const BoundNode& b = ex[n];
      switch (b.kind) {
        case BoundNode::Kind::Const: v[n] = t.intConst(b.value); break;
        case BoundNode::Kind::Loc: v[n] = partnerValue(b.loc); break;
        case BoundNode::Kind::Add:
        case BoundNode::Kind::Sub:
        case BoundNode::Kind::Mul: {
          Term x = v[static_cast<size_t>(b.a)], y = v[static_cast<size_t>(b.b)];
          if (!x.valid() || !y.valid()) return Term{};
          v[n] = b.kind == BoundNode::Kind::Add   ? t.mkAdd(x, y)
                 : b.kind == BoundNode::Kind::Sub ? t.mkSub(x, y)
                                                  : t.mkMul(x, y);
          break;
        }
      }
      if (!v[n].valid()) return Term{};
    }
    return v.empty() || !t.linear(v.back()) ? Term{} : v.back();
  };
  for (size_t i = 0; i < ch.scalars.size(); ++i) {
    if (ch.scalarIsBool[i]) continue;
    Loc l = ch.scalars[i];
    if (!before.scalars.count(l)) continue;
    std::vector<Term> bounds;
    auto ps = C.info->partners.find(l);
    if (ps != C.info->partners.end())
      for (Loc y : ps->second) bounds.push_back(partnerValue(y));
    auto es = C.info->boundExprs.find(l);
    if (es != C.info->boundExprs.end())
      for (const BoundExpr& ex : es->second) bounds.push_back(boundValue(ex));
    Term initial = before.scalars.at(l);
    for (Term e : bounds) {
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
    Loc l = ch.scalars[i];
    std::vector<Int128> cs{0};
    auto it = C.info->constants.find(l);
    if (it != C.info->constants.end())
      for (Int128 c : it->second)
        if (cs.size() < 6) cs.push_back(c);
    Term initial = before.scalars.at(l);
    // A counter that only grows (or only shrinks) from its value before the
    // loop: `r = 2 * i * BM; while r < e { ...; r += BM; }` stays at or above
    // `2 * i * BM`, which a grid's instances need to stay apart.
    out.push_back([&t, l, initial](const State& s, Term) {
      auto x = s.scalars.find(l);
      return x == s.scalars.end() ? Term{} : t.mkLe(initial, x->second);
    });
    out.push_back([&t, l, initial](const State& s, Term) {
      auto x = s.scalars.find(l);
      return x == s.scalars.end() ? Term{} : t.mkLe(x->second, initial);
    });
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
      // A counter that steps by multiples of c keeps its distance from its
      // first value a multiple of c (`r += BM`: blocks that do not straddle).
      if (c >= 2)
        out.push_back([&t, l, c, initial](const State& s, Term) {
          auto x = s.scalars.find(l);
          if (x == s.scalars.end()) return Term{};
          return t.mkEq(t.mkEuclidMod(t.mkSub(x->second, initial), t.intConst(c)), t.intConst(0));
        });
      if (c >= 2 && C.isFor) {
        Term lo = C.lo;
        out.push_back([&t, l, c, initial, lo](const State& s, Term iter) {
          auto x = s.scalars.find(l);
          if (x == s.scalars.end()) return Term{};
          return t.mkEq(x->second, t.mkEuclidMod(t.mkAdd(initial, t.mkSub(iter, lo)), t.intConst(c)));
        });
      }
    }
    if (C.isFor) {
      Term lo = C.lo;
      out.push_back([&t, l, initial, lo](const State& s, Term iter) {
        auto x = s.scalars.find(l);
        return x == s.scalars.end() ? Term{} : t.mkEq(x->second, t.mkAdd(initial, t.mkSub(iter, lo)));
      });
    }
  }
  return out;
}

// The candidates that hold in every state `s` stands for: those whose
// negation is not possible there (an unknown answer counts as possible).
// Asked together first: one query whether any of them can fail; where one
// can, the model shows which ones fail, they are dropped and the rest asked
// again, so the verdicts are those of one query per candidate, usually
// with far fewer queries (most candidates hold or most fail at once).
std::vector<Candidate> holding(Analysis& a, const std::vector<Candidate>& cands, const State& s, Term iter) {
  TermStore& t = a.terms;
  std::vector<bool> holds(cands.size(), false);
  std::vector<size_t> open;  // indices into cands, still to be decided
  std::vector<Term> fs;      // their formulas
  for (size_t i = 0; i < cands.size(); ++i) {
    Term f = cands[i](s, iter);
    if (!f.valid()) continue;
    if (t.isTrue(f)) {
      holds[i] = true;
      continue;
    }
    open.push_back(i);
    fs.push_back(f);
  }
  while (!open.empty() && !a.overBudget()) {
    if (open.size() == 1) {
      holds[open[0]] = !possible(a, s, t.mkNot(fs[0]));
      break;
    }
    Term query = t.mkAnd({a.assumptions, s.pc, t.mkNot(t.mkAnd(fs))});
    smt::Verdict v = smt::Verdict::Unsat;
    smt::Model m;
    if (!t.isFalse(query)) {
      std::vector<smt::Shown> show;
      for (size_t j = 0; j < fs.size(); ++j) show.push_back(smt::Shown{"c" + std::to_string(j), fs[j]});
      v = a.solver.check(query, &m, show);
    }
    if (v == smt::Verdict::Unsat) {
      for (size_t i : open) holds[i] = true;
      break;
    }
    std::vector<bool> failed(fs.size(), false);
    bool any = false;
    if (v == smt::Verdict::Sat)
      for (const auto& [name, value] : m.values) {
        size_t j = std::stoul(name.substr(1));
        if (j < fs.size() && value == "false") failed[j] = any = true;
      }
    if (!any) {
      // Unknown (or a model that shows no failure): one query each.
      for (size_t j = 0; j < fs.size(); ++j) holds[open[j]] = !possible(a, s, t.mkNot(fs[j]));
      break;
    }
    std::vector<size_t> nextOpen;
    std::vector<Term> nextFs;
    for (size_t j = 0; j < fs.size(); ++j)
      if (!failed[j]) {
        nextOpen.push_back(open[j]);
        nextFs.push_back(fs[j]);
      }
    open = std::move(nextOpen);
    fs = std::move(nextFs);
  }
  std::vector<Candidate> kept;
  for (size_t i = 0; i < cands.size(); ++i)
    if (holds[i]) kept.push_back(cands[i]);
  return kept;
}


// Houdini's rounds before it gives up and keeps no candidate. A round drops
// every candidate its model shows failing, but a chain of token locations
// (`t0 = t1; t1 = t2; ...`) lets one more fail per round: "t15 holds no copy
// of the loop's call" fails once t16's is dropped, and so on. Six rounds
// left a shift of 17 tokens with no invariant (a false E6002); the chain is
// at most as long as the token locations the loop carries.
int maxRounds(const LoopInfo& info) { return 6 + static_cast<int>(std::min(info.carried, kMaxUnroll + 1)); }

Term conjunction(TermStore& t, const std::vector<Candidate>& cs, const State& s, Term iter) {
  std::vector<Term> parts;
  for (const Candidate& c : cs) {
    Term f = c(s, iter);
    if (f.valid()) parts.push_back(f);
  }
  return t.mkAnd(parts);
}

// A defence: the widened head stands for every head from `first` on, the
// head of iteration `firstIter` included, so where that head has an
// execution the candidates found to hold there must leave the widened head
// one too. Where they do not (a candidate evaluated on a state the widened
// one describes differently: the merged copies of a nested loop's exit,
// before Loops.cpp's inflightWithin), every later iteration would be
// checked from no state at all and nothing in it reported; the candidates
// are dropped instead (sound: fewer invariants only cost precision).
void keepFeasible(Analysis& a, std::vector<Candidate>& kept, const State& first, const State& widened,
                  Term firstIter, Term iter) {
  TermStore& t = a.terms;
  if (kept.empty() || a.overBudget() || !possible(a, first, t.tru())) return;
  Term assumed = t.mkAnd(conjunction(t, kept, widened, iter), t.mkLe(firstIter, iter));
  if (possible(a, widened, assumed)) return;
  if (std::getenv("VX_DEBUG_LOOPS")) std::fprintf(stderr, "loop invariant: candidates leave no widened head\n");
  kept.clear();
}

// Rounds of widening after which a reassigned reference that still reaches
// more points anywhere: a chain `p0 = p1; p1 = p2; ...; pL = &b` takes
// about L rounds to reach `b` from `p0`.
constexpr int kRefRounds = 8;

// How much the loop's sites have been seen to touch, and its references to
// point to: grows monotonically.
size_t siteSize(const Analysis& a, cir::LoopId loop, const LoopInfo& info) {
  size_t n = 0;
  for (Loc l : info.changed.refs) {
    auto it = a.loopRefs.find({loop.index, l});
    if (it != a.loopRefs.end()) n += it->second.roots.size() + (it->second.anywhere ? 100000 : 0);
  }
  for (uint32_t site : info.sites) {
    auto it = a.sitePlaces.find(site);
    if (it == a.sitePlaces.end()) continue;
    for (const auto* side : {&it->second.reads, &it->second.writes})
      for (const SitePlace& p : *side) n += 2 + (p.indexed && !p.place.index.valid());
    n += it->second.anyPlace ? 100000 : 0;
  }
  return n;
}

// After enough rounds of widening that grew, what still grows is given up
// on: the sites' copies may be in flight anywhere (after 4), the
// references point anywhere (after kRefRounds); then nothing grows.
void stopGrowing(Analysis& a, const LoopCtx& C, int placesRound) {
  if (placesRound == 3)
    for (uint32_t site : C.info->sites) a.sitePlaces[site].anyPlace = true;
  if (placesRound == kRefRounds)
    for (Loc l : C.info->changed.refs) a.loopRefs[{C.id.index, l}].anywhere = true;
}

// The copies one location may hold at a loop's exit, merged into one copy
// that stands for whichever it holds: a location holds one copy at a time,
// so nothing is lost — each place the copy touches keeps the condition
// under which it is that copy's, still in flight — and a sequence of loops
// carrying one token does not carry a growing set of copies from loop to
// loop (each would get fresh unknowns at the next loop's widening).
void mergeCopies(Analysis& a, State& s) {
  TermStore& t = a.terms;
  for (auto& [l, holds] : s.tokens) {
    std::vector<TransferId> ks;
    for (const auto& [k, g] : holds) {
      if (t.isFalse(g) || a.transfers[k].origin == Origin::Param) continue;
      bool elsewhere = false;
      for (const auto& [o, oh] : s.tokens) {
        if (o == l) continue;
        auto it = oh.find(k);
        elsewhere = elsewhere || (it != oh.end() && !t.isFalse(it->second));
      }
      if (!elsewhere) ks.push_back(k);
    }
    if (ks.size() < 2) continue;
    Transfer m;
    const Transfer& first = a.transfers[ks[0]];
    m.origin = Origin::Call;
    m.kind = first.kind;
    m.span = first.span;
    m.name = first.name;
    std::vector<Term> inflight, held;
    // One place per root, side and spelling: its slot is the slot of
    // whichever copy the location holds (at most one is in flight in an execution without
    // a dropped copy, which its drop point reports).
    struct Merged {
      Place place;
      std::vector<Term> guards;
      std::vector<std::pair<Term, Term>> slots;  // (condition, index)
      std::vector<std::pair<Term, Term>> subs;   // (condition, sub-slot), while every slot has one
      std::vector<std::pair<Term, std::pair<Term, Term>>> blocks;  // (condition, (row, col))
    };
    std::vector<Merged> reads, writes;
    auto add = [&](std::vector<Merged>& into, const Alt& x, Term mine) {
      Term g = t.mkAnd(x.guard, mine);
      auto record = [&](Merged& m2) {
        m2.guards.push_back(g);
        if (x.place.index.valid()) m2.slots.emplace_back(g, x.place.index);
        if (x.place.sub.valid()) m2.subs.emplace_back(g, x.place.sub);
        if (x.place.blocked()) m2.blocks.emplace_back(g, std::make_pair(x.place.row, x.place.col));
      };
      for (Merged& m2 : into)
        if (m2.place.root == x.place.root && m2.place.inner == x.place.inner &&
            m2.place.index.valid() == x.place.index.valid() &&
            m2.place.sub.valid() == x.place.sub.valid() &&
            m2.place.blocked() == x.place.blocked() && m2.place.rows == x.place.rows &&
            m2.place.cols == x.place.cols && m2.place.text == x.place.text) {
          record(m2);
          return;
        }
      into.push_back(Merged{x.place, {}, {}, {}});
      record(into.back());
    };
    for (TransferId k : ks) {
      const Transfer& tr = a.transfers[k];
      Term h = holds.at(k);
      Term f = lookup(s.inflight, k, t.fls());
      Term mine = t.mkAnd(h, f);
      inflight.push_back(mine);
      held.push_back(h);
      for (const Alt& x : tr.reads) add(reads, x, mine);
      for (const Alt& x : tr.writes) add(writes, x, mine);
      m.anyPlace = m.anyPlace || tr.anyPlace;
      m.iterationsAgo = std::max(m.iterationsAgo, tr.iterationsAgo);
      // Each copy it stands for once: merged copies of merged copies
      // (nested loops) would otherwise repeat their members at every level.
      auto addMember = [&](Transfer::Member x) {
        for (const Transfer::Member& y : m.members)
          if (y.span.file == x.span.file && y.span.begin == x.span.begin && y.span.end == x.span.end && y.earlier == x.earlier && y.what == x.what) return;
        m.members.push_back(std::move(x));
      };
      if (tr.members.empty()) addMember(Transfer::Member{tr.span, tr.origin == Origin::Havoc, copyWhat(tr)});
      for (const Transfer::Member& x : tr.members) addMember(x);
      auto addId = [&](TransferId x) {
        if (std::find(m.mergedFrom.begin(), m.mergedFrom.end(), x) == m.mergedFrom.end()) m.mergedFrom.push_back(x);
      };
      auto addSite = [&](uint32_t x) {
        if (std::find(m.mergedSites.begin(), m.mergedSites.end(), x) == m.mergedSites.end()) m.mergedSites.push_back(x);
      };
      addId(k);
      for (TransferId x : tr.mergedFrom) addId(x);
      if (tr.site.valid()) addSite(tr.site.index);
      for (uint32_t x : tr.mergedSites) addSite(x);
    }
    auto finish = [&](const std::vector<Merged>& from, std::vector<Alt>& out) {
      for (const Merged& m2 : from) {
        Alt alt{m2.place, t.mkOr(m2.guards)};
        if (!m2.slots.empty()) {
          Term index = m2.slots.back().second;
          for (size_t j = m2.slots.size() - 1; j-- > 0;) index = t.mkIte(m2.slots[j].first, m2.slots[j].second, index);
          alt.place.index = index;
          alt.place.sub = Term{};
          if (!m2.subs.empty() && m2.subs.size() == m2.slots.size()) {
            Term s2 = m2.subs.back().second;
            for (size_t j = m2.subs.size() - 1; j-- > 0;) s2 = t.mkIte(m2.subs[j].first, m2.subs[j].second, s2);
            alt.place.sub = s2;
          }
        }
        if (!m2.blocks.empty()) {
          Term row = m2.blocks.back().second.first, col = m2.blocks.back().second.second;
          for (size_t j = m2.blocks.size() - 1; j-- > 0;) {
            row = t.mkIte(m2.blocks[j].first, m2.blocks[j].second.first, row);
            col = t.mkIte(m2.blocks[j].first, m2.blocks[j].second.second, col);
          }
          alt.place.row = row;
          alt.place.col = col;
        }
        out.push_back(alt);
      }
    };
    finish(reads, m.reads);
    finish(writes, m.writes);
    a.transfers.push_back(std::move(m));
    TransferId id = static_cast<TransferId>(a.transfers.size() - 1);
    std::vector<Site> consumed;
    for (TransferId k : ks) {
      s.inflight.erase(k);
      holds.erase(k);
      auto c = s.notes.consumedAt.find(k);
      if (c != s.notes.consumedAt.end()) consumed.insert(consumed.end(), c->second.begin(), c->second.end());
    }
    s.inflight[id] = t.mkOr(inflight);
    holds[id] = t.mkOr(held);
    if (!consumed.empty()) s.notes.consumedAt[id] = consumed;
  }
}

// A loop met by a walk that only gathers facts (an outer loop's search for
// its invariants): its exits over-approximated by one induction over every
// iteration at once from the widened state — the candidates kept hold at
// its entry and are preserved by its body — without the exact first
// iterations. Sound, and a nest of d loops costs about 2^d walks of the
// innermost body instead of 5^d; the walks that report analyse each loop
// fully (runLoop).
State gatherLoop(Analysis& a, const LoopCtx& C, const State& before, Term iter) {
  TermStore& t = a.terms;
  Term lo = C.isFor ? C.lo : t.intConst(0);
  std::vector<State> exits;
  if (C.isFor) {
    State zero = before;
    zero.pc = t.mkAnd(before.pc, t.mkLe(C.hi, C.lo));
    exits.push_back(zero);
  }
  BodyResult r;
  for (int placesRound = 0;; ++placesRound) {
    size_t seen = siteSize(a, C.id, *C.info);
    State widened = widen(a, before, C.id, *C.info);
    std::vector<Candidate> kept = holding(a, candidates(a, C, before), before, lo);
    keepFeasible(a, kept, before, widened, lo, iter);
    for (int round = 0;; ++round) {
      if (round == maxRounds(*C.info)) kept.clear();
      State assumed = widened;
      assumed.pc = t.mkAnd({assumed.pc, conjunction(t, kept, widened, iter), t.mkLe(lo, iter)});
      r = walkBody(a, C, assumed, iter);
      if (kept.empty() || a.overBudget()) break;
      State next = nextHead(t, C, r.end, iter);
      std::vector<Candidate> still = holding(a, kept, next, t.mkAdd(iter, t.intConst(1)));
      if (still.size() == kept.size()) break;
      kept = std::move(still);
    }
    if (a.overBudget() || siteSize(a, C.id, *C.info) == seen) break;
    stopGrowing(a, C, placesRound);
  }
  if (a.overBudget()) return bottom(t, before);
  exits.insert(exits.end(), r.exits.begin(), r.exits.end());
  if (C.isFor) exits.push_back(exitAfter(t, C, r.end, iter));
  State out = joinAll(t, exits, before);
  mergeCopies(a, out);
  return out;
}

}  // namespace

State runLoop(Analysis& a, cir::LoopId id, const State& s0) {
  TermStore& t = a.terms;
  const cir::Loop& L = a.body.loop(id);
  LoopCtx C;
  C.id = id;
  C.L = &L;
  C.isFor = L.kind == cir::LoopKind::For;
  C.info = &a.facts.loops[id.index];
  State before = s0;
  if (C.isFor) {
    C.lo = evalOperand(a, before, L.lo).scalar;
    C.hi = evalOperand(a, before, L.hi).scalar;
    if (!C.lo.valid()) C.lo = freshValue(a, a.body.local(L.var).type, "$lo");
    if (!C.hi.valid()) C.hi = freshValue(a, a.body.local(L.var).type, "$hi");
    a.forRange[id.index] = {C.lo, C.hi};
  }
  unsigned K = std::min(C.info->carried, kMaxUnroll);
  Term iter = C.isFor ? freshValue(a, a.body.local(L.var).type, a.body.local(L.var).name)
                      : t.fresh("$iter", smt::Sort::Int);
  if (a.silent > 0) return gatherLoop(a, C, before, iter);
  Term lo = C.isFor ? C.lo : t.intConst(0);
  auto at = [&](unsigned j) { return t.mkAdd(lo, t.intConst(j)); };
  std::vector<State> exits;
  // Zero iterations: a `for` range that is empty. (A `while` condition
  // false at once is an exit of the first walk.)
  if (C.isFor) {
    State zero = before;
    zero.pc = t.mkAnd(before.pc, t.mkLe(C.hi, C.lo));
    exits.push_back(zero);
  }
  // The exact first iterations lo .. lo + K, walked for real (they report):
  // heads[j] is the head of iteration lo + j; heads[1] is also where the
  // invariants must first hold.
  std::vector<State> heads{before};
  for (unsigned j = 0; j <= K && !a.overBudget(); ++j) {
    BodyResult r = walkBody(a, C, heads.back(), at(j));
    exits.insert(exits.end(), r.exits.begin(), r.exits.end());
    if (C.isFor) exits.push_back(exitAfter(t, C, r.end, at(j)));
    heads.push_back(nextHead(t, C, r.end, at(j)));
  }
  if (a.overBudget()) return bottom(t, before);
  // Every later iteration, iter >= lo + K + 1: the widened head of
  // iteration iter - K (>= lo + 1), constrained by the invariants (Houdini:
  // assume the candidates that hold at lo + 1, walk the body, keep those
  // that still hold at the next head; repeat until none fails — loops
  // nested inside see the assumed invariants), walked K times up to the
  // head of `iter`, and then once more, reporting. The widened state's
  // stand-ins for older copies take their places from every walk of the
  // sites: when the walks from it show a site touching more, it is widened
  // again.
  ++a.silent;
  Term wIter = t.mkSub(iter, t.intConst(K));
  State generic;
  for (int placesRound = 0;; ++placesRound) {
    size_t seen = siteSize(a, C.id, *C.info);
    State widened = widen(a, before, C.id, *C.info);
    std::vector<Candidate> kept = holding(a, candidates(a, C, before), heads[1], at(1));
    keepFeasible(a, kept, heads[1], widened, at(1), wIter);
    State assumed, afterOne;
    for (int round = 0;; ++round) {
      if (round == maxRounds(*C.info)) kept.clear();
      assumed = widened;
      assumed.pc = t.mkAnd({assumed.pc, conjunction(t, kept, widened, wIter), t.mkLe(at(1), wIter)});
      BodyResult r = walkBody(a, C, assumed, wIter);
      afterOne = nextHead(t, C, r.end, wIter);
      if (kept.empty() || a.overBudget()) break;
      std::vector<Candidate> still = holding(a, kept, afterOne, t.mkAdd(wIter, t.intConst(1)));
      if (still.size() == kept.size()) break;
      kept = std::move(still);
    }
    if (std::getenv("VX_DEBUG_LOOPS")) std::fprintf(stderr, "loop invariant: %zu candidates kept\n", kept.size());
    generic = K == 0 ? assumed : afterOne;
    for (unsigned m = 1; m < K && !a.overBudget(); ++m) {
      Term it = t.mkSub(iter, t.intConst(K - m));
      BodyResult r = walkBody(a, C, generic, it);
      generic = nextHead(t, C, r.end, it);
    }
    if (a.overBudget() || siteSize(a, C.id, *C.info) == seen) break;
    stopGrowing(a, C, placesRound);
  }
  --a.silent;
  if (a.overBudget()) return bottom(t, before);
  generic.pc = t.mkAnd(generic.pc, t.mkLe(at(K + 1), iter));
  BodyResult final = walkBody(a, C, generic, iter);
  if (a.overBudget()) return bottom(t, before);
  exits.insert(exits.end(), final.exits.begin(), final.exits.end());
  if (C.isFor) exits.push_back(exitAfter(t, C, final.end, iter));
  State out = joinAll(t, exits, before);
  mergeCopies(a, out);
  if (std::getenv("VX_DEBUG_LOOPS"))
    std::fprintf(stderr, "loop %u: %zu exits, %zu in flight, %zu token locs, %zu terms, %zu transfers\n", id.index,
                 exits.size(), out.inflight.size(), out.tokens.size(), t.size(), a.transfers.size());
  return out;
}

}  // namespace vx::check::own

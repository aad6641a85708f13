// The widened head of a loop (docs/checker.md, "Loops"): every fact the
// loop changes replaced by an unknown, references by the buffers they were
// seen to point to, and copies older than the exact window by one stand-in
// per call site.
#include <algorithm>
#include <map>
#include <set>

#include "check/own/Components.h"
#include "check/own/Analysis.h"

namespace vx::check::own {

State widen(Analysis& a, const State& s, cir::LoopId loop, const LoopInfo& info) {
  TermStore& t = a.terms;
  State h = s;
  const Changed& ch = info.changed;
  std::vector<Term> facts;  // constraints that hold of every violation-free state
  ScalarFacts::widen(h.scalars, ch.scalars, [&](Loc l) {
    std::string name = locName(a, l);
    hir::TypeId type = typeAt(a.types(), a.body, l);
    return freshValue(a, type, "$w_" + name);
  });
  MovedFacts::widen(h.moved, ch.moved, [&](Loc) { return t.fresh("$moved", smt::Sort::Bool); });
  // A reassigned reference points, at a later head, to one of the buffers
  // it pointed to before the loop or at the end of a walk of the body
  // (whole: its slot or block may vary), each under a fresh condition;
  // anywhere once it has been unknown.
  RefFacts::widen(h.refs, ch.refs, [&](Loc l, const RefVal& before, RefVal& widened) {
    auto seen = a.loopRefs.find({loop.index, l});
    if (before.unknown || seen == a.loopRefs.end() || seen->second.anywhere) return false;
    std::vector<Loc> roots;
    addRoots(t, before, roots);
    for (Loc r : seen->second.roots)
      if (std::find(roots.begin(), roots.end(), r) == roots.end()) roots.push_back(r);
    widened.mut = before.mut;
    for (Loc r : roots) widened.alts.push_back(wholeAt(a, r, t.fresh("$points", smt::Sort::Bool)));
    return true;
  });
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
    Holds nh;
    for (TransferId k : before) {
      Term g = t.fresh("$holds", smt::Sort::Bool);
      nh[k] = g;
      holders[k].push_back(g);
    }
    // Copies started in the loop in earlier iterations: one per site, in
    // flight into any slot of any place that site has been seen to use.
    for (uint32_t site : info.sites) {
      const hir::Expr& call = a.prog.expr(hir::ExprId{site});
      const hir::Function& f = a.prog.fn(call.fn);
      Transfer tr;
      tr.origin = Origin::Havoc;
      tr.site = hir::ExprId{site};
      tr.kind = f.builtin;
      tr.span = call.span;
      tr.iterationsAgo = 1;
      if (f.builtin == hir::Builtin::None && a.summaries[call.fn.index].top) tr.anyPlace = true;
      auto sp = a.sitePlaces.find(site);
      if (sp != a.sitePlaces.end()) {
        tr.anyPlace = tr.anyPlace || sp->second.anyPlace;
        for (int side = 0; side < 2; ++side)
          for (const SitePlace& p : side ? sp->second.writes : sp->second.reads) {
            // Any slot the site has used: the one constant slot every copy
            // of it used, or an unknown one.
            Alt alt{p.place, t.tru()};
            if (p.indexed && !p.place.index.valid()) alt.place.index = t.fresh("$slot", smt::Sort::Int);
            if (!p.indexed) alt.place.clearSlot();
            if (p.blocked) {
              alt.place.row = t.fresh("$row", smt::Sort::Int);
              alt.place.col = t.fresh("$col", smt::Sort::Int);
            }
            (side ? tr.writes : tr.reads).push_back(alt);
          }
      }
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
  return h;
}

}  // namespace vx::check::own

// The fact components of the ownership checker's state (Model.h), each
// behind one interface:
//
//   join(t, c, a, b)   the facts that are a's where `c` holds and b's where
//                      it does not (exact: an if-then-else)
//   leq(t, a, b, out)  formulas whose validity says every concrete fact of
//                      `a` is one of `b` (the order)
//   widen(...)         the facts a loop may change replaced by unknowns
//   forget(d, local)   the facts of a local whose life ended
//
// The state's lattice (Lattice.cpp) is the product: each operation applies
// every component's. Instantiation through a summary (Summaries.cpp) and
// observation (Observe.cpp) read the components through the same keys.
// Adding a kind of fact is one component here, its rule (a file of its
// own) and its rows in the tables it reads (docs/checker.md, "Adding a
// fact kind"). The laws are property-tested on random states
// (tests/unit/check/ComponentLawsTest.cpp).
#pragma once

#include <set>

#include "check/own/Model.h"

namespace vx::check::own {

// Values of integer and bool locations: a term each. Absent = unknown
// (read as a fresh value). Joined where both sides know the location.
struct ScalarFacts {
  using Data = base::FlatMap<Loc, Term>;
  static Data join(TermStore& t, Term c, const Data& a, const Data& b);
  static void leq(TermStore& t, const Data& a, const Data& b, std::vector<Term>& out);
  // Each changed location becomes the value `fresh` makes for it.
  static void widen(Data& d, const std::vector<Loc>& changed, const std::function<Term(Loc)>& fresh);
  static void forget(Data& d, uint32_t local);
};

// May-facts keyed by K, each a formula; absent = false. Copies in flight
// (TransferId) and moved-out locations (Loc).
template <typename K>
struct MayFacts {
  using Data = base::FlatMap<K, Term>;
  static Data join(TermStore& t, Term c, const Data& a, const Data& b) {
    Data out;
    for (const auto& [k, v] : a) {
      auto it = b.find(k);
      out[k] = t.mkIte(c, v, it == b.end() ? t.fls() : it->second);
    }
    for (const auto& [k, v] : b)
      if (!a.count(k)) out[k] = t.mkIte(c, t.fls(), v);
    return out;
  }
  static void leq(TermStore& t, const Data& a, const Data& b, std::vector<Term>& out) {
    for (const auto& [k, v] : a) {
      auto it = b.find(k);
      out.push_back(t.mkImplies(v, it == b.end() ? t.fls() : it->second));
    }
  }
  static void widen(Data& d, const std::vector<K>& changed, const std::function<Term(K)>& fresh) {
    for (K k : changed) d[k] = fresh(k);
  }
};
using InFlightFacts = MayFacts<TransferId>;

struct MovedFacts {
  using Data = base::FlatMap<Loc, Term>;
  static Data join(TermStore& t, Term c, const Data& a, const Data& b) { return MayFacts<Loc>::join(t, c, a, b); }
  static void leq(TermStore& t, const Data& a, const Data& b, std::vector<Term>& out) {
    MayFacts<Loc>::leq(t, a, b, out);
  }
  static void widen(Data& d, const std::vector<Loc>& changed, const std::function<Term(Loc)>& fresh) {
    MayFacts<Loc>::widen(d, changed, fresh);
  }
  static void forget(Data& d, uint32_t local);
};

// Which copies each token location holds (linearity). Widening needs the
// copies a loop may start, so it is written with the loop (Loops.cpp).
struct TokenFacts {
  using Data = base::FlatMap<Loc, Holds>;
  static Data join(TermStore& t, Term c, const Data& a, const Data& b);
  static void leq(TermStore& t, const Data& a, const Data& b, std::vector<Term>& out);
  static void forget(Data& d, uint32_t local);
};

// Where each reference location points (places and loans).
struct RefFacts {
  using Data = base::FlatMap<Loc, RefVal>;
  static Data join(TermStore& t, Term c, const Data& a, const Data& b);
  // A reference points to at most the places the other allows.
  static void leq(TermStore& t, const Data& a, const Data& b, std::vector<Term>& out);
  // Changed references point anywhere, or, where `bounded` fills in what
  // a reference may point to at any later head (and says so), there.
  static void widen(Data& d, const std::vector<Loc>& changed,
                    const std::function<bool(Loc, const RefVal& before, RefVal& widened)>& bounded = {});
  static void forget(Data& d, uint32_t local);
};

// Message-only data: the union, capped.
struct NoteFacts {
  static Notes join(const Notes& a, const Notes& b);
  static void forget(Notes& n, uint32_t local);
};

}  // namespace vx::check::own

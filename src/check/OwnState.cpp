// State operations: joins of branch states, feasibility questions.
#include "check/OwnState.h"

namespace vx::check::own {

Term get(const std::map<uint32_t, Term>& m, uint32_t k, Term dflt) {
  auto it = m.find(k);
  return it == m.end() ? dflt : it->second;
}

namespace {

template <typename F>
std::map<uint32_t, Term> mergeMaps(const std::map<uint32_t, Term>& a, const std::map<uint32_t, Term>& b,
                                   F&& combine, Term dflt) {
  std::map<uint32_t, Term> out;
  for (const auto& [k, v] : a) out[k] = combine(v, get(b, k, dflt));
  for (const auto& [k, v] : b)
    if (!a.count(k)) out[k] = combine(dflt, v);
  return out;
}

}  // namespace

State unreachable(Walk& w, const State& like) {
  State s = like;
  s.pc = w.terms.fls();
  return s;
}

State merge(Walk& w, const State& a, const State& b) {
  smt::TermStore& t = w.terms;
  if (t.isFalse(a.pc)) return b;
  if (t.isFalse(b.pc)) return a;
  State out;
  out.pc = t.mkOr(a.pc, b.pc);
  Term c = a.pc;
  auto ite = [&](Term x, Term y) { return t.mkIte(c, x, y); };
  out.inflight = mergeMaps(a.inflight, b.inflight, ite, t.fls());
  out.moved = mergeMaps(a.moved, b.moved, ite, t.fls());
  // A scalar known on one side only was declared inside it and is out of scope.
  for (const auto& [k, v] : a.scalars)
    if (b.scalars.count(k)) out.scalars[k] = ite(v, b.scalars.at(k));
  for (const auto& [l, tv] : a.tokens) {
    auto bt = b.tokens.find(l);
    TokenVal empty;
    out.tokens[l].holds = mergeMaps(tv.holds, bt == b.tokens.end() ? empty.holds : bt->second.holds, ite, t.fls());
  }
  for (const auto& [l, tv] : b.tokens)
    if (!a.tokens.count(l)) out.tokens[l].holds = mergeMaps({}, tv.holds, ite, t.fls());
  auto mergeSites = [&](const auto& x, const auto& y, auto& into) {
    for (const auto& [k, v] : x)
      for (const auto& [sp, g] : v) into[k].emplace_back(sp, t.mkAnd(a.pc, g));
    for (const auto& [k, v] : y)
      for (const auto& [sp, g] : v) into[k].emplace_back(sp, t.mkAnd(b.pc, g));
  };
  mergeSites(a.moveSites, b.moveSites, out.moveSites);
  mergeSites(a.consumeSites, b.consumeSites, out.consumeSites);
  return out;
}

State mergeAll(Walk& w, const std::vector<State>& states, const State& like) {
  State out = unreachable(w, like);
  for (const auto& s : states) out = merge(w, out, s);
  return out;
}

smt::Verdict possible(Walk& w, const State& s, Term cond, smt::Model* model) {
  Term f = w.terms.mkAnd(w.terms.mkAnd(w.assumptions, s.pc), cond);
  std::vector<Term> show;
  if (model) {
    std::vector<Term> vars = w.terms.variables(f);
    for (Term v : w.shown)
      for (Term x : vars)
        if (x == v) show.push_back(v);
  }
  return w.solver.check(f, model, show);
}

std::string pathNote(Walk& w, const State& s, Term cond, const smt::Model& m) {
  if (possible(w, s, w.terms.mkNot(cond)) != smt::Verdict::Sat) return {};
  std::string cex = counterexample(w, m);
  return cex.empty() ? cex : "on the path " + cex;
}

Term live(Walk& w, const State& s, const TokenVal& v) {
  std::vector<Term> parts;
  for (const auto& [k, h] : v.holds) parts.push_back(w.terms.mkAnd(h, get(s.inflight, k, w.terms.fls())));
  return w.terms.mkOr(parts);
}

bool isTokenType(const Walk& w, hir::TypeId t) {
  return w.types().kind(w.types().resolve(t)) == hir::TyKind::Token;
}

bool isMoveOnly(const Walk& w, hir::TypeId t) {
  const hir::TypeTable& tt = w.types();
  hir::TypeId r = tt.resolve(t);
  if (tt.containsError(r)) return false;
  hir::TyKind k = tt.kind(r);
  return k == hir::TyKind::Tensor || k == hir::TyKind::Vec || k == hir::TyKind::Pinned;
}

std::string localName(const Walk& w, hir::LocalId l) { return w.prog.local(l).name; }

std::string sourceText(const Walk& w, base::Span s) {
  if (!s.valid()) return {};
  std::string_view text = w.sources.file(s.file).text();
  if (s.end > text.size() || s.begin > s.end) return {};
  return std::string(text.substr(s.begin, s.end - s.begin));
}

}  // namespace vx::check::own

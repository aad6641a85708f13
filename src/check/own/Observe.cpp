// Token states for the language server: after each statement of the
// reporting walks, what each token location holds and which buffers have
// copies in flight; merged over the walks of a statement (a loop body is
// walked for its first iterations and for the general one).
#include "check/own/Analysis.h"
#include "check/own/Report.h"

namespace vx::check::own {

namespace {

// A named local the state knows (its life has begun and not ended).
bool inScope(const Analysis& a, const State& s, uint32_t local) {
  if (a.body.locals[local].temp) return false;
  auto has = [local](const auto& m) {
    for (const auto& [k, v] : m)
      if (k.local == local) return true;
    return false;
  };
  return has(s.tokens) || has(s.moved) || has(s.refs) || has(s.scalars) || a.body.locals[local].param;
}

// "into `slots[(i + 1) % 2]`", with the line the copy started on after a
// `|` (a line marker): one per copy a merged copy stands for.
std::vector<std::string> copyTexts(const Analysis& a, TransferId k) {
  const Transfer& tr = a.transfers[k];
  std::vector<std::string> out;
  if (tr.members.empty()) {
    out.push_back(copyWhat(tr) + "|" + (tr.span.valid() ? lineMarker(tr.span) : ""));
    return out;
  }
  for (const Transfer::Member& m : tr.members)
    out.push_back(m.what + "|" + (m.span.valid() ? lineMarker(m.span) : ""));
  return out;
}

}  // namespace

std::string copyWhat(const Transfer& tr) {
  std::string where;
  for (const Alt& w : tr.writes) where += std::string(where.empty() ? "" : ", ") + "`" + w.place.text + "`";
  std::string text;
  if (!where.empty())
    text = "into " + where;
  else if (!tr.reads.empty())
    text = "from `" + tr.reads.front().place.text + "`";
  else if (tr.origin == Origin::Param)
    text = "handed in as `" + tr.name + "`";
  else
    text = "copy";
  if (tr.iterationsAgo > 0) text += ", from an earlier iteration";
  return text;
}

void observeStates(Analysis& a, const State& s, base::Span stmt) {
  TermStore& t = a.terms;
  if (t.isFalse(s.pc)) return;
  auto inflight = [&](TransferId k) {
    auto it = s.inflight.find(k);
    return it == s.inflight.end() ? t.fls() : it->second;
  };
  auto record = [&](const std::string& name, bool buffer) -> Analysis::Observed& {
    Analysis::Observed& o = a.observed[{stmt.end, name}];
    o.stmt = stmt;
    o.name = name;
    o.buffer = buffer;
    return o;
  };
  std::map<Loc, std::set<std::string>> buffers;  // root location -> copies
  // Every walk in flight: the copies' guards cover the path (folded, no
  // solver: a `maybe` is never claimed as sure, only the reverse).
  auto covers = [&](Term any) { return t.isTrue(any) || any == s.pc || t.isTrue(t.mkImplies(s.pc, any)); };
  auto ghostWaited = [&](Loc loc) {
    auto g = s.notes.ghosts.find(loc);
    if (g == s.notes.ghosts.end()) return false;
    for (const auto& [k, h] : g->second)
      if (!t.isFalse(inflight(k))) return false;
    return true;
  };
  for (const auto& [loc, holds] : s.tokens) {
    if (!inScope(a, s, loc.local)) continue;
    Analysis::Observed& o = record(locName(a, loc), false);
    std::vector<Term> live;
    bool held = false;
    for (const auto& [k, g] : holds) {
      if (t.isFalse(g)) continue;
      Term f = inflight(k);
      if (t.isFalse(f)) {
        held = true;
        continue;
      }
      live.push_back(t.mkAnd(g, f));
      for (const std::string& c : copyTexts(a, k)) o.copies.insert(c);
    }
    // Emptied (passed to `wait` or a call): waited when none of what it
    // held is still in flight.
    if (!held && live.empty() && ghostWaited(loc)) held = true;
    o.held = o.held || held;
    o.inflight = o.inflight || !live.empty();
    o.always = o.always && !live.empty() && covers(t.mkOr(live));
  }
  for (const auto& [loc, holds] : s.notes.ghosts) {
    if (!inScope(a, s, loc.local) || s.tokens.find(loc) != s.tokens.end()) continue;
    Analysis::Observed& o = record(locName(a, loc), false);
    o.always = false;
    if (ghostWaited(loc)) o.held = true;
  }
  std::map<Loc, std::vector<Term>> bufferLive;
  for (const auto& [k, f] : s.inflight) {
    if (t.isFalse(f)) continue;
    const Transfer& tr = a.transfers[k];
    for (const std::vector<Alt>* side : {&tr.writes, &tr.reads})
      for (const Alt& alt : *side) {
        if (!inScope(a, s, alt.place.root.local)) continue;
        for (const std::string& c : copyTexts(a, k)) buffers[alt.place.root].insert(c);
        bufferLive[alt.place.root].push_back(t.mkAnd(f, alt.guard));
      }
  }
  for (const auto& [root, copies] : buffers) {
    Analysis::Observed& o = record(locName(a, root), true);
    o.copies.insert(copies.begin(), copies.end());
    o.inflight = true;
    o.always = o.always && covers(t.mkOr(bufferLive[root]));
  }
}

std::vector<TokenState> observedStates(const Analysis& a) {
  std::vector<TokenState> out;
  for (const auto& [key, o] : a.observed) {
    TokenState ts;
    ts.fn = a.fn.span;
    ts.stmt = o.stmt;
    ts.name = o.name;
    ts.buffer = o.buffer;
    // One entry per place, with every line a copy into it started on.
    std::map<std::string, std::vector<std::string>> lines;
    for (const std::string& c : o.copies) {
      size_t bar = c.find('|');
      std::vector<std::string>& l = lines[c.substr(0, bar)];
      if (bar + 1 < c.size()) l.push_back(c.substr(bar + 1));
    }
    std::string brief, full;
    for (const auto& [what, at] : lines) {
      brief += std::string(brief.empty() ? "" : "; ") + what;
      std::string where;
      for (size_t i = 0; i < at.size(); ++i) where += (i == 0 ? "" : i + 1 == at.size() ? " or " : ", ") + at[i];
      full += std::string(full.empty() ? "" : "; ") + what +
              (where.empty() ? "" : std::string(" (started at line") + (at.size() > 1 ? "s " : " ") + where + ")");
    }
    if (o.inflight) {
      std::string head = o.always ? "in flight" : "maybe in flight";
      if (o.buffer) head = o.always ? "copies in flight" : "copies maybe in flight";
      ts.brief = head + ": " + brief;
      ts.state = head + ": " + full;
    } else if (o.held) {
      ts.brief = ts.state = "waited";
    } else {
      ts.brief = ts.state = "moved";
    }
    out.push_back(std::move(ts));
  }
  return out;
}

}  // namespace vx::check::own

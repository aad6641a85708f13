// Decides the findings of one function with the solver and reports them:
// one diagnostic per mistake (the copies of one call site that are dropped,
// read or written while in flight are one mistake, reported at its first
// symptom in source order), each with a real model as counterexample.
#include "check/own/Report.h"

#include <algorithm>
#include <cctype>

namespace vx::check::own {

using smt::Shown;

std::string modelValue(const smt::Model& m, const std::string& name) {
  for (const auto& [n, v] : m.values)
    if (n == name) {
      // In the source's terms: Z3 writes a negative integer `(- 5)`.
      if (v.size() > 4 && v.compare(0, 3, "(- ") == 0 && v.back() == ')' &&
          v.find_first_not_of("0123456789", 3) == v.size() - 1)
        return "-" + v.substr(3, v.size() - 4);
      return v;
    }
  return {};
}

std::string lineOf(base::Span s) { return s.valid() ? lineMarker(s) : "0"; }

void labelCreations(const ReportContext& a, diag::Diagnostic& d, const Holds& holds, const char* label) {
  int n = 0;
  std::vector<uint32_t> seen;
  for (const auto& [k, g] : holds) {
    if (a.terms.isFalse(g) || n >= 2) continue;
    const Transfer& t = a.transfers[k];
    std::vector<Transfer::Member> spans = t.members;
    if (spans.empty()) spans.push_back(Transfer::Member{t.span, t.origin == Origin::Havoc, {}});
    for (const auto& [span, earlier, what] : spans) {
      if (!span.valid() || n >= 2) continue;
      uint32_t key = span.begin;
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
      seen.push_back(key);
      d.secondary(span, earlier ? std::string(label) + " in an earlier iteration" : std::string(label));
      ++n;
    }
  }
}

namespace {

// Two E6008 findings about one pair of borrows: a borrow made inside a call
// argument while an earlier argument's borrow of the same data is live is
// found where it is made, and again where the call compares its arguments
// when the inner call returns a reference into that data (`ww(&mut x,
// pickm(&mut x))`). They name the same two places, and each span of the
// one overlaps a span of the other.
bool samePairOfBorrows(const Finding& x, const Finding& y) {
  auto overlaps = [](base::Span p, base::Span q) {
    return p.valid() && q.valid() && p.file == q.file && p.begin < q.end && q.begin < p.end;
  };
  const bool names = (x.subject == y.subject && x.other == y.other) || (x.subject == y.other && x.other == y.subject);
  return names && ((overlaps(x.at, y.at) && overlaps(x.related, y.related)) ||
                   (overlaps(x.at, y.related) && overlaps(x.related, y.at)));
}

// The variable a place's text starts from: `slots` of `slots[i % 2]`, `c` of
// `block_mut::<[B, B]>(c, r, 0)` (for the names of a counterexample).
std::string rootName(const std::string& text) {
  std::string t = text;
  if (t.rfind("block", 0) == 0 && t.find('(') != std::string::npos) t = t.substr(t.find('(') + 1);
  while (!t.empty() && (t[0] == '&' || t[0] == '*' || t[0] == ' ' || t[0] == '(')) t.erase(0, 1);
  size_t n = 0;
  while (n < t.size() && (std::isalnum(static_cast<unsigned char>(t[n])) || t[n] == '_' || t[n] == '.')) ++n;
  return n ? t.substr(0, n) : std::string("place");
}

const char* codeOf(Rule r) {
  switch (r) {
    case Rule::UseAfterMove: return "E6001";
    case Rule::ConsumedTwice:
    case Rule::BehindRef: return "E6002";
    case Rule::Dropped: return "E6003";
    case Rule::StaleRead: return "E6004";
    case Rule::HazardWrite: return "E6005";
    case Rule::SourcePinned: return "E6006";
    case Rule::Conflict: return "E6008";
    case Rule::Footprint: return "E6007";
    case Rule::BlockBounds: return "E6009";
    case Rule::GridRace: return "E6010";
    case Rule::MoveOut: return "E6014";
  }
  return "";
}

bool groupedByCopy(Rule r) {
  switch (r) {
    case Rule::Dropped:
    case Rule::StaleRead:
    case Rule::HazardWrite:
    case Rule::SourcePinned: return true;
    case Rule::UseAfterMove:
    case Rule::ConsumedTwice:
    case Rule::BehindRef:
    case Rule::Conflict:
    case Rule::Footprint:
    case Rule::BlockBounds:
    case Rule::GridRace:
    case Rule::MoveOut: return false;
  }
  return false;
}

struct Outcome {
  size_t finding;
  smt::Model model;
  std::string cex;
  std::string pathNote;
  bool everywhere;
};

std::string printModel(const smt::Model& m) {
  smt::Model shown;
  for (const auto& v : m.values)
    if (!v.first.empty() && v.first[0] != '$') shown.values.push_back(v);
  return shown.values.empty() ? std::string() : shown.print();
}

std::string alsoNote(const Finding& f) {
  std::string line = lineOf(f.at);
  switch (f.rule) {
    case Rule::Dropped: return "the same copy is also dropped without `wait` at line " + line;
    case Rule::StaleRead: return "`" + f.subject + "` is also read at line " + line + " while the copy may be in flight";
    case Rule::HazardWrite:
      return "`" + f.subject + "` is also written at line " + line + " while the copy may be in flight";
    case Rule::SourcePinned:
      return "`" + f.subject + "` is also " + (f.access == AccessHow::Move ? "moved" : "freed") + " at line " + line +
             " while the copy may be in flight";
    case Rule::UseAfterMove:
    case Rule::ConsumedTwice:
    case Rule::BehindRef:
    case Rule::Conflict:
    case Rule::Footprint:
    case Rule::BlockBounds:
    case Rule::GridRace:
    case Rule::MoveOut: return {};
  }
  return {};
}

}  // namespace

namespace {

// W6900, at the function's level for the `unproved` lint.
diag::Diagnostic unproved(Analysis& a) {
  diag::Diagnostic d = diag::SolverGaveUp("that `" + a.fn.name + "` uses its tokens and buffers correctly");
  int level = a.fn.lintLevel("W6900", &d.attrSpan);
  if (level >= 0) d.attrLevel = static_cast<diag::LintLevel>(level);
  int group = a.fn.lintLevel("warnings", &d.attrWarningsSpan);
  if (group >= 0) d.attrWarnings = static_cast<diag::LintLevel>(group);
  return d;
}

}  // namespace

void report(Analysis& a, diag::Sink& sink) {
  TermStore& t = a.terms;
  if (a.exhausted && a.tooDeep.valid() && a.tooWide) {
    sink.emit(unproved(a)
                  .primary(a.fn.nameSpan, "not decided")
                  .secondary(a.tooDeep, "its type has a tuple of more than 255 components")
                  .note("the checker follows the first 255 components of a tuple; nothing in this function was decided")
                  .help("split the tuple into tuples of at most 255 components; or allow it with "
                        "`#[allow(unproved)]`, and its tokens are checked at run time on the cpu target"));
    return;
  }
  if (a.exhausted && a.tooDeep.valid()) {
    sink.emit(unproved(a)
                  .primary(a.fn.nameSpan, "not decided")
                  .secondary(a.tooDeep, "its type nests tuples more than " + std::to_string(kLocDepth) + " deep")
                  .note("the checker follows what tuples hold " + std::to_string(kLocDepth) +
                        " levels deep; nothing in this function was decided")
                  .help("flatten the tuple (`(a, b, c)` rather than `((a, b), c)` nested further); or allow it with "
                        "`#[allow(unproved)]`, and its tokens are checked at run time on the cpu target"));
    return;
  }
  if (a.exhausted) {
    sink.emit(unproved(a)
                  .primary(a.fn.nameSpan, "the checker's budget ran out in this function")
                  .note("one of its budgets (statements walked, formula size, solver resources, the clock) ran out "
                        "before its facts settled: deep loop nests and long chains of calls or of assignments cost "
                        "the most; nothing in it was decided")
                  .help("split the function, or simplify its loops and calls; or allow it with `#[allow(unproved)]`, "
                        "and its tokens are checked at run time on the cpu target"));
    return;
  }
  std::vector<Outcome> sat;
  base::Span unknownAt;
  std::string unknownWhat;
  std::vector<std::tuple<std::string, std::pair<uint32_t, uint32_t>, std::string>> seen;
  std::set<uint32_t> boundsOpen;  // `block` calls with a bound not proved
  std::vector<size_t> conflictsShown;
  for (size_t i = 0; i < a.findings.size(); ++i) {
    const Finding& f = a.findings[i];
    std::string code = codeOf(f.rule);
    std::pair<uint32_t, uint32_t> key{f.at.begin, f.at.end};
    bool dup = false;
    for (const auto& [c, k, subj] : seen) dup = dup || (c == code && k == key && subj == f.subject);
    for (size_t shown : conflictsShown) dup = dup || (f.rule == Rule::Conflict && samePairOfBorrows(a.findings[shown], f));
    if (dup) continue;
    if (f.rule == Rule::Footprint) {
      // Shapes are static: the bound is exact arithmetic, no query.
      seen.emplace_back(code, key, f.subject);
      sat.push_back(Outcome{i, smt::Model{}, {}, {}, false});
      continue;
    }
    Term query = t.mkAnd(a.assumptions, f.bad);
    std::vector<Shown> show = f.show;
    if (f.slotRead.valid() && f.slotInFlight.valid()) {
      show.push_back(Shown{f.rule == Rule::Conflict ? "slot_mut" : "slot_read", f.slotRead});
      show.push_back(Shown{f.rule == Rule::Conflict ? "slot_other" : "slot_inflight", f.slotInFlight});
    }
    if (f.rule == Rule::StaleRead) {
      // The state of the buffer read, as bit-vectors: tag #b11 = a copy is
      // landing, value #x00 = the contents from before the copy.
      std::string root = rootName(f.subject);
      Term tag = t.var("tag_" + root, smt::Sort::BV2);
      Term val = t.var("val_" + root, smt::Sort::BV8);
      Term landing = t.bvConst(smt::Sort::BV2, 3);
      query = t.mkAnd({query, t.mkEq(tag, t.mkIte(f.condition, landing, t.bvConst(smt::Sort::BV2, 0))),
                       t.mkEq(tag, landing),
                       t.mkEq(val, t.mkIte(t.mkEq(tag, landing), t.bvConst(smt::Sort::BV8, 0), t.bvConst(smt::Sort::BV8, 1)))});
      show.push_back(Shown{"tag_" + root, tag});
      show.push_back(Shown{"val_" + root, val});
    }
    for (size_t h = 0; h < f.holders.size() && f.holders.size() > 1; ++h)
      show.push_back(Shown{"$holder" + std::to_string(h), f.holders[h].second});
    for (size_t e = 0; e < f.earlierGuards.size() && f.earlier.size() > 1; ++e)
      show.push_back(Shown{"$earlier" + std::to_string(e), f.earlierGuards[e]});
    smt::Model m;
    smt::Verdict v = a.solver.check(query, &m, show);
    if (v == smt::Verdict::Sat) {
      // Prefer a counterexample with small numbers, as a person would pick:
      // every integer within 1 of zero if that can be, else within 4, 64.
      std::vector<Term> ints;
      for (Term x : t.variables(query))
        if (t.sort(x) == smt::Sort::Int) ints.push_back(x);
      // E6010: of two mirror-image models (instances swapped) the one whose
      // first instance comes first, so that the message does not depend on
      // the solver's history (a cached check and a fresh one agree).
      std::vector<Term> prefer;
      if (f.rule == Rule::GridRace && !f.instance.empty() && f.instance.size() == f.otherInstance.size()) {
        Term before = t.fls(), same = t.tru();
        for (size_t k = 0; k < f.instance.size(); ++k) {
          Term x = f.instance[k].second, y = f.otherInstance[k].second;
          before = t.mkOr(before, t.mkAnd(same, t.mkLt(x, y)));
          same = t.mkAnd(same, t.mkEq(x, y));
        }
        prefer.push_back(before);
      }
      prefer.push_back(t.tru());
      bool nicer = false;
      for (Term order : prefer) {
        for (int bound : {1, 4, 64}) {
          if (ints.empty()) break;
          std::vector<Term> small;
          for (Term x : ints) small.push_back(t.mkAnd(t.mkLe(t.intConst(-bound), x), t.mkLe(x, t.intConst(bound))));
          smt::Model nice;
          if (a.solver.checkCheap(t.mkAnd({query, order, t.mkAnd(small)}), &nice, show) == smt::Verdict::Sat) {
            m = nice;
            nicer = true;
            break;
          }
        }
        if (nicer) break;
      }
    }
    if (v == smt::Verdict::Unsat) continue;
    if (f.rule == Rule::BlockBounds) boundsOpen.insert(f.site.index);
    // An undecided bound is checked at run time (grid.md §2), not unproved.
    if (v == smt::Verdict::Unknown && f.rule == Rule::BlockBounds) continue;
    if (v == smt::Verdict::Unknown) {
      if (!unknownAt.valid()) {
        unknownAt = f.at;
        unknownWhat = code;
      }
      continue;
    }
    seen.emplace_back(code, key, f.subject);
    if (f.rule == Rule::Conflict) conflictsShown.push_back(i);
    // The token that holds the copy in this execution.
    for (size_t h = 0; h < f.holders.size() && f.holders.size() > 1; ++h)
      if (modelValue(m, "$holder" + std::to_string(h)) == "true") {
        a.findings[i].holder = f.holders[h].first;
        break;
      }
    // The earlier consumption or move on the counterexample's path first.
    for (size_t e = 0; e < f.earlierGuards.size() && f.earlier.size() > 1; ++e)
      if (modelValue(m, "$earlier" + std::to_string(e)) == "true") {
        std::swap(a.findings[i].earlier[0], a.findings[i].earlier[e]);
        break;
      }
    Outcome o{i, m, printModel(m), {}, false};
    if (f.rule == Rule::Dropped) {
      // In flight on every path that reaches the drop?
      Term elsewhere = t.mkAnd({a.assumptions, a.trapFacts, f.pc, t.mkNot(f.condition)});
      o.everywhere = t.isFalse(elsewhere) || a.solver.checkCheap(elsewhere) == smt::Verdict::Unsat;
    }
    // "On the path ...": when the violation depends on the path taken or
    // on the inputs (it does not happen in every execution, or that is not
    // known cheaply: the values are a real execution either way).
    if (f.pc.valid() && !o.cex.empty()) {
      // (Executions that trapped before the point do not count.)
      Term other = t.mkAnd({a.assumptions, a.trapFacts, t.mkNot(f.bad)});
      if (!t.isFalse(other) && a.solver.checkCheap(other) != smt::Verdict::Unsat) o.pathNote = "on the path " + o.cex;
    }
    sat.push_back(std::move(o));
  }
  for (uint32_t site : a.blockSites)
    if (!boundsOpen.count(site)) a.provedBlocks.push_back(site);
  // One mistake, one diagnostic: the findings about the copies of one call
  // site are reported once, at the first in source order.
  std::map<std::pair<uint32_t, std::string>, size_t> primaryOfSite;
  std::vector<bool> keep(sat.size(), true);
  std::vector<std::vector<std::string>> also(sat.size());
  // A copy's mistake: the token variable that holds it (the one a `wait`
  // is missing on), or its call site when no variable holds it.
  auto siteOf = [&](const Finding& f) -> std::pair<uint32_t, std::string> {
    if (f.transfer == UINT32_MAX) return {UINT32_MAX, ""};
    const Transfer& tr = a.transfers[f.transfer];
    std::string token = f.rule == Rule::Dropped ? f.subject : !f.holder.empty() ? f.holder : tr.name;
    if (!token.empty()) return {0, token};
    return {tr.site.valid() ? tr.site.index + 1 : (UINT32_MAX - 1 - f.transfer), ""};
  };
  std::vector<size_t> order(sat.size());
  for (size_t i = 0; i < sat.size(); ++i) order[i] = i;
  // First in source order; at one point, a drop before what follows from it.
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    const Finding& fx = a.findings[sat[x].finding];
    const Finding& fy = a.findings[sat[y].finding];
    if (fx.at.begin != fy.at.begin) return fx.at.begin < fy.at.begin;
    return (fx.rule == Rule::Dropped) > (fy.rule == Rule::Dropped);
  });
  for (size_t i : order) {
    const Finding& f = a.findings[sat[i].finding];
    if (!groupedByCopy(f.rule)) continue;
    auto site = siteOf(f);
    if (site.first == UINT32_MAX) continue;
    auto it = primaryOfSite.find(site);
    if (it == primaryOfSite.end()) {
      primaryOfSite[site] = i;
      continue;
    }
    keep[i] = false;
    std::string note = alsoNote(f);
    auto& notes = also[it->second];
    if (!note.empty() && std::find(notes.begin(), notes.end(), note) == notes.end() && notes.size() < 3)
      notes.push_back(note);
  }
  const ReportContext ctx{a.prog, a.sources, a.fn, a.target, a.transfers, a.terms};
  for (size_t i = 0; i < sat.size(); ++i) {
    if (!keep[i]) continue;
    const Finding& f = a.findings[sat[i].finding];
    Decided d{f, sat[i].model, sat[i].cex, sat[i].pathNote, also[i], sat[i].everywhere};
    diag::Diagnostic out;
    switch (f.rule) {
      case Rule::Footprint: out = renderFootprint(ctx, d); break;
      case Rule::UseAfterMove: out = renderUseAfterMove(ctx, d); break;
      case Rule::ConsumedTwice: out = renderConsumedTwice(ctx, d); break;
      case Rule::BehindRef: out = renderBehindRef(ctx, d); break;
      case Rule::Dropped: out = renderDropped(ctx, d); break;
      case Rule::StaleRead:
      case Rule::HazardWrite:
      case Rule::SourcePinned: out = renderHazard(ctx, d); break;
      case Rule::Conflict: out = renderConflict(ctx, d); break;
      case Rule::BlockBounds: out = renderBlockBounds(ctx, d); break;
      case Rule::GridRace: out = renderGridRace(ctx, d); break;
      case Rule::MoveOut: out = renderMoveOut(ctx, d); break;
    }
    sink.emit(std::move(out));
  }
  if (unknownAt.valid())
    sink.emit(unproved(a)
                  .primary(a.fn.nameSpan, "not proved within the solver's budget")
                  .secondary(unknownAt, "the first question left undecided (" + unknownWhat + ")")
                  .note("vxc never accepts what it could not prove; simplify the index arithmetic or the branch "
                        "conditions here")
                  .help("`vxc check --explain-proof` prints the queries asked; `#[allow(unproved)]` accepts the "
                        "function with its tokens checked at run time on the cpu target"));
}

}  // namespace vx::check::own

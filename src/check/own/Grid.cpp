// The `parallel` grid (grid.md §3): its instances run concurrently and in
// no order, so the checker walks one instance, with its indices as
// unknowns below their extents, recording every access it makes to HBM
// (the places of the function's reference parameters). At the instance's
// end, each pair of those accesses of which one writes is a question for
// the solver, asked of two instances: the second access renamed into a
// second instance (every variable the instance made, its indices first,
// gets a fresh copy), with the two instances' indices different. A model
// is two instances touching one element: E6010. Accesses of the code
// around the grid are not instances' and are not recorded; tokens and
// on-chip buffers never cross the grid's boundary (Sema, E0209), so each
// instance's own rules (E6001-E6008) are those of a function body.
#include "check/own/Analysis.h"

namespace vx::check::own {

namespace {

bool writes(AccessHow h) {
  switch (h) {
    case AccessHow::Write:
    case AccessHow::CopyWrite:
    case AccessHow::Move:
    case AccessHow::Free: return true;
    case AccessHow::Read:
    case AccessHow::CopyRead: return false;
  }
  return true;
}

}  // namespace

void beginInstance(Analysis& a, State& s, const cir::Stmt& st) {
  TermStore& t = a.terms;
  const cir::Grid& g = a.body.grids[st.grid];
  std::vector<Term> extents;
  for (const cir::Operand& o : g.extents) {
    Value v = evalOperand(a, s, o);
    extents.push_back(v.kind == Value::Kind::Scalar ? v.scalar : freshValue(a, operandType(a, o), "$extent"));
  }
  a.grid = Analysis::GridWalk{};
  a.grid.active = true;
  a.grid.firstInner = g.vars.empty() ? static_cast<uint32_t>(a.body.locals.size()) : g.vars.front().index;
  // What the code around the grid knows: the variables of its state.
  std::vector<Term> roots{s.pc, a.assumptions, a.trapFacts};
  for (const auto& [l, v] : s.scalars) roots.push_back(v);
  for (const auto& [l, v] : a.lens) roots.push_back(v);
  for (const smt::Shown& x : a.inputs) roots.push_back(x.term);
  for (Term v : t.variables(roots)) a.grid.outer.insert(v.index);
  for (size_t d = 0; d < g.vars.size() && d < extents.size(); ++d) {
    const cir::Local& var = a.body.local(g.vars[d]);
    Term i = freshValue(a, var.type, var.name);
    s.pc = t.mkAnd(s.pc, t.mkLt(i, extents[d]));
    s.scalars[Loc{g.vars[d].index, 0}] = i;
    a.grid.vars.emplace_back(var.name, i);
  }
}

void recordForGrid(Analysis& a, State& s, const std::vector<Alt>& places, AccessHow how, base::Span at) {
  if (!a.grid.active || !a.reporting()) return;
  for (const Alt& alt : places) {
    // An instance's own buffer or variable; what the code around the grid
    // has (a parameter's tensor, by reference or by value, a variable an
    // instance reaches through a reference bound before the grid) is
    // shared by every instance.
    if (!a.paramOf.count(alt.place.root) && alt.place.root.local >= a.grid.firstInner) continue;
    a.grid.accesses.push_back(Analysis::GridAccess{alt.place, how, a.terms.mkAnd(s.pc, alt.guard), at});
  }
}

void endInstance(Analysis& a, State& s) {
  TermStore& t = a.terms;
  Analysis::GridWalk g = std::move(a.grid);
  a.grid = Analysis::GridWalk{};
  if (!a.reporting() || g.accesses.empty()) return;
  bool anyWrite = false;
  for (const Analysis::GridAccess& x : g.accesses) anyWrite = anyWrite || writes(x.how);
  if (!anyWrite) return;
  // The second instance: every variable the instance made, renamed.
  std::vector<Term> roots{a.assumptions};
  for (const Analysis::GridAccess& x : g.accesses) roots.insert(roots.end(), {x.cond, x.place.index, x.place.sub, x.place.row, x.place.col});
  // A parameter's length is an input of the call, the same for every
  // instance, though an instance may be the first to ask for it.
  for (const auto& [l, len] : a.lens)
    if (a.body.locals[l.local].param) g.outer.insert(len.index);
  std::vector<Term> from, to;
  for (Term v : t.variables(roots)) {
    if (g.outer.count(v.index)) continue;
    from.push_back(v);
    to.push_back(t.fresh(t.varName(v) + "'", t.sort(v)));
  }
  auto other = [&](Term x) { return x.valid() ? t.substitute(x, from, to) : x; };
  Term assumptions2 = other(a.assumptions);
  std::vector<Term> differ;
  std::vector<std::pair<std::string, Term>> mine, theirs;
  for (const auto& [name, i] : g.vars) {
    differ.push_back(t.mkNot(t.mkEq(i, other(i))));
    mine.emplace_back(name, i);
    theirs.emplace_back(name, other(i));
  }
  Term distinct = t.mkOr(differ);
  for (const Analysis::GridAccess& w : g.accesses) {
    if (!writes(w.how)) continue;
    for (const Analysis::GridAccess& x : g.accesses) {
      Place p2 = x.place;
      p2.index = other(p2.index);
      p2.sub = other(p2.sub);
      p2.row = other(p2.row);
      p2.col = other(p2.col);
      Term al = alias(t, w.place, p2);
      if (t.isFalse(al)) continue;
      Finding f;
      f.rule = Rule::GridRace;
      f.at = w.at;
      std::string root = locName(a, w.place.root);
      f.subject = root.empty() ? w.place.text : root;
      f.other = f.subject;
      f.access = w.how;
      f.otherAt = x.at;
      f.otherAccess = x.how;
      f.instance = mine;
      f.otherInstance = theirs;
      // The element both touch: its slot, its row and column.
      std::vector<Term> where;
      if (w.place.index.valid() && p2.index.valid()) f.element.push_back(w.place.index);
      if (w.place.blocked() && p2.blocked()) {
        Term er = t.fresh("row", smt::Sort::Int), ec = t.fresh("col", smt::Sort::Int);
        auto in = [&](Term e, Term lo, uint64_t n) {
          return t.mkAnd(t.mkLe(lo, e), t.mkLt(e, t.mkAdd(lo, t.intConst(static_cast<smt::Int128>(n)))));
        };
        where = {in(er, w.place.row, w.place.rows), in(er, p2.row, p2.rows), in(ec, w.place.col, w.place.cols),
                 in(ec, p2.col, p2.cols)};
        f.element.push_back(er);
        f.element.push_back(ec);
      }
      f.condition = t.mkAnd({al, distinct, t.mkAnd(where)});
      f.pc = t.mkAnd(w.cond, other(x.cond));
      f.bad = t.mkAnd({f.pc, assumptions2, f.condition});
      if (t.isFalse(f.bad)) continue;
      f.show = shownFor(a, s, f.bad);
      for (const auto& [name, i] : mine) f.show.push_back(smt::Shown{name, i});
      for (const auto& [name, i] : theirs) f.show.push_back(smt::Shown{name + "'", i});
      if (f.element.size() == 1) f.show.push_back(smt::Shown{"slot", f.element[0]});
      if (f.element.size() >= 2) {
        f.show.push_back(smt::Shown{"row", f.element[f.element.size() - 2]});
        f.show.push_back(smt::Shown{"col", f.element[f.element.size() - 1]});
      }
      a.findings.push_back(std::move(f));
    }
  }
}

}  // namespace vx::check::own

// E6010: two instances of a `parallel` grid that may write one element, or
// one reading what another writes; the counterexample names both instances
// and the element.
#include "check/own/Report.h"

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

// "(i, j) = (0, 1)" from the model; "" when it has no value for them.
std::string instanceText(const smt::Model& m, const std::vector<std::pair<std::string, Term>>& vars,
                         const std::string& suffix) {
  std::string names, values;
  for (size_t k = 0; k < vars.size(); ++k) {
    std::string v = modelValue(m, vars[k].first + suffix);
    if (v.empty()) return {};
    names += (k ? ", " : "") + vars[k].first;
    values += (k ? ", " : "") + v;
  }
  if (vars.size() == 1) return names + " = " + values;
  return "(" + names + ") = (" + values + ")";
}

}  // namespace

diag::Diagnostic renderGridRace(const ReportContext& a, const Decided& d) {
  const Finding& f = d.f;
  bool both = writes(f.otherAccess);
  std::string root = f.subject.empty() ? "the tensor" : f.subject;
  diag::Diagnostic out = both ? diag::GridWriteRace(root) : diag::GridReadRace(root);
  std::string mine = instanceText(d.model, f.instance, ""), theirs = instanceText(d.model, f.otherInstance, "'");
  out.primary(f.at, mine.empty() ? "an instance writes here" : "instance " + mine + " writes here");
  std::string other = theirs.empty() ? "another instance" : "instance " + theirs;
  other += both ? " writes" : " reads";
  if (f.otherAt.valid() && (f.otherAt.begin != f.at.begin || f.otherAt.end != f.at.end))
    out.secondary(f.otherAt, other + " here");
  else
    out.note(other + " here too");
  if (!d.counterexample.empty()) out.note("z3 counterexample: " + d.counterexample);
  std::string row = modelValue(d.model, "row"), col = modelValue(d.model, "col"), slot = modelValue(d.model, "slot");
  if (!row.empty() && !col.empty())
    out.note("both touch element [" + row + ", " + col + "]" + (slot.empty() ? "" : " of slot " + slot) + " of `" +
             f.other + "`");
  else if (!slot.empty())
    out.note("both touch slot " + slot + " of `" + f.other + "`");
  out.help("instances run concurrently and in no order: give each its own block, indexed by all of its "
           "indices (`block_mut::<[BM, BN]>(c, i * BM, j * BN)` in `parallel (i, j) in [m / BM, n / BN]`)");
  (void)a;
  return out;
}

}  // namespace vx::check::own

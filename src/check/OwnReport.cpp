// Reporting helpers shared by the ownership rules: deduplication (a loop body
// is walked several times), counterexamples, and W6900.
#include "check/OwnState.h"
#include "diag/DiagKinds.h"

namespace vx::check::own {

bool shouldReport(Walk& w, const char* code, base::Span at) {
  // After the budget ran out the state is incomplete: only W6900 is said.
  if (w.silent > 0 || w.exhausted) return false;
  for (const auto& [c, b, e] : w.reported)
    if (c == code && b == at.begin && e == at.end) return false;
  w.reported.emplace_back(code, at.begin, at.end);
  return true;
}

std::string counterexample(Walk& w, const smt::Model& m) {
  // Internal variables ($...) never reach users.
  smt::Model shown;
  for (const auto& [name, value] : m.values) {
    if (name.empty() || name[0] == '$') continue;
    auto it = w.display.find(name);
    shown.values.emplace_back(it == w.display.end() ? name : it->second, value);
  }
  if (shown.values.empty()) return {};
  return shown.print();
}

void reportUnknown(Walk& w, base::Span at, const std::string& what) {
  if (!shouldReport(w, "W6900", at)) return;
  w.sink.emit(diag::SolverGaveUp(what)
                  .primary(at, "not proved within the solver's budget")
                  .note("vxc never accepts what it could not prove; simplify the index arithmetic "
                        "or the branch conditions here")
                  .help("`vxc check --explain-proof` prints the queries asked"));
}

}  // namespace vx::check::own

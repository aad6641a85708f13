// E6009: a block whose rows or columns may fall outside its tensor, on an
// execution the function's guards allow; the counterexample gives the
// offsets and the extents.
#include "check/own/Report.h"

namespace vx::check::own {

diag::Diagnostic renderBlockBounds(const ReportContext& a, const Decided& d) {
  const Finding& f = d.f;
  diag::Diagnostic out = diag::BlockOutOfBounds(f.subject);
  out.primary(f.at, "this block may reach past the tensor's last row or column");
  if (!d.counterexample.empty()) out.note("z3 counterexample: " + d.counterexample);
  // The block's corner and the tensor's extents in that execution.
  if (f.element.size() == 4) {
    auto value = [&](const char* name, Term x) {
      if (a.terms.isConst(x)) return smt::toString(a.terms.constValue(x));
      return modelValue(d.model, name);
    };
    std::string r = value("$block_row", f.element[0]), c = value("$block_col", f.element[1]);
    std::string m = value("$block_rows", f.element[2]), n = value("$block_cols", f.element[3]);
    if (!r.empty() && !c.empty() && !m.empty() && !n.empty())
      out.note("the block starts at row " + r + ", column " + c + " of a " + m + " x " + n + " tensor");
  }
  out.help("guard the block (`if r + R <= m { ... }`), or make the grid's extents divide the tensor: "
           "`parallel (i) in [m / BM]` with `m` a multiple of `BM`");
  return out;
}

}  // namespace vx::check::own

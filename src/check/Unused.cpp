// W0001: a variable that is never read. A leading `_` silences it (but does
// not exempt a token from being consumed: that is the ownership checker's).
#include "check/Sema.h"
#include "diag/DiagKinds.h"

namespace vx::check {

void reportUnused(Sema& s, hir::FnId fn, uint32_t firstLocal) {
  std::vector<hir::LocalId> candidates = s.prog.fns[fn.index].params;
  for (uint32_t i = firstLocal; i < s.prog.locals.size(); ++i) candidates.push_back(hir::LocalId{i});
  for (hir::LocalId id : candidates) {
    const hir::Local& l = s.prog.local(id);
    if (l.uses > 0 || l.name.empty() || l.name[0] == '_') continue;
    if (s.types().containsError(l.type)) continue;  // already reported
    diag::Diagnostic d = diag::UnusedVariable(l.name)
                             .primary(l.span, "never read")
                             .suggest("if this is intentional, prefix it with an underscore: `_" + l.name + "`",
                                      base::Span{l.span.file, l.span.begin, l.span.begin}, "_",
                                      diag::Applicability::MaybeIncorrect);
    int level = s.prog.fns[fn.index].lintLevel("W0001", &d.attrSpan);
    if (level >= 0) d.attrLevel = static_cast<diag::LintLevel>(level);
    s.sink.emit(std::move(d));
  }
}

}  // namespace vx::check

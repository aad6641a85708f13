// W0001: a variable that is never read. A leading `_` silences it (but does
// not exempt a token from being consumed: that is the ownership checker's).
#include "check/Sema.h"
#include "diag/DiagKinds.h"

namespace vx::check {

namespace {

// A token, or a tuple holding one: `_` would not make dropping it correct.
bool holdsToken(const hir::TypeTable& tt, hir::TypeId t) {
  t = tt.resolve(t);
  if (tt.isLinear(t)) return true;
  if (tt.kind(t) != hir::TyKind::Tuple) return false;
  for (uint32_t i = 0; i < tt.count(t); ++i)
    if (holdsToken(tt, tt.elem(t, i))) return true;
  return false;
}

}  // namespace

void reportUnused(Sema& s, hir::FnId fn, uint32_t firstLocal) {
  std::vector<hir::LocalId> candidates = s.prog.fns[fn.index].params;
  for (uint32_t i = firstLocal; i < s.prog.locals.size(); ++i) candidates.push_back(hir::LocalId{i});
  for (hir::LocalId id : candidates) {
    const hir::Local& l = s.prog.local(id);
    if (l.uses > 0 || l.name.empty() || l.name[0] == '_') continue;
    if (s.types().containsError(l.type)) continue;  // already reported
    // A `let mut x` binding's span starts at `mut`: the name is its end.
    base::Span name = l.span;
    if (name.end >= name.begin + l.name.size()) name.begin = name.end - static_cast<uint32_t>(l.name.size());
    diag::Diagnostic d = diag::UnusedVariable(l.name).primary(name, "never read");
    if (s.types().isLinear(l.type))
      d.help("`" + l.name + "` is a transfer token, which must be waited: `wait(" + l.name +
             ");` (renaming it `_" + l.name + "` would not wait the copy)");
    else if (holdsToken(s.types(), l.type))
      d.help("`" + l.name + "` holds transfer tokens, each of which must be waited (`wait(" + l.name +
             ".0);`); renaming it `_" + l.name + "` would not wait the copies");
    else
      d.suggest("if this is intentional, prefix it with an underscore: `_" + l.name + "`",
                base::Span{name.file, name.begin, name.begin}, "_", diag::Applicability::MaybeIncorrect);
    int level = s.prog.fns[fn.index].lintLevel("W0001", &d.attrSpan);
    if (level >= 0) d.attrLevel = static_cast<diag::LintLevel>(level);
    int group = s.prog.fns[fn.index].lintLevel("warnings", &d.attrWarningsSpan);
    if (group >= 0) d.attrWarnings = static_cast<diag::LintLevel>(group);
    s.sink.emit(std::move(d));
  }
}

}  // namespace vx::check

// Public entry of the semantic checks: AST -> typed HIR, with name and type
// diagnostics (E0100-E0208, W0001). The ownership checker builds on the HIR.
#pragma once

#include <memory>
#include <string>

#include "ast/Ast.h"
#include "base/Source.h"
#include "target/Target.h"
#include "diag/Sink.h"
#include "hir/Hir.h"

namespace vx::check {

// The prelude (stdlib/prelude.vx), parsed: the driver parses it once per
// process (driver::prelude()) and hands it to every check.
struct Prelude {
  std::string text;
  ast::Module module;
  ast::Interner names;
};

// Adds the prelude's text to `sources` (as `<prelude>`, for its spans),
// then checks `user` against it. Returns the HIR of prelude and user
// functions together.
std::unique_ptr<hir::Program> checkTypes(base::SourceMap& sources, const Prelude& prelude, const ast::Module& user,
                                         const ast::Interner& names, diag::Sink& sink, target::TargetKind target);

// Whether an item is part of the program for `target` by its `#[cfg]`
// attributes (SemaCfg.cpp): false when one predicate is false; true
// otherwise, a malformed one included (the checker reports it).
bool itemConfigured(const ast::Item& item, const ast::Interner& names, target::TargetKind target);

// The embedded prelude's text (stdlib/prelude.vx).
const char* preludeSource();

}  // namespace vx::check

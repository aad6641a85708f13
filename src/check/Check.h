// Public entry of the semantic checks: AST -> typed HIR, with name and type
// diagnostics (E0100-E0207, W0001). The ownership checker builds on the HIR.
#pragma once

#include <memory>

#include "ast/Ast.h"
#include "base/Source.h"
#include "target/Target.h"
#include "diag/Sink.h"
#include "hir/Hir.h"

namespace vx::check {

// Loads the prelude into `sources` (as `<prelude>`), then checks `user`.
// Returns the HIR of prelude and user functions together.
std::unique_ptr<hir::Program> checkTypes(base::SourceMap& sources, const ast::Module& user,
                                         const ast::Interner& names, diag::Sink& sink,
                                         target::TargetKind target);

// The embedded prelude (stdlib/prelude.vx).
const char* preludeSource();

}  // namespace vx::check

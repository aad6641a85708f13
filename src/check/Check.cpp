#include "check/Check.h"

#include <cstring>

#include "check/Sema.h"
#include "check/StdlibEmbed.h"

namespace vx::check {

const char* preludeSource() {
  for (unsigned i = 0; i < kStdlibCount; ++i)
    if (std::strcmp(kStdlib[i].name, "prelude") == 0) return kStdlib[i].text;
  return "";
}

std::unique_ptr<hir::Program> checkTypes(base::SourceMap& sources, const Prelude& prelude, const ast::Module& user,
                                         const ast::Interner& names, diag::Sink& sink, target::TargetKind target) {
  base::FileId preludeFile = sources.add("<prelude>", prelude.text);
  auto prog = std::make_unique<hir::Program>();
  Sema s(*prog, sink, target);
  checkProgram(s, SourceUnit{&prelude.module, &prelude.names, true, preludeFile},
               SourceUnit{&user, &names, false, user.file});
  return prog;
}

}  // namespace vx::check

#include "check/Check.h"

#include <cstring>
#include <stdexcept>

#include "check/Sema.h"
#include "check/StdlibEmbed.h"
#include "parse/Parse.h"

namespace vx::check {

const char* preludeSource() {
  for (unsigned i = 0; i < kStdlibCount; ++i)
    if (std::strcmp(kStdlib[i].name, "prelude") == 0) return kStdlib[i].text;
  return "";
}

std::unique_ptr<hir::Program> checkTypes(base::SourceMap& sources, const ast::Module& user,
                                         const ast::Interner& names, diag::Sink& sink,
                                         target::TargetKind target) {
  base::FileId preludeFile = sources.add("<prelude>", preludeSource());
  ast::Interner preludeNames;
  diag::Sink preludeSink;
  ast::Module prelude = parse::parseFile(sources, preludeFile, preludeNames, preludeSink);
  if (preludeSink.hasErrors()) throw std::runtime_error("the embedded prelude does not parse");
  auto prog = std::make_unique<hir::Program>();
  Sema s(*prog, sink, target);
  checkProgram(s, SourceUnit{&prelude, &preludeNames, true}, SourceUnit{&user, &names, false});
  return prog;
}

}  // namespace vx::check

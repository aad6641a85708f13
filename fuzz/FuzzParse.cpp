// libFuzzer entry point: arbitrary bytes through the whole `vxc check`
// pipeline (driver::checkFile), so every phase it runs is reached — parser,
// type checker, ownership checker, and whatever is added there later.
// Each input gets a fresh SourceMap and Sink, so no state leaks between runs.
// It is also parsed by both parsers -- the hand-written fast path and ANTLR
// alone -- which must give the same AST and diagnostics, when it is at most
// 16 KiB: ANTLR alone recovers from errors in superlinear time (a 60 KiB
// mutant of a 1,024-arm `else if` chain took 54 s under ASan; `vxc check`,
// whose fast parser hands ANTLR only the chunks it cannot parse, took
// 0.08 s), and the differential is about the parsers' agreement, not size.
#include <cstddef>
#include <cstdint>
#include <string>

#include "ast/Ast.h"
#include "base/Source.h"
#include "diag/Render.h"
#include "diag/Sink.h"
#include "driver/Pipeline.h"
#include "parse/Parse.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  vx::base::SourceMap sources;
  vx::base::FileId file =
      sources.add("fuzz.vx", std::string(reinterpret_cast<const char*>(data), size));
  vx::diag::Sink sink;
  vx::driver::CheckOptions options;
  (void)vx::driver::checkFile(sources, file, sink, options);
  // Rendering is part of what `vxc check` does with a bad file: fuzz it too
  // (spans, line/column math and UTF-8 handling in the renderers).
  if (!sink.diagnostics().empty()) {
    (void)vx::driver::renderAll(sink, sources, vx::driver::Format::Human, false);
    (void)vx::driver::renderAll(sink, sources, vx::driver::Format::Json, false);
  }

  if (size > 16 * 1024) return 0;
  std::string parsed[2];
  for (int fast = 0; fast < 2; ++fast) {
    vx::ast::Interner names;
    vx::diag::Sink s;
    vx::parse::ParseOptions o;
    o.fastParser = fast == 1;
    vx::ast::Module m = vx::parse::parseFile(sources, file, names, s, o);
    parsed[fast] = vx::ast::dumpModule(m, names);
    for (const auto& d : s.diagnostics()) parsed[fast] += vx::diag::renderJson(d, sources);
  }
  if (parsed[0] != parsed[1]) __builtin_trap();
  return 0;
}

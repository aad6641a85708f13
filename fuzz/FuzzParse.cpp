// libFuzzer entry point: arbitrary bytes through the whole `vxc check`
// pipeline (driver::checkFile), so every phase it runs is reached — parser,
// type checker, ownership checker, and whatever is added there later.
// Each input gets a fresh SourceMap and Sink, so no state leaks between runs.
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/Source.h"
#include "diag/Sink.h"
#include "driver/Pipeline.h"

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
  return 0;
}

// libFuzzer entry point for the .vxdma assembler and the simulator: any
// bytes must assemble or fail with errors (never crash); whatever assembles
// must validate, round-trip through print() exactly, and run to a result on
// a small machine (bounded instructions and memory), trace files included.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/Sim.h"
#include "tpu/Asm.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  vx::tpu::AsmResult r = vx::tpu::assemble(text);
  if (!r.ok()) {
    for (const auto& e : r.errors)
      if (e.message.empty()) __builtin_trap();
    return 0;
  }
  if (!vx::tpu::validate(r.program).empty()) __builtin_trap();
  vx::tpu::AsmResult again = vx::tpu::assemble(vx::tpu::print(r.program));
  if (!again.ok() || !(again.program == r.program)) __builtin_trap();

  vx::sim::Options o;
  o.config.hbmBytes = o.config.vmemBytes = o.config.smemBytes = 1 << 20;
  // Small enough that a generated [2048, 1024] tile or a 128-wide matmul
  // cannot make one input take seconds under the sanitizers.
  o.config.mxuDim = 32;
  o.config.accRows = 64;
  o.config.maxInstructions = 20000;
  o.config.traceMaxEvents = 2000;
  o.trace = true;
  o.args = {{"n", 3}};
  vx::sim::Result res = vx::sim::run(r.program, o);
  (void)vx::sim::report(res);
  if (res.status != vx::sim::Status::LoadError) {
    (void)vx::sim::chromeTraceJson(r.program, res);
    (void)vx::sim::timelineSvg(r.program, res);
  }
  return 0;
}

// What `vxc run --target tpu` prints of a vxsim run of a lowered kernel:
// the codegen emits the program, the driver runs it and reports.
#pragma once

#include <string>

#include "codegen/tpu/Tpu.h"
#include "sim/Sim.h"

namespace vx::driver {

// What `vxc run --target tpu` prints after a successful run: checksums (as
// the cpu target: outputs in parameter order, else `acc`), `result = `, then
// the simulator's totals (cycles, instructions, time, busy units).
std::string runReport(const codegen::tpu::Kernel& k, const sim::Result& r);

// For a run that faulted in one of the kernel's trap stubs or on a division
// by zero: the cpu target's wording, `runtime trap: integer overflow at
// FILE:LINE:COL`; empty for other faults (races, DMAs out of bounds), which
// are the simulator's to report.
std::string trapMessage(const codegen::tpu::Kernel& k, const sim::Result& r);

}  // namespace vx::driver
